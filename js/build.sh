#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes the package in js/ from a WebAssembly build (what npm pack takes;
# none of it is committed):
#
#   bash js/build.sh [--test] BUILD_DIR
#
# BUILD_DIR is a build through cmake/toolchains/wasm32-wasi.cmake; the
# module is its onyx-lib.wasm (target onyx_wasm_lib), built here if needed.
# Installs the package's npm dependencies from package-lock.json (npm ci)
# when node_modules/ is missing, copies the module and the repository's
# LICENSE in, and builds the CommonJS entry (tools/build-cjs.mjs).
# With --test, then runs the package's tests (node --test in js/: the API,
# the findings, the conformance cases of ONYX_JS_CASES and Debian's, the
# TypeScript check, npm pack with an install, and test/browser.test.js,
# which runs all of it in Chromium) and prints "N passed, N failed"; then
# sizes the module (tools/sizes.sh: the full one and that of one op and
# type, which fails over 32 KB).
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
cp ../LICENSE LICENSE
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  start=$SECONDS
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  echo "js: npm ci in $((SECONDS - start)) s"
fi
node tools/build-cjs.mjs
[ "$run_tests" = 1 ] || exit 0
rc=0
out="$(ONYX_JS_ARTIFACTS="${ONYX_JS_ARTIFACTS:-$build/js-artifacts}" node --test test/*.test.js 2>&1)" || rc=$?
# The lines the tests print about themselves (sizes, what ran, SKIPs).
printf '%s\n' "$out" | sed -n 's/^# \(js: .*\)/\1/p; s/^# \(SKIP .*\)/\1/p'
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | grep -E -B2 -A12 '^ *not ok' | head -80
bash tools/sizes.sh "$build" || rc=1
pass="$(printf '%s\n' "$out" | sed -n 's/^# pass //p')"
fail="$(printf '%s\n' "$out" | sed -n 's/^# fail //p')"
echo "${pass:-0} passed, ${fail:-0} failed"
exit "$rc"
