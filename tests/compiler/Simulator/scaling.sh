#!/bin/bash
# Simulations whose race detection cost grew with the CTAs squared (issue
# 30) run within a bound on their CPU time (user + system: a shared, loaded
# two-core CI box stretches the wall clock, not the work). Each case took
# several times its bound before: a rank's launch clock copied at every
# CTA start and every CTA's end merged into a clock of all CTAs, a flag
# that every CTA signals copied into every waiter's clock, a weight read by
# every CTA checked against every earlier reader. Registered with ctest
# (tests/CMakeLists.txt); usage: scaling.sh DSLC
set -u
DSLC=$1
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
INPUTS=$ROOT/tests/compiler/Simulator/Inputs
failed=0

# check BOUND_S LABEL ARGS...: a passing simulation within BOUND_S of CPU.
check() {
  local bound=$1 label=$2
  shift 2
  local out cpu
  TIMEFORMAT='%U %S'
  cpu=$( { time "$DSLC" "$@" > "$TMP/out" 2>&1; } 2>&1 )
  out=$(cat "$TMP/out")
  cpu=$(echo "$cpu" | awk '{printf "%.2f", $1 + $2}')
  if ! echo "$out" | grep -q ': PASS$' ||
     ! awk -v t="$cpu" -v b="$bound" 'BEGIN { exit !(t < b) }'; then
    echo "FAIL $label: ${cpu} s of CPU (bound $bound s)"
    echo "$out" | tail -6
    failed=1
  else
    echo "ok   $label: ${cpu} s of CPU (bound $bound s)"
  fi
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The issue's case: 2 ranks x 1000 CTAs of one element, 3 schedules.
check 3 "one-shot, 2 ranks x 1000 CTAs (block 1)" \
  "$ROOT/examples/one_shot_all_reduce.py" --simulate --world-size 2 \
  --size 1000 --config '{"block_sizes": [1]}'
# Launch clocks: 2 ranks x 8192 CTAs, 100 launches (17 s of CPU before).
check 6 "one-shot, 2 ranks x 8192 CTAs, 100 calls" \
  "$ROOT/examples/one_shot_all_reduce.py" --simulate --world-size 2 \
  --ctas 8192 --calls 100 --size 1024 --schedules 1
# A release sequence of 16384 signallers (9 s of CPU and 9 GB before).
check 6 "one flag, 16384 CTAs" "$INPUTS/one-flag.py" --simulate \
  --world-size 1 --size 16384 --size pad=1
# A weight every one of 16384 rows reads (11 s of CPU before).
check 6 "rmsnorm, 16384 rows reading one weight, 2 calls" \
  "$ROOT/examples/rmsnorm.py" -k rmsnorm_kernel --simulate --world-size 1 \
  --size x=16384x8 --size residual=16384x8 --size weight=8 \
  --size out=16384x8 --size residual_out=16384x8 --calls 2
exit $failed
