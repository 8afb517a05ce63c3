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
bad=()
for f in "${files[@]}"; do
  if ! out=$("$CLANG_FORMAT" --dry-run --Werror --style=file "$f" 2>&1); then
    bad+=("$f")
    [ ${#bad[@]} -le 3 ] && printf '%s\n' "$out" | head -20 >&2
  fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} file(s) drift from .clang-format:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"
