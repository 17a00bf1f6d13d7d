#!/usr/bin/env bash
# Builds and runs the tour: the seeds' walkthrough on the best available device, in C++ and then in
# Python (`import ctorch as torch`, examples/python/tour.py) when the Python package is built.
# Usage: scripts/demo.sh [tour arguments...]   (--emulate N: N emulated GPUs for both tours)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh >/dev/null
cmake -S . -B build -DCTORCH_BUILD_EXAMPLES=ON >/dev/null
targets=(tour)
if grep -q '^CTORCH_BUILD_PYTHON:BOOL=ON' build/CMakeCache.txt && [[ -d build/python ]]; then targets+=(ctorch_python); fi
cmake --build build -j"$(nproc)" --target "${targets[@]}"
./build/examples/tour "$@"
if [[ -f $(ls build/python/ctorch/_C*.so 2>/dev/null | head -1) ]]; then
  emulate=""
  args=("$@")
  for ((i = 0; i < ${#args[@]}; i++)); do
    if [[ ${args[i]} == --emulate ]]; then emulate=${args[i + 1]:-}; fi
  done
  echo
  echo "== the same walkthrough in Python (examples/python/tour.py)"
  PYTHONPATH=build/python CTORCH_EMULATED_CUDA=${emulate:-${CTORCH_EMULATED_CUDA:-}} /usr/bin/python3 examples/python/tour.py
fi
