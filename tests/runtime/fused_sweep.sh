#!/usr/bin/env bash
# One fused example on the GPUs over a grid of shapes, each shape one dslrun
# run in the any-kernel mode checked against the example's DSL reference
# (precompiled: tests/runtime/FusedKernels.cmake). A shape passes when
# dslrun exits 0, says "all outputs correct", and printed a passing verdict
# for every output of every rank (so an output that was not compared cannot
# pass unnoticed).
#
# Usage: fused_sweep.sh BUILD NAME DTYPE WORLD MODE ITERS GRAPH "TOKENS" "HIDDEN"
#   NAME    an example of FusedKernels.cmake (fused_all_reduce_rmsnorm, ...)
#   DTYPE   bfloat16 | float16
#   WORLD   ranks (as compiled: DSLC_FUSED_WORLDS)
#   MODE    1proc (one process drives WORLD GPUs) | 2proc (dslrun --launch
#           WORLD) | vw (a virtual world: WORLD ranks on GPU 0, one process)
#   ITERS, GRAPH  dslrun --iters / --graph-replays (one sample each)
#   TOKENS, HIDDEN  lists, e.g. "1 7 128 1024 8192" "4096 8192 5120"
# Logs each run under $OUT/fused-logs/. Exit 0 when every shape passed.
set -uo pipefail
if [ $# -ne 9 ]; then
  sed -n '2,18p' "$0" >&2
  exit 2
fi
BUILD=$1 NAME=$2 DTYPE=$3 WORLD=$4 MODE=$5 ITERS=$6 GRAPH=$7 TOKENS=$8 HIDDEN=$9
OUT=${OUT:-/tmp/dslc-runtime-gpu-logs}
FD="$BUILD/tests/runtime/kernels/fused"
LOGS="$OUT/fused-logs"
mkdir -p "$LOGS"

outputs=(out residual_out)
[[ $NAME == *fp8* ]] && outputs+=(out_fp8)
proc=(--devices "$(seq -s, 0 $((WORLD - 1)))")
[ "$MODE" = 2proc ] && proc=(--launch "$WORLD")
[ "$MODE" = vw ] && proc=(--virtual-world "$WORLD")

failed=0
for h in $HIDDEN; do
  if [ "$NAME" = rmsnorm ]; then
    cubin="$FD/rmsnorm.h$h.$DTYPE.cubin"
  else
    cubin="$FD/$NAME.h$h.$DTYPE.w$WORLD.r{rank}.cubin"
  fi
  ref="$FD/$NAME.h$h.$DTYPE.w$WORLD.ref.cubin"
  if [ ! -f "${cubin/\{rank\}/0}" ] || [ ! -f "$ref" ]; then
    echo "MISSING $NAME hidden $h $DTYPE world $WORLD: ${cubin/\{rank\}/0} or $ref" \
      "(cmake --build BUILD --target dslc_fused_kernels)"
    failed=1
    continue
  fi
  for t in $TOKENS; do
    sizes=(--size "x=${t}x$h" --size "residual=${t}x$h" --size "weight=$h"
      --size "out=${t}x$h" --size "residual_out=${t}x$h")
    [[ $NAME == *fp8* ]] && sizes+=(--size scale=1 --size "out_fp8=${t}x$h")
    log="$LOGS/$NAME.$DTYPE.w$WORLD.$MODE.t$t.h$h.log"
    start=$EPOCHREALTIME
    "$BUILD/bin/dslrun" --cubin "$cubin" "${sizes[@]}" --reference-cubin "$ref" \
      --iters "$ITERS" --graph-replays "$GRAPH" --repetitions 1 "${proc[@]}" \
      >"$log" 2>&1
    rc=$?
    secs=$(awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.1f", e - s }')
    why=""
    if [ $rc -ne 0 ]; then
      why="exit $rc"
    elif ! grep -q "all outputs correct" "$log"; then
      why="no 'all outputs correct'"
    else
      for ((r = 0; r < WORLD; r++)); do
        for o in "${outputs[@]}"; do
          grep -Eq "(^|\] )rank $r: output '$o' .*: ok$" "$log" ||
            why="${why:+$why; }no passing verdict for rank $r output '$o'"
        done
      done
    fi
    times=$(grep -Eo "us per call, median .*" "$log" | head -1)
    if [ -z "$why" ]; then
      echo "ok     $NAME $DTYPE world $WORLD $MODE tokens $t hidden $h (${secs}s) $times"
    else
      echo "FAILED $NAME $DTYPE world $WORLD $MODE tokens $t hidden $h (${secs}s): $why; log $log"
      tail -n 12 "$log" | sed 's/^/    /'
      failed=1
    fi
  done
done
exit $failed
