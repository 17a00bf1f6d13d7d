// The cpu runtime: one device, one synchronous stream, events that complete when recorded.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <thread>
#include <unistd.h>

#include "ctorch/error.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::backends::cpu {
namespace {

using impl::EventHandle;

struct CpuEvent {
  std::chrono::steady_clock::time_point when{};
  bool recorded = false;
  bool timing = false;
};

class CpuRuntime final : public impl::DeviceRuntime {
 public:
  DeviceType type() const noexcept override { return DeviceType::CPU; }
  int device_count() const noexcept override { return 1; }
  impl::DeviceProperties properties(DeviceIndex index) const override {
    check_index(index);
    impl::DeviceProperties p;
    p.name = "cpu";
    p.multi_processor_count = static_cast<int>(std::thread::hardware_concurrency());
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    p.total_memory = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
    return p;
  }
  DeviceIndex current_device() const override { return 0; }
  void set_current_device(DeviceIndex index) override { check_index(index); }

  Stream create_stream(DeviceIndex index, int) override {
    check_index(index);
    return Stream(Device(DeviceType::CPU, 0), 0);
  }
  bool query_stream(Stream) override { return true; }
  void synchronize_stream(Stream) override {}
  void synchronize_device(DeviceIndex index) override { check_index(index); }

  EventHandle create_event(DeviceIndex index, impl::EventFlags flags) override {
    check_index(index);
    auto* e = new CpuEvent();
    e->timing = flags.enable_timing;
    return e;
  }
  void destroy_event(EventHandle e) noexcept override { delete static_cast<CpuEvent*>(e); }
  void record_event(EventHandle e, Stream) override {
    auto* ev = static_cast<CpuEvent*>(e);
    ev->when = std::chrono::steady_clock::now();
    ev->recorded = true;
  }
  void wait_event(Stream, EventHandle) override {}
  bool query_event(EventHandle) override { return true; }
  void synchronize_event(EventHandle) override {}
  float elapsed_ms(EventHandle start, EventHandle end) override {
    auto* a = static_cast<CpuEvent*>(start);
    auto* b = static_cast<CpuEvent*>(end);
    CTORCH_CHECK(a->timing && b->timing, "Both events must be created with argument 'enable_timing=True'.");
    CTORCH_CHECK(a->recorded && b->recorded, "Both events must be recorded before calculating elapsed time.");
    return std::chrono::duration<float, std::milli>(b->when - a->when).count();
  }

  void* raw_allocate(DeviceIndex index, size_t bytes) override {
    check_index(index);
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p && bytes) throw OutOfMemoryError(detail::str_cat("cpu: failed to allocate ", bytes, " bytes"));
    return p;
  }
  void raw_free(DeviceIndex, void* ptr) noexcept override { std::free(ptr); }
  void copy_async(void* dst, DeviceIndex, const void* src, DeviceIndex, size_t bytes, Stream) override {
    if (bytes) std::memmove(dst, src, bytes);
  }
  void memset_async(void* dst, int value, size_t bytes, Stream) override { std::memset(dst, value, bytes); }
  void* pinned_allocate(size_t bytes) override { return raw_allocate(0, bytes); }
  void pinned_free(void* ptr) noexcept override { std::free(ptr); }
  void memory_info(DeviceIndex index, size_t* free_bytes, size_t* total_bytes) override {
    check_index(index);
    long avail = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    *total_bytes = properties(0).total_memory;
    *free_bytes = avail > 0 ? static_cast<size_t>(avail) * static_cast<size_t>(page) : 0;
  }

 private:
  static void check_index(DeviceIndex index) {
    CTORCH_CHECK_INDEX(index == 0 || index == -1, "CPU device index must be -1 or zero, got ", index);
  }
};

struct Registrar {
  Registrar() {
    static CpuRuntime runtime;
    impl::register_runtime(DeviceType::CPU, &runtime);
  }
} registrar;

}  // namespace
}  // namespace ctorch::api::backends::cpu

namespace ctorch::inline api {
std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "<ctorch.Stream device=" << s.device() << " id=" << s.id() << ">";
}
}  // namespace ctorch::api
