#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-builds onyx for other Linux architectures with Debian's cross
# compilers and runs the tests under qemu-user:
#
#   aarch64, armhf, i686, s390x   the CTest suite's tests that run target
#                                 programs (cmocka from multiarch
#                                 libcmocka-dev:<arch>), then the
#                                 conformance suites through the onyx command;
#                                 aarch64 also builds and runs test_simd with
#                                 Clang (its FEAT_FP16 kernel table)
#   riscv64                       the conformance suites through the onyx
#                                 command (riscv64 is no Debian 12 release
#                                 architecture: there is no cmocka for it);
#                                 riscv64 and armhf also count the portable
#                                 kernels' instructions under qemu
#                                 (bench/qemu_cost.sh)
#   wasm                          WebAssembly (wasm32-wasi, clang): the SIMD128
#                                 kernel check and the conformance suites
#                                 through onyx.wasm under Node's WASI, then
#                                 the JavaScript package's tests (js/)
#   windows                       x86-64 with mingw-w64, run under wine64:
#                                 the conformance suites through onyx.exe,
#                                 the Windows platform test (there is no
#                                 cmocka for mingw-w64) and a program built
#                                 against the package cmake --install makes
#
# The conformance suites are the generated spec, ops and graphs cases,
# Debian's ONNX backend data (libonnx-testdata) and the bad-model suite.
# Prints each target's time. Usage:
#
#   scripts/cross.sh [TARGET...]     default: aarch64 armhf i686 s390x riscv64 windows wasm
#
# Set SKIP_DEPS=1 to skip installing packages. Build folders are
# build-cross-<target>/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(aarch64 armhf i686 s390x riscv64 windows wasm)
jobs="$(nproc)"

triple_of() {
  case "$1" in
    aarch64) echo aarch64-linux-gnu ;;
    armhf) echo arm-linux-gnueabihf ;;
    i686) echo i686-linux-gnu ;;
    s390x) echo s390x-linux-gnu ;;
    riscv64) echo riscv64-linux-gnu ;;
    wasm) echo wasm32-wasi ;;
    windows) echo x86_64-w64-mingw32 ;;
    *) echo "cross.sh: unknown target '$1'" >&2; exit 2 ;;
  esac
}
# The Debian architecture whose multiarch cmocka the target's unit tests use
# (empty: none).
cmocka_arch_of() {
  case "$1" in
    aarch64) echo arm64 ;;
    armhf) echo armhf ;;
    i686) echo i386 ;;
    s390x) echo s390x ;;
    *) echo "" ;;
  esac
}

install_deps() {
  local pkgs=() arches=() missing=() t p
  for t in "${targets[@]}"; do
    local a
    a="$(cmocka_arch_of "$t")"
    [ "$t" = wasm ] || pkgs+=(qemu-user-static)
    case "$t" in
      aarch64) pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
      armhf) pkgs+=(gcc-arm-linux-gnueabihf libc6-dev-armhf-cross) ;;
      i686) pkgs+=(gcc-i686-linux-gnu libc6-dev-i386-cross) ;;
      s390x) pkgs+=(gcc-s390x-linux-gnu libc6-dev-s390x-cross) ;;
      riscv64) pkgs+=(gcc-riscv64-linux-gnu libc6-dev-riscv64-cross) ;;
      windows) pkgs+=(gcc-mingw-w64-x86-64 wine64) ;;
      # Node runs the modules; any nodejs package that gives node and npm
      # will do (Debian 12's is Node 18), so it is installed only if absent.
      wasm)
        pkgs+=(clang lld-14 llvm-14 wasi-libc libclang-rt-14-dev-wasm32)
        command -v node >/dev/null || pkgs+=(nodejs)
        command -v npm >/dev/null || pkgs+=(npm)
        # The JavaScript package's browser test (js/test/browser.test.js).
        pkgs+=(chromium)
        ;;
    esac
    if [ -n "$a" ]; then
      arches+=("$a")
      pkgs+=("libcmocka-dev:$a")
    fi
  done
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  export DEBIAN_FRONTEND=noninteractive
  for a in "${arches[@]}"; do
    dpkg --print-foreign-architectures | grep -qx "$a" || dpkg --add-architecture "$a"
  done
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
}

[ "${SKIP_DEPS:-0}" = 1 ] || { bash scripts/deps.sh; install_deps; }

