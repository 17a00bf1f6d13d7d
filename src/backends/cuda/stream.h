// What the CUDA kernel launchers need from the runtime: the native stream of a Stream, the
// device's launch limits, and a cheap current-device guard. Plain C++ (usable from .cpp and .cu).
#pragma once

#include <cuda_runtime_api.h>

#include "ctorch/stream.h"
#include "kernels/launch_config.h"

namespace ctorch::inline api::backends::cuda {

/// The cudaStream_t of `s` (see Note [CUDA stream ids] in runtime.cpp): nullptr for the legacy
/// default stream (id 0), the pool stream for an odd id, the raw handle for an even external id.
cudaStream_t native_stream(Stream s);
/// Multiprocessor count and resident threads per multiprocessor of `index` (cached).
kernels::DeviceLimits device_limits(DeviceIndex index);

/// Makes `index` the calling thread's current CUDA device for the scope (cudaSetDevice only when
/// it differs) and restores the previous one at exit. Index -1 makes it a no-op.
class ScopedDevice {
 public:
  explicit ScopedDevice(DeviceIndex index);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace ctorch::api::backends::cuda
