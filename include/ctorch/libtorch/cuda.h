// libtorch's CUDA spellings over ctorch::cuda: c10::cuda (CUDAFunctions.h, CUDAStream.h,
// CUDAGuard.h, CUDACachingAllocator.h), at::cuda (CUDAContext.h, CUDAEvent.h) and torch::cuda.
// Thin maps: the behaviour is ctorch::cuda's, real or emulated devices alike.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "ctorch/libtorch/core.h"

// cudaEventCreateWithFlags' flags, spelled exactly as <driver_types.h> does so that either header
// may come first.
#ifndef cudaEventDefault
#define cudaEventDefault 0x00
#endif
#ifndef cudaEventBlockingSync
#define cudaEventBlockingSync 0x01
#endif
#ifndef cudaEventDisableTiming
#define cudaEventDisableTiming 0x02
#endif
#ifndef cudaEventInterprocess
#define cudaEventInterprocess 0x04
#endif

namespace c10::cuda {
/// Number of usable CUDA devices (0 without any).
inline ::ctorch::DeviceIndex device_count() noexcept {
  return static_cast<::ctorch::DeviceIndex>(::ctorch::cuda::device_count());
}
/// device_count(), throwing "No CUDA GPUs are available" when it is 0.
inline ::ctorch::DeviceIndex device_count_ensure_non_zero() {
  const ::ctorch::DeviceIndex n = device_count();
  CTORCH_CHECK(n > 0, "No CUDA GPUs are available");
  return n;
}
/// The calling thread's current device.
inline ::ctorch::DeviceIndex current_device() {
  return static_cast<::ctorch::DeviceIndex>(::ctorch::cuda::current_device());
}
/// Makes `device` current for the calling thread (a negative index is a no-op).
inline void set_device(::ctorch::DeviceIndex device) { ::ctorch::cuda::set_device(static_cast<int>(device)); }
/// Waits for all work on the current device.
inline void device_synchronize() { ::ctorch::cuda::synchronize(); }

/// c10::cuda::CUDAStream: a cuda stream value (ctorch::cuda::Stream).
class CUDAStream : public ::ctorch::cuda::Stream {
 public:
  /// Wraps a core stream; it must be a cuda stream.
  explicit CUDAStream(::ctorch::Stream s) : ::ctorch::cuda::Stream(s) {}
  /// From a ctorch::cuda::Stream.
  CUDAStream(const ::ctorch::cuda::Stream& s) : ::ctorch::cuda::Stream(s) {}  // NOLINT
  /// The StreamId.
  ::ctorch::StreamId id() const { return stream_id(); }
  /// The core stream value (c10::Stream).
  ::ctorch::Stream unwrap() const { return ::ctorch::cuda::Stream::unwrap(); }
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

/// Switches the current device for a scope and restores the original at exit (c10's
/// InlineDeviceGuard): an index of -1 changes nothing.
class CUDAGuard {
 public:
  CUDAGuard() = delete;
  /// Switches to cuda:device_index.
  explicit CUDAGuard(::ctorch::DeviceIndex device_index) : CUDAGuard(::ctorch::Device(::ctorch::kCUDA, device_index)) {}
  /// Switches to `device`, which must be a cuda device.
  explicit CUDAGuard(::ctorch::Device device) : original_(current_cuda()), current_(original_) { set_device(device); }
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  ~CUDAGuard() {
    try {
      if (::ctorch::cuda::current_device() != original_.index()) ::ctorch::cuda::set_device(original_.index());
    } catch (...) {  // restoring a device that was valid cannot fail; never throw from a destructor
    }
  }
  /// Switches to `device` (a cuda device; index -1 changes nothing); the original stays.
  void set_device(::ctorch::Device device) {
    CTORCH_CHECK_VALUE(device.is_cuda(), "Expected a CUDA device, but got ", device);
    if (!device.has_index()) return;
    ::ctorch::cuda::set_device(static_cast<int>(device.index()));
    current_ = device;
  }
  /// Same as set_device.
  void reset_device(::ctorch::Device device) { set_device(device); }
  /// set_device(cuda:index).
  void set_index(::ctorch::DeviceIndex index) { set_device(::ctorch::Device(::ctorch::kCUDA, index)); }
  /// The device current when the guard was made.
  ::ctorch::Device original_device() const { return original_; }
  /// The device the guard last switched to (the original when it never switched).
  ::ctorch::Device current_device() const { return current_; }

