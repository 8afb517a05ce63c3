#!/usr/bin/env bash
# The CI checks catch what they are for (ctest `ci-checks-detect`): a file
# that drifts from .clang-format fails scripts/check-format.sh, a comment or
# doc citing a file that does not exist fails scripts/check-citations.py,
# a warning fails a -Werror compile (which scripts/test.sh configures), and
# their clean counterparts pass.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
expect() { # expect STATUS WHAT COMMAND...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>&1
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"
    sed 's/^/  | /' "$tmp/out"
    failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}

# Formatting.
printf 'int  f( int x ){return x+1;}\n' >"$tmp/drift.cpp"
printf 'int f(int x) { return x + 1; }\n' >"$tmp/clean.cpp"
cp "$root/.clang-format" "$tmp/"
expect 1 "check-format fails on a drift" bash "$root/scripts/check-format.sh" "$tmp/drift.cpp"
grep -q "drift.cpp" "$tmp/out" || { echo "FAIL: the drift message names no file"; failures=$((failures + 1)); }
expect 0 "check-format passes a formatted file" bash "$root/scripts/check-format.sh" "$tmp/clean.cpp"

# Citations, in a scratch repository.
repo=$tmp/repo
mkdir -p "$repo/docs" "$repo/src" "$repo/scripts"
git -C "$repo" init -q
printf 'Guide: see docs/other.md and src/a.cpp.\n' >"$repo/docs/guide.md"
printf 'Other.\n' >"$repo/docs/other.md"
printf '// Spelled in docs/guide.md.\nint a;\n' >"$repo/src/a.cpp"
git -C "$repo" add -A
expect 0 "check-citations passes when every cited file exists" \
  python3 "$root/scripts/check-citations.py" --root "$repo"
printf '// The semantics of docs/missing.md.\nconst char *s = "data/not-a-citation.json";\n' >"$repo/src/b.cpp"
git -C "$repo" add -A
expect 1 "check-citations fails on a dangling citation" \
  python3 "$root/scripts/check-citations.py" --root "$repo"
grep -q "src/b.cpp:1: 'docs/missing.md' does not exist" "$tmp/out" ||
  { echo "FAIL: the citation message names no file and line"; failures=$((failures + 1)); }
if grep -q "not-a-citation" "$tmp/out"; then
  echo "FAIL: a string literal in code was read as a citation"
  failures=$((failures + 1))
fi
# Warnings: CI's configure turns them into errors, and a warning then
# fails the compile (the flags LLVM's build gives every own target).
grep -q -- "-DDSLC_WERROR=ON" "$root/scripts/test.sh" ||
  { echo "FAIL: scripts/test.sh does not configure -DDSLC_WERROR=ON"; failures=$((failures + 1)); }
printf 'int f(int x) { int unused = x; return 0; }\n' >"$tmp/warn.cpp"
CXX=${CXX:-c++}
expect 1 "a warning fails the compile under -Wall -Wextra -Werror" \
  "$CXX" -Wall -Wextra -Werror -fsyntax-only "$tmp/warn.cpp"
expect 0 "the same file compiles without -Werror" \
  "$CXX" -Wall -Wextra -fsyntax-only "$tmp/warn.cpp"
[ "$failures" = 0 ] && echo "all CI checks detect what they are for"
exit $((failures > 0))
