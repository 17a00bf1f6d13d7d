// torch.cuda.Event over the runtime seam (aten/src/ATen/cuda/CUDAEvent.h, torch/cuda/streams.py):
// the native event is created at the first record(), on the recording stream's device (or by
// ipc_handle(), on the current device); before that, query() is true and wait()/synchronize() are
// no-ops. Interprocess handles go through the runtime's optional impl::EventIpc interface. An
// event opened in the process that made the handle is a separate runtime handle; the stream
// sanitizer still sees one event: interprocess events share a key object with their
// same-process copies. Records made in other processes are invisible to it (docs/streams.md).
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "ctorch/cuda_event.h"
#include "ctorch/error.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "sanitizer/hooks.h"
#include "trace/tracer.h"

namespace ctorch::cuda {
namespace detail {

struct EventState {
  impl::EventFlags flags;
  std::mutex mu;                          // guards creation (runtime, handle, device)
  impl::DeviceRuntime* runtime = nullptr;  // the runtime that created handle
  impl::EventHandle handle = nullptr;
  DeviceIndex device = -1;
  std::shared_ptr<const char> ipc_key;  // interprocess events: the sanitizer's key, shared with same-process copies

  /// The event as the stream sanitizer knows it.
  const void* sanitizer_key() const { return ipc_key ? ipc_key.get() : handle; }

  ~EventState() {
    if (handle && !ipc_key && sanitizer::active()) sanitizer::event_destroy(handle);
    if (handle) runtime->destroy_event(handle);
  }
};

}  // namespace detail

namespace {

struct Created {
  impl::DeviceRuntime* runtime;
  impl::EventHandle handle;
  DeviceIndex device;
  const void* key;  // for the stream sanitizer
};

// The native event, or nullopt before the first record.
std::optional<Created> created(detail::EventState& s) {
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.handle) return std::nullopt;
  return Created{s.runtime, s.handle, s.device, s.sanitizer_key()};
}

// A sanitizer key for an interprocess event; the sanitizer forgets the event with its last holder.
std::shared_ptr<const char> new_ipc_key() {
  return std::shared_ptr<const char>(new char(0), [](const char* key) {
    if (sanitizer::active()) sanitizer::event_destroy(key);
    delete key;
  });
}

// Sanitizer keys of the events whose ipc_handle() this process handed out, by handle bytes
// (expired entries are purged at the next registration).
std::mutex g_ipc_mu;
std::map<std::string, std::weak_ptr<const char>> g_ipc_keys;

void register_ipc_key(const std::string& bytes, const std::shared_ptr<const char>& key) {
  std::lock_guard<std::mutex> lock(g_ipc_mu);
  std::erase_if(g_ipc_keys, [](const auto& entry) { return entry.second.expired(); });
  g_ipc_keys[bytes] = key;
}

// The key of the same-process event behind `bytes`, else a new one.
std::shared_ptr<const char> ipc_key_of(const std::string& bytes) {
  std::lock_guard<std::mutex> lock(g_ipc_mu);
  auto it = g_ipc_keys.find(bytes);
  std::shared_ptr<const char> key = it == g_ipc_keys.end() ? nullptr : it->second.lock();
  return key ? key : new_ipc_key();
}

// The native event, created on `device` when it does not exist yet.
Created create_if_needed(detail::EventState& s, DeviceIndex device) {
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.handle) {
    impl::DeviceRuntime& r = impl::lazy_init(DeviceType::CUDA);
    impl::DeviceGuard guard(Device(DeviceType::CUDA, device));
    s.handle = r.create_event(device, s.flags);
    s.runtime = &r;
    s.device = device;
    if (s.flags.interprocess) s.ipc_key = new_ipc_key();
  }
  return Created{s.runtime, s.handle, s.device, s.sanitizer_key()};
}

impl::EventIpc& require_event_ipc(impl::DeviceRuntime& r) {
  impl::EventIpc* ipc = impl::event_ipc(r);
  CTORCH_CHECK_NOT_IMPLEMENTED(ipc != nullptr, "[Event.ipc_handle] the CUDA runtime in use has no interprocess "
                               "events (it does not implement impl::EventIpc)");
  return *ipc;
}

}  // namespace

Event::Event(bool enable_timing, bool blocking, bool interprocess) : state_(std::make_shared<detail::EventState>()) {
  CTORCH_CHECK_VALUE(!(enable_timing && interprocess),
                     "Event: interprocess=true requires enable_timing=false (CUDA refuses cudaEventInterprocess "
                     "without cudaEventDisableTiming), but got enable_timing=true");
  state_->flags = impl::EventFlags{enable_timing, blocking, interprocess};
}

