#!/usr/bin/env bash
# Installs the Debian packages ctorch's build, tests and benchmarks need. Idempotent; run as root.
# Usage: scripts/install-deps.sh [--bench | --demo]   (--bench also installs libtorch-dev for comparisons;
# --demo only what the library, the tour and the Python package need: no test tools, no PyTorch, no browser)
set -euo pipefail
# libgloo-dev: collectives for the cpu/emulated process group (src/distributed).
# zlib1g-dev: CRCs of PyTorch zip checkpoints (src/serialize).
# libfftw3-dev: torch.fft on cpu and emulated devices (src/backends/cpu/fft.cpp); pkg-config finds it.
# libdnnl-dev: oneDNN, the cpu convolution (src/backends/cpu/onednn_conv.cpp).
# chromium: headless browser for the ctorch-memory-viz page tests (they skip without it).
# python3-dev, pybind11-dev, libdlpack-dev: the Python package (python/); python3-pytest, python3-numpy: its tests;
# python3-torch: Debian's PyTorch 1.13.1 (cpu), the side-by-side reference of those tests.
packages=(cmake g++ make libgtest-dev libgmock-dev libbenchmark-dev libopenblas-pthread-dev libopenblas-dev nlohmann-json3-dev zlib1g-dev libgloo-dev libfftw3-dev libdnnl-dev pkg-config chromium
          python3-dev pybind11-dev libdlpack-dev python3-pytest python3-numpy python3-torch)
if [[ "${1:-}" == "--bench" ]]; then packages+=(libtorch-dev); fi
if [[ "${1:-}" == "--demo" ]]; then
  packages=(cmake g++ make libopenblas-pthread-dev libopenblas-dev nlohmann-json3-dev zlib1g-dev libgloo-dev libfftw3-dev
            libdnnl-dev pkg-config python3-dev pybind11-dev libdlpack-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "install-deps: all of ${packages[*]} installed"
