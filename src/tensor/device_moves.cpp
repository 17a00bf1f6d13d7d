// Tensor.cuda() and Tensor.pin_memory().
#include "ctorch/factories.h"
#include "ctorch/tensor.h"
#include "runtime/current.h"

namespace ctorch::inline api {

Tensor Tensor::cuda(std::optional<Device> device, bool non_blocking) const {
  const Device target = device.value_or(Device(DeviceType::CUDA));
  CTORCH_CHECK(target.is_cuda(), "Invalid device, must be cuda device");
  impl::lazy_init(DeviceType::CUDA);
  return to(impl::ensure_has_index(target), non_blocking);
}

Tensor Tensor::cuda(int index, bool non_blocking) const {
  CTORCH_CHECK_VALUE(index >= 0, "Device index must not be negative");
  return cuda(Device(DeviceType::CUDA, static_cast<DeviceIndex>(index)), non_blocking);
}

Tensor Tensor::pin_memory() const {
  CTORCH_CHECK(is_cpu(), "cannot pin '", type_string(), "' only dense CPU tensors can be pinned");
  if (is_pinned()) return *this;
  Tensor out = empty_strided(sizes(), strides(), options().pinned_memory(true));
  out.copy_(*this);
  return out;
}

}  // namespace ctorch::api
