// NVML loaded with dlopen (nvml.h). The few declarations it needs are written out here with
// NVML's documented ABI (nvml.h need not be installed): every entry point returns nvmlReturn_t
// (an int, 0 = NVML_SUCCESS), devices are opaque handles.
#include "cuda/nvml.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>

#include "ctorch/error.h"
#include "runtime/visible_devices.h"

namespace ctorch::cuda::detail {
namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlErrorInsufficientSize = 7;
constexpr nvmlReturn_t kNvmlErrorDriverNotLoaded = 9;
constexpr unsigned kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr unsigned kNvmlClockSm = 1;         // NVML_CLOCK_SM

struct NvmlUtilization {  // nvmlUtilization_t
  unsigned gpu;
  unsigned memory;
};
struct NvmlProcessInfo {  // nvmlProcessInfo_t of the _v2/_v3 entry points
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

}  // namespace

struct Nvml::Api {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*device_count)(unsigned*) = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, NvmlUtilization*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*processes)(nvmlDevice_t, unsigned*, NvmlProcessInfo*) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*cuda_driver_version)(int*) = nullptr;

  std::string error(nvmlReturn_t r) const {
    const char* s = error_string ? error_string(r) : nullptr;
    return s ? std::string(s) : "NVML error " + std::to_string(r);
  }
  void check(nvmlReturn_t r, const char* call) const {
    if (r != kNvmlSuccess) throw Error(::ctorch::detail::str_cat("NVML error: ", error(r), " (", r, ") in ", call));
  }
  nvmlDevice_t device(unsigned index) const {
    nvmlDevice_t h = nullptr;
    check(handle_by_index(index, &h), "nvmlDeviceGetHandleByIndex_v2");
    return h;
  }
};

namespace {

template <class F>
void bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
}

struct Loaded {
  Nvml::Api* api = nullptr;
  std::string error;    // why it could not be used
  bool driver = false;  // the error is "driver not loaded"
};