# The conformance cases are generated once, on the host, by Debian's Python
# (numpy, onnx); they are data, the same for every target.
# The generator reads the op registry's version tables from list_ops, built
# for the host; the cases are made again when a generator file is newer.
cases="$root/build-cross-cases"
if [ ! -f "$cases/stamp" ] || [ -n "$(find tests/gen -newer "$cases/stamp" -print -quit)" ]; then
  host="$root/build-cross-host"
  cmake -S . -B "$host" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$host" --target list_ops -j"$jobs" >/dev/null
  rm -rf "$cases"
  "$host/tests/list_ops" "$host/ops.txt"
  /usr/bin/python3 -B tests/gen/gen_cases.py "$cases" "$host/ops.txt"
  touch "$cases/stamp"
fi
debian_cases=()
while IFS= read -r c; do
  debian_cases+=("/usr/share/libonnx-testdata/data/$c")
done < <(sed -n '/^set(ONYX_DEBIAN_CASES/,/)/p' tests/conformance.cmake | sed '1d;s/)//' | awk 'NF{print $1}')

# The qemu command line the target's toolchain file chose (see
# cmake/toolchains/linux-gnu-common.cmake for why -L only sometimes).
emulator_of() {
  local dir="$1"
  sed -n 's/^ONYX_CROSS_EMULATOR:[A-Z]*=//p' "$dir/CMakeCache.txt" | tr ';' ' '
}

# Runs one conformance suite; its last line is "N passed, N failed".
suite() {
  local name="$1"
  shift
  local out rc=0
  out="$("$@" 2>&1)" || rc=$?
  printf '  %-10s %s\n' "$name" "$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -1)"
  # What js/'s tests say about themselves (each loading mode, the sizes).
  printf '%s\n' "$out" | sed -n 's/^js: /    /p'
  if [ "$rc" -ne 0 ]; then
    printf '%s\n' "$out" | grep -v ': ok$' | tail -20
    return 1
  fi
}

# onyx selftest --quick through the target's onyx: every bit pattern of the
# 8- and 16-bit types and float32's subset, against numpy's digests.
# Its output goes through a file: Node's WASI writes to a full pipe fail
# (EAGAIN) rather than wait, and the quick set prints about 60 KB.
selftest_suite() {
  local out rc=0 start=$SECONDS file
  file="$(mktemp)"
  "$@" selftest --quick >"$file" 2>&1 || rc=$?
  out="$(cat "$file")"
  rm -f "$file"
  printf '  %-10s %s, in %d s\n' selftest "$(printf '%s\n' "$out" | grep -E '^selftest:' | tail -1)" \
    $((SECONDS - start))
  if [ "$rc" -ne 0 ]; then
    printf '%s\n' "$out" | grep -v '^ok' | tail -20
    return 1
  fi
}

# conformance DIR CHECKER [ONYX [BAD]]: ONYX is the command, DIR/onyx by
# default; BAD the bad-model cases, all of them by default.
conformance() {
  local dir="$1" checker="$2" onyx="${3:-$1/onyx}" bad_cases="${4:-$cases/bad}" emu bad=0
  read -r -a emu <<<"$(emulator_of "$dir")"
  echo "  $("${emu[@]}" "$onyx" --version)"
  for g in spec ops graphs; do
    suite "$g" "${emu[@]}" "$onyx" test "$cases/$g" || bad=1
  done
  suite "graphs x3" "${emu[@]}" "$onyx" test --threads 3 "$cases/graphs" || bad=1
  suite debian "${emu[@]}" "$onyx" test "${debian_cases[@]}" || bad=1
  suite bad "${emu[@]}" "$checker" "$bad_cases" || bad=1
  # Where CTest ran, its selftest.check already ran the quick set.
  [ -n "${SELFTEST_DONE:-}" ] || selftest_suite "${emu[@]}" "$onyx" || bad=1
  return "$bad"
}

# Builds check_bad_models by hand where the test suite is not configured.
build_checker() {
  local dir="$1" triple="$2"
  "$triple-gcc" -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64 -Iinclude -Isrc tests/check_bad_models.c \
    "$dir/libonyx.a" -lm -pthread -o "$dir/check_bad_models"
}

