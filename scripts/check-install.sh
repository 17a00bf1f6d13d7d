#!/usr/bin/env bash
# Installs a built tree into a prefix and builds two consumers that set nothing but
# find_package(ctorch CONFIG) + target_link_libraries (no language level, no flags): one with the
# native header, one libtorch-style program with <ctorch/torch.h>. Both run, on 2 emulated devices.
# Every installed program runs from the prefix with LD_LIBRARY_PATH unset (its own run path finds libctorch).
# Usage: scripts/check-install.sh [build-dir] [prefix]   (prefix: kept when given, else a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
consumer=$(mktemp -d)
if [ -n "${2:-}" ]; then
  prefix=$2
  trap 'rm -rf "$consumer"' EXIT
else
  prefix=$(mktemp -d)
  trap 'rm -rf "$prefix" "$consumer"' EXIT
fi
cmake --install "$build" --prefix "$prefix" >/dev/null

# Installed programs, each run from the prefix (a fresh directory, outside the loader's search path).
ran=0
for exe in "$prefix"/bin/*; do
  name=$(basename "$exe")
  case "$name" in
    ctorch-smi) env -u LD_LIBRARY_PATH "$exe" --emulate 2 >/dev/null ;;
    ctorchrun) env -u LD_LIBRARY_PATH "$exe" --standalone --nproc-per-node 2 sh -c 'test "$WORLD_SIZE" = 2' >/dev/null ;;
    ctorch-memory-viz) env -u LD_LIBRARY_PATH "$exe" --help 2>/dev/null ;;
    *) echo "check-install: no check for installed program bin/$name (add one here)" >&2; exit 1 ;;
  esac || { echo "check-install: installed bin/$name failed to run from $prefix" >&2; exit 1; }
  ran=$((ran + 1))
done
[ "$ran" -ge 3 ] || { echo "check-install: expected at least 3 installed programs, found $ran" >&2; exit 1; }
cat > "$consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(consumer CXX)
find_package(ctorch CONFIG REQUIRED)
add_executable(native native.cpp)
target_link_libraries(native PRIVATE ctorch::ctorch)
add_executable(libtorch_style libtorch_style.cpp)
target_link_libraries(libtorch_style PRIVATE ctorch::ctorch)
CMAKE
cat > "$consumer/native.cpp" <<'CPP'
#include <ctorch/ctorch.h>
#include <iostream>
#include <sstream>
int main() {
  ctorch::Tensor t = ctorch::ones({2, 2}) * 3;
  std::ostringstream os;
  os << t;  // the native header prints PyTorch's Python repr
  std::cout << os.str() << "\n";
  return t.sum().item<float>() == 12.0f && os.str() == "tensor([[3., 3.],\n        [3., 3.]])" ? 0 : 1;
}
CPP
cat > "$consumer/libtorch_style.cpp" <<'CPP'
// Ordinary libtorch 1.13 code: only the include differs from a libtorch program.
#include <ctorch/torch.h>
#include <iostream>
#include <sstream>
int main() {
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  torch::Tensor a = torch::ones({2, 3}, device);
  torch::Tensor b = torch::add(a, 1).to(torch::kCPU);
  {
    c10::cuda::OptionalCUDAGuard guard;
    if (torch::cuda::device_count() > 1) guard.set_device(torch::Device(torch::kCUDA, 1));
    torch::Tensor c = torch::div(torch::ones({2}, torch::TensorOptions().device(device)), 2, "floor");
    if (c.sum().item().toDouble() != 0.0) return 1;
  }
  std::ostringstream os;
  os << b;  // libtorch's format
  std::cout << os.str() << "\n" << "TORCH_VERSION " << TORCH_VERSION << ", ctorch " << ctorch::version() << "\n";
  return os.str() == " 2  2  2\n 2  2  2\n[ CPUFloatType{2,3} ]" ? 0 : 1;
}
CPP
cmake -S "$consumer" -B "$consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$consumer/build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$consumer/build/native"
LD_LIBRARY_PATH="$prefix/lib" CTORCH_EMULATED_CUDA=2 "$consumer/build/libtorch_style"
echo "check-install: $ran installed programs ran from the prefix; find_package(ctorch) consumers (native and <ctorch/torch.h>, no flags set) built and ran"

# A libtorch project as its own CMakeLists.txt is written (find_package(Torch), TORCH_LIBRARIES,
# TORCH_CXX_FLAGS, C++14 requested): <torch/torch.h> is ctorch's; it trains, checkpoints and resumes.
torchapp=$(mktemp -d)
cat > "$torchapp/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(torch_app CXX)
set(CMAKE_CXX_STANDARD 14)
find_package(Torch 1.13 REQUIRED)
set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} ${TORCH_CXX_FLAGS}")
add_executable(torch_app app.cpp)
target_link_libraries(torch_app "${TORCH_LIBRARIES}")
CMAKE
cat > "$torchapp/app.cpp" <<'CPP'
#include <torch/torch.h>
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <iostream>
int main(int argc, char** argv) {
  torch::manual_seed(0);
  const torch::Tensor w = torch::randn({3, 1}), x = torch::randn({64, 3}), y = x.mm(w) + 0.5;
  auto fc = torch::nn::Linear(3, 1);
  torch::optim::SGD opt(fc->parameters(), torch::optim::SGDOptions(0.1).momentum(0.5));
  float loss = 0;
  for (int i = 0; i < 200; ++i) {
    opt.zero_grad();
    auto out = torch::smooth_l1_loss(fc(x), y, torch::Reduction::Mean);
    out.backward();
    opt.step();
    loss = out.item<float>();
  }
  const std::string dir = argv[1];
  torch::save(fc, dir + "/fc.pt");
  torch::save(opt, dir + "/opt.pt");
  auto fc2 = torch::nn::Linear(3, 1);
  torch::load(fc2, dir + "/fc.pt");
  std::cout << "loss " << loss << "\n";
  return loss < 1e-3f && torch::equal(fc2->weight, fc->weight) ? 0 : 1;
}
CPP
cmake -S "$torchapp" -B "$torchapp/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$torchapp/build" >/dev/null
env -u LD_LIBRARY_PATH LD_LIBRARY_PATH="$prefix/lib" "$torchapp/build/torch_app" "$torchapp"
printf '#include <torch/script.h>\nint main() {}\n' > "$torchapp/script.cpp"
if c++ -std=c++20 -fsyntax-only -I"$prefix/include/ctorch/compat" -I"$prefix/include" "$torchapp/script.cpp" 2>/dev/null; then
  echo "check-install: <torch/script.h> compiled; it should stop with ctorch's out-of-scope message" >&2; exit 1
fi
rm -rf "$torchapp"
echo "check-install: find_package(Torch) project (C++14 requested, <torch/torch.h>) built, trained and reloaded its checkpoint"

# The installed Python package, from outside the checkout (so nothing imports the source tree):
# it finds libctorch through its run path, and the side-by-side and CUDA tests pass against it.
pydir="$prefix/lib/python3/dist-packages"
if [ -d "$pydir/ctorch" ]; then
  tests=$(mktemp -d)
  cp -r python/tests/. "$tests/"
  (cd "$tests" && env -u LD_LIBRARY_PATH PYTHONPATH="$pydir" CTORCH_EMULATED_CUDA=2 PYTHONDONTWRITEBYTECODE=1 \
     /usr/bin/python3 -c 'import ctorch as torch, sys; assert torch.__file__.startswith(sys.argv[1]), torch.__file__; print("installed python package:", torch.__file__, "cuda:", torch.cuda.device_count())' "$pydir" &&
   env -u LD_LIBRARY_PATH PYTHONPATH="$pydir" PYTHONDONTWRITEBYTECODE=1 \
     /usr/bin/python3 -m pytest -q -p no:cacheprovider test_side_by_side.py test_cuda.py test_interop.py test_serialization.py)
  rm -rf "$tests"
fi
