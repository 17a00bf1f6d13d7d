// A fake DeviceRuntime for testing the layers above the seam without any backend
// (c10's FakeGuardImpl): N devices, a thread-local current device, counters, no memory.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "ctorch/error.h"
#include "runtime/device_runtime.h"

namespace ctorch::testing {

class FakeRuntime final : public impl::DeviceRuntime {
 public:
  explicit FakeRuntime(int devices) : devices_(devices) {}
  DeviceType type() const noexcept override { return DeviceType::CUDA; }
  int device_count() const noexcept override { return devices_; }
  impl::DeviceProperties properties(DeviceIndex i) const override {
    check(i);
    impl::DeviceProperties p;
    p.name = "fake";
    return p;
  }
  DeviceIndex current_device() const override { return current(); }
  void set_current_device(DeviceIndex i) override {
    check(i);
    current() = i;
    set_calls.fetch_add(1);
  }
  Stream create_stream(DeviceIndex i, int) override { return Stream(Device(DeviceType::CUDA, i), 1); }
  bool query_stream(Stream) override { return true; }
  void synchronize_stream(Stream) override {}
  void synchronize_device(DeviceIndex) override {}
  impl::EventHandle create_event(DeviceIndex, impl::EventFlags) override { return new int(0); }
  void destroy_event(impl::EventHandle e) noexcept override { delete static_cast<int*>(e); }
  void record_event(impl::EventHandle, Stream) override {}
  void wait_event(Stream, impl::EventHandle) override {}
  bool query_event(impl::EventHandle) override { return true; }
  void synchronize_event(impl::EventHandle) override {}
  float elapsed_ms(impl::EventHandle, impl::EventHandle) override { return 0; }
  void* raw_allocate(DeviceIndex, size_t bytes) override { return std::malloc(bytes ? bytes : 1); }
  void raw_free(DeviceIndex, void* p) noexcept override { std::free(p); }
  void copy_async(void* d, DeviceIndex, const void* s, DeviceIndex, size_t n, Stream) override { std::memcpy(d, s, n); }
  void memset_async(void* d, int v, size_t n, Stream) override { std::memset(d, v, n); }
  void* pinned_allocate(size_t n) override { return std::malloc(n ? n : 1); }
  void pinned_free(void* p) noexcept override { std::free(p); }
  void memory_info(DeviceIndex, size_t* f, size_t* t) override { *f = *t = 0; }

  std::atomic<int> set_calls{0};

 private:
  void check(DeviceIndex i) const {
    CTORCH_CHECK_DEVICE(i >= 0 && i < devices_, "CUDA error: invalid device ordinal");
  }
  static DeviceIndex& current() {
    thread_local DeviceIndex d = 0;
    return d;
  }
  int devices_;
};

}  // namespace ctorch::testing
