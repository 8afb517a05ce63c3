#!/usr/bin/env bash
# Checks that the project's own C, C++ and CUDA sources follow .clang-format
# (LLVM style), with the clang-format of the LLVM the project builds with.
# Usage: scripts/check-format.sh [--fix] [FILE...]
#   no FILE: every tracked *.c, *.cpp, *.h, *.hpp, *.cu, *.cuh file.
#   --fix:   rewrite the files instead of reporting.
# Exit status 1 on a drift (clang-format names each file and line).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
CLANG_FORMAT=${CLANG_FORMAT:-$(command -v clang-format-22 || true)}
if [ -z "$CLANG_FORMAT" ] || ! [ -x "$CLANG_FORMAT" ]; then
  echo "check-format: clang-format-22 not found (scripts/install-deps.sh installs it; or set CLANG_FORMAT)" >&2
  exit 2
fi
fix=0
if [ "${1:-}" = --fix ]; then fix=1; shift; fi
cd "$root"
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh')
fi
if [ "$fix" = 1 ]; then
  "$CLANG_FORMAT" -i --style=file "${files[@]}"
  exit 0
fi
# One clang-format run over every file; its diagnostics name each
# drifting file (FILE:LINE:COL: error: code should be clang-formatted).
out=$("$CLANG_FORMAT" --dry-run --Werror --style=file "${files[@]}" 2>&1) || true
mapfile -t bad < <(printf '%s\n' "$out" |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' |
  awk '!seen[$0]++')
[ ${#bad[@]} -gt 0 ] && printf '%s\n' "$out" | head -40 >&2
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} file(s) drift from .clang-format:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"
