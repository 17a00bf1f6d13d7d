// libtorch spellings over ctorch: a program written against libtorch's C++ frontend
// (torch::, at::, c10::) compiles with `#include <torch/torch.h>` replaced by this header.
#pragma once

#include "ctorch/ctorch.h"

namespace torch {
using namespace ::ctorch;  // NOLINT: torch:: is an alias namespace by design
using ::ctorch::Device;
using ::ctorch::DeviceType;
using ::ctorch::Tensor;
using ::ctorch::TensorOptions;
using ::ctorch::Scalar;
using ::ctorch::ScalarType;
using ::ctorch::Generator;
using ::ctorch::IntArrayRef;
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;
namespace indexing {
using ::ctorch::Ellipsis;
using ::ctorch::None;
using ::ctorch::Slice;
using ::ctorch::TensorIndex;
}  // namespace indexing
namespace cuda {
using ::ctorch::cuda::device_count;
using ::ctorch::cuda::is_available;
using ::ctorch::cuda::manual_seed;
using ::ctorch::cuda::manual_seed_all;
}  // namespace cuda
}  // namespace torch

namespace at {
using namespace ::ctorch;  // NOLINT
inline constexpr ::ctorch::DeviceType kCPU = ::ctorch::DeviceType::CPU;
inline constexpr ::ctorch::DeviceType kCUDA = ::ctorch::DeviceType::CUDA;
}  // namespace at

namespace c10 {
using ::ctorch::Device;
using ::ctorch::DeviceIndex;
using ::ctorch::DeviceType;
using ::ctorch::Half;
using ::ctorch::BFloat16;
using ::ctorch::IntArrayRef;
using ::ctorch::Scalar;
using ::ctorch::ScalarType;
using ::ctorch::Stream;
using Error = ::ctorch::Error;
using OutOfMemoryError = ::ctorch::OutOfMemoryError;
namespace cuda::CUDACachingAllocator {
/// Returns unused cached blocks of every device to the device.
inline void emptyCache() { ::ctorch::cuda::empty_cache(); }
/// Sets every peak statistic of `device` to its current value.
inline void resetPeakStats(DeviceIndex device) { ::ctorch::cuda::reset_peak_memory_stats(static_cast<int>(device)); }
/// Zeroes the accumulated statistics of `device`.
inline void resetAccumulatedStats(DeviceIndex device) {
  ::ctorch::cuda::reset_accumulated_memory_stats(static_cast<int>(device));
}
/// Caps what the allocator may reserve on `device` at fraction * total memory.
inline void setMemoryFraction(double fraction, DeviceIndex device) {
  ::ctorch::cuda::set_per_process_memory_fraction(fraction, static_cast<int>(device));
}
/// The fraction set for `device` (1.0 when none).
inline double getMemoryFraction(DeviceIndex device) {
  return ::ctorch::cuda::get_per_process_memory_fraction(static_cast<int>(device));
}
/// `nbytes` from the current device's caching allocator on its current stream.
inline void* raw_alloc(size_t nbytes) { return ::ctorch::cuda::caching_allocator_alloc(static_cast<int64_t>(nbytes)); }
/// Frees memory from raw_alloc.
inline void raw_delete(void* ptr) { ::ctorch::cuda::caching_allocator_delete(ptr); }
}  // namespace cuda::CUDACachingAllocator
}  // namespace c10
