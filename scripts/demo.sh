#!/usr/bin/env bash
# Builds and runs the tour: the seeds' walkthrough on the best available device.
# Usage: scripts/demo.sh [tour arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh >/dev/null
cmake -S . -B build -DCTORCH_BUILD_EXAMPLES=ON >/dev/null
cmake --build build -j"$(nproc)" --target tour
./build/examples/tour "$@"
