#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds onyx for a Cortex-M3 microcontroller (cmake/toolchains/cortex-m3.cmake:
# arm-none-eabi-gcc, newlib, no files, no threads) and runs it under QEMU's
# mps2-an385 board with semihosting:
#
#   1. the conformance image: the generated spec, ops and graphs cases
#      packed into the image (baremetal/pack_cases.py: all that fit in the
#      board's 4 MB code memory; cases that need files are left out, with
#      the count and why), run by baremetal/runner.c, each session in an
#      arena; prints "N passed, N failed";
#   2. the size image (baremetal/size_main.c): one Ceil model loaded from
#      memory and run in a static arena of exactly the size
#      onyx_session_arena_size() gave, which must work, and one byte less,
#      which must fail; prints arm-none-eabi-size and where the bytes come
#      from (baremetal/map_sizes.py).
#
# Exits non-zero on any failure, and when QEMU runs past
# ONYX_BAREMETAL_TIMEOUT seconds (default 600). Installs its packages with
# apt-get where missing (SKIP_DEPS=1 skips that). Builds in build-baremetal/
# (git-ignored). Usage: scripts/baremetal.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="$root/build-baremetal"
jobs="$(nproc)"
limit="${ONYX_BAREMETAL_TIMEOUT:-600}"
start=$SECONDS

install_deps() {
  local missing=() p
  for p in gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
}
[ "${SKIP_DEPS:-0}" = 1 ] || { bash scripts/deps.sh; install_deps; }
mkdir -p "$out"

# The cases, generated on the host by Debian's Python (numpy, onnx) from
# the op registry's tables (list_ops, built for the host), as
# scripts/cross.sh does; made again when a generator file is newer.
cases="$out/cases"
if [ ! -f "$cases/stamp" ] || [ -n "$(find tests/gen -newer "$cases/stamp" -print -quit)" ]; then
  cmake -S . -B "$out/host" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$out/host" --target list_ops -j"$jobs" >/dev/null
  rm -rf "$cases"
  "$out/host/tests/list_ops" "$out/host/ops.txt"
  /usr/bin/python3 -B tests/gen/gen_cases.py "$cases" "$out/host/ops.txt" >/dev/null
  touch "$cases/stamp"
fi

cmake -S . -B "$out/lib" --toolchain cmake/toolchains/cortex-m3.cmake -DCMAKE_BUILD_TYPE=Release \
  >"$out/configure.log" 2>&1 || { cat "$out/configure.log"; exit 1; }
cmake --build "$out/lib" -j"$jobs" >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }

# The images: the board's startup code and memory map, semihosting I/O
# (rdimon), sections the program does not reach dropped. Messages are cut
# to fit their buffers on purpose, hence -Wno-format-truncation.
cflags=(-mcpu=cortex-m3 -mthumb -Os -std=c11 -Wall -Wextra -Werror -Wno-format-truncation
  -ffunction-sections -fdata-sections -Iinclude)
image() { # OUTPUT BLOB_FILE SOURCE [FLAGS...]
  local elf="$1" blob="$2" src="$3"
  shift 3
  arm-none-eabi-gcc "${cflags[@]}" "$@" -DONYX_BLOB_FILE="\"$blob\"" baremetal/startup.c "$src" \
    baremetal/blob.S -T baremetal/mps2-an385.ld -nostartfiles --specs=rdimon.specs \
    -Wl,--gc-sections -Wl,-Map="${elf%.elf}.map" "$out/lib/libonyx.a" -lm -o "$elf"
}
qemu() { # ELF: its output on stdout; QEMU's exit status (124: timed out)
  timeout "$limit" qemu-system-arm -M mps2-an385 -cpu cortex-m3 -nographic -semihosting \
    -kernel "$1" </dev/null
}

# 1. Conformance. The code memory holds the program too: 3.5 MiB for cases.
/usr/bin/python3 -B baremetal/pack_cases.py "$out/cases.bin" $((3584 * 1024)) \
  "$cases/spec" "$cases/ops" "$cases/graphs"
image "$out/onyx-tests.elf" "$out/cases.bin" baremetal/runner.c
t0=$SECONDS
rc=0
qemu "$out/onyx-tests.elf" | tee "$out/tests.log" || rc=$?
echo "conformance under QEMU: $((SECONDS - t0)) s"
if [ "$rc" -eq 124 ]; then
  echo "baremetal.sh: the conformance image ran past ${limit} s" >&2
  exit 1
fi
if [ "$rc" -ne 0 ] || ! grep -Eq '^[0-9]+ passed, 0 failed$' "$out/tests.log"; then
  echo "baremetal.sh: the conformance image failed (exit status $rc)" >&2
  exit 1
fi

# 2. Sizes: the arena the Ceil model needs, measured on the target, then
# the image with exactly that arena, and one byte less.
model="$cases/spec/test_ceil_example/model.onnx"
image "$out/measure.elf" "$model" baremetal/size_main.c -DONYX_ARENA_SIZE=0
arena="$(qemu "$out/measure.elf" | sed -n 's/^arena \([0-9]*\)$/\1/p')"
[ -n "$arena" ] || { echo "baremetal.sh: the arena size was not printed" >&2; exit 1; }
image "$out/size-less.elf" "$model" baremetal/size_main.c -DONYX_ARENA_SIZE=$((arena - 1))
if qemu "$out/size-less.elf"; then
  echo "baremetal.sh: the Ceil model ran in an arena of $((arena - 1)) bytes, below the size given" >&2
  exit 1
fi
image "$out/size.elf" "$model" baremetal/size_main.c -DONYX_ARENA_SIZE="$arena"
qemu "$out/size.elf" || { echo "baremetal.sh: the size image failed" >&2; exit 1; }
echo "one Ceil model (spec/test_ceil_example) runs in an arena of $arena bytes (one less fails)"
echo "size image (startup, main, onyx, newlib): arm-none-eabi-size"
arm-none-eabi-size "$out/size.elf" | sed 's/^/  /'
echo "where its bytes come from (the arena is main's bss):"
/usr/bin/python3 -B baremetal/map_sizes.py "$out/size.map" | tee "$out/sizes.txt"
code="$(sed -n 's/^  onyx: \([0-9]*\) bytes.*/\1/p' "$out/sizes.txt")"
# onyx formats its messages itself (src/core/format.c): a printf in the
# image (newlib's costs about 23 KB) means some call slipped back to it.
if arm-none-eabi-nm "$out/size.elf" | grep -qE ' [Tt] _?(v?s?n?printf|_?svfprintf_r|_vfprintf_r)$'; then
  echo "baremetal.sh: the size image links a printf:" >&2
  arm-none-eabi-nm "$out/size.elf" | grep -E ' [Tt] _?(v?s?n?printf|_?svfprintf_r|_vfprintf_r)$' >&2
  exit 1
fi
echo "no printf linked (messages go through onyx's own formatter)"
verdict() { [ "$1" -lt "$2" ] && echo "met" || echo "not met"; }
echo "goals: onyx's code under 32 KB: $(verdict "$code" 32768) ($code bytes);" \
  "a one-node model's arena under 4 KB: $(verdict "$arena" 4096) ($arena bytes)"
echo "baremetal.sh: done in $((SECONDS - start)) s"
