// RawBackend: the raw memory and the events a caching allocator needs, one seam for both caches
// (the device cache of caching_allocator.h and the pinned host cache of host_allocator.h).
// RuntimeEvents implements the event half over a DeviceRuntime, for both caches' real backends;
// the unit tests implement the whole interface with mocks.
#pragma once

#include <atomic>
#include <cstddef>

#include "ctorch/device.h"
#include "ctorch/stream.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::memory {

/// Raw memory and events of one cache.
class RawBackend {
 public:
  virtual ~RawBackend() = default;
  /// `bytes` of new memory. Out of memory: null from a device backend (the device cache then frees
  /// cached blocks and retries); a pinned host backend throws OutOfMemoryError. Other errors throw.
  virtual void* allocate(size_t bytes) = 0;
  /// Returns memory from allocate(); must not throw.
  virtual void deallocate(void* ptr) noexcept = 0;
  /// A new event on device `index` (timing disabled).
  virtual void* create_event(DeviceIndex index) = 0;
  /// Destroys an event; must not throw.
  virtual void destroy_event(void* event) noexcept = 0;
  /// Captures the work queued on `s` so far.
  virtual void record_event(void* event, Stream s) = 0;
  /// True when the captured work has finished.
  virtual bool query_event(void* event) = 0;
  /// Blocks until the captured work has finished.
  virtual void synchronize_event(void* event) = 0;
  /// Free and total bytes of the device (cudaMemGetInfo); the host cache never asks.
  virtual void memory_info(size_t* free_bytes, size_t* total_bytes) {
    *free_bytes = 0;
    *total_bytes = 0;
  }
};

/// A RawBackend's events forwarded to a DeviceRuntime, which can be rebound when the CUDA runtime
/// is reconfigured (the cache itself lives on).
class RuntimeEvents : public RawBackend {
 public:
  /// Forwards to `rt`.
  explicit RuntimeEvents(impl::DeviceRuntime* rt) : rt_(rt) {}
  void* create_event(DeviceIndex index) override { return rt()->create_event(index, impl::EventFlags{}); }
  void destroy_event(void* event) noexcept override { rt()->destroy_event(event); }
  void record_event(void* event, Stream s) override { rt()->record_event(event, s); }
  bool query_event(void* event) override { return rt()->query_event(event); }
  void synchronize_event(void* event) override { rt()->synchronize_event(event); }

  /// The runtime forwarded to.
  impl::DeviceRuntime* runtime() const { return rt_.load(std::memory_order_acquire); }
  /// Forwards to `rt` from now on (callers make sure the cache is idle).
  void rebind(impl::DeviceRuntime* rt) { rt_.store(rt, std::memory_order_release); }

 protected:
  /// The runtime, for the memory half in subclasses.
  impl::DeviceRuntime* rt() const { return rt_.load(std::memory_order_relaxed); }

 private:
  std::atomic<impl::DeviceRuntime*> rt_;
};

}  // namespace ctorch::api::memory
