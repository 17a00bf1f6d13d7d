// Grid and block shape of an elementwise launch, shared by the CUDA launcher and the emulated
// one (Note [Emulated grid walk]), so both walk the same blockIdx/threadIdx grid and grid/tail bugs
// show up without a GPU (a wrong first() fails the consistency suite: checked once, 2026-11-26).
//
// Note [Elementwise launch shape]
// - A launch covers at most kMaxElementsPerLaunch elements so that the linear index inside a
//   launch fits in 32 bits (PyTorch's with_32bit_indexing); larger ops are split into several
//   launches, launch `j` covering [j * kMaxElementsPerLaunch, ...).
// - block = kElementwiseBlockSize threads; grid = min(ceil(n / block), one full wave), where a wave
//   is sm_count * max_threads_per_sm / block blocks. Threads then walk the range grid-stride:
//   i = block_idx * block + thread_idx, i += grid * block while i < n.
#pragma once

#include <cstdint>

#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {

/// Threads per block of elementwise kernels.
inline constexpr int kElementwiseBlockSize = 256;
/// Elements one elementwise launch covers at most (32-bit indexing inside a launch).
inline constexpr int64_t kMaxElementsPerLaunch = int64_t{1} << 31;
/// Blocks of a launch when the device's limits are unknown (sm_count or threads per SM is 0).
inline constexpr int64_t kFallbackMaxBlocks = 65535;

/// What the launch shape depends on: the device's multiprocessors and resident threads per SM.
struct DeviceLimits {
  int sm_count = 0;
  int max_threads_per_sm = 0;
};

/// One launch: `grid` blocks of `block` threads over `n` elements (n <= kMaxElementsPerLaunch).
struct LaunchConfig {
  uint32_t grid = 0;
  uint32_t block = 0;
  uint32_t n = 0;

  /// Grid-stride step of the loop.
  CTORCH_HD uint32_t stride() const { return grid * block; }
  /// First element of thread (block_idx, thread_idx).
  CTORCH_HD uint32_t first(uint32_t block_idx, uint32_t thread_idx) const { return block_idx * block + thread_idx; }
};

/// Number of launches an op of `numel` elements is split into.
CTORCH_HD constexpr int64_t num_launches(int64_t numel) {
  return numel <= 0 ? 0 : (numel + kMaxElementsPerLaunch - 1) / kMaxElementsPerLaunch;
}

/// The launch over `n` elements (1 <= n <= kMaxElementsPerLaunch) on a device with `limits`.
CTORCH_HD constexpr LaunchConfig elementwise_launch_config(int64_t n, DeviceLimits limits,
                                                           int block = kElementwiseBlockSize) {
  const int64_t blocks = (n + block - 1) / block;
  int64_t wave = static_cast<int64_t>(limits.sm_count) * limits.max_threads_per_sm / block;
  if (wave <= 0) wave = kFallbackMaxBlocks;
  const int64_t grid = blocks < wave ? blocks : wave;
  return LaunchConfig{static_cast<uint32_t>(grid < 1 ? 1 : grid), static_cast<uint32_t>(block),
                      static_cast<uint32_t>(n)};
}

}  // namespace ctorch::api::kernels
