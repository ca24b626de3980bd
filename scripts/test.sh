#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that every C file is formatted as .clang-format says
# (scripts/format.sh --check), then builds onyx with gcc and with clang (warnings are errors) and runs the whole
# test suite with each: unit tests, spec examples, generated cases, Debian's
# ONNX backend tests and the bad-model suite. Then the hardening runs: the
# suite under ASan+UBSan, the fuzzers for a minute each, ThreadSanitizer on
# the threaded tests, and valgrind memcheck (scripts/hardening.sh). Last, the
# cross builds (scripts/cross.sh, which installs its compilers and
# emulators): aarch64, armhf, i686, s390x and riscv64 under qemu-user,
# Windows x86-64 under wine64, wasm32 and the JavaScript package under Node;
# and the bare-metal Cortex-M3 build under QEMU's mps2-an385
# (scripts/baremetal.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/format.sh --check
jobs="$(nproc)"
for cc in gcc clang; do
  dir="build-test-$cc"
  echo "== $cc =="
  CC="$cc" cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$dir" -j"$jobs"
  # The slow tests (every float32 pattern, the digests remade by numpy) and
  # the reduced builds (each its own library build) check the same code
  # and data under either compiler: gcc runs them.
  slow=()
  [ "$cc" = gcc ] || slow=(-LE '^(slow|buildconfig)$')
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" "${slow[@]}"
done
SKIP_DEPS=1 bash scripts/hardening.sh
bash scripts/cross.sh
bash scripts/baremetal.sh
