// ctorch::cuda — the torch.cuda module: device queries and management. Works with real CUDA
// devices, with emulated ones (ctorch::cuda::emulate / CTORCH_EMULATED_CUDA), and without any.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctorch/device.h"

namespace ctorch::inline api {
class Tensor;
}  // namespace ctorch::api

namespace ctorch::cuda {

/// A device argument as torch.cuda accepts it: nothing (the current device), an index, a
/// Device or a device string. Resolved with PyTorch's _get_device_index rules.
class DeviceArg {
 public:
  /// The current device.
  DeviceArg() = default;
  /// cuda:index (negative indices pass through, as in PyTorch).
  DeviceArg(int index) : kind_(Kind::Index), index_(index) {}  // NOLINT
  /// A device; must be a cuda device.
  DeviceArg(Device device) : kind_(Kind::Device), device_(device) {}  // NOLINT
  /// A device string ("cuda:1").
  DeviceArg(const char* text) : kind_(Kind::Device), device_(Device(text)) {}  // NOLINT
  /// The index: `optional` lets an index-less device mean the current device.
  int resolve(bool optional = true) const;
  /// resolve(), with a negative index meaning the current device (as a torch.cuda.device(-1)
  /// block, c10's DeviceGuard and libtorch's `device_index = -1` defaults do).
  int index_or_current() const;

 private:
  enum class Kind : int8_t { None, Index, Device };
  Kind kind_ = Kind::None;
  int index_ = -1;
  Device device_ = Device(DeviceType::CUDA);
};

/// True when at least one CUDA device (real or emulated) can be used. Never throws.
bool is_available() noexcept;
/// Number of usable CUDA devices (real or emulated); 0 without any. Never throws.
int device_count() noexcept;
/// Initializes CUDA now (torch.cuda.init); throws when no device is usable.
void init();
/// True once CUDA has been initialized (lazily, by the first call that needs a device).
bool is_initialized() noexcept;
/// Index of the calling thread's current device.
int current_device();
/// Makes `device` current for the calling thread (a negative index is a no-op).
void set_device(DeviceArg device);
/// Waits for all work on every stream of `device` (-1 or nothing: the current device).
void synchronize(DeviceArg device = {});
/// The synchronization debug mode: 0 (default), 1 (warn) or 2 (error).
int get_sync_debug_mode();
/// Warn (1, "warn") or throw (2, "error") on operations that make the host wait for a device
/// (blocking copies to and from the device, item(), Stream::synchronize); 0 or "default": off.
void set_sync_debug_mode(int debug_mode);
/// set_sync_debug_mode by name: "default", "warn" or "error".
void set_sync_debug_mode(std::string_view debug_mode);

/// Properties of a device (torch.cuda.get_device_properties).
struct DeviceProperties {
  std::string name;
  int major = 0;
  int minor = 0;
  size_t total_memory = 0;
  int multi_processor_count = 0;
  int max_threads_per_multi_processor = 0;
  int warp_size = 32;
  size_t L2_cache_size = 0;  // NOLINT: PyTorch's field name
  bool is_integrated = false;
  bool is_multi_gpu_board = false;
  std::string uuid;
  int pci_bus_id = 0;
  int pci_device_id = 0;
  int pci_domain_id = 0;
};
/// Prints PyTorch's repr: _CudaDeviceProperties(name='...', major=8, minor=0, total_memory=...MB, ...).
std::ostream& operator<<(std::ostream& os, const DeviceProperties& p);

/// Properties of `device`; an invalid index throws DeviceError("Invalid device id").
DeviceProperties get_device_properties(DeviceArg device = {});
/// The device's name.
std::string get_device_name(DeviceArg device = {});
/// (major, minor) compute capability.
std::pair<int, int> get_device_capability(DeviceArg device = {});
/// Architectures this build of ctorch has kernels for ("sm_80", ...); empty without real CUDA.
std::vector<std::string> get_arch_list();
/// nvcc -gencode flags of this build ("-gencode compute=compute_80,code=sm_80").
std::string get_gencode_flags();
/// True when the current device supports bfloat16 (compute capability 8.0 or newer, as PyTorch 1.13 decides).
bool is_bf16_supported();
/// The calling thread's BLAS handle for the current device, bound to its current stream (the
/// cublasHandle_t ctorch's matmul uses on real CUDA; a stable opaque token per device and thread on
/// emulated devices). Never null.
void* current_blas_handle();
/// True when `device` can access memory of `peer_device`.
bool can_device_access_peer(DeviceArg device, DeviceArg peer_device);
/// (free, total) bytes of `device` (cudaMemGetInfo; -1 or nothing: the current device).
std::pair<size_t, size_t> mem_get_info(DeviceArg device = {});

/// Makes a device current for the scope and restores the previous one (the
/// `with torch.cuda.device(d):` block). A negative index makes it a no-op.
class device {  // NOLINT(readability-identifier-naming): torch.cuda.device
 public:
  /// Switches to `d` (nothing: the current device).
  explicit device(DeviceArg d);
  ~device();
  device(const device&) = delete;
  device& operator=(const device&) = delete;
  /// The index this block switched to (-1: no-op).
  int idx() const { return idx_; }

 private:
  int idx_;
  int prev_idx_ = -1;
};

/// torch.cuda.device_of(t): the device block of t's device; a no-op for cpu tensors.
class device_of : public device {  // NOLINT(readability-identifier-naming)
 public:
  /// Switches to t's cuda device, if any.
  explicit device_of(const Tensor& t);
};

}  // namespace ctorch::cuda
