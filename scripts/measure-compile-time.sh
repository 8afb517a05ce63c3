#!/usr/bin/env bash
# Times `dslc examples/one_shot_all_reduce.py` for every --emit stage and both
# cubin routes (11 runs each; min, median, max in seconds).
# Usage: scripts/measure-compile-time.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
DSLC=${1:-build}/bin/dslc
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
measure() {
  local label=$1
  shift
  for _ in $(seq 11); do
    local start=$EPOCHREALTIME
    "$DSLC" examples/one_shot_all_reduce.py -D my_rank=0 -D world_size=2 "$@" \
      -o "$OUT/k" >/dev/null
    local end=$EPOCHREALTIME
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
  done | sort -n | awk -v label="$label" '{ t[NR] = $1 }
    END { printf "| %s | %.2f | %.2f | %.2f |\n", label, t[1], t[6], t[NR] }'
}
echo "| --emit | min | median | max |"
echo "|---|---|---|---|"
for stage in tile llvm llvmir ptx; do
  measure "$stage" --emit=$stage
done
measure "cubin (nvJitLink)" --emit=cubin --cubin-via=nvjitlink
measure "cubin (ptxas)" --emit=cubin --cubin-via=ptxas
