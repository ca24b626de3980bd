#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The portable kernels' instructions per element as docs/performance.md
# gives them: builds check_kernel_cost (Release) with the compiler's
# vectorizer off (-fno-tree-vectorize, a stand-in for a core without SIMD,
# and ONYX_PORTABLE_SWAR: the word forms such a core builds, src/kernels/scalar.c)
# in build-novec/ and runs it under callgrind on N elements (default
# 1000000), printing the portable rows: random, zero, constant input.
# Usage: bash bench/kernel_cost.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000000}"
build="${ONYX_NOVEC_BUILD:-build-novec}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=-fno-tree-vectorize -DONYX_PORTABLE_SWAR" >/dev/null
cmake --build "$build" --target check_kernel_cost -j"$(nproc)" >/dev/null
# Its exit status is check_kernel_cost's: 1 where a count depends on the data.
status=0
out="$("$build/tests/check_kernel_cost" "$n")" || status=$?
grep -E '^(instructions|SKIP|FAIL|ok +portable)' <<<"$out" || true
exit "$status"
