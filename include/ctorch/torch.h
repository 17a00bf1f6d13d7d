// libtorch spellings over ctorch: a program written against libtorch's C++ frontend
// (torch::, at::, c10::) compiles with `#include <torch/torch.h>` replaced by this header.
#pragma once

#include <cstring>
#include <string_view>
#include <tuple>
#include <type_traits>

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
using ::ctorch::cuda::synchronize;
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

namespace c10::cuda {
/// c10::cuda::CUDAStream: a cuda stream value (ctorch::cuda::Stream).
class CUDAStream : public ::ctorch::cuda::Stream {
 public:
  /// Wraps a core stream; it must be a cuda stream.
  explicit CUDAStream(::ctorch::Stream s) : ::ctorch::cuda::Stream(s) {}
  /// From a ctorch::cuda::Stream.
  CUDAStream(const ::ctorch::cuda::Stream& s) : ::ctorch::cuda::Stream(s) {}  // NOLINT
  /// The StreamId.
  ::ctorch::StreamId id() const { return stream_id(); }
  /// (least, greatest) priority.
  static std::tuple<int, int> priority_range() {
    const auto r = ::ctorch::cuda::Stream::priority_range();
    return {r.first, r.second};
  }
};
/// The calling thread's current stream on `device_index` (-1: the current device).
inline CUDAStream getCurrentCUDAStream(::ctorch::DeviceIndex device_index = -1) {
  return ::ctorch::cuda::current_stream(static_cast<int>(device_index));
}
/// The default stream of `device_index` (-1: the current device).
inline CUDAStream getDefaultCUDAStream(::ctorch::DeviceIndex device_index = -1) {
  return ::ctorch::cuda::default_stream(static_cast<int>(device_index));
}
/// A pool stream with `priority` (<= 0) of `device_index` (-1: the current device).
inline CUDAStream getStreamFromPool(int priority, ::ctorch::DeviceIndex device_index = -1) {
  return ::ctorch::cuda::Stream(static_cast<int>(device_index), priority);
}
/// A pool stream: the highest priority level when `isHighPriority`, else priority 0.
inline CUDAStream getStreamFromPool(bool isHighPriority = false, ::ctorch::DeviceIndex device_index = -1) {  // NOLINT
  return getStreamFromPool(isHighPriority ? std::get<1>(CUDAStream::priority_range()) : 0, device_index);
}
/// A stream wrapping a native cudaStream_t (passed as an integer or pointer).
inline CUDAStream getStreamFromExternal(uintptr_t ext_stream, ::ctorch::DeviceIndex device_index) {
  return ::ctorch::cuda::get_stream_from_external(ext_stream, static_cast<int>(device_index));
}
/// Makes `stream` current on its device; the current device does not change.
inline void setCurrentCUDAStream(const CUDAStream& stream) { ::ctorch::cuda::detail::set_current_stream_only(stream); }

/// Makes a stream and its device current for the scope, restoring both at exit.
class CUDAStreamGuard {
 public:
  /// Switches to `stream` and its device.
  explicit CUDAStreamGuard(const ::ctorch::cuda::Stream& stream) : context_(stream) {}

 private:
  ::ctorch::cuda::StreamContext context_;
};
}  // namespace c10::cuda

namespace at::cuda {
using ::c10::cuda::CUDAStream;
using ::c10::cuda::CUDAStreamGuard;
using ::c10::cuda::getCurrentCUDAStream;
using ::c10::cuda::getDefaultCUDAStream;
using ::c10::cuda::getStreamFromExternal;
using ::c10::cuda::getStreamFromPool;
using ::c10::cuda::setCurrentCUDAStream;

/// at::cuda::CUDAEvent: an event created lazily at its first record (timing disabled by default).
class CUDAEvent : public ::ctorch::cuda::Event {
 public:
  /// Timing disabled (cudaEventDisableTiming), as libtorch's default.
  CUDAEvent() : ::ctorch::cuda::Event(false) {}
  /// cudaEventCreateWithFlags flags: BlockingSync 0x1, DisableTiming 0x2, Interprocess 0x4.
  explicit CUDAEvent(unsigned int flags) : ::ctorch::cuda::Event((flags & 0x2u) == 0, (flags & 0x1u) != 0, (flags & 0x4u) != 0) {}
  /// Opens the interprocess event behind `handle` on `device_index` (cudaIpcOpenEventHandle).
  /// Any trivially copyable 64-byte type is accepted, so no CUDA header is needed.
  template <class IpcHandle>
    requires(sizeof(IpcHandle) == 64 && std::is_trivially_copyable_v<IpcHandle>)
  CUDAEvent(::ctorch::DeviceIndex device_index, const IpcHandle* handle)
      : ::ctorch::cuda::Event(::ctorch::cuda::Event::from_ipc_handle(
            ::ctorch::Device(::ctorch::DeviceType::CUDA, device_index),
            std::string_view(reinterpret_cast<const char*>(handle), sizeof(IpcHandle)))) {}
  using ::ctorch::cuda::Event::ipc_handle;
  /// Writes the event's cudaIpcEventHandle_t to `*handle`, creating the event on the current
  /// device when it was never recorded.
  template <class IpcHandle>
    requires(sizeof(IpcHandle) == 64 && std::is_trivially_copyable_v<IpcHandle>)
  void ipc_handle(IpcHandle* handle) const {
    const ::ctorch::cuda::IpcEventHandle bytes = ipc_handle();
    std::memcpy(static_cast<void*>(handle), bytes.data(), sizeof(IpcHandle));
  }
  /// Makes future work on `stream` wait for this event (Event::wait).
  void block(const CUDAStream& stream) const { wait(stream); }
  /// Records on `stream` only if never recorded before.
  void recordOnce(const CUDAStream& stream) const {  // NOLINT
    if (!is_created()) record(stream);
  }
  /// True after the first record.
  bool isCreated() const { return is_created(); }  // NOLINT
  /// The device index (-1 before the first record).
  ::ctorch::DeviceIndex device_index() const {
    const auto d = device();
    return d ? d->index() : ::ctorch::DeviceIndex(-1);
  }
};
}  // namespace at::cuda