# The Windows target: no cmocka for mingw-w64, so the programs that need
# none (the bad-model checker, the Windows platform test) and the
# conformance suites, all under wine64.
# The Windows package as a user gets it: `cmake --install` into a fresh
# prefix must hold onyx.dll in bin/ (beside the programs that load it), the
# import library and the header, and none of the Linux-only parts (shared
# objects or links to them, the Python package, which loads libonyx.so,
# the man page, which Windows has no man(1) to read, -pthread in onyx.pc). Then the README's example, compiled against the
# prefix's include/ and import library alone, runs under wine with the
# onyx.dll copied from the prefix's bin/ beside it.
windows_install() {
  local dir="$1" prefix="$root/$1/install" use="$root/$1/install-use" emu f out bad=0
  read -r -a emu <<<"$(emulator_of "$dir")"
  rm -rf "$prefix" "$use"
  cmake --install "$dir" --prefix "$prefix" >"$dir/cross-install.log" 2>&1 ||
    { cat "$dir/cross-install.log"; return 1; }
  for f in bin/onyx.dll bin/onyx.exe lib/libonyx.dll.a lib/libonyx.a include/onyx.h \
    lib/pkgconfig/onyx.pc lib/cmake/onyx/onyxConfig.cmake; do
    [ -f "$prefix/$f" ] || { echo "  install    FAILED: $f is not installed"; bad=1; }
  done
  local linux
  linux="$(cd "$prefix" && find . \( -name '*.so' -o -name '*.so.*' -o -name 'python*' -o -path './share/man' \) -print | sed 's|^\./||')"
  if grep -q -- '-pthread' "$prefix/lib/pkgconfig/onyx.pc"; then linux="$linux lib/pkgconfig/onyx.pc:-pthread"; fi
  [ -z "$linux" ] || { echo "  install    FAILED: Linux-only parts installed: $linux" | tr '\n' ' '; echo; bad=1; }
  [ "$bad" = 0 ] || return 1
  mkdir -p "$use"
  x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -DONYX_DLL -I"$prefix/include" \
    examples/example.c "$prefix/lib/libonyx.dll.a" -o "$use/example.exe" || return 1
  cp "$prefix/bin/onyx.dll" "$use/"
  if out="$("${emu[@]}" "$use/example.exe" 2>&1 | tr -d '\r')" && [ "$out" = "-2 -1 -0 0 1 2 2 2 " ]; then
    echo "  install    $(cd "$prefix" && find . -type f | wc -l) files, bin/onyx.dll, no Linux-only parts; example against it: $out"
  else
    echo "  install    example against the installed package FAILED: $out"
    return 1
  fi
}

