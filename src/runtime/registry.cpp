#include <array>
#include <atomic>

#include "ctorch/error.h"
#include "runtime/device_runtime.h"

namespace ctorch::impl {
namespace {

std::array<std::atomic<DeviceRuntime*>, kNumDeviceTypes>& registry() {
  static std::array<std::atomic<DeviceRuntime*>, kNumDeviceTypes> r{};
  return r;
}

}  // namespace

DeviceRuntime* runtime_for(DeviceType type) noexcept {
  return registry()[static_cast<int>(type)].load(std::memory_order_acquire);
}

void register_runtime(DeviceType type, DeviceRuntime* runtime) noexcept {
  registry()[static_cast<int>(type)].store(runtime, std::memory_order_release);
}

DeviceRuntime& require_runtime(DeviceType type) {
  DeviceRuntime* r = runtime_for(type);
  if (!r && type == DeviceType::CUDA) {
    CTORCH_CHECK_DEVICE(false,
                        "Torch not compiled with CUDA enabled (ctorch: no CUDA runtime is "
                        "available; build with CTORCH_BUILD_CUDA=ON or enable emulated devices)");
  }
  CTORCH_INTERNAL_ASSERT(r != nullptr, "no runtime registered for ", device_type_name(type));
  return *r;
}

}  // namespace ctorch::impl
