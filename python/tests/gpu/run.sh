#!/usr/bin/env bash
# GPU tests of the Python package (docs/python.md, "Tests"): the torch tests
# in one process (world size 1) and in two (torchrun), the tensor-core
# matmuls against torch (matmul_tests.py), and the planted hang.
# Usage: python/tests/gpu/run.sh [BUILD_DIR]
#   BUILD_DIR holds lib/libdslc_runtime.so (and bin/dslc, bin/tuner when
#   they run here). Kernels come from $DSLC_CACHE_DIR (default
#   BUILD_DIR/python-gpu-cache); where no dslc runs, fill it first on the
#   build machine (see docs/python.md).
# PyTorch: $DSLC_TORCH_PYTHON, else /opt/torch/.venv/bin/python, else
# python3. Exit 77 (skipped) without torch or without a GPU; otherwise 0 only
# when every step that ran passed. Logs under $OUT (default /tmp/dslc-python-gpu).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
OUT=${OUT:-/tmp/dslc-python-gpu}
mkdir -p "$OUT"
PY=${DSLC_TORCH_PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x /opt/torch/.venv/bin/python ]; then PY=/opt/torch/.venv/bin/python
  else PY=$(command -v python3); fi
fi
if ! gpus=$("$PY" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null); then
  echo "SKIPPED: python GPU tests need PyTorch ($PY cannot import torch; set DSLC_TORCH_PYTHON)"
  exit 77
fi
if [ "$gpus" -lt 1 ]; then
  echo "SKIPPED: python GPU tests need a GPU (torch sees none)"
  exit 77
fi
export DSLC_BUILD_DIR=$BUILD
export DSLC_CACHE_DIR=${DSLC_CACHE_DIR:-$BUILD/python-gpu-cache}
# The stable-ABI extension built here must load in torch's Python too.
if [ -f "$BUILD/python/dslc/_fastcall.abi3.so" ]; then export DSLC_EXPECT_FASTCALL=1; fi
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
TORCHRUN=("$PY" -m torch.distributed.run --standalone)
status=0
summary=()
step() { # NAME NPROC LIMIT_S SCRIPT
  local name=$1 nproc=$2 limit=$3 script=$4
  if [ "$gpus" -lt "$nproc" ]; then
    summary+=("SKIP $name (needs $nproc GPUs, $gpus visible)"); return
  fi
  echo "=== $name"
  timeout "$limit" "${TORCHRUN[@]}" --nproc-per-node "$nproc" "$script" \
    >"$OUT/$name.log" 2>&1
  local rc=$?
  grep -E "PASS|FAIL|SKIP|passed|KernelError|record|Error|fastcall|nccl_library|nccl_files_mapped|nccl_version" "$OUT/$name.log" | tail -n 40
  if [ $rc -eq 0 ]; then summary+=("PASS $name")
  else summary+=("FAIL $name (exit $rc, log $OUT/$name.log)"); status=1; fi
}
# The install command of docs/python.md, into a scratch folder.
echo "=== pip-install"
site=$(mktemp -d)
if "$PY" -m pip install --no-build-isolation --no-deps --no-index --target "$site" \
     "$ROOT/python" >"$OUT/pip-install.log" 2>&1 &&
   (cd / && PYTHONPATH=$site "$PY" -c 'import dslc; print(dslc.__file__); print(dslc.runtime_info())') \
     >>"$OUT/pip-install.log" 2>&1; then
  summary+=("PASS pip-install")
else
  summary+=("FAIL pip-install (log $OUT/pip-install.log)"); status=1
fi
tail -n 3 "$OUT/pip-install.log"
rm -rf "$site"

# The README's PyTorch example, as written (run from the repository root).
awk '/readme-torch-example/ {on=1; next} on && /^```python/ {inb=1; next}
     inb && /^```/ {exit} inb {print}' "$ROOT/README.md" >"$OUT/readme_example.py"
# Two processes when two GPUs are visible, else one (the snippet is the same).
nreadme=$(( gpus >= 2 ? 2 : 1 ))
echo "=== readme-example ($nreadme processes)"
(cd "$ROOT" && PYTHONPATH=$ROOT/python timeout 300 "${TORCHRUN[@]}" \
   --nproc-per-node "$nreadme" "$OUT/readme_example.py") >"$OUT/readme-example.log" 2>&1
rc=$?
tail -n 5 "$OUT/readme-example.log"
if [ $rc -eq 0 ] && [ "$(grep -c '^ok$' "$OUT/readme-example.log")" -eq "$nreadme" ]; then
  summary+=("PASS readme-example ($nreadme processes)")
else
  summary+=("FAIL readme-example (exit $rc, log $OUT/readme-example.log)"); status=1
fi

step torch-1proc 1 600 "$ROOT/python/tests/gpu/torch_tests.py"
step torch-2proc 2 900 "$ROOT/python/tests/gpu/torch_tests.py"
step matmul 1 600 "$ROOT/python/tests/gpu/matmul_tests.py"
step planted-hang 2 60 "$ROOT/python/tests/gpu/planted_hang.py"
printf '%s\n' "${summary[@]}"
echo "overall: $status"
exit $status