run_windows() {
  local dir="build-cross-windows" bad=0
  mkdir -p "$dir"
  cmake -S . -B "$dir" --toolchain cmake/toolchains/x86_64-w64-mingw32.cmake \
    -DCMAKE_BUILD_TYPE=Release -DONYX_BUILD_TESTS=OFF >"$dir/cross-configure.log" 2>&1 ||
    { cat "$dir/cross-configure.log"; return 1; }
  if ! cmake --build "$dir" -j"$jobs" >"$dir/cross-build.log" 2>&1; then
    grep -E 'error:|Error [0-9]' "$dir/cross-build.log" | head -20 | sed 's/^/    /'
    return 1
  fi
  local cc=(x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror
    -D__USE_MINGW_ANSI_STDIO=1 -D_FILE_OFFSET_BITS=64 -Iinclude -Isrc)
  "${cc[@]}" tests/check_bad_models.c "$dir/libonyx.a" -o "$dir/check_bad_models.exe" || return 1
  "${cc[@]}" tests/win32/test_win32_os.c "$dir/libonyx.a" -o "$dir/test_win32_os.exe" || return 1
  # The README's example as a DLL user: through the import library, with
  # ONYX_DLL (dllimport); it runs beside onyx.dll.
  "${cc[@]}" -DONYX_DLL examples/example.c "$dir/libonyx.dll.a" -o "$dir/example_dll.exe" || return 1
  ls -l "$dir/onyx.exe" "$dir/onyx.dll" "$dir/libonyx.dll.a" "$dir/libonyx.a" |
    awk '{printf "  %-10s %s bytes\n", $NF, $5}' | sed "s|$dir/||"
  echo "  SKIP unit tests: no cmocka for mingw-w64 (Debian packages none, and no deb-src to build it)"
  local emu out
  read -r -a emu <<<"$(emulator_of "$dir")"
  if out="$("${emu[@]}" "$dir/test_win32_os.exe" "$cases/bad/external_data_length_wrong" 2>&1)"; then
    echo "  win32 os   $(printf '%s\n' "$out" | tail -1)"
  else
    printf '%s\n' "$out" | tail -20
    bad=1
  fi
  printf '%s\n' "$out" | grep '^SKIP' | sed 's/^/  /' || true
  # onyx.dll exports the public API and nothing else.
  local exports others
  exports="$(x86_64-w64-mingw32-objdump -p "$dir/onyx.dll" |
    sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' | sed 1d | awk 'NF>=3{print $NF}')"
  others="$(printf '%s\n' "$exports" | grep -v '^onyx_[a-z]' || true)"
  echo "  onyx.dll   $(printf '%s\n' "$exports" | grep -c .) exports${others:+, not onyx_*: $others}"
  [ -z "$others" ] || bad=1
  if out="$("${emu[@]}" "$dir/example_dll.exe" 2>&1 | tr -d '\r')" && [ "$out" = "-2 -1 -0 0 1 2 2 2 " ]; then
    echo "  example    through onyx.dll: $out"
  else
    echo "  example    through onyx.dll FAILED: $out"
    bad=1
  fi
  windows_install "$dir" || bad=1
  # wine 8.0 shows a Linux symbolic link as the file or folder it points
  # to, never as a reparse point, so the bad cases whose folder holds one
  # cannot pass under it; test_win32_os.exe checks the refusal wherever
  # Windows can make a link.
  # The others are linked, not copied, so that their hard links stay.
  local bad_cases="$root/$dir/bad-cases" c
  rm -rf "$bad_cases"
  mkdir -p "$bad_cases"
  for c in "$cases"/bad/*/; do
    c="$(basename "$c")"
    if [ -n "$(find "$cases/bad/$c" -type l -print -quit)" ]; then
      echo "  SKIP bad case $c: holds a symbolic link, which wine shows as its target"
    else
      ln -s "$cases/bad/$c" "$bad_cases/$c"
    fi
  done
  conformance "$dir" "$dir/check_bad_models.exe" "$dir/onyx.exe" "$bad_cases" || bad=1
  return "$bad"
}

run_target() {
  [ "$1" != windows ] || { run_windows; return; }
  local t="$1" dir="build-cross-$1" tests=OFF
  [ -z "$(cmocka_arch_of "$t")" ] || tests=ON
  mkdir -p "$dir"
  cmake -S . -B "$dir" --toolchain "cmake/toolchains/$t-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DONYX_BUILD_TESTS="$tests" >"$dir/cross-configure.log" 2>&1 ||
    { cat "$dir/cross-configure.log"; return 1; }
  local bad=0 checker="$dir/check_bad_models"
  # -k: a test program that does not compile for the target fails (and its
  # CTest test with it), but everything else still builds and runs.
  if ! cmake --build "$dir" -j"$jobs" -- -k >"$dir/cross-build.log" 2>&1; then
    echo "  build FAILED (what did build is tested below):"
    grep -E 'error:|Error [0-9]' "$dir/cross-build.log" | head -20 | sed 's/^/    /'
    bad=1
  fi
  [ -x "$dir/onyx" ] || return 1
  if [ "$tests" = ON ]; then
    checker="$dir/tests/check_bad_models"
    local out skip
    skip="$(script_tests_regex "$dir")"
    echo "  ctest: leaving out the tests that do not run a target program under qemu"
    echo "  (cmake -P scripts, valgrind, Python, installs, memory.run, which execs the target"
    echo "  onyx itself; the conformance suites follow):"
    echo "  $skip" | fold -w 100 | sed 's/^/    /'
    if out="$(ctest --test-dir "$dir" -j"$jobs" -E "$skip" 2>&1)"; then
      echo "  ctest      $(printf '%s\n' "$out" | grep 'tests passed' | tail -1)"
    else
      printf '%s\n' "$out" | tail -30
      bad=1
    fi
  else
    build_checker "$dir" "$(triple_of "$t")"
  fi
  SELFTEST_DONE="$([ "$tests" = OFF ] || echo 1)" conformance "$dir" "$checker" || bad=1
  [ "$t" != aarch64 ] || clang_fp16 || bad=1
  [[ "$t" != riscv64 && "$t" != armhf ]] || qemu_cost "$t" || bad=1
  return "$bad"
}

# The portable kernels' cost must not depend on their data on the targets
# without SIMD, where valgrind (x86-64 only) cannot look: instructions
# counted under qemu (bench/qemu_cost.sh), random against constant input.
qemu_cost() {
  local out rc=0
  out="$(bash bench/qemu_cost.sh "$1" N=2000 2>&1)" || rc=$?
  if [ "$rc" -ne 0 ]; then
    printf '%s\n' "$out" | grep -E 'FAIL|error|==' | head -40
    echo "  qemu cost FAILED: a portable kernel's instruction count depends on its data"
    return 1
  fi
  echo "  qemu cost  $(grep -c '^ok ' <<<"$out") portable kernels, each the same count on random, zero and constant input"
}

# AArch64 with Clang: the FEAT_FP16 kernels (kernels_neonfp16.c, compiled
# with their own flags) must build with Clang as with GCC, whose build is
# checked above. test_simd, built with Clang, checks that their table holds
# float16 Ceil and Floor and that each equals the scalar kernel.
clang_fp16() {
  local dir="build-cross-aarch64-clang" out
  mkdir -p "$dir"
  command -v clang >/dev/null || { echo "  clang fp16 SKIP: no clang"; return 0; }
  if ! { cmake -S . -B "$dir" --toolchain cmake/toolchains/aarch64-linux-gnu.cmake \
    -DCMAKE_C_COMPILER=clang -DCMAKE_C_COMPILER_TARGET=aarch64-linux-gnu \
    -DCMAKE_BUILD_TYPE=Release -DONYX_BUILD_TESTS=ON &&
    cmake --build "$dir" --target test_simd -j"$jobs"; } >"$dir/clang.log" 2>&1; then
    tail -20 "$dir/clang.log"
    echo "  clang fp16 FAILED: the Clang build of test_simd"
    return 1
  fi
  if ! out="$(ctest --test-dir "$dir" -R '^onyx\.unit\.test_simd$' -V 2>&1)" ||
    ! grep -q 'test_neonfp16_table: [1-9][0-9]* entries, each checked' <<<"$out"; then
    printf '%s\n' "$out" | tail -30
    echo "  clang fp16 FAILED: the FEAT_FP16 table is empty or wrong under Clang"
    return 1
  fi
  echo "  clang fp16 $(grep -o 'test_neonfp16_table: .*' <<<"$out" | head -1)"
}

# The CTest tests whose command does not start with the emulator: CTest
# puts it only in front of commands that name a target; those that go
# through cmake -P scripts, valgrind, Python or an install cannot run a
# foreign program.
script_tests_regex() {
  local dir="$1" emu
  read -r -a emu <<<"$(emulator_of "$dir")"
  ctest --test-dir "$dir" --show-only=json-v1 | /usr/bin/python3 -c '
import json, re, sys
tests = json.load(sys.stdin)["tests"]
# Fixture setups stay: they prepare data on the host (bench.smoke.models
# writes the models bench.smoke runs), and their tests need them.
def setup(t):
    return any(p["name"] == "FIXTURES_SETUP" for p in t.get("properties", []))
names = [t["name"] for t in tests
         if t.get("command", [""])[0] != sys.argv[1] and not setup(t)]
# memory.run starts the target onyx itself (fork and exec), which needs
# binfmt_misc, and measures the emulator'"'"'s memory rather than onyx'"'"'s.
names += [t["name"] for t in tests if t["name"] == "onyx.memory.run"]
print("^(" + "|".join(re.escape(n) for n in names) + ")$")' "${emu[0]}"
}

# WebAssembly: cmocka is not built for WASI, so the kernels are checked by
# check_kernels.wasm; the conformance suites run onyx.wasm under Node
# (js/tools/wasi-run.mjs, the build's emulator); then js/'s tests, with the
# library module this build made, in Node.js and in Chromium.
run_wasm() {
  local dir="$root/build-cross-wasm" bad=0 emu
  mkdir -p "$dir"
  cmake -S . -B "$dir" --toolchain cmake/toolchains/wasm32-wasi.cmake \
    -DCMAKE_BUILD_TYPE=Release >"$dir/cross-configure.log" 2>&1 ||
    { cat "$dir/cross-configure.log"; return 1; }
  cmake --build "$dir" -j"$jobs" >"$dir/cross-build.log" 2>&1 ||
    { grep -E 'error:|Error [0-9]' "$dir/cross-build.log" | head -20 | sed 's/^/    /'; return 1; }
  read -r -a emu <<<"$(emulator_of "$dir")"
  suite kernels "${emu[@]}" "$dir/check_kernels.wasm" || bad=1
  conformance "$dir" "$dir/check_bad_models.wasm" "$dir/onyx.wasm" || bad=1
  # js/'s tests, Chromium's included: every suite's cases in Node.js and in
  # the browser (screenshots and sizes in $dir/js-artifacts/).
  ONYX_JS_CASES="$cases/spec:$cases/ops:$cases/graphs:$cases/bad" suite js bash js/build.sh --test "$dir" || bad=1
  return "$bad"
}

status=0
total_start=$SECONDS
for t in "${targets[@]}"; do
  echo "== $t =="
  start=$SECONDS
  runner=run_target
  [ "$t" != wasm ] || runner=run_wasm
  if "$runner" "$t"; then result=ok; else result=FAILED; status=1; fi
  echo "== $t: $result in $((SECONDS - start)) s =="
done
echo "== cross: all targets in $((SECONDS - total_start)) s =="
exit "$status"