 private:
  static ::ctorch::Device current_cuda() {
    return ::ctorch::Device(::ctorch::kCUDA, static_cast<::ctorch::DeviceIndex>(::ctorch::cuda::current_device()));
  }
  ::ctorch::Device original_;
  ::ctorch::Device current_;
};

/// A CUDAGuard that may be empty: it does nothing until set_device, and reset() restores early.
class OptionalCUDAGuard {
 public:
  /// An empty guard.
  OptionalCUDAGuard() = default;
  /// A guard on `device` when given.
  explicit OptionalCUDAGuard(std::optional<::ctorch::Device> device) {
    if (device) guard_.emplace(*device);
  }
  /// A guard on cuda:index when given.
  explicit OptionalCUDAGuard(std::optional<::ctorch::DeviceIndex> index) {
    if (index) guard_.emplace(*index);
  }
  OptionalCUDAGuard(const OptionalCUDAGuard&) = delete;
  OptionalCUDAGuard& operator=(const OptionalCUDAGuard&) = delete;
  /// Switches to `device`, starting the guard if it was empty.
  void set_device(::ctorch::Device device) {
    if (guard_) {
      guard_->set_device(device);
    } else {
      guard_.emplace(device);
    }
  }
  /// Same as set_device.
  void reset_device(::ctorch::Device device) { set_device(device); }
  /// set_device(cuda:index).
  void set_index(::ctorch::DeviceIndex index) { set_device(::ctorch::Device(::ctorch::kCUDA, index)); }
  /// The device current when the guard started; nullopt while empty.
  std::optional<::ctorch::Device> original_device() const {
    return guard_ ? std::optional<::ctorch::Device>(guard_->original_device()) : std::nullopt;
  }
  /// The device the guard switched to; nullopt while empty.
  std::optional<::ctorch::Device> current_device() const {
    return guard_ ? std::optional<::ctorch::Device>(guard_->current_device()) : std::nullopt;
  }
  /// Restores the original device and empties the guard.
  void reset() { guard_.reset(); }

 private:
  std::optional<CUDAGuard> guard_;
};

/// Makes a stream current on its device, and that device current, for a scope (c10's
/// InlineStreamGuard); restores the stream of that device and the original device at exit.
class CUDAStreamGuard {
 public:
  CUDAStreamGuard() = delete;
  /// Switches to `stream`'s device and makes `stream` current there.
  explicit CUDAStreamGuard(::ctorch::Stream stream)
      : device_guard_(stream.device()),
        original_stream_of_original_device_(::ctorch::cuda::current_stream(device_guard_.original_device().index())),
        original_stream_of_current_device_(::ctorch::cuda::current_stream(stream.device().index())),
        current_stream_(CUDAStream(stream)) {
    setCurrentCUDAStream(current_stream_);
  }
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  ~CUDAStreamGuard() {
    try {
      setCurrentCUDAStream(original_stream_of_current_device_);
    } catch (...) {  // the stream was valid when saved; never throw from a destructor
    }
  }
  /// Switches to `stream`; on another device, that device's stream is restored first.
  void reset_stream(::ctorch::Stream stream) {
    const CUDAStream next(stream);
    if (next.device() != current_device()) {
      setCurrentCUDAStream(original_stream_of_current_device_);
      device_guard_.set_device(next.device());
      original_stream_of_current_device_ = ::ctorch::cuda::current_stream(next.device_index());
    }
    setCurrentCUDAStream(next);
    current_stream_ = next;
  }
  /// The stream that was current on the original device when the guard was made.
  CUDAStream original_stream() const { return original_stream_of_original_device_; }
  /// The stream the guard made current.
  CUDAStream current_stream() const { return current_stream_; }
  /// The device current when the guard was made.
  ::ctorch::Device original_device() const { return device_guard_.original_device(); }
  /// The device of current_stream().
  ::ctorch::Device current_device() const { return device_guard_.current_device(); }

