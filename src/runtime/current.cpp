#include "runtime/current.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ctorch/error.h"

namespace ctorch::inline api::impl {
namespace {

struct QueuedCall {
  std::string key;
  void (*fn)(void*);
  void* arg;
};

struct InitState {
  std::atomic<bool> initialized{false};
  std::mutex mutex;  // guards queued and the initialization itself
  std::vector<QueuedCall> queued;
};

InitState& init_state(DeviceType type) {
  static InitState states[kNumDeviceTypes];
  return states[static_cast<int>(type)];
}

thread_local bool t_initializing = false;
thread_local StreamId t_current_stream[kNumDeviceTypes][kMaxDevices] = {};

std::string invalid_ordinal_message() {
  return "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?\n"
         "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
         "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1";
}

}  // namespace

DeviceRuntime& lazy_init(DeviceType type) {
  InitState& state = init_state(type);
  DeviceRuntime& runtime = require_runtime(type);
  if (state.initialized.load(std::memory_order_acquire) || t_initializing) return runtime;
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.initialized.load(std::memory_order_relaxed)) return runtime;
  CTORCH_CHECK_DEVICE(runtime.device_count() > 0,
                      type == DeviceType::CUDA ? "No CUDA GPUs are available" : "No devices are available");
  t_initializing = true;
  std::vector<QueuedCall> calls = std::move(state.queued);
  state.queued.clear();
  try {
    for (const QueuedCall& c : calls) c.fn(c.arg);
  } catch (const std::exception& e) {
    t_initializing = false;
    throw Error(std::string("CUDA call failed lazily at initialization with error: ") + e.what());
  }
  t_initializing = false;
  state.initialized.store(true, std::memory_order_release);
  return runtime;
}

void reset_initialization(DeviceType type) noexcept {
  InitState& state = init_state(type);
  std::lock_guard<std::mutex> lock(state.mutex);
  state.initialized.store(false, std::memory_order_release);
  state.queued.clear();
}

namespace {

struct ResetHooks {
  std::mutex mutex;
  std::vector<void (*)()> hooks[kNumDeviceTypes];
};

ResetHooks& reset_hooks() {
  static ResetHooks* h = new ResetHooks();  // leaked: hooks may run during static destruction
  return *h;
}

}  // namespace

void add_runtime_reset_hook(DeviceType type, void (*fn)()) noexcept {
  ResetHooks& h = reset_hooks();
  std::lock_guard<std::mutex> lock(h.mutex);
  auto& list = h.hooks[static_cast<int>(type)];
  if (std::find(list.begin(), list.end(), fn) != list.end()) return;
  try {
    list.push_back(fn);
  } catch (...) {
    // Out of memory while registering: the hook is lost; the caller's state simply stays.
  }
}

void run_runtime_reset_hooks(DeviceType type) noexcept {
  std::vector<void (*)()> list;
  {
    ResetHooks& h = reset_hooks();
    std::lock_guard<std::mutex> lock(h.mutex);
    try {
      list = h.hooks[static_cast<int>(type)];
    } catch (...) {
      return;
    }
  }
  for (auto fn : list) fn();
}

bool is_initialized(DeviceType type) noexcept {
  return type == DeviceType::CPU || init_state(type).initialized.load(std::memory_order_acquire);
}

void lazy_call(DeviceType type, const char* key, void (*fn)(void*), void* arg) {
  InitState& state = init_state(type);
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (!state.initialized.load(std::memory_order_relaxed) && !t_initializing) {
      if (key && *key) {
        for (auto it = state.queued.begin(); it != state.queued.end(); ++it) {
          if (it->key == key) {
            state.queued.erase(it);
            break;
          }
        }
      }
      state.queued.push_back({key ? key : "", fn, arg});
      return;
    }
  }
  fn(arg);
}

void check_device_index(DeviceType type, DeviceIndex index) {
  DeviceRuntime& runtime = require_runtime(type);
  if (type == DeviceType::CPU) {
    CTORCH_CHECK_INDEX(index <= 0, "CPU device index must be -1 or zero, got ", index);
    return;
  }
  CTORCH_CHECK_DEVICE(index >= 0 && index < runtime.device_count(), invalid_ordinal_message());
}

Device ensure_has_index(Device device) {
  if (device.has_index()) return device;
  if (device.is_cpu()) return device;
  return Device(device.type(), lazy_init(device.type()).current_device());
}

Stream current_stream(Device device) {
  if (device.is_cpu()) return Stream::default_stream(Device(DeviceType::CPU, 0));
  DeviceRuntime& runtime = lazy_init(device.type());
  const DeviceIndex index = device.has_index() ? device.index() : runtime.current_device();
  const int count = runtime.device_count();
  CTORCH_CHECK_INDEX(index >= 0 && index < count && index < kMaxDevices, "Device index value ", index,
                     " is out of index range [0, ", count, ")");
  const StreamId id = t_current_stream[static_cast<int>(device.type())][index];
  return Stream(Device(device.type(), index), id);
}

void set_current_stream(Stream s) {
  const Device d = s.device();
  if (d.is_cpu()) return;
  CTORCH_CHECK_INDEX(d.index() >= 0 && d.index() < kMaxDevices, "set_current_stream: bad stream device ", d);
  t_current_stream[static_cast<int>(d.type())][d.index()] = s.id();
}

CaptureStatus current_stream_capture_status(DeviceType type) {
  if (type == DeviceType::CPU || !is_initialized(type)) return CaptureStatus::None;
  DeviceRuntime* runtime = runtime_for(type);
  StreamCapture* capture = runtime ? stream_capture(*runtime) : nullptr;
  if (capture == nullptr) return CaptureStatus::None;
  return capture->capture_status(current_stream(Device(type)));
}

void assert_not_capturing(const char* attempt) {
  const CaptureStatus status = current_stream_capture_status(DeviceType::CUDA);
  CTORCH_CHECK(status == CaptureStatus::None, attempt,
               " during CUDA graph capture. If you need this call to be captured, please file an issue. Current "
               "cudaStreamCaptureStatus: ",
               capture_status_name(status));
}

DeviceGuard::DeviceGuard(Device device, DeviceRuntime* runtime) : original_(device.type(), -1) {
  if (!device.has_index() || device.is_cpu()) return;
  runtime_ = runtime ? runtime : &lazy_init(device.type());
  original_ = Device(device.type(), runtime_->current_device());
  if (original_.index() != device.index()) runtime_->set_current_device(device.index());
}

DeviceGuard::~DeviceGuard() {
  if (!runtime_) return;
  try {
    if (runtime_->current_device() != original_.index()) runtime_->set_current_device(original_.index());
  } catch (...) {  // restoring a device that was valid cannot fail; never throw from a destructor
  }
}

void DeviceGuard::set_index(DeviceIndex index) {
  CTORCH_CHECK(runtime_ != nullptr, "DeviceGuard::set_index on a no-op guard");
  runtime_->set_current_device(index);
}

StreamGuard::StreamGuard(Stream s) : device_guard_(s.device()), previous_(current_stream(s.device())) {
  set_current_stream(s);
}

StreamGuard::~StreamGuard() { set_current_stream(previous_); }

}  // namespace ctorch::api::impl
