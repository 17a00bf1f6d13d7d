// ctorch::cuda telemetry: torch.cuda.utilization, memory_usage, temperature, power_draw and
// clock_rate, plus what ctorch-smi prints. Real devices are read through NVML (libnvidia-ml.so.1,
// loaded at run time; DeviceError when it is absent); emulated devices report a documented model
// of their stream workers' busy time (docs/telemetry.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ctorch/cuda.h"

namespace ctorch::cuda {

/// Percent of the last sample period (1/6 s to 1 s; emulated: 1 s) in which one or more kernels ran on `device`.
int utilization(DeviceArg device = {});
/// Percent of the last sample period in which `device`'s memory was read or written (not bytes).
int memory_usage(DeviceArg device = {});
/// The GPU die temperature of `device`, in degrees Celsius.
int temperature(DeviceArg device = {});
/// The power drawn by `device`, in milliwatts.
int power_draw(DeviceArg device = {});
/// The SM clock of `device`, in MHz.
int clock_rate(DeviceArg device = {});

/// A process holding memory on a device.
struct GpuProcess {
  int64_t pid = 0;           ///< process id
  uint64_t used_memory = 0;  ///< device memory it holds, in bytes
};
/// The processes holding memory on `device` (NVML: every process; emulated: this one).
std::vector<GpuProcess> gpu_processes(DeviceArg device = {});

/// One device as nvidia-smi shows it; readings the device does not support are -1.
struct DeviceStatus {
  int index = 0;             ///< torch device index
  std::string name;          ///< device name
  std::string bus_id;        ///< "00000000:01:00.0"
  bool emulated = false;     ///< an emulated device (its readings are modelled)
  int utilization = -1;      ///< %
  int memory_usage = -1;     ///< %
  int temperature = -1;      ///< degrees C
  int power_draw = -1;       ///< mW
  int power_limit = -1;      ///< mW
  int clock_rate = -1;       ///< MHz
  uint64_t memory_used = 0;  ///< bytes in use on the device (all processes)
  uint64_t memory_total = 0; ///< bytes
};
/// Everything ctorch-smi prints about `device`, read at once.
DeviceStatus device_status(DeviceArg device = {});
/// The driver version nvidia-smi prints ("535.104.05"; emulated: "ctorch 0.1.0 (emulated)").
std::string driver_version();
/// The CUDA version the driver supports ("12.2"), or "N/A".
std::string cuda_driver_version();

}  // namespace ctorch::cuda
