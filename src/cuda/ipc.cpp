// torch.cuda's interprocess memory over impl::MemoryIpc: ipc_handle, open_ipc_tensor, ipc_collect.
// A tensor opened from a handle owns one reference of the mapping; its storage's deleter moves
// the mapping to a limbo list that ipc_collect() (and the next open) closes, so that a tensor
// dying on a stream worker never waits for the device there.
#include "ctorch/cuda_ipc.h"

#include <mutex>
#include <utility>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/tensor.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch::cuda {
namespace {

impl::MemoryIpc& memory_ipc() {
  impl::DeviceRuntime& r = impl::lazy_init(DeviceType::CUDA);
  impl::MemoryIpc* ipc = impl::memory_ipc(r);
  CTORCH_CHECK_NOT_IMPLEMENTED(ipc != nullptr, "interprocess memory handles are not supported by this CUDA runtime");
  return *ipc;
}

struct Limbo {
  std::mutex mu;
  std::vector<std::pair<DeviceIndex, void*>> closed;  // guarded by mu
};

Limbo& limbo() {
  static auto* l = new Limbo();  // leaked: tensors may die during static destruction
  return *l;
}

}  // namespace

IpcMemHandle ipc_handle(const Tensor& t) {
  CTORCH_CHECK_VALUE(t.is_cuda(), "ipc_handle: expected a cuda tensor, but got a tensor on ", t.device());
  const DeviceIndex idx = t.device().index();
  auto [bytes, offset] = memory_ipc().ipc_mem_handle(idx, t.data_ptr());
  IpcMemHandle h;
  h.handle.assign(bytes.data(), bytes.size());
  h.offset = static_cast<int64_t>(offset);
  h.device = idx;
  return h;
}

Tensor open_ipc_tensor(const IpcMemHandle& h, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, int device) {
  CTORCH_CHECK_VALUE(h.handle.size() == impl::kIpcMemHandleSize, "open_ipc_tensor: expected a ",
                     impl::kIpcMemHandleSize, "-byte handle, but got ", h.handle.size(), " bytes");
  CTORCH_CHECK_VALUE(h.offset >= 0, "open_ipc_tensor: negative offset ", h.offset);
  CTORCH_CHECK_VALUE(sizes.size() == strides.size(), "open_ipc_tensor: sizes and strides must have the same length");
  const int idx = device < 0 ? h.device : device;
  impl::check_device_index(DeviceType::CUDA, static_cast<DeviceIndex>(idx));
  impl::MemoryIpc& ipc = memory_ipc();
  ipc_collect();
  impl::IpcMemBytes bytes;
  std::copy(h.handle.begin(), h.handle.end(), bytes.begin());
  void* base = ipc.open_ipc_mem_handle(static_cast<DeviceIndex>(idx), bytes);
  const auto dev = static_cast<DeviceIndex>(idx);
  return from_blob(static_cast<char*>(base) + h.offset, sizes, strides,
                   TensorOptions().dtype(dtype).device(Device(DeviceType::CUDA, dev)), [dev, base](void*) {
                     Limbo& l = limbo();
                     std::lock_guard<std::mutex> lock(l.mu);
                     l.closed.emplace_back(dev, base);
                   });
}

void ipc_collect() {
  impl::MemoryIpc& ipc = memory_ipc();
  std::vector<std::pair<DeviceIndex, void*>> closed;
  {
    Limbo& l = limbo();
    std::lock_guard<std::mutex> lock(l.mu);
    closed.swap(l.closed);
  }
  for (auto [dev, base] : closed) ipc.close_ipc_mem_handle(dev, base);
}

}  // namespace ctorch::cuda
