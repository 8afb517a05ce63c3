#!/usr/bin/env bash
# One same-source case through dslc and through Helion at one config each
# (benchmarks/same_config.py): timed side by side, then each under Nsight
# Compute, the reports as text in $OUT/ncu-CASE-T-H-IMPL.txt.
# Run on the GPU machine after `source scripts/device-env.sh TOOLS HELION`.
# Usage: benchmarks/profile_same_config.sh CASE T H DSLC_CONFIG HELION_CONFIG [KERNEL_REGEX]
#   configs as same_config.py's --config ('' for the kernel's own);
#   KERNEL_REGEX (default CASE) picks the kernel ncu profiles.
set -uo pipefail
if [ $# -lt 5 ]; then
  sed -n 2,9p "$0" >&2
  exit 2
fi
case=$1 tokens=$2 hidden=$3 dslc_config=$4 helion_config=$5 regex=${6:-$1}
: "${DSLC_HELION:?source scripts/device-env.sh TOOLS HELION first}"
: "${OUT:?}" "${PY:?}"
here=$(cd "$(dirname "$0")" && pwd)
status=0
# same_config.py's command line for IMPL at its config, in argv.
command_for() {
  local impl=$1 config=$dslc_config
  [ "$impl" = helion ] && config=$helion_config
  argv=("$PY" "$here/same_config.py" "$DSLC_HELION" --case "$case" --impl "$impl"
    --tokens "$tokens" --hidden "$hidden")
  [ -n "$config" ] && argv+=(--config "$config")
  label="$impl ${config:-(own config)}"
}
for impl in dslc helion; do
  command_for "$impl"
  echo "=== $case [$tokens, $hidden] $label"
  "${argv[@]}" || status=1
done
if [ -z "${NCU:-}" ]; then
  echo "no ncu found (set NCU): profiles skipped"
  exit $status
fi
ncu_args=(--clock-control none -k "regex:$regex" --launch-skip 3 --launch-count 1)
for s in SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats \
  MemoryWorkloadAnalysis; do
  ncu_args+=(--section "$s")
done
for impl in dslc helion; do
  command_for "$impl"
  report=$OUT/ncu-$case-$tokens-$hidden-$impl.txt
  # The checked warm-up and the first calls compile and load; profile a later one.
  "$NCU" "${ncu_args[@]}" "${argv[@]}" --reps 0 --calls 6 >"$report" 2>&1 || status=1
  echo "=== ncu $impl -> $report"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|Block Limit|Local Memory|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" "$report" | head -30
done
exit $status