Event Event::from_ipc_handle(Device device, std::string_view handle) {
  CTORCH_CHECK(handle.size() == impl::kIpcEventHandleSize, "cudaIpcEventHandle_t expects byte-like object of size ",
               impl::kIpcEventHandleSize, ", but got ", handle.size());
  CTORCH_CHECK(device.is_cuda(), "Event can only be created on CUDA devices, but got device type ", device.type());
  impl::DeviceRuntime& r = impl::lazy_init(DeviceType::CUDA);
  impl::EventIpc& ipc = require_event_ipc(r);
  device = impl::ensure_has_index(device);
  impl::check_device_index(DeviceType::CUDA, device.index());
  impl::IpcEventBytes bytes;
  std::memcpy(bytes.data(), handle.data(), bytes.size());
  Event e(/*enable_timing=*/false, /*blocking=*/false, /*interprocess=*/true);
  impl::DeviceGuard guard(device);
  e.state_->handle = ipc.open_ipc_event(device.index(), bytes);
  e.state_->runtime = &r;
  e.state_->device = device.index();
  e.state_->ipc_key = ipc_key_of(std::string(handle));
  return e;
}

IpcEventHandle Event::ipc_handle() const {
  CTORCH_CHECK_VALUE(state_->flags.interprocess, "Event.ipc_handle() needs an event created with interprocess=true "
                     "(cudaEventInterprocess), but this event has interprocess=false");
  impl::DeviceRuntime& r = impl::lazy_init(DeviceType::CUDA);
  (void)require_event_ipc(r);  // before anything is created
  const Created c = create_if_needed(*state_, r.current_device());
  impl::DeviceGuard guard(Device(DeviceType::CUDA, c.device));
  const impl::IpcEventBytes bytes = require_event_ipc(*c.runtime).ipc_event_handle(c.handle);
  IpcEventHandle h(bytes.data(), bytes.size());
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    register_ipc_key(h, state_->ipc_key);
  }
  return h;
}

void Event::record(std::optional<Stream> stream) const {
  const Stream s = stream ? *stream : current_stream();
  const Created c = create_if_needed(*state_, static_cast<DeviceIndex>(s.device_index()));
  CTORCH_CHECK(c.device == s.device_index(), "Event device ", static_cast<int>(c.device),
               " does not match recording stream's device ", s.device_index(), ".");
  impl::DeviceGuard guard(s.device());
  c.runtime->record_event(c.handle, s.unwrap());
  if (sanitizer::active()) sanitizer::event_record(c.key, s.unwrap());
}

void Event::wait(std::optional<Stream> stream) const {
  const Stream s = stream ? *stream : current_stream();
  const std::optional<Created> c = created(*state_);
  if (!c) return;
  impl::DeviceGuard guard(s.device());
  c->runtime->wait_event(s.unwrap(), c->handle);
  if (sanitizer::active()) sanitizer::event_wait(c->key, s.unwrap());
}

bool Event::query() const {
  const std::optional<Created> c = created(*state_);
  if (!c) return true;
  impl::DeviceGuard guard(Device(DeviceType::CUDA, c->device));
  const bool done = c->runtime->query_event(c->handle);
  if (done && sanitizer::active()) sanitizer::event_synchronize(c->key);
  return done;
}

void Event::synchronize() const {
  const std::optional<Created> c = created(*state_);
  if (!c) return;
  tracing::HostSpan span("Event.synchronize");
  c->runtime->synchronize_event(c->handle);
  if (sanitizer::active()) sanitizer::event_synchronize(c->key);
}

float Event::elapsed_time(const Event& end) const {
  CTORCH_CHECK_VALUE(enable_timing() && end.enable_timing(),
                     "Both events must be created with argument 'enable_timing=True'.");
  const std::optional<Created> a = created(*state_), b = created(*end.state_);
  CTORCH_CHECK_VALUE(a && b, "Both events must be recorded before calculating elapsed time.");
  CTORCH_CHECK(query() && end.query(), "Both events must be completed before calculating elapsed time.");
  impl::DeviceGuard guard(Device(DeviceType::CUDA, a->device));
  return a->runtime->elapsed_ms(a->handle, b->handle);
}

std::optional<Device> Event::device() const {
  const std::optional<Created> c = created(*state_);
  if (!c) return std::nullopt;
  return Device(DeviceType::CUDA, c->device);
}

uintptr_t Event::cuda_event() const {
  const std::optional<Created> c = created(*state_);
  return c ? reinterpret_cast<uintptr_t>(c->handle) : 0;
}

bool Event::is_created() const { return created(*state_).has_value(); }

bool Event::enable_timing() const { return state_->flags.enable_timing; }

std::ostream& operator<<(std::ostream& os, const Event& e) {
  const uintptr_t handle = e.cuda_event();
  if (!handle) return os << "<torch.cuda.Event uninitialized>";
  return os << "<torch.cuda.Event 0x" << std::hex << handle << std::dec << ">";
}

}  // namespace ctorch::cuda
