// CTORCH_CUDA_CHECK: turns a failed CUDA runtime call into a ctorch error; never aborts.
//
// Note [CUDA error classes]
// - Sticky errors (cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorAssert, ... : the ones
//   driver_types.h documents as leaving the process "in an inconsistent state", plus
//   cudaErrorECCUncorrectable) corrupt the CUDA context: every later call fails the same way. The device is marked lost (device_lost()) and
//   DeviceError "... (device lost)" is thrown.
// - A missing or unusable device (invalid ordinal, no device, no driver) throws DeviceError.
// - cudaErrorMemoryAllocation throws OutOfMemoryError.
// - Anything else throws ctorch::Error.
// Messages start like PyTorch's C10_CUDA_CHECK ("CUDA error: <cudaGetErrorString>") and then name
// the error, the failed expression, the current device and file:line.
#pragma once

#include <cuda_runtime_api.h>

#include "ctorch/device.h"

namespace ctorch::inline api::backends::cuda {

/// True for errors that leave the CUDA context unusable (see Note [CUDA error classes]).
bool is_sticky_error(cudaError_t err) noexcept;
/// True once a sticky error was seen while `index` was the current device.
bool device_lost(DeviceIndex index) noexcept;
/// Throws the ctorch error for `err` (see Note [CUDA error classes]); clears non-sticky errors.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);

}  // namespace ctorch::api::backends::cuda

/// Evaluates a CUDA runtime call and throws a ctorch error when it does not return cudaSuccess.
#define CTORCH_CUDA_CHECK(expr)                                                          \
  do {                                                                                   \
    const cudaError_t ctorch_cuda_err_ = (expr);                                         \
    if (__builtin_expect(ctorch_cuda_err_ != cudaSuccess, 0)) {                          \
      ::ctorch::backends::cuda::throw_cuda_error(ctorch_cuda_err_, #expr, __FILE__, __LINE__); \
    }                                                                                    \
  } while (0)
