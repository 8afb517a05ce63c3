#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds everything and runs every test
# (lit + Catch2 through ctest). GPU tests skip with a message when no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDSLC_WERROR=ON
cmake --build "$BUILD"
cd "$BUILD"
ctest --output-on-failure "$@"
