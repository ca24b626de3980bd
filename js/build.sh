#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Puts the library module a WebAssembly build made into the package, where
# npm pack takes it from (it is built, never committed):
#
#   bash js/build.sh [--test] BUILD_DIR
#
# BUILD_DIR is a build through cmake/toolchains/wasm32-wasi.cmake; the
# module is its onyx-lib.wasm (target onyx_wasm_lib), built here if needed.
# With --test, then runs the package's tests (node --test in js/: the API,
# the conformance cases of ONYX_JS_CASES and Debian's, npm pack and an
# offline install) and prints "N passed, N failed".
set -euo pipefail
run_tests=0
if [ "${1:-}" = --test ]; then
  run_tests=1
  shift
fi
[ $# -eq 1 ] || { echo "usage: js/build.sh [--test] BUILD_DIR" >&2; exit 2; }
build="$(cd "$1" && pwd)"
cd "$(dirname "$0")"
cmake --build "$build" --target onyx_wasm_lib >/dev/null
cp "$build/onyx-lib.wasm" onyx-lib.wasm
[ "$run_tests" = 1 ] || exit 0
rc=0
out="$(node --test 2>&1)" || rc=$?
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | grep -E -B2 -A12 '^ *not ok' | head -60
pass="$(printf '%s\n' "$out" | sed -n 's/^# pass //p')"
fail="$(printf '%s\n' "$out" | sed -n 's/^# fail //p')"
echo "${pass:-0} passed, ${fail:-0} failed"
exit "$rc"
