#include "tensor/allocation.h"

#include "ctorch/error.h"
#include "runtime/device_runtime.h"

namespace ctorch {

Storage allocate_storage(size_t nbytes, const TensorOptions& options) {
  const Device device = options.device();
  if (device.is_cpu()) {
    CTORCH_CHECK_DEVICE(!options.pinned_memory() || impl::runtime_for(DeviceType::CUDA),
                        "Cannot access accelerator device when none is available.");
    Allocator* a = cpu_allocator();
    return Storage::make(a->allocate(nbytes), nbytes, a);
  }
  CTORCH_CHECK(!options.pinned_memory(), "Only dense CPU tensors can be pinned");
  impl::require_runtime(device.type());
  CTORCH_CHECK_DEVICE(false, "ctorch: no allocator registered for ", device);
}

}  // namespace ctorch
