#!/usr/bin/env bash
# The main job: set up a fresh Debian 12 machine, build dslc and the runtime,
# compile examples/one_shot_all_reduce.py for every rank, and, when GPUs are
# present, run it on all of them and check the result against a CPU
# reference (dslrun). With fewer GPUs than ranks (one GPU: a world of 2 by
# default) it runs every rank on GPU 0, a virtual world (docs/runtime.md),
# and says so. Without a GPU it stops after compiling (and says so).
#
# Usage: scripts/run-example.sh [WORLD_SIZE]
#   (default: the number of GPUs when there are 2 or more, else 2)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target dslc dslrun

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
fi
world=${1:-$([ "$gpus" -gt 1 ] && echo "$gpus" || echo 2)}

out="$BUILD/examples"
mkdir -p "$out"
for ((r = 0; r < world; r++)); do
  start=$EPOCHREALTIME
  "$BUILD/bin/dslc" examples/one_shot_all_reduce.py --emit=cubin \
    -D my_rank=$r -D world_size=$world -o "$out/one_shot_all_reduce.r$r.cubin"
  end=$EPOCHREALTIME
  awk -v r="$r" -v w="$world" -v f="$out/one_shot_all_reduce.r$r.cubin" \
    -v s="$start" -v e="$end" \
    'BEGIN { printf "compiled rank %d of %d: %s (%.2f s)\n", r, w, f, e - s }'
done

if [ "$gpus" -lt 1 ]; then
  echo "no run: this machine has no GPU"
  exit 0
fi
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
run=(--cubin "$out/one_shot_all_reduce.r{rank}.cubin" --collective all_reduce
  --sizes 1,7,1K,8193,64K,1M,16M --iters 20 --graph-replays 100)
if [ "$gpus" -lt "$world" ]; then
  echo "this machine has $gpus GPU(s) for $world ranks: running a virtual" \
    "world (every rank on GPU 0; checked as on $world GPUs, its times share" \
    "one GPU and say nothing of NVLink; no NCCL beside it)"
  "$BUILD/bin/dslrun" "${run[@]}" --virtual-world "$world"
else
  "$BUILD/bin/dslrun" "${run[@]}" --nccl
fi
