#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Formats every C source and header of the project with clang-format and the
# checked-in .clang-format, or with --check, lists the files that differ and
# exits 1 (CI runs the check). tests/emu/immintrin.h is left alone: it mirrors
# the layout of the intrinsics it stands in for.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt="${CLANG_FORMAT:-clang-format}"
if ! command -v "$fmt" >/dev/null; then
  echo "format.sh: $fmt not found (apt-get install clang-format)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^tests/emu/immintrin\.h$')
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    "$fmt" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'format.sh: not formatted (run bash scripts/format.sh): %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format.sh: ${#files[@]} files formatted as .clang-format says"
else
  "$fmt" -i "${files[@]}"
fi
