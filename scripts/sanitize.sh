#!/usr/bin/env bash
# The sanitizer and fuzz gate (docs/robustness.md), run before each release:
# builds dslc's own code with AddressSanitizer + UndefinedBehaviorSanitizer
# (clang 22; the LLVM/MLIR libraries are Debian's, uninstrumented) in
# BUILD_DIR (default build-asan), runs every lit test under it, replays the
# checked-in fuzz corpus, then fuzzes the frontend and the whole pipeline
# with libFuzzer for FUZZ_SECONDS each (default 300). Any sanitizer report,
# crash, LLVM fatal error, internal error, error without a location, run
# over 60 s (20 s for a release build, hostile_campaign.py: sanitizers make
# dslc 2-5x slower) or over 4 GB fails the gate; libFuzzer leaves the input
# in BUILD_DIR/fuzz/KIND/findings/.
#
#   bash scripts/sanitize.sh [BUILD_DIR]
#   FUZZ_SECONDS=3600 bash scripts/sanitize.sh      # a campaign
#   FUZZ_SECONDS=0 bash scripts/sanitize.sh         # lit and the corpus only
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-asan}"
seconds="${FUZZ_SECONDS:-300}"
jobs="${JOBS:-2}"

bash "$root/scripts/install-fuzz-deps.sh"
export CCACHE_BASEDIR="$root"
CC=/usr/lib/llvm-22/bin/clang CXX=/usr/lib/llvm-22/bin/clang++ \
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DDSLC_BUILD_RUNTIME=OFF \
  "-DDSLC_SANITIZE=address;undefined" -DDSLC_FUZZ=ON >/dev/null
cmake --build "$build" -j"$jobs" --target dslc dslc-opt dslc-translate \
  fuzz-frontend fuzz-pipeline fuzz-frontend-replay fuzz-pipeline-replay

# Every report is fatal (-fno-sanitize-recover=all). LLVM and MLIR keep
# global registries alive to exit by design, so leak checking is off.
# LLVM's headers poison BumpPtrAllocator slabs when the including code is
# built with ASan, but Debian's LLVM/MLIR libraries, which share those
# allocators, are not: manual poisoning would report their writes
# (use-after-poison in mlir::Dialect::addType), so it is off.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allow_user_segv_handler=1:allow_user_poisoning=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# Simulator/example.test asserts a wall time (64K x 8 ranks under 5 s) that
# an ASan build does not meet; everything else runs.
echo "sanitize: lit under ASan+UBSan"
/usr/lib/llvm-22/bin/lit -sv --filter-out 'Simulator/example\.test' "$build/tests"

echo "sanitize: the checked-in corpus"
seeds=("$root/examples" "$root/tests/compiler/MLIRGen/Inputs"
       "$root/tests/compiler/Simulator/Inputs")
(cd "$build" &&
 ./bin/fuzz-frontend-replay "$root/tests/tools/fuzz/corpus/frontend" \
   "$root/tests/compiler/Frontend/Inputs" "${seeds[@]}" 2>/dev/null &&
 ./bin/fuzz-pipeline-replay "$root/tests/tools/fuzz/corpus/pipeline" \
   "${seeds[@]}" 2>/dev/null)

[ "$seconds" -gt 0 ] || exit 0
for kind in frontend pipeline; do
  work="$build/fuzz/$kind"
  mkdir -p "$work/corpus" "$work/findings"
  cp -n "$root/tests/tools/fuzz/corpus/$kind"/* "$work/corpus/" 2>/dev/null || true
  for d in "${seeds[@]}"; do cp -n "$d"/*.py "$work/corpus/"; done
  echo "sanitize: fuzz-$kind for $seconds s (log: $work/log.txt)"
  if ! (cd "$work" && "$build/bin/fuzz-$kind" corpus -max_len=16384 \
          -timeout=60 -rss_limit_mb=4096 -max_total_time="$seconds" \
          -print_final_stats=1 -artifact_prefix=findings/ >log.txt 2>&1); then
    tail -n 40 "$work/log.txt"
    echo "sanitize: fuzz-$kind found a problem: $work/findings/" >&2
    exit 1
  fi
  grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$work/log.txt" || true
done
echo "sanitize: no finding"
