#include <array>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ctorch/error.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::impl {
namespace {

std::array<std::atomic<DeviceRuntime*>, kNumDeviceTypes>& registry() {
  static std::array<std::atomic<DeviceRuntime*>, kNumDeviceTypes> r{};
  return r;
}

struct Factories {
  std::mutex mutex;  // guards list and consulted
  std::vector<std::pair<int, RuntimeFactory>> list[kNumDeviceTypes];
  bool consulted[kNumDeviceTypes] = {};
  std::string error[kNumDeviceTypes];  // why the last factory failed, for error messages
};

Factories& factories() {
  static Factories f;
  return f;
}

}  // namespace

void register_runtime_factory(DeviceType type, int priority, RuntimeFactory factory) noexcept {
  Factories& f = factories();
  std::lock_guard<std::mutex> lock(f.mutex);
  auto& list = f.list[static_cast<int>(type)];
  list.emplace_back(priority, factory);
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

// Note [Runtime selection]: an explicitly registered runtime wins; otherwise the factories are
// asked once, in priority order (the emulated backend, when CTORCH_EMULATED_CUDA is set, comes
// before the real CUDA backend), and the first runtime one returns is registered.
DeviceRuntime* runtime_for(DeviceType type) noexcept {
  DeviceRuntime* r = registry()[static_cast<int>(type)].load(std::memory_order_acquire);
  if (r) return r;
  Factories& f = factories();
  std::lock_guard<std::mutex> lock(f.mutex);
  const int t = static_cast<int>(type);
  r = registry()[t].load(std::memory_order_acquire);
  if (r || f.consulted[t]) return r;
  f.consulted[t] = true;
  for (const auto& [priority, factory] : f.list[t]) {
    try {
      r = factory();
    } catch (const std::exception& e) {
      r = nullptr;  // a backend that cannot start leaves the type without a runtime
      f.error[t] = e.what();
    }
    if (r) {
      registry()[t].store(r, std::memory_order_release);
      return r;
    }
  }
  return nullptr;
}

std::string runtime_selection_error(DeviceType type) {
  Factories& f = factories();
  std::lock_guard<std::mutex> lock(f.mutex);
  return f.error[static_cast<int>(type)];
}

void register_runtime(DeviceType type, DeviceRuntime* runtime) noexcept {
  registry()[static_cast<int>(type)].store(runtime, std::memory_order_release);
}

DeviceRuntime& require_runtime(DeviceType type) {
  DeviceRuntime* r = runtime_for(type);
  if (!r && type == DeviceType::CUDA) {
    // A backend that was built but could not start says why (PyTorch's text for a CUDA build
    // without a driver or device); with none built, PyTorch's text for a cpu-only build.
    const std::string why = runtime_selection_error(type);
    constexpr const char* kHint =
        " (ctorch: no CUDA runtime is available; run on a machine with a GPU, or enable emulated devices "
        "with CTORCH_EMULATED_CUDA=N or ctorch::cuda::emulate(N))";
    CTORCH_CHECK_DEVICE(false, why.empty() ? "Torch not compiled with CUDA enabled" : why, kHint);
  }
  CTORCH_INTERNAL_ASSERT(r != nullptr, "no runtime registered for ", device_type_name(type));
  return *r;
}

}  // namespace ctorch::api::impl
