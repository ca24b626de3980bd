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
#   1b. the self-test image (baremetal/selftest_main.c): onyx_selftest()
#      on the quick set, every digest against numpy's;
#   2. the size images (baremetal/size_main.c): one Ceil model loaded from
#      memory and run in a static arena of exactly the size
#      onyx_session_arena_size() gave, which must work, and one byte less,
#      which must fail; for the full build and two reduced builds
#      (tests/buildconfig/*.config), each plain and with -flto. Prints the
#      bytes each adds over a baseline image (baremetal/base_main.c), as
#      TensorFlow Lite Micro measures, and where the one-Ceil image's bytes
#      come from (baremetal/map_sizes.py). docs/embedded.md explains.
#
# ONYX_BAREMETAL_SIZES_ONLY=1 skips the conformance image.
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
image() { # OUTPUT BLOB_FILE SOURCE [FLAGS...], with the library $ONYX_LIB (default: the full one)
  local elf="$1" blob="$2" src="$3"
  shift 3
  arm-none-eabi-gcc "${cflags[@]}" "$@" -DONYX_BLOB_FILE="\"$blob\"" baremetal/startup.c "$src" \
    baremetal/blob.S -T baremetal/mps2-an385.ld -nostartfiles --specs=rdimon.specs \
    -Wl,--gc-sections -Wl,-Map="${elf%.elf}.map" "${ONYX_LIB:-$out/lib/libonyx.a}" -lm -o "$elf"
}
qemu() { # ELF: its output on stdout; QEMU's exit status (124: timed out)
  timeout "$limit" qemu-system-arm -M mps2-an385 -cpu cortex-m3 -nographic -semihosting \
    -kernel "$1" </dev/null
}

# 1. Conformance. The code memory holds the program too: 3.5 MiB for cases.
# ONYX_BAREMETAL_SIZES_ONLY=1 skips it (for measuring sizes).
if [ "${ONYX_BAREMETAL_SIZES_ONLY:-0}" != 1 ]; then
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
fi

# 1b. The self-test (baremetal/selftest_main.c): onyx_selftest() with the
# quick set, as `onyx selftest --quick` on a host, every digest against
# numpy's. Also skipped by ONYX_BAREMETAL_SIZES_ONLY=1.
if [ "${ONYX_BAREMETAL_SIZES_ONLY:-0}" != 1 ]; then
  : >"$out/empty.bin"
  image "$out/onyx-selftest.elf" "$out/empty.bin" baremetal/selftest_main.c
  t0=$SECONDS
  rc=0
  qemu "$out/onyx-selftest.elf" | tee "$out/selftest.log" || rc=$?
  echo "selftest under QEMU: $((SECONDS - t0)) s"
  if [ "$rc" -ne 0 ] || ! grep -Eq '^selftest: [0-9]+ kernel runs, 0 failed' "$out/selftest.log"; then
    echo "baremetal.sh: the self-test image failed (exit status $rc)" >&2
    exit 1
  fi
fi

# 2. Sizes, as TensorFlow Lite Micro measures its footprint: each size
# image minus the baseline image (baremetal/base_main.c: the same startup
# code, linker script and C library set-up, the same model bytes, an empty
# main), code plus constants plus initialised data, with arm-none-eabi-size.
# For three builds (docs/build-config.md): the full build, the four ops on
# float only, and one Ceil on float only; each as the plain -Os library and
# with link-time optimisation (-flto, the archive made with gcc-ar).
model="$cases/spec/test_ceil_example/model.onnx"
image "$out/base.elf" "$model" baremetal/base_main.c
base="$(arm-none-eabi-size "$out/base.elf" | awk 'NR == 2 {print $1 + $2}')"
sized() { # NAME LIB [FLAGS...]: builds, checks and sizes one size image; sets $added $arena
  local name="$1" lib="$2"
  shift 2
  local elf="$out/size-$name.elf"
  ONYX_LIB="$lib" image "$out/measure-$name.elf" "$model" baremetal/size_main.c \
    -DONYX_ARENA_SIZE=0 "$@"
  arena="$(qemu "$out/measure-$name.elf" | sed -n 's/^arena \([0-9]*\)$/\1/p')"
  [ -n "$arena" ] || { echo "baremetal.sh: $name: the arena size was not printed" >&2; exit 1; }
  ONYX_LIB="$lib" image "$out/size-less-$name.elf" "$model" baremetal/size_main.c \
    -DONYX_ARENA_SIZE=$((arena - 1)) "$@"
  if qemu "$out/size-less-$name.elf"; then
    echo "baremetal.sh: $name: the Ceil model ran in an arena of $((arena - 1)) bytes" >&2
    exit 1
  fi
  ONYX_LIB="$lib" image "$elf" "$model" baremetal/size_main.c -DONYX_ARENA_SIZE="$arena" "$@"
  qemu "$elf" || { echo "baremetal.sh: $name: the size image failed" >&2; exit 1; }
  # onyx formats its messages itself (src/core/format.c): a printf in the
  # image (newlib's costs about 23 KB) means some call slipped back to it.
  if arm-none-eabi-nm "$elf" | grep -qE ' [Tt] _?(v?s?n?printf|_?svfprintf_r|_vfprintf_r)$'; then
    echo "baremetal.sh: $name: the size image links a printf" >&2
    exit 1
  fi
  added=$(($(arm-none-eabi-size "$elf" | awk 'NR == 2 {print $1 + $2}') - base))
}
library() { # FOLDER CONFIG [CMAKE ARGS...]: a Cortex-M3 library of one build configuration
  local dir="$1" config="$2"
  shift 2
  cmake -S . -B "$dir" --toolchain cmake/toolchains/cortex-m3.cmake -DCMAKE_BUILD_TYPE=Release \
    -DONYX_BUILD_CONFIG="$config" "$@" >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
  cmake --build "$dir" -j"$jobs" >>"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
}
lto=(-DCMAKE_C_FLAGS_RELEASE="-Os -DNDEBUG -flto" -DCMAKE_AR="$(command -v arm-none-eabi-gcc-ar)"
  -DCMAKE_RANLIB="$(command -v arm-none-eabi-gcc-ranlib)")
