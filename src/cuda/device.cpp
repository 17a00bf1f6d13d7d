// torch.cuda device management over the runtime seam (same code for emulated and real CUDA).
#include <iomanip>
#include <mutex>
#include <ostream>
#include <sstream>

#include "ctorch/cuda.h"
#include "ctorch/error.h"
#include "ctorch/tensor.h"
#include "ctorch/warning.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "runtime/sync_debug.h"
#include "sanitizer/hooks.h"
#include "trace/tracer.h"

namespace ctorch::cuda {

using impl::DeviceRuntime;

namespace {

DeviceRuntime& runtime() { return impl::lazy_init(DeviceType::CUDA); }

}  // namespace

int DeviceArg::resolve(bool optional) const {
  switch (kind_) {
    case Kind::None:
      return current_device();
    case Kind::Index:
      return index_;
    case Kind::Device:
      CTORCH_CHECK_VALUE(device_.is_cuda(), "Expected a cuda device, but got: ", device_);
      if (device_.has_index()) return device_.index();
      CTORCH_CHECK_VALUE(optional, "Expected a torch.device with a specified index or an integer, but got:", device_);
      return current_device();
  }
  return -1;
}

int DeviceArg::index_or_current() const {
  const int idx = resolve();
  return idx < 0 ? current_device() : idx;
}

int device_count() noexcept {
  DeviceRuntime* r = impl::runtime_for(DeviceType::CUDA);
  return r ? r->device_count() : 0;
}

bool is_available() noexcept { return device_count() > 0; }

void init() { runtime(); }

bool is_initialized() noexcept { return impl::is_initialized(DeviceType::CUDA); }

int current_device() { return runtime().current_device(); }

void set_device(DeviceArg device) {
  const int idx = device.resolve(/*optional=*/false);
  if (idx < 0) return;
  DeviceRuntime& r = runtime();
  impl::check_device_index(DeviceType::CUDA, static_cast<DeviceIndex>(idx));
  r.set_current_device(static_cast<DeviceIndex>(idx));
}

void synchronize(DeviceArg device) {
  const int idx = device.index_or_current();
  impl::check_device_index(DeviceType::CUDA, static_cast<DeviceIndex>(idx));
  tracing::HostSpan span("synchronize");
  runtime().synchronize_device(static_cast<DeviceIndex>(idx));
  if (sanitizer::active()) sanitizer::device_synchronize(Device(DeviceType::CUDA, static_cast<DeviceIndex>(idx)));
}

int get_sync_debug_mode() {
  runtime();
  return static_cast<int>(impl::sync_debug_mode());
}

void set_sync_debug_mode(int debug_mode) {
  runtime();
  static std::once_flag prototype_warning;
  std::call_once(prototype_warning, [] {
    warn("Synchronization debug mode is a prototype feature and does not yet detect all synchronizing operations");
  });
  CTORCH_CHECK(debug_mode >= 0 && debug_mode <= 2, "invalid value of debug_mode, expected one of 0,1,2");
  impl::set_sync_debug_mode(static_cast<impl::SyncDebugMode>(debug_mode));
}

void set_sync_debug_mode(std::string_view debug_mode) {
  runtime();
  int mode = -1;
  if (debug_mode == "default") {
    mode = 0;
  } else if (debug_mode == "warn") {
    mode = 1;
  } else if (debug_mode == "error") {
    mode = 2;
  }
  CTORCH_CHECK(mode >= 0, "invalid value of debug_mode, expected one of `default`, `warn`, `error`");
  set_sync_debug_mode(mode);
}

namespace {

int checked_index(const DeviceArg& device, const char* what = "Invalid device id") {
  const int idx = device.resolve();
  DeviceRuntime& r = runtime();
  CTORCH_CHECK_DEVICE(idx >= 0 && idx < r.device_count(), what);
  return idx;
}

}  // namespace

DeviceProperties get_device_properties(DeviceArg device) {
  const int idx = checked_index(device);
  const impl::DeviceProperties p = runtime().properties(static_cast<DeviceIndex>(idx));
  DeviceProperties out;
  out.name = p.name;
  out.major = p.major;
  out.minor = p.minor;
  out.total_memory = p.total_memory;
  out.multi_processor_count = p.multi_processor_count;
  out.max_threads_per_multi_processor = p.max_threads_per_multi_processor;
  out.warp_size = p.warp_size;
  out.L2_cache_size = p.l2_cache_size;
  out.is_integrated = p.is_integrated;
  out.is_multi_gpu_board = p.is_multi_gpu_board;
  out.uuid = p.uuid;
  out.pci_bus_id = p.pci_bus_id;
  out.pci_device_id = p.pci_device_id;
  out.pci_domain_id = p.pci_domain_id;
  return out;
}

std::ostream& operator<<(std::ostream& os, const DeviceProperties& p) {
  return os << "_CudaDeviceProperties(name='" << p.name << "', major=" << p.major << ", minor=" << p.minor
            << ", total_memory=" << p.total_memory / (1024 * 1024) << "MB, multi_processor_count="
            << p.multi_processor_count << ", uuid=" << p.uuid << ", L2_cache_size=" << p.L2_cache_size / (1024 * 1024)
            << "MB)";
}

std::string get_device_name(DeviceArg device) { return get_device_properties(device).name; }

std::pair<int, int> get_device_capability(DeviceArg device) {
  const DeviceProperties p = get_device_properties(device);
  return {p.major, p.minor};
}

std::vector<std::string> get_arch_list() {
  std::vector<std::string> out;
  if (!is_available()) return out;
#ifdef CTORCH_CUDA_ARCH_LIST
  std::istringstream ss(CTORCH_CUDA_ARCH_LIST);
  for (std::string arch; std::getline(ss, arch, ';');) {
    if (!arch.empty()) out.push_back("sm_" + arch);
  }
#endif
  return out;
}

std::string get_gencode_flags() {
  std::string flags;
  for (const std::string& arch : get_arch_list()) {
    const std::string num = arch.substr(3);
    flags += (flags.empty() ? "" : " ") + std::string("-gencode compute=compute_") + num + ",code=" + arch;
  }
  return flags;
}

bool is_bf16_supported() { return get_device_properties(current_device()).major >= 8; }

void* current_blas_handle() {
  DeviceRuntime& r = runtime();
  const DeviceIndex idx = static_cast<DeviceIndex>(r.current_device());
  impl::BlasHandles* blas = impl::blas_handles(r);
  CTORCH_CHECK(blas != nullptr, "current_blas_handle: this CUDA runtime has no BLAS handles");
  return blas->blas_handle(idx, impl::current_stream(Device(DeviceType::CUDA, idx)));
}

bool can_device_access_peer(DeviceArg device, DeviceArg peer_device) {
  const int a = checked_index(device, "Invalid device id");
  const int b = checked_index(peer_device, "Invalid peer device id");
  return impl::runtime_can_access_peer(runtime(), static_cast<DeviceIndex>(a), static_cast<DeviceIndex>(b));
}

std::pair<size_t, size_t> mem_get_info(DeviceArg device) {
  const int idx = device.index_or_current();
  impl::check_device_index(DeviceType::CUDA, static_cast<DeviceIndex>(idx));
  size_t free_bytes = 0, total_bytes = 0;
  runtime().memory_info(static_cast<DeviceIndex>(idx), &free_bytes, &total_bytes);
  return {free_bytes, total_bytes};
}

device::device(DeviceArg d) : idx_(d.resolve()) {
  if (idx_ < 0) return;
  DeviceRuntime& r = runtime();
  impl::check_device_index(DeviceType::CUDA, static_cast<DeviceIndex>(idx_));
  prev_idx_ = r.current_device();
  if (prev_idx_ != idx_) r.set_current_device(static_cast<DeviceIndex>(idx_));
}

device::~device() {
  if (idx_ < 0 || prev_idx_ < 0) return;
  try {
    DeviceRuntime& r = runtime();
    if (r.current_device() != prev_idx_) r.set_current_device(static_cast<DeviceIndex>(prev_idx_));
  } catch (...) {  // restoring a device that was valid cannot fail; never throw from a destructor
  }
}

device_of::device_of(const Tensor& t) : device(t.is_cuda() ? DeviceArg(static_cast<int>(t.get_device())) : DeviceArg(-1)) {}

}  // namespace ctorch::cuda
