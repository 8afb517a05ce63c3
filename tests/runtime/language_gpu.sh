#!/usr/bin/env bash
# GPU checks of issue 16's language constructs on one GPU (world 1), each
# a dslrun run against a DSL reference or as the collective it is:
#   matmul       tile.dot (torch.addmm on CUDA cores) vs a float64 DSL
#                reference (a sum over k of broadcast products), three
#                shapes, the tolerance grown with K (--sum-terms)
#   runtime-if   scf.if with results on three paths vs a torch.where reference
#   symm-sync    an all-reduce synchronized by Helion's symm_mem_sync (the
#                implicit pad parameter), as an all-reduce
#   fused-helion the one-shot all-reduce + bias + RMSNorm in Helion's
#                spelling vs its float64 DSL reference
#   differential-*  2-d tiles whose rows are dealt over groups of lanes
#                (TileLayout.h: broadcasts, reductions along either
#                dimension, reshapes across rank 2, matmuls at Helion's
#                block sizes) and a row softmax under reduction_loops; run
#                on the simulator's inputs and compared with its outputs
#                (dslrun --inputs-from)
# With DSLC_VIRTUAL_WORLD=2,4,8 (in both phases) symm-sync and fused-helion
# also run at each of those world sizes in a virtual world (every rank on
# GPU 0, dslrun --virtual-world W): steps symm-sync-vwW, fused-helion-vwW.
# dslc does not run on the GPU machine: compile first where it does.
# Usage: tests/runtime/language_gpu.sh compile BUILD   (needs BUILD/bin/dslc)
#        tests/runtime/language_gpu.sh run BUILD       (needs BUILD/bin/dslrun)
# The cubins live in BUILD/lang-gpu (carry it). Logs under $OUT. Exit 0 only
# when every check passed; the last line is "overall: 0|1".
set -uo pipefail
MODE=${1:?usage: language_gpu.sh compile|run BUILD}
BUILD=${2:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$BUILD/lang-gpu
OUT=${OUT:-/tmp/dslc-language-gpu}
SIM=$ROOT/tests/compiler/Simulator/Inputs
MLG=$ROOT/tests/compiler/MLIRGen/Inputs
NORM=(--signature symm_mem_buffer=bf16[2],x=bf16[2],bias=bf16[1],weight=bf16[1],signal_pad_ptrs=u64[1]
      --shape symm_mem_buffer=128x2048 --shape x=128x2048 --shape bias=2048
      --shape weight=2048 -D EPS=1e-5)
# Kernels checked against the simulator's dump (tests/compiler/Simulator/
# Inputs/FILE:KERNEL) and the simulator's sizes for them (tails in every
# dimension).
VWORLDS=$(echo "${DSLC_VIRTUAL_WORLD:-}" | tr ',' ' ')
declare -A DIFFERENTIAL=(
  [layouts2d.py:row_col_stats]="--shape x=77x150 --shape w=150"
  [layouts2d.py:masked_rows]="--shape x=37x45 --shape y=37x45"
  [layouts2d.py:matmul_helion_blocks]="--shape a=100x70 --shape b=70x90 --shape bias=90 --size out=100x90"
  [layouts2d.py:ragged_groups]="--shape x=50x70"
  [layouts2d.py:matmul_big_blocks]="--shape a=200x150 --shape b=150x300 --size out=200x300"
  [reduction-loops.py:softmax_rows]="--shape x=77x1000"
)

if [ "$MODE" = compile ]; then
  set -e
  mkdir -p "$D"
  C="$BUILD/bin/dslc"
  "$C" "$SIM/matmul.py" -k matmul_kernel --emit=cubin -o "$D/matmul.cubin"
  "$C" "$SIM/matmul.py" -k matmul_ref --emit=cubin -o "$D/matmul_ref.cubin"
  "$C" "$SIM/runtime-if-local.py" -k branchy --emit=cubin -o "$D/branchy.cubin"
  "$C" "$SIM/runtime-if-local.py" -k branchy_ref --emit=cubin -o "$D/branchy_ref.cubin"
  "$C" "$MLG/helion_all_reduce.py" --signature signal_pad_ptrs_dev=u64[1],a_shared=bf16[1] \
    --world-size 1 --rank 0 --emit=cubin -o "$D/symm_sync.r0.cubin"
  "$C" "$MLG/helion_allreduce_bias_rmsnorm.py" -k one_shot_allreduce_bias_rmsnorm_kernel \
    "${NORM[@]}" --world-size 1 --rank 0 --emit=cubin -o "$D/norm.r0.cubin"
  "$C" "$MLG/helion_allreduce_bias_rmsnorm.py" -k one_shot_allreduce_bias_rmsnorm_ref \
    -D EPS=1e-5 -D world_size=1 --shape x=1x128x2048 --emit=cubin \
    -o "$D/norm_ref.cubin"
  for W in $VWORLDS; do
    for ((r = 0; r < W; r++)); do
      "$C" "$MLG/helion_all_reduce.py" --signature signal_pad_ptrs_dev=u64[1],a_shared=bf16[1] \
        --world-size "$W" --rank "$r" --emit=cubin -o "$D/symm_sync.w$W.r$r.cubin"
      "$C" "$MLG/helion_allreduce_bias_rmsnorm.py" -k one_shot_allreduce_bias_rmsnorm_kernel \
        "${NORM[@]}" --world-size "$W" --rank "$r" --emit=cubin -o "$D/norm.w$W.r$r.cubin"
    done
    "$C" "$MLG/helion_allreduce_bias_rmsnorm.py" -k one_shot_allreduce_bias_rmsnorm_ref \
      -D EPS=1e-5 -D world_size="$W" --shape x="${W}x128x2048" --emit=cubin \
      -o "$D/norm_ref.w$W.cubin"
  done
  for fk in "${!DIFFERENTIAL[@]}"; do
    k=${fk#*:}
    # The compile takes the --shape flags (sizes it specializes); --size
    # (an output's shape) is the simulator's.
    read -ra flags <<<"${DIFFERENTIAL[$fk]}"
    shapes=()
    for ((i = 0; i < ${#flags[@]}; i += 2)); do
      [ "${flags[i]}" = --shape ] && shapes+=(--shape "${flags[i + 1]}")
    done
    "$C" "$SIM/${fk%%:*}" -k "$k" "${shapes[@]}" --emit=cubin -o "$D/$k.cubin"
    rm -rf "$D/$k.sim"
    # shellcheck disable=SC2086
    "$C" "$SIM/${fk%%:*}" -k "$k" --simulate --world-size 1 ${DIFFERENTIAL[$fk]} \
      --seed 3 --schedules 1 --reference none --dump-dir "$D/$k.sim" >/dev/null
  done
  du -sh "$D"
  exit 0
fi

export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$OUT"
R="$BUILD/bin/dslrun"
status=0
check() { # NAME CMD...: passes on exit 0 with $PASS_PATTERN ("correct")
  local name=$1
  shift
  if timeout 120 "$@" >"$OUT/$name.log" 2>&1 &&
    grep -q "${PASS_PATTERN:-correct}" "$OUT/$name.log"; then
    echo "PASS $name"
  else
    echo "FAIL $name (log: $OUT/$name.log)"
    tail -n 15 "$OUT/$name.log"
    status=1
  fi
}
for s in "43 50 72" "1001 777 515" "8 64 32"; do
  set -- $s
  check "matmul-$1x$2x$3" "$R" --cubin "$D/matmul.cubin" --devices 0 \
    --size "a=$1x$2" --size "b=$2x$3" --size "out=$1x$3" \
    --reference-cubin "$D/matmul_ref.cubin" --sum-terms "$2"
done
check runtime-if "$R" --cubin "$D/branchy.cubin" --devices 0 --size x=37x1000 \
  --scalar n=3 --reference-cubin "$D/branchy_ref.cubin"
check runtime-if-n0 "$R" --cubin "$D/branchy.cubin" --devices 0 --size x=37x1000 \
  --scalar n=0 --reference-cubin "$D/branchy_ref.cubin"
check symm-sync "$R" --cubin "$D/symm_sync.r{rank}.cubin" --devices 0 \
  --collective all_reduce --sizes 1,8193,1M --iters 20 --graph-replays 20
check fused-helion "$R" --cubin "$D/norm.r{rank}.cubin" --devices 0 \
  --size symm_mem_buffer=128x2048 --size x=128x2048 --size bias=2048 \
  --size weight=2048 --reference-cubin "$D/norm_ref.cubin"
for W in $VWORLDS; do
  check "symm-sync-vw$W" "$R" --cubin "$D/symm_sync.w$W.r{rank}.cubin" \
    --virtual-world "$W" --collective all_reduce --sizes 1,8193,1M \
    --iters 20 --graph-replays 20
  check "fused-helion-vw$W" "$R" --cubin "$D/norm.w$W.r{rank}.cubin" \
    --virtual-world "$W" --size symm_mem_buffer=128x2048 --size x=128x2048 \
    --size bias=2048 --size weight=2048 --reference-cubin "$D/norm_ref.w$W.cubin"
done
for fk in "${!DIFFERENTIAL[@]}"; do
  k=${fk#*:}
  PASS_PATTERN="differential check passed" check "differential-$k" "$R" \
    --cubin "$D/$k.cubin" --devices 0 --inputs-from "$D/$k.sim"
done
echo "overall: $status"
exit $status
