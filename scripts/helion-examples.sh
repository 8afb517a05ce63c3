#!/usr/bin/env bash
# Compiles Helion's own examples (a checkout of pytorch/helion, not part of
# this repository) as written: each file whole, its host code left out,
# tensors typed by --signature and sizes by --shape / -D only.
#  - examples/distributed/: each kernel to a cubin (ptxas: no spills
#    allowed) at worlds 2, 4 and 8 (first and last rank).
#  - examples/ (the single-GPU kernels of scripts/helion-single-gpu.txt,
#    typed and sized as each file's main() makes them): each kernel at
#    Helion's default config (no config: the block sizes of its config
#    spec's rule, 4 warps) and at 8 warps, to a cubin, spills counted.
# Usage: scripts/helion-examples.sh HELION_CHECKOUT [BUILD]
# PART=distributed|single runs one table (default: both).
# MATMUL_CONFIG='{"block_sizes":[8,64,32],"num_warps":8}' (say) compiles
# the distributed matmul examples with that config instead of their own.
# -D values @R and @W are the rank and the world size.
# Exit status 0 only when every kernel of the tables run compiled without
# spills.
set -uo pipefail
HELION=${1:?usage: scripts/helion-examples.sh HELION_CHECKOUT [BUILD]}
BUILD=${2:-build}
DSLC=$BUILD/bin/dslc
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
EX=$HELION/examples/distributed
PART=${PART:-all}
[ -d "$EX" ] || { echo "no examples/distributed in $HELION" >&2; exit 2; }
[ -x "$DSLC" ] || { echo "no $DSLC: build the dslc target" >&2; exit 2; }
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
# Tokens, hidden size (N of the matmuls) and K.
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
distributed_table() {
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
        # The PTX's own target: sm_90a for a kernel on wgmma.
        arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$ptx" | head -1)
        if ! "$PTXAS" -arch="${arch:-sm_90}" -v "$ptx" -o "${ptx%.ptx}.cubin" >>"$log" 2>&1; then
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
}

# A cell: "ok" or "spills N B" (dslc's cubin: ptxas's report, after dslc
# raised the warps of a kernel no config gives any), "ok (8 warps)" when it
# did, or the first error.
compile_cell() { # FILE KERNEL LOG CUBIN FLAGS...
  local file=$1 kernel=$2 log=$3 cubin=$4
  shift 4
  if ! "$DSLC" "$HELION/examples/$file" -k "$kernel" "$@" --emit=cubin \
    -o "$cubin" >"$log" 2>&1; then
    echo "FAIL: $(grep -m1 'error:' "$log" | sed 's/^[^ ]*: error: //' | cut -c1-90)"
    return 1
  fi
  local spill raised
  spill=$(grep -Eo 'spills registers to local memory: [0-9]+' "$log" |
    awk '{s += $NF} END {print s + 0}')
  raised=$(grep -Eo 'compiled at [0-9]+ warps instead' "$log" | awk '{print $3}')
  if [ "$spill" -gt 0 ]; then
    echo "spills $spill B${raised:+ (at $raised warps)}"
    return 1
  fi
  echo "ok${raised:+ ($raised warps)}"
}

single_table() {
  local list
  list=$(dirname "$0")/helion-single-gpu.txt
  printf '| example | kernel | Helion default config | 8 warps |\n|---|---|---|---|\n'
  local file kernel flags passed=0 total=0
  while read -r file kernel flags; do
    case "$file" in '' | '#'*) continue ;; esac
    total=$((total + 1))
    local row="| \`$file\` | \`$kernel\` |" good=1 cell
    # shellcheck disable=SC2086
    cell=$(compile_cell "$file" "$kernel" "$OUT/$kernel.default.log" \
      "$OUT/$kernel.default.cubin" $flags) || good=0
    row="$row $cell |"
    # shellcheck disable=SC2086
    cell=$(compile_cell "$file" "$kernel" "$OUT/$kernel.w8.log" \
      "$OUT/$kernel.w8.cubin" $flags --config '{"num_warps": 8}') || good=0
    echo "$row $cell |"
    passed=$((passed + good))
    [ $good = 1 ] || status=1
  done <"$list"
  echo "single-GPU kernels compiled without spills at both configs: $passed of $total"
}

status=0
if [ "$PART" != single ]; then distributed_table; fi
if [ "$PART" != distributed ]; then
  [ -d "$HELION/examples" ] || { echo "no examples in $HELION" >&2; exit 2; }
  single_table
fi
echo "logs: $OUT"
exit $status
