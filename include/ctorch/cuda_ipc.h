// ctorch::cuda interprocess memory: share a cuda tensor's memory with another process
// (cudaIpcGetMemHandle / cudaIpcOpenMemHandle; what torch.multiprocessing does for cuda storages)
// and torch.cuda.ipc_collect. Emulated devices share through their memfd (docs/telemetry.md).
#pragma once

#include <cstdint>
#include <string>

#include "ctorch/array_ref.h"
#include "ctorch/dtype.h"

namespace ctorch::inline api {
class Tensor;
}  // namespace ctorch::api

namespace ctorch::cuda {

/// What another process needs to map a cuda tensor's memory.
struct IpcMemHandle {
  std::string handle;  ///< the 64 bytes of the allocation's cudaIpcMemHandle_t
  int64_t offset = 0;  ///< byte offset of the tensor's data_ptr() in that allocation
  int device = 0;      ///< the device index in the exporting process
};

/// The handle of the device allocation holding `t`'s data (t must be a cuda tensor). The exporting
/// process keeps `t` (or its storage) alive while others use the memory.
IpcMemHandle ipc_handle(const Tensor& t);
/// A tensor over the memory `h` names, opened in this process on `device` (-1: h.device); the
/// memory is unmapped by ipc_collect() once every tensor over it is gone. Throws for a handle made
/// by this process (as CUDA) or one naming no device memory.
Tensor open_ipc_tensor(const IpcMemHandle& h, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype,
                       int device = -1);
/// Unmaps interprocess memory whose tensors are gone (torch.cuda.ipc_collect); initializes CUDA.
void ipc_collect();

}  // namespace ctorch::cuda
