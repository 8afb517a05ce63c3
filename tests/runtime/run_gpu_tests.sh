#!/usr/bin/env bash
# Runs every runtime GPU test on a machine with GPUs: the Catch2 [gpu] tests
# (both process models, planted hang, dead peer), then dslrun on the hand-
# written one-shot all-reduce in one process and in two processes.
# Usage: tests/runtime/run_gpu_tests.sh [BUILD_DIR]   (logs under $OUT)
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
BUILD=${1:-build-rt}
OUT=${OUT:-/tmp/dslc-runtime-gpu-logs}
mkdir -p "$OUT"
status=0
step() {
  local name=$1 limit=$2
  shift 2
  echo "=== $name: $*"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$OUT/$name.log"
  echo "=== $name: exit $rc"
  [ $rc -eq 0 ] || status=1
}
nvidia-smi -L
ldd "$BUILD/bin/dslrun" | grep -i nccl
K="$BUILD/tests/runtime/kernels/one_shot_all_reduce.r{rank}.cubin"
step unit 60 "$BUILD/bin/dslc-runtime-tests" "~[gpu]"
step gpu 300 "$BUILD/bin/dslc-runtime-tests" "[gpu]" --durations yes
step dslrun-1proc 90 "$BUILD/bin/dslrun" --cubin "$K" \
  --sizes 1,7,8191,8192,8193,65539,1M,4M,16M,64M --iters 20 --graph-replays 100
step dslrun-2proc 90 "$BUILD/bin/dslrun" --cubin "$K" --launch 2 \
  --sizes 1,8193,1M,16M --iters 20 --graph-replays 100
D="$BUILD/tests/runtime/kernels/dslc_one_shot_all_reduce.r{rank}.cubin"
if [ -f "$BUILD/tests/runtime/kernels/dslc_one_shot_all_reduce.r0.cubin" ]; then
  step dslc-example-1proc 240 "$BUILD/bin/dslrun" --cubin "$D" \
    --sizes 1,7,1K,4099,8191,8192,8193,65536,1M,16M,64M --iters 20 --graph-replays 100
  step dslc-example-repeat 240 "$BUILD/bin/dslrun" --cubin "$D" \
    --sizes 1048581 --iters 10000 --graph-replays 1000
  step dslc-example-2proc 120 "$BUILD/bin/dslrun" --cubin "$D" --launch 2 \
    --sizes 1,8193,1M,16M --iters 20 --graph-replays 100
else
  echo "=== no dslc-compiled example in $BUILD (configure with the compiler)"
fi
echo "overall: $status"
exit $status
