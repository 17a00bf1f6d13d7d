// Which kernel table serves which runtime. The cpu table is fixed; a cuda runtime (emulated or
// real) registers its table when it is created.
#include <array>
#include <atomic>
#include <mutex>

#include "ctorch/error.h"
#include "ops/kernel_table.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::ops {
namespace {

constexpr int kMaxRuntimes = 8;

struct Entry {
  std::atomic<const impl::DeviceRuntime*> runtime{nullptr};
  std::atomic<const KernelTable*> table{nullptr};
};

std::array<Entry, kMaxRuntimes>& entries() {
  static std::array<Entry, kMaxRuntimes> e;
  return e;
}

}  // namespace

void register_kernels(const impl::DeviceRuntime* runtime, const KernelTable* table) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  for (Entry& e : entries()) {
    const impl::DeviceRuntime* r = e.runtime.load(std::memory_order_acquire);
    if (r == runtime || r == nullptr) {
      e.table.store(table, std::memory_order_release);
      e.runtime.store(runtime, std::memory_order_release);
      return;
    }
  }
  CTORCH_INTERNAL_ASSERT(false, "too many kernel tables registered");
}

const KernelTable& kernels_for(Device device) {
  if (device.is_cpu()) return cpu_kernels();
  const impl::DeviceRuntime& runtime = impl::require_runtime(device.type());
  for (const Entry& e : entries()) {
    if (e.runtime.load(std::memory_order_acquire) == &runtime) return *e.table.load(std::memory_order_acquire);
  }
  CTORCH_CHECK_DEVICE(false, "no kernels are registered for the ", device_type_name(device.type()), " runtime");
}

}  // namespace ctorch::api::ops