Loaded load() {
  Loaded out;
  const std::string name = Nvml::library_name();
  void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    out.error = ::ctorch::detail::str_cat("NVML (", name, ") does not seem to be installed or it can't be loaded: ",
                                why ? why : "dlopen failed",
                                ". torch.cuda's utilization, memory_usage, temperature, power_draw and clock_rate "
                                "need the NVIDIA driver's NVML library on real CUDA devices.");
    return out;
  }
  // Kept for the process's lifetime when NVML initializes; a failed load closes the library.
  auto api = std::make_unique<Nvml::Api>();
  api->lib = lib;
  struct CloseOnFailure {
    void* lib;
    ~CloseOnFailure() {
      if (lib) dlclose(lib);
    }
  } close_on_failure{lib};
  bind(lib, api->init, "nvmlInit_v2");
  bind(lib, api->error_string, "nvmlErrorString");
  bind(lib, api->device_count, "nvmlDeviceGetCount_v2");
  bind(lib, api->handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(lib, api->uuid, "nvmlDeviceGetUUID");
  bind(lib, api->utilization, "nvmlDeviceGetUtilizationRates");
  bind(lib, api->temperature, "nvmlDeviceGetTemperature");
  bind(lib, api->power_usage, "nvmlDeviceGetPowerUsage");
  bind(lib, api->power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  bind(lib, api->clock_info, "nvmlDeviceGetClockInfo");
  bind(lib, api->processes, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!api->processes) bind(lib, api->processes, "nvmlDeviceGetComputeRunningProcesses_v2");
  bind(lib, api->driver_version, "nvmlSystemGetDriverVersion");
  bind(lib, api->cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2");
  if (!api->init || !api->device_count || !api->handle_by_index || !api->utilization || !api->temperature ||
      !api->power_usage || !api->clock_info || !api->processes) {
    out.error = ::ctorch::detail::str_cat("NVML (", name, ") lacks entry points ctorch needs (nvmlInit_v2, "
                                "nvmlDeviceGetHandleByIndex_v2, ...): the NVIDIA driver is too old");
    return out;
  }
  const nvmlReturn_t r = api->init();
  if (r == kNvmlErrorDriverNotLoaded) {
    out.error = "cuda driver can't be loaded, is cuda enabled?";
    out.driver = true;
    return out;
  }
  if (r != kNvmlSuccess) {
    out.error = ::ctorch::detail::str_cat("NVML error: ", api->error(r), " (", r, ") in nvmlInit_v2");
    return out;
  }
  close_on_failure.lib = nullptr;
  out.api = api.release();
  return out;
}

}  // namespace

std::string Nvml::library_name() {
  const char* env = std::getenv("CTORCH_NVML_LIBRARY");
  return env && *env ? std::string(env) : std::string("libnvidia-ml.so.1");
}

Nvml& Nvml::get() {
  static const Loaded loaded = load();
  static Nvml* nvml = loaded.api ? new Nvml(loaded.api) : nullptr;
  CTORCH_CHECK_DEVICE(nvml != nullptr, loaded.error);
  return *nvml;
}

unsigned Nvml::device_index(int index) {
  const impl::VisibleDevices v = impl::parse_visible_devices(std::getenv("CUDA_VISIBLE_DEVICES"));
  unsigned count = 0;
  api_->check(api_->device_count(&count), "nvmlDeviceGetCount_v2");
  std::vector<std::string> uuids;
  if (v.uuids) {
    for (unsigned i = 0; i < count; ++i) {
      char buf[96] = {};  // PyTorch's UUID buffer
      api_->check(api_->uuid ? api_->uuid(api_->device(i), buf, sizeof buf) : 3, "nvmlDeviceGetUUID");
      uuids.emplace_back(buf);
    }
  }
  const std::vector<int> visible = impl::visible_ordinals(v, static_cast<int>(count), uuids);
  if (index < 0 || index >= static_cast<int>(visible.size())) {
    std::ostringstream list;
    list << "[";
    for (size_t i = 0; i < visible.size(); ++i) list << (i ? ", " : "") << visible[i];
    list << "]";
    throw Error(::ctorch::detail::str_cat("device ", index, " is not visible (CUDA_VISIBLE_DEVICES=", list.str(), ")"));
  }
  return static_cast<unsigned>(visible[static_cast<size_t>(index)]);
}

unsigned Nvml::read(NvmlMetric metric, unsigned nvml_index) {
  nvmlDevice_t h = api_->device(nvml_index);
  unsigned value = 0;
  switch (metric) {
    case NvmlMetric::Utilization:
    case NvmlMetric::MemoryUsage: {
      NvmlUtilization u{};
      api_->check(api_->utilization(h, &u), "nvmlDeviceGetUtilizationRates");
      return metric == NvmlMetric::Utilization ? u.gpu : u.memory;
    }
    case NvmlMetric::Temperature:
      api_->check(api_->temperature(h, kNvmlTemperatureGpu, &value), "nvmlDeviceGetTemperature");
      return value;
    case NvmlMetric::PowerDraw:
      api_->check(api_->power_usage(h, &value), "nvmlDeviceGetPowerUsage");
      return value;
    case NvmlMetric::PowerLimit:
      CTORCH_CHECK(api_->power_limit, "NVML has no nvmlDeviceGetEnforcedPowerLimit");
      api_->check(api_->power_limit(h, &value), "nvmlDeviceGetEnforcedPowerLimit");
      return value;
    case NvmlMetric::ClockRate:
      api_->check(api_->clock_info(h, kNvmlClockSm, &value), "nvmlDeviceGetClockInfo");
      return value;
  }
  return 0;
}

std::vector<impl::DeviceProcess> Nvml::processes(unsigned nvml_index) {
  nvmlDevice_t h = api_->device(nvml_index);
  std::vector<NvmlProcessInfo> infos(8);
  for (;;) {
    unsigned n = static_cast<unsigned>(infos.size());
    const nvmlReturn_t r = api_->processes(h, &n, infos.data());
    if (r == kNvmlErrorInsufficientSize && n > infos.size()) {
      infos.resize(n + 4);  // processes may start between the calls
      continue;
    }
    api_->check(r, "nvmlDeviceGetComputeRunningProcesses");
    std::vector<impl::DeviceProcess> out;
    for (unsigned i = 0; i < n; ++i) {
      const unsigned long long used = infos[i].used_gpu_memory;
      out.push_back(impl::DeviceProcess{static_cast<int64_t>(infos[i].pid), used == ~0ull ? 0 : used});
    }
    return out;
  }
}

std::string Nvml::driver_version() {
  char buf[96] = {};
  if (!api_->driver_version || api_->driver_version(buf, sizeof buf) != kNvmlSuccess) return "N/A";
  return buf;
}

std::string Nvml::cuda_version() {
  int v = 0;
  if (!api_->cuda_driver_version || api_->cuda_driver_version(&v) != kNvmlSuccess) return "N/A";
  return ::ctorch::detail::str_cat(v / 1000, ".", (v % 1000) / 10);
}

}  // namespace ctorch::cuda::detail
