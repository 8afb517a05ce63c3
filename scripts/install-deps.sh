#!/usr/bin/env bash
# Installs everything dslc needs to build and test on a fresh Debian 12 machine.
# CUDA 13 is expected at /usr/local/cuda (it is not a Debian package).
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  llvm-22-runtime  # lli: tests run rewritten LLVM IR on the CPU
  clang-format-22  # scripts/check-format.sh (ctest `format`)
  git  # scripts/check-format.sh and check-citations.py list tracked files
  libzstd-dev zlib1g-dev
  libfmt-dev catch2 nlohmann-json3-dev
  libcli11-dev # the command lines of dslrun and tuner (tooling/support/Cli.h)
  gnuplot-nox  # scripts/plot-bench.py (PNG of benchmark CSVs)
  python3-numpy  # tests: simulation dumps load with numpy.load
  python3-dev  # python/dslc/_fastcall.c (stable-ABI extension; optional)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -x /usr/local/cuda/bin/ptxas ]; then
  echo "install-deps: warning: CUDA 13 not found at /usr/local/cuda; the runtime and ptxas checks are skipped" >&2
fi
