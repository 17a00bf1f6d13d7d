#include "ctorch/cuda.h"
#include "runtime/device_runtime.h"

namespace ctorch::cuda {

int device_count() noexcept {
  impl::DeviceRuntime* r = impl::runtime_for(DeviceType::CUDA);
  return r ? r->device_count() : 0;
}

bool is_available() noexcept { return device_count() > 0; }

}  // namespace ctorch::cuda
