// The current device and current stream, device and stream guards, and lazy initialization.
// These live once, above the runtime seam: every backend gets the same rules.
//
// Note [Current device and stream]
// The current device is owned by the runtime (its contract: thread-local; the real CUDA runtime
// calls cudaSetDevice). The current stream is a thread-local table here, one entry per device,
// initialized to the device's default stream, as c10's current-stream table.
#pragma once

#include "ctorch/device.h"
#include "ctorch/stream.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::impl {

/// Largest device index ctorch tracks per type (c10's C10_COMPILE_TIME_MAX_GPUS).
inline constexpr int kMaxDevices = 64;

/// Initializes `type`'s runtime once (device_count must be > 0) and runs queued calls.
/// Throws DeviceError with PyTorch's messages when no device is usable.
DeviceRuntime& lazy_init(DeviceType type);
/// Forgets initialization and queued calls (used when the CUDA runtime is replaced or reconfigured).
void reset_initialization(DeviceType type) noexcept;
/// Registers `fn` to run before `type`'s runtime is replaced or reconfigured (cuda::emulate);
/// layers above the runtime use it to drop per-device state. Registering twice is a no-op.
void add_runtime_reset_hook(DeviceType type, void (*fn)()) noexcept;
/// Runs the hooks registered for `type`, oldest first (called by whoever replaces the runtime).
void run_runtime_reset_hooks(DeviceType type) noexcept;
/// True once lazy_init(type) has succeeded.
bool is_initialized(DeviceType type) noexcept;
/// Runs `fn` now when `type` is initialized, else at its initialization (torch.cuda._lazy_call).
/// Only the latest call queued under the same non-empty `key` is kept.
void lazy_call(DeviceType type, const char* key, void (*fn)(void*), void* arg);

/// `device` with its index filled in from the current device when it has none.
Device ensure_has_index(Device device);
/// Throws DeviceError "invalid device ordinal" unless 0 <= index < device_count(type).
void check_device_index(DeviceType type, DeviceIndex index);

/// The calling thread's current stream on `device` (index -1: the current device).
Stream current_stream(Device device);
/// Makes `s` the current stream of its device for the calling thread (does not change the device).
void set_current_stream(Stream s);

/// Capture status of the calling thread's current stream of `type`'s current device (None when
/// `type` is not initialized or its runtime cannot capture); c10's currentStreamCaptureStatus.
CaptureStatus current_stream_capture_status(DeviceType type = DeviceType::CUDA);
/// Throws "<attempt> during CUDA graph capture. If you need this call to be captured, please file
/// an issue. Current cudaStreamCaptureStatus: <status>" when the current CUDA stream captures
/// (c10's assertNotCapturing).
void assert_not_capturing(const char* attempt);

/// Sets the current device for the scope and restores the previous one at exit (also on throw).
/// An index of -1 makes the guard a no-op (torch.cuda.device(-1)). Tests may inject a runtime.
class DeviceGuard {
 public:
  /// Switches `device.type()`'s current device to `device.index()`.
  explicit DeviceGuard(Device device, DeviceRuntime* runtime = nullptr);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  /// The device that was current when the guard was created (-1 index when a no-op).
  Device original_device() const { return original_; }
  /// Switches again; the original is still restored at exit.
  void set_index(DeviceIndex index);

 private:
  DeviceRuntime* runtime_ = nullptr;
  Device original_;
};

/// Makes `s` current and its device current for the scope; restores both at exit
/// (the `with torch.cuda.stream(s)` block).
class StreamGuard {
 public:
  /// Switches the current device to s.device() and its current stream to `s`.
  explicit StreamGuard(Stream s);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  DeviceGuard device_guard_;
  Stream previous_;
};

}  // namespace ctorch::api::impl
