#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The portable kernels' instructions per element on riscv64 and armv7
# (armhf), counted under qemu-user, beside bench/kernel_cost.sh's x86-64
# callgrind figures. Debian's qemu has no TCG plugins, so the count comes
# from its execution trace: with -singlestep every translated block is one
# guest instruction, and -d nochain,exec logs each block it runs with the
# name of its function. tests/check_kernel_cost.c --labels runs every
# portable kernel on N elements of random, all-zero and constant input
# between two marker functions; the instructions between the markers are
# the call's. The default build flags of each target have no SIMD for the
# compiler to vectorize with (rv64gc; Debian armhf's VFPv3-D16), so these
# are the kernels such a core runs. A count that moves more than 10%
# between random and constant input says that the kernel branches on its
# data there (FAIL; the exit status is 1).
#
#   bash bench/qemu_cost.sh [TARGET...] [N=10000]   targets: riscv64 armhf (default both)
#
# Needs Debian's gcc-<triple> and qemu-user-static (scripts/cross.sh
# installs them). Build folders: build-qcost-<target>/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
n=10000
for a in "$@"; do
  case "$a" in
    N=*) n="${a#N=}" ;;
    riscv64 | armhf) targets+=("$a") ;;
    *) echo "qemu_cost.sh: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(riscv64 armhf)
status=0
for t in "${targets[@]}"; do
  case "$t" in
    riscv64) triple=riscv64-linux-gnu qemu=qemu-riscv64-static ;;
    armhf) triple=arm-linux-gnueabihf qemu=qemu-arm-static ;;
  esac
  dir="build-qcost-$t"
  cmake -S . -B "$dir" --toolchain "cmake/toolchains/$t-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DONYX_BUILD_TESTS=OFF >/dev/null
  cmake --build "$dir" --target onyx_static -j"$(nproc)" >/dev/null
  "$triple-gcc" -std=c11 -O2 -static -D_POSIX_C_SOURCE=200809L '-DONYX_VALGRIND=""' -Iinclude -Isrc \
    tests/check_kernel_cost.c "$dir/libonyx.a" -lm -o "$dir/check_kernel_cost" 2>"$dir/link.log" ||
    { cat "$dir/link.log" >&2; exit 1; }
  # Labels on stdout, the trace on stderr, counted as it streams.
  labels="$(mktemp)"
  counts="$("$qemu" -singlestep -d nochain,exec "$dir/check_kernel_cost" --labels "$n" 2>&1 >"$labels" |
    awk '$NF == "onyx_cost_mark_begin" { on = 1; c = 0; next }
         $NF == "onyx_cost_mark_end" { if (on) print c; on = 0; next }
         on && /^Trace / { c++ }')"
  echo "== $t ($triple-gcc $("$triple-gcc" -dumpversion), -O3 as the library's Release build): instructions per element, $n elements"
  echo "table    op    type       random    zero  constant"
  paste -d' ' "$labels" <(printf '%s\n' "$counts") | awk -v n="$n" '
    $1 != "portable" { next }
    { key = $2 " " $3; per[key, $4] = $5 / n; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    END {
      bad = 0
      for (i = 1; i <= k; i++) {
        key = order[i]; r = per[key, "random"]; z = per[key, "zero"]; c = per[key, "constant"]
        fail = (z > r * 1.1 || z < r * 0.9 || c > r * 1.1 || c < r * 0.9)
        bad += fail
        split(key, f, " ")
        printf "%s portable %-5s %-9s %7.2f %7.2f %7.2f\n", fail ? "FAIL" : "ok  ", f[1], f[2], r, z, c
      }
      exit bad > 0
    }' || status=1
  rm -f "$labels"
done
exit "$status"