echo "sizes (Cortex-M3, one Ceil model, spec/test_ceil_example): added bytes = size image minus"
echo "the baseline image (same startup, empty main: text+data $base), text+data, arm-none-eabi-size"
printf '  %-12s %-34s %9s %9s %7s\n' build configuration added "with LTO" arena
for build in full four-float ceil-float; do
  config=""
  [ "$build" = full ] || config="$root/tests/buildconfig/$build.config"
  if [ "$build" = full ]; then lib="$out/lib/libonyx.a"; else
    library "$out/lib-$build" "$config"
    lib="$out/lib-$build/libonyx.a"
  fi
  library "$out/lto-$build" "$config" "${lto[@]}"
  # At the link, LTO runs gcc's middle end over the whole program, and its
  # flow warnings across files are false here (payload.c's file id "maybe
  # uninitialized", an arena "freed" on a path only heap sessions take), so
  # the LTO images build with -w; the plain ones check the same sources
  # with -Werror.
  sized "$build-lto" "$out/lto-$build/libonyx.a" -flto=auto -w
  added_lto=$added
  sized "$build" "$lib"
  printf '  %-12s %-34s %9d %9d %7d\n' "$build" "${config:+tests/buildconfig/$build.config}" \
    "$added" "$added_lto" "$arena"
  eval "added_${build//-/_}=\$added_lto arena_${build//-/_}=\$arena"
done
echo "where the one-Ceil image's bytes come from (plain -Os; the arena is main's bss):"
/usr/bin/python3 -B baremetal/map_sizes.py "$out/size-ceil-float.map" | tee "$out/sizes.txt"
verdict() { [ "$1" -le "$2" ] && echo "met" || echo "not met"; }
echo "goals (docs/embedded.md): one Ceil at most 16384 bytes added with -flto:" \
  "$(verdict "$added_ceil_float" 16384) ($added_ceil_float);" \
  "its arena at most 1024 bytes: $(verdict "$arena_ceil_float" 1024) ($arena_ceil_float)"
# The one-Ceil figure that counts is the -flto one: a firmware built for
# size links with link-time optimisation (docs/embedded.md). What it has
# come down to: more is a regression, and fails; the goal is 16,384.
# Lower it when the image shrinks. (19,768 at 6842944; 18,448 since the
# reduced reader: attributes, metadata and tensor types by configuration;
# 18,112 with the session's tables sized by the model; 16,072 with the
# rounding entries computed, not tabled, in a build for size; 14,984 with
# the session builder's fusion and thread paths compiled out where the
# configuration leaves those out.)
added_most=14984
if [ "$added_ceil_float" -gt "$added_most" ]; then
  echo "baremetal.sh: the one-Ceil image (-flto) grew to $added_ceil_float bytes added" \
    "(at most $added_most)" >&2
  exit 1
fi
# What the one-Ceil arena has come down to (docs/embedded.md): more is a
# regression, and fails. Lower it when the arena shrinks. (2,416 at
# 135c729; 2,464 since dafff75, one step type for every node; 864 without
# fusion's tiles in a build that leaves fusion out.)
arena_most=864
if [ "$arena_ceil_float" -gt "$arena_most" ]; then
  echo "baremetal.sh: the one-Ceil arena grew to $arena_ceil_float bytes (at most $arena_most)" >&2
  exit 1
fi
echo "baremetal.sh: done in $((SECONDS - start)) s"
