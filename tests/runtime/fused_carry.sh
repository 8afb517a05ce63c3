#!/usr/bin/env bash
# Builds here (no GPU) everything the fused GPU checks and benchmarks need
# on a machine without dslc, and prints the paths to carry with their size:
#   BUILD/bin/dslrun, BUILD/bin/tuner, BUILD/lib/libdslc_runtime.so
#   BUILD/tests/runtime/kernels/fused    (target dslc_fused_kernels: the
#                                         examples' cubins and references)
#   BUILD/fused-bench-cache              (the dslc package's kernel cache for
#                                         benchmarks/fused_rmsnorm.py, worlds 1, 2)
#   BUILD/cand-silu-w1, BUILD/cand-silu-w2  (tuner candidates of the user
#                                         kernel of docs/fused.md, hidden 4096)
# Usage: tests/runtime/fused_carry.sh [BUILD]   (from the repository root)
set -euo pipefail
BUILD=${1:-build}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/work}
cmake --build "$BUILD" --target dslc dslrun tuner dslc_runtime_shared \
  dslc_fused_kernels -j2
rm -rf "$BUILD/fused-bench-cache" "$BUILD"/cand-silu-w[12]
for w in 1 2; do
  DSLC_BUILD_DIR="$BUILD" DSLC_CACHE_DIR="$PWD/$BUILD/fused-bench-cache" \
    python3 benchmarks/fused_rmsnorm.py --precompile --world-size "$w"
  F=tests/examples/Inputs/all_reduce_bias_silu.py
  "$BUILD/bin/tuner" compile -k "$F:all_reduce_bias_silu_kernel" \
    --reference "$F:all_reduce_bias_silu_ref" --world-size "$w" \
    --dslc-arg=-D --dslc-arg=H=4096 --dslc-arg=-D --dslc-arg=alpha=0.5 \
    --out "$BUILD/cand-silu-w$w" --dslc "$BUILD/bin/dslc" -j 2 --quiet
done
du -shc "$BUILD/bin/dslrun" "$BUILD/bin/tuner" "$BUILD/lib/libdslc_runtime.so" \
  "$BUILD/tests/runtime/kernels/fused" "$BUILD/fused-bench-cache" \
  "$BUILD/cand-silu-w1" "$BUILD/cand-silu-w2"
