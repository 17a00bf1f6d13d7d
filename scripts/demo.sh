#!/usr/bin/env bash
# Builds and runs the tour: the seeds' walkthrough on the best available device, in C++ and then in
# Python (`import ctorch as torch`, examples/python/tour.py) when the Python package is built.
# Usage: scripts/demo.sh [tour arguments...]   (--emulate N: N emulated GPUs for both tours)
#
# A first contact, kept short: only the packages the tour needs (install-deps.sh --demo), its own
# build directory (build-demo) with just the library, the tour and the Python package, compiled
# without optimization (CMAKE_BUILD_TYPE=None: the tour's work is tiny, and -O0 compiles in about
# 40% of the CPU time of -O3), and the real CUDA backend (nvcc device code) only where a GPU driver
# is present. The test command (scripts/test.sh) builds everything, optimized and with CUDA, in `build`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --demo >/dev/null
cuda=OFF
if [[ -e /proc/driver/nvidia/version ]] || nvidia-smi -L >/dev/null 2>&1; then cuda=ON; fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build-demo -DCMAKE_BUILD_TYPE=None -DCTORCH_BUILD_CUDA=$cuda -DCTORCH_BUILD_TESTS=OFF -DCTORCH_BUILD_BENCHMARKS=OFF \
  -DCTORCH_BUILD_EXAMPLES=ON "${launcher[@]}" >/dev/null
# The C++ tour first (the library and one program), then the Python extension for the second tour.
cmake --build build-demo -j"$(nproc)" --target tour
./build-demo/examples/tour "$@"
if grep -q '^CTORCH_BUILD_PYTHON:BOOL=ON' build-demo/CMakeCache.txt && [[ -d build-demo/python ]]; then
  cmake --build build-demo -j"$(nproc)" --target ctorch_python
fi
if [[ -f $(ls build-demo/python/ctorch/_C*.so 2>/dev/null | head -1) ]]; then
  emulate=""
  args=("$@")
  for ((i = 0; i < ${#args[@]}; i++)); do
    if [[ ${args[i]} == --emulate ]]; then emulate=${args[i + 1]:-}; fi
  done
  echo
  echo "== the same walkthrough in Python (examples/python/tour.py)"
  PYTHONPATH=build-demo/python CTORCH_EMULATED_CUDA=${emulate:-${CTORCH_EMULATED_CUDA:-}} /usr/bin/python3 \
    examples/python/tour.py
fi
