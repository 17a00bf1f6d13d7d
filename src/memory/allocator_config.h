// AllocatorConfig: the options of the device caching allocator, parsed from the
// PYTORCH_CUDA_ALLOC_CONF grammar (CTORCH_CUDA_ALLOC_CONF wins when both are set).
//
// Grammar and error texts follow c10/core/AllocatorConfig.cpp: tokens are split at ',' ':' '['
// ']' (each also a token), spaces are dropped, the string is `key:value(,key:value)*`.
// Parsing is a pure function of the string, so tests can parse anything without touching the
// process environment; device_allocator_config() holds the process-wide value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace ctorch::inline api::memory {

/// Number of power-of-two intervals of roundup_power2_divisions (1 MiB .. 64 GiB).
inline constexpr size_t kRoundUpPowerOfTwoIntervals = 16;

/// Parsed allocator options; the defaults are PyTorch's.
struct AllocatorConfig {
  /// Blocks >= this are never split; SIZE_MAX disables (max_split_size_mb).
  size_t max_split_size = std::numeric_limits<size_t>::max();
  /// How much larger than the request an oversize cached block may be (max_non_split_rounding_mb).
  size_t max_non_split_rounding = size_t{20} << 20;
  /// Divisions per power-of-two interval, index = clamp(log2(size) - 20, 0, 15); 0 = off.
  std::array<size_t, kRoundUpPowerOfTwoIntervals> roundup_power2_divisions{};
  /// Reclaim threshold in (0, 1); 0 = off. Only active with a memory fraction.
  double garbage_collection_threshold = 0.0;
  /// expandable_segments:True: memory is mapped into growing reserved ranges (expandable_segment.h).
  bool expandable_segments = false;
  /// release_lock_on_cudamalloc (parsed; the lock is always held).
  bool release_lock_on_cudamalloc = false;
  /// pinned_use_cuda_host_register (for the host allocator).
  bool pinned_use_cuda_host_register = false;
  /// pinned_num_register_threads (for the host allocator).
  size_t pinned_num_register_threads = 1;
  /// pinned_use_background_threads (for the host allocator).
  bool pinned_use_background_threads = false;
  /// "native" or "cudaMallocAsync".
  std::string backend = "native";
  /// True when an option that only the native backend honours was given.
  bool used_native_specific_option = false;
  /// The settings string this config was parsed from.
  std::string settings;

  /// Divisions for a rounded request of `size` bytes.
  size_t divisions_for(size_t size) const;
};

/// Parses a settings string; throws ctorch::Error with PyTorch's message on bad input.
AllocatorConfig parse_allocator_config(const std::string& settings);

/// The process-wide config: CTORCH_CUDA_ALLOC_CONF, else PYTORCH_CUDA_ALLOC_CONF, read once.
/// Throws (every time it is asked) when the variable does not parse.
const AllocatorConfig& device_allocator_config();

/// PyTorch's format_size: "512 bytes", "1.50 KiB", "2.00 MiB", "8.00 GiB".
std::string format_size(uint64_t bytes);

}  // namespace ctorch::api::memory
