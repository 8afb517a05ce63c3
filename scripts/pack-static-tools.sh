#!/usr/bin/env bash
# Packs a -DDSLC_STATIC_LLVM=ON build for a GPU machine that has no LLVM
# (docs/python.md): dslc (stripped), tuner, dslrun, the runtime library,
# libfmt beside it, the Python extension and CUDA's ptxas, as
# build/{bin,lib,python/dslc,cuda/bin}/... in one gzipped tar.
# Usage: scripts/pack-static-tools.sh BUILD_DIR OUT.tar.gz
# There: tar xzf OUT.tar.gz; export DSLC_BUILD_DIR=$PWD/build
#        DSLC_PTXAS=$PWD/build/cuda/bin/ptxas
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT.tar.gz" >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd)
OUT=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
if ! grep -q "^DSLC_STATIC_LLVM:BOOL=ON" "$BUILD/CMakeCache.txt" 2>/dev/null; then
  echo "$BUILD is not configured with -DDSLC_STATIC_LLVM=ON" >&2
  exit 1
fi
if ldd "$BUILD/bin/dslc" | grep -q "libLLVM"; then
  echo "$BUILD/bin/dslc still links libLLVM: not portable" >&2
  exit 1
fi
PTXAS=${DSLC_PTXAS:-/usr/local/cuda/bin/ptxas}
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/build/bin" "$STAGE/build/lib" "$STAGE/build/python/dslc" \
  "$STAGE/build/cuda/bin"
strip -o "$STAGE/build/bin/dslc" "$BUILD/bin/dslc"
cp "$BUILD/bin/tuner" "$BUILD/bin/dslrun" "$STAGE/build/bin/"
cp "$BUILD/lib/libdslc_runtime.so" "$BUILD/lib/libfmt.so.9" "$STAGE/build/lib/"
cp "$BUILD/python/dslc/_fastcall.abi3.so" "$STAGE/build/python/dslc/"
cp "$PTXAS" "$STAGE/build/cuda/bin/ptxas"
tar czf "$OUT" -C "$STAGE" build
echo "$OUT: $(du -h "$OUT" | cut -f1)"
