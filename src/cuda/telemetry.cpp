// torch.cuda's NVML queries (utilization, memory_usage, temperature, power_draw, clock_rate,
// list_gpu_processes) and ctorch-smi's device status. A runtime with impl::DeviceTelemetry (the
// emulated one) answers itself; any other CUDA runtime (real CUDA, or none) is read through NVML,
// loaded at run time (nvml.h), as PyTorch reads it through pynvml.
#include "ctorch/cuda_telemetry.h"

#include <unistd.h>

#include <cstdio>

#include "ctorch/cuda_memory.h"
#include "ctorch/error.h"
#include "cuda/nvml.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch::cuda {
namespace {

using detail::Nvml;
using detail::NvmlMetric;

// The runtime's own telemetry (emulated devices), or null when NVML must answer.
impl::DeviceTelemetry* runtime_telemetry() {
  impl::DeviceRuntime* r = impl::runtime_for(DeviceType::CUDA);
  return r ? impl::device_telemetry(*r) : nullptr;
}

// _get_device_index(device, optional=True), checked against the runtime's devices.
DeviceIndex checked_index(const DeviceArg& device) {
  const int idx = device.resolve();
  impl::check_device_index(DeviceType::CUDA, static_cast<DeviceIndex>(idx));
  return static_cast<DeviceIndex>(idx);
}

unsigned pick(const impl::TelemetrySample& t, NvmlMetric metric) {
  switch (metric) {
    case NvmlMetric::Utilization: return t.utilization;
    case NvmlMetric::MemoryUsage: return t.memory_usage;
    case NvmlMetric::Temperature: return t.temperature;
    case NvmlMetric::PowerDraw: return t.power_draw;
    case NvmlMetric::PowerLimit: return t.power_limit;
    case NvmlMetric::ClockRate: return t.clock_rate;
  }
  return 0;
}

// PyTorch's order: NVML must load before the device argument is looked at.
int query(const DeviceArg& device, NvmlMetric metric) {
  if (impl::DeviceTelemetry* t = runtime_telemetry()) {
    const DeviceIndex idx = checked_index(device);
    return static_cast<int>(pick(t->telemetry(idx), metric));
  }
  Nvml& nvml = Nvml::get();
  return static_cast<int>(nvml.read(metric, nvml.device_index(device.resolve())));
}

std::vector<GpuProcess> to_public(const std::vector<impl::DeviceProcess>& in) {
  std::vector<GpuProcess> out;
  for (const auto& p : in) out.push_back(GpuProcess{p.pid, p.used_bytes});
  return out;
}

}  // namespace

int utilization(DeviceArg device) { return query(device, NvmlMetric::Utilization); }
int memory_usage(DeviceArg device) { return query(device, NvmlMetric::MemoryUsage); }
int temperature(DeviceArg device) { return query(device, NvmlMetric::Temperature); }
int power_draw(DeviceArg device) { return query(device, NvmlMetric::PowerDraw); }
int clock_rate(DeviceArg device) { return query(device, NvmlMetric::ClockRate); }

std::vector<GpuProcess> gpu_processes(DeviceArg device) {
  if (impl::DeviceTelemetry* t = runtime_telemetry()) return to_public(t->device_processes(checked_index(device)));
  Nvml& nvml = Nvml::get();
  return to_public(nvml.processes(nvml.device_index(device.resolve())));
}

std::string list_gpu_processes(DeviceArg device) {
  unsigned shown = 0;  // the index after "GPU:" (NVML's on real devices, as PyTorch prints)
  std::vector<impl::DeviceProcess> procs;
  if (impl::DeviceTelemetry* t = runtime_telemetry()) {
    const int idx = device.resolve();
    const int count = impl::lazy_init(DeviceType::CUDA).device_count();
    CTORCH_CHECK_DEVICE(idx >= 0 && idx < count, "Invalid device argument ", idx, ": did you call init?");
    shown = static_cast<unsigned>(idx);
    procs = t->device_processes(static_cast<DeviceIndex>(idx));
  } else {
    Nvml* nvml = nullptr;
    try {
      nvml = &Nvml::get();
    } catch (const DeviceError& e) {  // never raises for a missing NVML or driver, as PyTorch
      const std::string what = e.what();
      if (what.find("cuda driver") == 0) return what;
      return "NVML (" + Nvml::library_name() + ") not found, please install the NVIDIA driver's NVML library";
    }
    shown = nvml->device_index(device.resolve());
    procs = nvml->processes(shown);
  }
  std::string out = ::ctorch::detail::str_cat("GPU:", shown);
  if (procs.empty()) return out + "\nno processes are running";
  for (const auto& p : procs) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "\nprocess %10lld uses %12.3f MB GPU memory", static_cast<long long>(p.pid),
                  static_cast<double>(p.used_bytes) / (1024.0 * 1024.0));
    out += buf;
  }
  return out;
}

DeviceStatus device_status(DeviceArg device) {
  DeviceStatus s;
  impl::DeviceTelemetry* t = runtime_telemetry();
  Nvml* nvml = t ? nullptr : &Nvml::get();
  const DeviceIndex idx = checked_index(device);
  const DeviceProperties p = get_device_properties(idx);
  s.index = idx;
  s.name = p.name;
  char bus[32];
  std::snprintf(bus, sizeof bus, "%08X:%02X:%02X.0", p.pci_domain_id, p.pci_bus_id, p.pci_device_id);
  s.bus_id = bus;
  const auto [free_bytes, total_bytes] = mem_get_info(idx);
  s.memory_used = total_bytes - free_bytes;
  s.memory_total = total_bytes;
  if (t) {
    const impl::TelemetrySample r = t->telemetry(idx);
    s.emulated = true;
    s.utilization = static_cast<int>(r.utilization);
    s.memory_usage = static_cast<int>(r.memory_usage);
    s.temperature = static_cast<int>(r.temperature);
    s.power_draw = static_cast<int>(r.power_draw);
    s.power_limit = static_cast<int>(r.power_limit);
    s.clock_rate = static_cast<int>(r.clock_rate);
    return s;
  }
  const unsigned n = nvml->device_index(idx);
  auto read = [&](NvmlMetric m) {  // nvidia-smi prints N/A for what a device does not report
    try {
      return static_cast<int>(nvml->read(m, n));
    } catch (const Error&) {
      return -1;
    }
  };
  s.utilization = read(NvmlMetric::Utilization);
  s.memory_usage = read(NvmlMetric::MemoryUsage);
  s.temperature = read(NvmlMetric::Temperature);
  s.power_draw = read(NvmlMetric::PowerDraw);
  s.power_limit = read(NvmlMetric::PowerLimit);
  s.clock_rate = read(NvmlMetric::ClockRate);
  return s;
}

std::string driver_version() {
  if (impl::DeviceTelemetry* t = runtime_telemetry()) return t->driver_version();
  return Nvml::get().driver_version();
}

std::string cuda_driver_version() {
  if (runtime_telemetry()) return "N/A";  // emulated devices have no CUDA driver
  return Nvml::get().cuda_version();
}

}  // namespace ctorch::cuda
