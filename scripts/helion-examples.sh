#!/usr/bin/env bash
# Compiles every kernel of Helion's examples/distributed/ (a checkout of
# pytorch/helion, not part of this repository) as written: each file whole,
# its host code left out, tensors typed by --signature and sizes by --shape
# / -D only. Each kernel is compiled to a cubin (ptxas: no spills allowed)
# at worlds 2, 4 and 8 (first and last rank) and the table says what passed.
# Usage: scripts/helion-examples.sh HELION_CHECKOUT [BUILD]
# MATMUL_CONFIG='{"block_sizes":[8,64,32],"num_warps":8}' (say) compiles
# the matmul examples with that config instead of their own.
# -D values @R and @W are the rank and the world size.
# Exit status 0 only when every kernel compiled at every world.
set -uo pipefail
HELION=${1:?usage: scripts/helion-examples.sh HELION_CHECKOUT [BUILD]}
BUILD=${2:-build}
DSLC=$BUILD/bin/dslc
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
EX=$HELION/examples/distributed
[ -d "$EX" ] || { echo "no examples/distributed in $HELION" >&2; exit 2; }
[ -x "$DSLC" ] || { echo "no $DSLC: build the dslc target" >&2; exit 2; }
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
# Tokens, hidden size (N of the matmuls) and K: H=4096 makes Helion's
# RMSNorm kernels spill (they hold whole rows; Helion's reduction_loops
# config key, which would loop over them, has no effect in dslc).
T=${T:-128} H=${H:-4096} K=${K:-1024}
BF="bf16[2]" F8="float8_e4m3fn[2]"
# file kernel flags...
KERNELS=(
  "all_reduce.py one_shot_all_reduce_kernel --signature signal_pad_ptrs_dev=u64[1],a_shared=bf16[1]"
  "allreduce_bias_rmsnorm.py one_shot_allreduce_bias_rmsnorm_kernel --signature symm_mem_buffer=$BF,x=$BF,bias=bf16[1],weight=bf16[1],signal_pad_ptrs=u64[1] --shape x=${T}x$H --shape symm_mem_buffer=${T}x$H --shape bias=$H --shape weight=$H -D EPS=1e-5"
  "allreduce_bias_rmsnorm.py two_shot_allreduce_bias_rmsnorm_kernel --signature symm_mem_buffer=$BF,x=$BF,bias=bf16[1],weight=bf16[1],signal_pad_ptrs=u64[1] --shape x=${T}x$H --shape symm_mem_buffer=${T}x$H --shape bias=$H --shape weight=$H -D EPS=1e-5"
  "all_gather_matmul.py helion_matmul_w_progress --signature a=$BF,a_shared=$BF,b=$BF,progress=u32[1] --shape a=1024x$K --shape b=${K}x$H"
  "matmul_reduce_scatter.py matmul_reduce_scatter_kernel --signature a=$BF,b=$BF,symm_mem_buffer=$BF,signal_pad_ptrs=u64[1] --shape a=1024x$K --shape b=${K}x$H"
  "fp8_matmul_reduce_scatter.py fp8_matmul_reduce_scatter_kernel --signature a=$F8,b=$F8,scale_a=f32[2],scale_b=f32[2],symm_mem_buffer=$BF,signal_pad_ptrs=u64[1] --shape a=1024x$K --shape b=${K}x$H --shape scale_a=1024x1 --shape scale_b=1x$H"
  "fp8_scaled_all_gather_matmul.py helion_matmul_w_progress_fp8 --signature a=$F8,a_shared=$F8,scale_a=f32[2],b=$F8,scale_b=f32[2],progress=u32[1] --shape a=1024x$K --shape b=${K}x$H --shape scale_a=128x1 --shape scale_b=1x$H"
  "two_dim_parallel_matmul.py two_dim_parallel_matmul_kernel --signature a_local=$BF,b_local=$BF,symm_mem_buf=$BF,signal_pad_ptrs=u64[1] -D TP_RANK=@R -D TP_SIZE=@W"
)
status=0
printf '| example | kernel | world 2 | world 4 | world 8 |\n|---|---|---|---|---|\n'
for entry in "${KERNELS[@]}"; do
  read -r file kernel flags <<<"$entry"
  row="| \`$file\` | \`$kernel\` |"
  for w in 2 4 8; do
    cell=ok
    for r in 0 $((w - 1)); do
      log=$OUT/${file%.py}.$kernel.w$w.r$r.log
      ptx=$OUT/${kernel}.w$w.r$r.ptx
      f=${flags//@R/$r}
      f=${f//@W/$w}
      cfg=()
      if [ -n "${MATMUL_CONFIG:-}" ] && [[ $file == *matmul* ]]; then
        cfg=(--config "$MATMUL_CONFIG")
      fi
      # shellcheck disable=SC2086
      if ! "$DSLC" "$EX/$file" -k "$kernel" $f "${cfg[@]}" --world-size "$w" \
        --rank "$r" --emit=ptx -o "$ptx" >"$log" 2>&1; then
        cell="FAIL: $(grep -m1 'error:' "$log" | sed 's/^[^ ]*: error: //' | cut -c1-90)"
        status=1
        break
      fi
      if ! "$PTXAS" -arch=sm_90 -v "$ptx" -o "${ptx%.ptx}.cubin" >>"$log" 2>&1; then
        cell="FAIL: ptxas (see $log)"
        status=1
        break
      fi
      spill=$(grep -Eo '[0-9]+ bytes spill stores' "$log" | awk '{s += $1} END {print s + 0}')
      if [ "$spill" -gt 0 ]; then
        cell="spills $spill B (rank $r)"
        status=1
      fi
    done
    row="$row $cell |"
  done
  echo "$row"
done
echo "logs: $OUT"
exit $status
