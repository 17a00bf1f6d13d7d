// CTORCH_CUDA_CHECK's out-of-line part: classify the error, build the message, throw.
#include "backends/cuda/check.h"

#include <atomic>
#include <string>

#include "ctorch/error.h"

namespace ctorch::inline api::backends::cuda {
namespace {

// One bit per device index below 64 (kMaxDevices in runtime/current.h).
std::atomic<uint64_t> g_lost_devices{0};

}  // namespace

bool is_sticky_error(cudaError_t err) noexcept {
  switch (err) {
    case cudaErrorContained:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

bool device_lost(DeviceIndex index) noexcept {
  return index >= 0 && index < 64 && (g_lost_devices.load(std::memory_order_acquire) >> index) & 1u;
}

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  const bool sticky = is_sticky_error(err);
  // A non-sticky error stays "last error" until read; clear it so the next check is not confused.
  if (!sticky) (void)cudaGetLastError();
  std::string msg = std::string("CUDA error: ") + cudaGetErrorString(err);
  if (err == cudaErrorInvalidDevice) msg += "\nGPU device may be out of range, do you have enough GPUs?";
  msg += "\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
         "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1";
  msg += detail::str_cat("\n(", cudaGetErrorName(err), " from `", expr, "` on ",
                         device >= 0 ? detail::str_cat("cuda:", device) : std::string("an unknown device"), " at ",
                         file, ":", line, ")");
  if (sticky) {
    if (device >= 0 && device < 64) g_lost_devices.fetch_or(uint64_t{1} << device, std::memory_order_acq_rel);
    throw DeviceError(msg + " (device lost: the CUDA context is unusable; restart the process)");
  }
  switch (err) {
    case cudaErrorMemoryAllocation:
      throw OutOfMemoryError(msg);
    case cudaErrorInvalidDevice:
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      throw DeviceError(msg);
    default:
      throw Error(msg);
  }
}

}  // namespace ctorch::api::backends::cuda
