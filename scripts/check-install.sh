#!/usr/bin/env bash
# Installs a built tree into a scratch prefix and builds a consumer with find_package(ctorch CONFIG).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
prefix=$(mktemp -d)
consumer=$(mktemp -d)
trap 'rm -rf "$prefix" "$consumer"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cat > "$consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(consumer CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(ctorch CONFIG REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE ctorch::ctorch)
CMAKE
cat > "$consumer/main.cpp" <<'CPP'
#include <ctorch/ctorch.h>
#include <iostream>
int main() {
  ctorch::Tensor t = ctorch::ones({2, 2}) * 3;
  std::cout << t.sum().item<float>() << "\n";
  return t.sum().item<float>() == 12.0f ? 0 : 1;
}
CPP
cmake -S "$consumer" -B "$consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$consumer/build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$consumer/build/consumer"
echo "check-install: find_package(ctorch) consumer built and ran"