 private:
  CUDAGuard device_guard_;
  CUDAStream original_stream_of_original_device_;
  CUDAStream original_stream_of_current_device_;
  CUDAStream current_stream_;
};

namespace CUDACachingAllocator {
/// Returns unused cached blocks of every device to the device.
inline void emptyCache() { ::ctorch::cuda::empty_cache(); }
/// Sets every peak statistic of `device` to its current value.
inline void resetPeakStats(::ctorch::DeviceIndex device) { ::ctorch::cuda::reset_peak_memory_stats(static_cast<int>(device)); }
/// Zeroes the accumulated statistics of `device`.
inline void resetAccumulatedStats(::ctorch::DeviceIndex device) {
  ::ctorch::cuda::reset_accumulated_memory_stats(static_cast<int>(device));
}
/// Caps what the allocator may reserve on `device` at fraction * total memory.
inline void setMemoryFraction(double fraction, ::ctorch::DeviceIndex device) {
  ::ctorch::cuda::set_per_process_memory_fraction(fraction, static_cast<int>(device));
}
/// The fraction set for `device` (1.0 when none).
inline double getMemoryFraction(::ctorch::DeviceIndex device) {
  return ::ctorch::cuda::get_per_process_memory_fraction(static_cast<int>(device));
}
/// `nbytes` from the current device's caching allocator on its current stream.
inline void* raw_alloc(size_t nbytes) { return ::ctorch::cuda::caching_allocator_alloc(static_cast<int64_t>(nbytes)); }
/// Frees memory from raw_alloc.
inline void raw_delete(void* ptr) { ::ctorch::cuda::caching_allocator_delete(ptr); }
}  // namespace CUDACachingAllocator
}  // namespace c10::cuda

namespace at::cuda {
using ::c10::cuda::CUDAGuard;
using ::c10::cuda::CUDAStream;
using ::c10::cuda::CUDAStreamGuard;
using ::c10::cuda::getCurrentCUDAStream;
using ::c10::cuda::getDefaultCUDAStream;
using ::c10::cuda::getStreamFromExternal;
using ::c10::cuda::getStreamFromPool;
using ::c10::cuda::OptionalCUDAGuard;
using ::c10::cuda::setCurrentCUDAStream;

/// Number of usable CUDA devices.
inline int64_t getNumGPUs() { return ::ctorch::cuda::device_count(); }
/// True when a CUDA device (real or emulated) can be used.
inline bool is_available() { return ::ctorch::cuda::is_available(); }
/// The current device's index.
inline ::ctorch::DeviceIndex current_device() { return ::c10::cuda::current_device(); }

/// The fields of cudaDeviceProp that ctorch knows, with cudaDeviceProp's names.
struct DeviceProp {
  char name[256] = {};
  size_t totalGlobalMem = 0;
  int major = 0;
  int minor = 0;
  int multiProcessorCount = 0;
  int maxThreadsPerMultiProcessor = 0;
  int warpSize = 32;
  int l2CacheSize = 0;
  int integrated = 0;
  int isMultiGpuBoard = 0;
  int pciBusID = 0;
  int pciDeviceID = 0;
  int pciDomainID = 0;
};
/// The properties of `device` (-1: the current device); the pointer stays valid for the life of
/// the program and is refreshed by each call.
inline const DeviceProp* getDeviceProperties(int64_t device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceProp>> cache;
  const int index = device < 0 ? ::ctorch::cuda::current_device() : static_cast<int>(device);
  const ::ctorch::cuda::DeviceProperties p = ::ctorch::cuda::get_device_properties(index);
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<DeviceProp>& slot = cache[index];
  if (!slot) slot = std::make_unique<DeviceProp>();
  std::strncpy(slot->name, p.name.c_str(), sizeof(slot->name) - 1);
  slot->totalGlobalMem = p.total_memory;
  slot->major = p.major;
  slot->minor = p.minor;
  slot->multiProcessorCount = p.multi_processor_count;
  slot->maxThreadsPerMultiProcessor = p.max_threads_per_multi_processor;
  slot->warpSize = p.warp_size;
  slot->l2CacheSize = static_cast<int>(p.L2_cache_size);
  slot->integrated = p.is_integrated ? 1 : 0;
  slot->isMultiGpuBoard = p.is_multi_gpu_board ? 1 : 0;
  slot->pciBusID = p.pci_bus_id;
  slot->pciDeviceID = p.pci_device_id;
  slot->pciDomainID = p.pci_domain_id;
  return slot.get();
}
/// getDeviceProperties(current device).
inline const DeviceProp* getCurrentDeviceProperties() { return getDeviceProperties(-1); }
/// The current device's warp size.
inline int warp_size() { return getCurrentDeviceProperties()->warpSize; }

/// at::cuda::CUDAEvent: an event created lazily at its first record (timing disabled by default).
class CUDAEvent : public ::ctorch::cuda::Event {
 public:
  /// Timing disabled (cudaEventDisableTiming), as libtorch's default.
  CUDAEvent() : ::ctorch::cuda::Event(false) {}
  /// cudaEventCreateWithFlags flags: cudaEventBlockingSync, cudaEventDisableTiming, cudaEventInterprocess.
  explicit CUDAEvent(unsigned int flags)
      : ::ctorch::cuda::Event((flags & cudaEventDisableTiming) == 0, (flags & cudaEventBlockingSync) != 0,
                              (flags & cudaEventInterprocess) != 0) {}
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
  /// Records on the current stream.
  void record() const { ::ctorch::cuda::Event::record(); }
  /// Records on `stream`.
  void record(const CUDAStream& stream) const { ::ctorch::cuda::Event::record(stream); }
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

namespace torch::cuda {
/// Number of usable CUDA devices.
inline size_t device_count() { return static_cast<size_t>(::ctorch::cuda::device_count()); }
/// True when a CUDA device (real or emulated) can be used.
inline bool is_available() { return ::ctorch::cuda::is_available(); }
/// True when cuDNN runs the cuda devices' convolutions (backends::cudnn::is_available()).
inline bool cudnn_is_available() { return ::ctorch::backends::cudnn::is_available(); }
/// Seeds the current device's generator.
inline void manual_seed(uint64_t seed) { ::ctorch::cuda::manual_seed(seed); }
/// Seeds every device's generator.
inline void manual_seed_all(uint64_t seed) { ::ctorch::cuda::manual_seed_all(seed); }
/// Waits for all work on `device_index` (-1: the current device).
inline void synchronize(int64_t device_index = -1) { ::ctorch::cuda::synchronize(static_cast<int>(device_index)); }
}  // namespace torch::cuda
