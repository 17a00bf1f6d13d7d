// NVML (libnvidia-ml.so.1) loaded at run time, for the telemetry of real CUDA devices
// (torch.cuda.utilization & co., list_gpu_processes, ctorch-smi). Never linked: a machine without
// the NVIDIA driver gets a typed error from the calls that need it, and everything else works.
#pragma once

#include <string>
#include <vector>

#include "runtime/device_runtime.h"

namespace ctorch::cuda::detail {

/// What one NVML query reads.
enum class NvmlMetric { Utilization, MemoryUsage, Temperature, PowerDraw, PowerLimit, ClockRate };

/// The process's NVML: loaded (dlopen) and initialized (nvmlInit_v2) at the first use.
class Nvml {
 public:
  /// The library to load: $CTORCH_NVML_LIBRARY when set (tests use a fake), else libnvidia-ml.so.1.
  static std::string library_name();
  /// Loads and initializes NVML once; throws DeviceError when the library is absent ("NVML
  /// (libnvidia-ml.so.1) does not seem to be installed or it can't be loaded: ...") or when the
  /// driver is not loaded ("cuda driver can't be loaded, is cuda enabled?"); the same error again
  /// on every later call.
  static Nvml& get();

  /// The NVML index of torch device `index` through CUDA_VISIBLE_DEVICES (PyTorch's
  /// _get_nvml_device_index); throws Error "device N is not visible (CUDA_VISIBLE_DEVICES=[...])".
  unsigned device_index(int index);
  /// One reading of `metric` on NVML device `nvml_index`, in NVML's units; throws Error naming
  /// the NVML call and its error string when NVML fails.
  unsigned read(NvmlMetric metric, unsigned nvml_index);
  /// The compute processes on NVML device `nvml_index` (every process, not only this one).
  std::vector<impl::DeviceProcess> processes(unsigned nvml_index);
  /// nvmlSystemGetDriverVersion ("535.104.05").
  std::string driver_version();
  /// The CUDA version the driver supports ("12.2"; nvmlSystemGetCudaDriverVersion_v2), "N/A" without it.
  std::string cuda_version();

  struct Api;  // the resolved entry points (nvml.cpp)

 private:
  explicit Nvml(Api* api) : api_(api) {}
  Api* api_;
};

}  // namespace ctorch::cuda::detail
