# Sourced on a GPU machine that has no LLVM, in the repository root:
#   source scripts/device-env.sh TOOLS.tar.gz [HELION_CHECKOUT]
# Unpacks the tools packed by scripts/pack-static-tools.sh into a scratch
# folder and exports what the Python package, the benchmarks and the GPU
# tests read: DSLC_BUILD_DIR, DSLC_PTXAS, DSLC_CACHE_DIR (a fresh cache
# under the scratch folder unless already set), PY (PyTorch's python:
# $DSLC_TORCH_PYTHON, else /opt/torch/.venv/bin/python, else python3),
# PYTHONPATH (python/ and, when given, the Helion checkout, exported so
# Helion's autotuning workers see it), PYTHONUNBUFFERED, and NVLink
# multicast off for NCCL, torch and NVSHMEM. OUT defaults to a scratch
# folder. Helion's matmul.py needs HELION_AUTOTUNE_BENCHMARK_SUBPROCESS=0
# (a lambda default does not pickle); it is set here.
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "usage: source scripts/device-env.sh TOOLS.tar.gz [HELION_CHECKOUT]" >&2
  return 2 2>/dev/null || exit 2
fi
DSLC_DEVICE_ROOT=$(pwd)
DSLC_DEVICE_SCRATCH=$(mktemp -d /tmp/dslc-device.XXXXXX)
tar xzf "$1" -C "$DSLC_DEVICE_SCRATCH"
export DSLC_BUILD_DIR=$DSLC_DEVICE_SCRATCH/build
export DSLC_PTXAS=$DSLC_BUILD_DIR/cuda/bin/ptxas
export DSLC_CACHE_DIR=${DSLC_CACHE_DIR:-$DSLC_DEVICE_SCRATCH/cache}
export LD_LIBRARY_PATH=$DSLC_BUILD_DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=${DSLC_TORCH_PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x /opt/torch/.venv/bin/python ]; then PY=/opt/torch/.venv/bin/python
  else PY=$(command -v python3); fi
fi
export PY
PYTHONPATH=$DSLC_DEVICE_ROOT/python
if [ $# -ge 2 ]; then
  PYTHONPATH=$PYTHONPATH:$(cd "$2" && pwd)
  export DSLC_HELION=$(cd "$2" && pwd)
fi
export PYTHONPATH PYTHONUNBUFFERED=1 HELION_AUTOTUNE_BENCHMARK_SUBPROCESS=0
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OUT=${OUT:-$DSLC_DEVICE_SCRATCH/out}
mkdir -p "$OUT" "$DSLC_CACHE_DIR"
# ncu: on PATH, beside PyTorch's python, or in the CUDA toolkit.
for c in "$(command -v ncu 2>/dev/null)" "$(dirname "$PY")/ncu" /usr/local/cuda/bin/ncu; do
  if [ -z "${NCU:-}" ] && [ -n "$c" ] && [ -x "$c" ]; then export NCU=$c; fi
done
echo "device-env: build $DSLC_BUILD_DIR, python $PY, out $OUT${DSLC_HELION:+, helion $DSLC_HELION}${NCU:+, ncu $NCU}"
