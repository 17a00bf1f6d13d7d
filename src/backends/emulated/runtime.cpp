// The emulated CUDA runtime. Policy: Note [Emulated runtime] in runtime.h; memory: Note
// [Emulated device memory] in memory.h; one stream = one StreamWorker (stream_worker.h).
#include "backends/emulated/runtime.h"
#include "runtime/current.h"
#include "runtime/visible_devices.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backends/emulated/device_state.h"
#include "backends/emulated/memory.h"
#include "backends/emulated/stream_worker.h"
#include "ctorch/allocator.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::emulated {

namespace {

std::atomic<uint64_t> g_generation{0};
std::atomic<bool> g_exiting{false};

// The calling thread's current device, per runtime configuration (generation).
struct TlsDevice {
  uint64_t generation = 0;
  DeviceIndex index = 0;
};
thread_local std::array<TlsDevice, 4> t_current{};
thread_local unsigned t_current_next = 0;

std::string stream_label(DeviceIndex device, StreamId id) {
  return detail::str_cat("emulated cuda:", device, " stream ", id);
}

[[noreturn]] void invalid_ordinal() {
  CTORCH_CHECK_DEVICE(false,
                      "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?");
  __builtin_unreachable();
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Slot of stream id `id` on `dev` (throws for ids this device never handed out).
int slot_of(const DeviceState& dev, Stream s) {
  const StreamId id = s.id();
  if (id == 0) return 0;
  if (id > 0 && (id & 1)) {
    const int64_t type = (id >> 1) & 0xF, index = id >> 5;
    if (type >= 1 && type <= kPriorityLevels && index < kStreamsPerPool) {
      return 1 + static_cast<int>((type - 1) * kStreamsPerPool + index);
    }
  } else if (id > 0 && id / 2 - 1 < dev.blocking_count.load(std::memory_order_acquire)) {
    return kFirstBlockingSlot + static_cast<int>(id / 2 - 1);
  }
  CTORCH_CHECK(false, "invalid stream ", s, " for emulated cuda:", dev.index, " (StreamId ", id,
               " was never created)");
  __builtin_unreachable();
}

StreamId slot_id(int slot) {
  if (slot == 0) return 0;
  if (slot >= kFirstBlockingSlot) return 2 * (slot - kFirstBlockingSlot + 1);
  const int pri_idx = (slot - 1) / kStreamsPerPool, index = (slot - 1) % kStreamsPerPool;
  return (static_cast<StreamId>(index) << 5) | (static_cast<StreamId>(pri_idx + 1) << 1) | 1;
}

bool is_legacy_slot(int slot) { return slot == 0 || slot >= kFirstBlockingSlot; }

StreamWorker& get_or_create(DeviceState& dev, int slot) {
  StreamWorker* w = dev.workers[slot].load(std::memory_order_acquire);
  if (w) return *w;
  std::lock_guard<std::mutex> lock(dev.create_mu);
  w = dev.workers[slot].load(std::memory_order_relaxed);
  if (!w) {
    w = new StreamWorker(stream_label(dev.index, slot_id(slot)), dev.worker_options);
    if (g_exiting.load()) w->shutdown(std::chrono::milliseconds(0));  // tasks run inline
    dev.workers[slot].store(w, std::memory_order_release);
  }
  return *w;
}

// A task that waits for `w` to reach `t` and adopts a sticky error found there.
std::function<void()> wait_task(StreamWorker* w, Ticket t) {
  return [w, t] {
    w->wait(t);
    std::string msg;
    if (w->sticky_error(t, &msg)) throw Error(msg);
  };
}

// The configured devices are the physical ones; CUDA_VISIBLE_DEVICES (read at each
// configuration, as the driver reads it at initialization) selects and orders the ones the
// process sees. A visible device keeps its physical identity (UUID, PCI bus) and the peer
// matrix, given in physical ordinals, is renumbered.
std::unique_ptr<Topology> build_topology(const cuda::EmulationConfig& config) {
  auto topo = std::make_unique<Topology>();
  topo->config = config;
  topo->generation = ++g_generation;
  std::vector<std::string> uuids;
  for (int p = 0; p < config.devices; ++p) uuids.push_back(make_properties(config, p).uuid);
  const std::vector<int> visible = impl::visible_ordinals(
      impl::parse_visible_devices(std::getenv("CUDA_VISIBLE_DEVICES")), config.devices, uuids);
  auto may_access = [&](int a, int b) {  // physical ordinals
    if (a == b) return false;
    if (!config.peer_access) return true;
    for (auto [x, y] : *config.peer_access) {
      if (x == a && y == b) return true;
    }
    return false;
  };
  const int count = static_cast<int>(visible.size());
  for (int i = 0; i < count; ++i) {
    const int physical = visible[i];
    auto dev = std::make_unique<DeviceState>();
    dev->index = static_cast<DeviceIndex>(i);
    dev->arena = std::make_unique<Arena>(dev->index, config.memory);
    dev->vspace = std::make_unique<VirtualSpace>(dev->index, dev->arena.get());
    dev->pool = std::make_unique<StreamOrderedPool>(dev->index, dev->arena.get());
    dev->props = make_properties(config, static_cast<DeviceIndex>(physical));
    dev->props.total_memory = dev->arena->capacity();
    dev->peer.assign(count, 0);
    for (int j = 0; j < count; ++j) dev->peer[j] = may_access(physical, visible[j]) ? 1 : 0;
    dev->worker_options = WorkerOptions{config.reorder, config.seed * 1000003 + static_cast<uint64_t>(physical),
                                        &dev->activity};
    topo->devices.push_back(std::move(dev));
  }
  return topo;
}

template <class F>
void for_each_worker(const DeviceState& dev, F&& f) {
  for (const auto& slot : dev.workers) {
    if (StreamWorker* w = slot.load(std::memory_order_acquire)) f(*w);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Configuration and lifetime

namespace {
cuda::EmulationConfig no_devices() {
  cuda::EmulationConfig config;
  config.devices = 0;
  return config;
}
}  // namespace

EmulatedRuntime::EmulatedRuntime() : EmulatedRuntime(no_devices()) {}

EmulatedRuntime::EmulatedRuntime(const cuda::EmulationConfig& config)
    : topology_(nullptr), pinned_(std::make_unique<PinnedRegistry>()), captures_(std::make_unique<CaptureRegistry>()) {
  configure(config);
}

EmulatedRuntime::~EmulatedRuntime() {
  drain_all();
  for (EmulatedEvent* e : events_) delete e;
  delete topology_.load();  // joins the (idle) workers, unmaps the arenas
}

void EmulatedRuntime::configure(const cuda::EmulationConfig& config) {
  validate_config(config);
  std::lock_guard<std::mutex> lock(config_mu_);
  Topology* old = topology_.load(std::memory_order_acquire);
  if (old) {
    size_t allocations = 0, busy = 0, events;
    for (const auto& dev : old->devices) {
      // Blocks cached by the stream-ordered pool are its own, not the user's.
      allocations += dev->arena->live_count() - dev->pool->cached_count() + dev->vspace->reservation_count();
      for_each_worker(*dev, [&](StreamWorker& w) { busy += !w.idle(); });
    }
    {
      std::lock_guard<std::mutex> events_lock(events_mu_);
      events = events_.size();
    }
    if (allocations || busy || events) {
      std::string what;
      auto add = [&](size_t n, const char* one, const char* many) {
        if (!n) return;
        what += detail::str_cat(what.empty() ? "" : " / ", n, " ", n == 1 ? one : many);
      };
      add(allocations, "allocation", "allocations");
      add(events, "event", "events");
      add(busy, "stream with queued work", "streams with queued work");
      CTORCH_CHECK(false, "cannot reconfigure emulated CUDA devices while ", what,
                   (allocations + events + busy == 1 ? " is" : " are"), " alive");
    }
  }
  std::unique_ptr<Topology> fresh = build_topology(config);
  topology_.store(fresh.release(), std::memory_order_release);
  if (old) {
    // Keep a shell of the old topology so that a racing device_count() stays valid; its
    // workers (idle) and arenas are released now.
    for (auto& dev : old->devices) {
      for (auto& w : dev->workers) delete w.exchange(nullptr);
      dev->pool.reset();
      dev->vspace.reset();
      dev->arena.reset();
    }
    retired_.emplace_back(old);
  }
}

cuda::EmulationConfig EmulatedRuntime::config() const { return topology().config; }

Topology& EmulatedRuntime::topology() const { return *topology_.load(std::memory_order_acquire); }

DeviceState& EmulatedRuntime::device(DeviceIndex index, bool stream_api) const {
  Topology& t = topology();
  const int count = static_cast<int>(t.devices.size());
  if (index < 0 || index >= count) {
    CTORCH_CHECK(!stream_api, "Device index value ", index, " is out of index range [0, ", count, ")");
    invalid_ordinal();
  }
  return *t.devices[index];
}

void EmulatedRuntime::drain_device(DeviceState& dev) const noexcept {
  StreamWorker* self = StreamWorker::current();
  for_each_worker(dev, [&](StreamWorker& w) {
    if (&w != self) w.wait(w.submitted());
  });
}

void EmulatedRuntime::drain_all() const noexcept {
  for (auto& dev : topology().devices) drain_device(*dev);
}

void EmulatedRuntime::shutdown_workers() noexcept {
  g_exiting.store(true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (auto& dev : topology().devices) {
    for_each_worker(*dev, [&](StreamWorker& w) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      w.shutdown(std::max(left, std::chrono::milliseconds(0)));
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Identity and current device

int EmulatedRuntime::device_count() const noexcept {
  return static_cast<int>(topology().devices.size());
}

impl::DeviceProperties EmulatedRuntime::properties(DeviceIndex index) const { return device(index).props; }

DeviceIndex EmulatedRuntime::current_device() const {
  Topology& t = topology();
  CTORCH_CHECK_DEVICE(!t.devices.empty(), "No CUDA GPUs are available");
  for (const TlsDevice& slot : t_current) {
    if (slot.generation == t.generation) return slot.index;
  }
  return 0;
}

void EmulatedRuntime::set_current_device(DeviceIndex index) {
  CTORCH_CHECK(index >= 0, "device id must be non-negative!", index);
  const uint64_t generation = topology().generation;
  (void)device(index);
  for (TlsDevice& slot : t_current) {
    if (slot.generation == generation) {
      slot.index = index;
      return;
    }
  }
  t_current[t_current_next++ % t_current.size()] = TlsDevice{generation, index};
}

bool EmulatedRuntime::can_access_peer(DeviceIndex index, DeviceIndex peer) const {
  DeviceState& dev = device(index);
  (void)device(peer);
  return dev.peer[peer] != 0;
}

// ---------------------------------------------------------------------------------------------
// Streams

Stream EmulatedRuntime::create_stream(DeviceIndex index, int priority) {
  DeviceState& dev = device(index, /*stream_api=*/true);
  const int pri_idx = std::clamp(-priority, 0, kPriorityLevels - 1);
  const uint32_t i = dev.next_pool[pri_idx].fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool;
  return Stream(Device(DeviceType::CUDA, index), slot_id(1 + pri_idx * kStreamsPerPool + static_cast<int>(i)));
}

Stream EmulatedRuntime::create_blocking_stream(DeviceIndex index) {
  DeviceState& dev = device(index, /*stream_api=*/true);
  std::lock_guard<std::mutex> lock(dev.create_mu);
  const int k = dev.blocking_count.load(std::memory_order_relaxed);
  CTORCH_CHECK(k < kMaxBlockingStreams, "emulated cuda:", index, ": at most ", kMaxBlockingStreams,
               " blocking streams per device");
  dev.blocking_count.store(k + 1, std::memory_order_release);
  return Stream(Device(DeviceType::CUDA, index), slot_id(kFirstBlockingSlot + k));
}

int EmulatedRuntime::stream_priority(Stream s) {
  CTORCH_CHECK(s.device().is_cuda(), "expected a cuda stream, got ", s);
  const int slot = slot_of(device(s.device().index(), true), s);
  if (is_legacy_slot(slot)) return 0;
  return -((slot - 1) / kStreamsPerPool);
}

void* EmulatedRuntime::native_handle(Stream s) {
  CTORCH_CHECK(s.device().is_cuda(), "expected a cuda stream, got ", s);
  DeviceState& dev = device(s.device().index(), /*stream_api=*/true);
  const int slot = slot_of(dev, s);
  return slot == 0 ? nullptr : static_cast<void*>(&dev.workers[slot]);
}

Stream EmulatedRuntime::external_stream(DeviceIndex index, void* handle) {
  DeviceState& dev = device(index, /*stream_api=*/true);
  const auto first = reinterpret_cast<uintptr_t>(&dev.workers[0]);
  const auto p = reinterpret_cast<uintptr_t>(handle);
  const uintptr_t step = sizeof(dev.workers[0]);
  CTORCH_CHECK(handle != nullptr && p > first && p < first + kSlots * step && (p - first) % step == 0,
               "CUDA error: invalid resource handle (emulated: ", hex(handle), " is not a stream of emulated cuda:",
               index, ")");
  const Stream s(Device(DeviceType::CUDA, index), slot_id(static_cast<int>((p - first) / step)));
  (void)slot_of(dev, s);  // a blocking stream that was never created
  return s;
}

StreamWorker& EmulatedRuntime::worker(Stream s) const {
  CTORCH_CHECK(s.device().is_cuda(), "expected a cuda stream, got ", s);
  DeviceState& dev = device(s.device().index(), /*stream_api=*/true);
  return get_or_create(dev, slot_of(dev, s));
}

void EmulatedRuntime::enqueue(Stream s, std::function<void()> task, const char* site) {
  enqueue_internal(s, std::move(task), site ? site : "(unknown site)", false, impl::TaskKind::Kernel);
}

namespace {
// The busy meters a task counts toward (Note [Emulated device activity]).
uint8_t activity_of(impl::TaskKind kind) {
  switch (kind) {
    case impl::TaskKind::Kernel: return kActivityCompute;
    case impl::TaskKind::Copy: return kActivityMemory;
    case impl::TaskKind::Memset: return kActivityCompute | kActivityMemory;
    default: return kActivityNone;
  }
}
}  // namespace

uint64_t EmulatedRuntime::enqueue_internal(Stream s, std::function<void()> task, std::string site, bool always_run,
                                           impl::TaskKind kind) {
  CTORCH_CHECK(s.device().is_cuda(), "expected a cuda stream, got ", s);
  DeviceState& dev = device(s.device().index(), /*stream_api=*/true);
  const int slot = slot_of(dev, s);
  StreamWorker& w = get_or_create(dev, slot);
  // Note [Emulated stream capture]: a capturing stream records the task instead of running it.
  if (capture_count_.load(std::memory_order_acquire) != 0 && capture_task(s, slot == 0, task, site)) return 0;
  task = impl::observe_task(impl::TaskInfo{s, kind, site.c_str()}, std::move(task));
  const uint8_t activity = activity_of(kind);
  if (!is_legacy_slot(slot)) return w.enqueue(std::move(task), std::move(site), always_run, activity);
  // Legacy default stream semantics (see Note [Emulated runtime]).
  std::lock_guard<std::mutex> lock(dev.legacy_mu);
  auto depend_on = [&](StreamWorker* other) {
    if (!other || other == &w) return;
    const Ticket t = other->submitted();
    if (other->done(t)) return;
    std::string what = "implicit synchronization with " + other->label();
    w.enqueue(impl::observe_task(impl::TaskInfo{s, impl::TaskKind::Synchronize, what.c_str()}, wait_task(other, t)),
              std::move(what));
  };
  if (slot == 0) {
    const int blocking = dev.blocking_count.load(std::memory_order_acquire);
    for (int k = 0; k < blocking; ++k) depend_on(dev.workers[kFirstBlockingSlot + k].load(std::memory_order_acquire));
  } else {
    depend_on(dev.workers[0].load(std::memory_order_acquire));
  }
  return w.enqueue(std::move(task), std::move(site), always_run, activity);
}

bool EmulatedRuntime::query_stream(Stream s) {
  StreamWorker& w = worker(s);
  check_capture_safe(&s, "query_stream");
  std::string msg;
  if (w.sticky_error(&msg)) throw Error(msg);
  return w.idle();
}

void EmulatedRuntime::synchronize_stream(Stream s) {
  StreamWorker& w = worker(s);
  check_capture_safe(&s, "synchronize_stream");
  CTORCH_CHECK(StreamWorker::current() != &w, "cannot synchronize ", w.label(),
               " from a task running on it (it would wait for itself)");
  w.wait(w.submitted());
  std::string msg;
  if (w.sticky_error(&msg)) throw Error(msg);
}

void EmulatedRuntime::synchronize_device(DeviceIndex index) {
  DeviceState& dev = device(index);
  check_capture_safe(nullptr, "synchronize_device", index);
  StreamWorker* self = StreamWorker::current();
  for_each_worker(dev, [&](StreamWorker& w) {
    CTORCH_CHECK(&w != self, "cannot synchronize emulated cuda:", index, " from a task running on ", w.label());
  });
  drain_device(dev);
  dev.pool->release_to_threshold();  // as the driver trims the default pool at a synchronization
  std::string msg;
  for_each_worker(dev, [&](StreamWorker& w) {
    if (msg.empty()) w.sticky_error(&msg);
  });
  if (msg.empty()) {
    std::lock_guard<std::mutex> lock(dev.error_mu);
    msg = dev.device_error;
  }
  if (!msg.empty()) throw Error(msg);
}

// ---------------------------------------------------------------------------------------------
// Events

impl::EventHandle EmulatedRuntime::create_event(DeviceIndex index, impl::EventFlags flags) {
  DeviceState& dev = device(index);
  std::shared_ptr<IpcEventMapping> ipc = flags.interprocess ? new_ipc_event_state(dev, flags) : nullptr;
  auto* e = new EmulatedEvent{index, flags, {}, nullptr, std::move(ipc)};
  std::lock_guard<std::mutex> lock(events_mu_);
  events_.insert(e);
  return e;
}

void EmulatedRuntime::destroy_event(impl::EventHandle e) noexcept {
  auto* ev = static_cast<EmulatedEvent*>(e);
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    if (events_.erase(ev) == 0) return;  // unknown or already destroyed: ignored (must not throw)
  }
  if (ev->ipc) ev->ipc->release_name();  // the name goes with the creator's event (tasks may hold the mapping)
  delete ev;  // pending record/wait tasks hold their Record, not the event
}

EmulatedEvent* EmulatedRuntime::event(impl::EventHandle e) const {
  auto* ev = static_cast<EmulatedEvent*>(e);
  std::lock_guard<std::mutex> lock(events_mu_);
  CTORCH_CHECK(events_.count(ev) != 0, "CUDA error: invalid resource handle (emulated: event ", hex(e),
               " is not a live event)");
  return ev;
}

void EmulatedRuntime::record_event(impl::EventHandle e, Stream s) {
  EmulatedEvent* ev = event(e);
  CTORCH_CHECK(s.device().is_cuda() && ev->device == s.device().index(), "Event device ", ev->device,
               " does not match recording stream's device ", s.device().index(), ".");
  if (ev->ipc) return ipc_record(ev->ipc, s);
  if (capture_record(ev, s)) return;
  auto rec = std::make_shared<Record>();
  rec->worker = &worker(s);
  rec->ticket = enqueue_internal(
      s,
      [rec] {
        rec->time_ns = now_ns();
        std::string msg;
        if (rec->worker->sticky_error(&msg)) {
          rec->failed = true;
          rec->error = std::move(msg);
        }
      },
      "record_event", /*always_run=*/true, impl::TaskKind::RecordEvent);
  std::lock_guard<std::mutex> lock(ev->mu);
  ev->record = std::move(rec);
}

namespace {
std::shared_ptr<Record> latest(EmulatedEvent* ev) {
  std::lock_guard<std::mutex> lock(ev->mu);
  return ev->record;
}
}  // namespace

void EmulatedRuntime::wait_event(Stream s, impl::EventHandle e) {
  EmulatedEvent* ev = event(e);
  if (ev->ipc) return ipc_wait(s, ev->ipc);
  std::shared_ptr<Record> rec = latest(ev);
  (void)worker(s);  // validates s
  if (!rec) return;  // never recorded: nothing to wait for (as cudaStreamWaitEvent)
  if (capture_wait(s, rec)) return;
  if (rec->worker->done(rec->ticket) && !rec->failed) return;
  enqueue_internal(
      s,
      [rec] {
        rec->worker->wait(rec->ticket);
        if (rec->failed) throw Error(rec->error);
      },
      "wait_event on an event recorded on " + rec->worker->label(), false, impl::TaskKind::WaitEvent);
}

bool EmulatedRuntime::query_event(impl::EventHandle e) {
  EmulatedEvent* ev = event(e);
  if (ev->ipc) return ev->ipc->done(ev->ipc->recorded());
  std::shared_ptr<Record> rec = latest(ev);
  if (!rec) return true;
  if (rec->capture) {
    // Recorded inside a capture: refused while it runs; afterwards nothing real was recorded.
    CTORCH_CHECK(rec->capture->ended.load(std::memory_order_acquire),
                 "CUDA error: operation not permitted on an event last recorded in a capturing stream");
    return true;
  }
  check_capture_safe(nullptr, "query_event");
  if (!rec->worker->done(rec->ticket)) return false;
  if (rec->failed) throw Error(rec->error);
  return true;
}

void EmulatedRuntime::synchronize_event(impl::EventHandle e) {
  EmulatedEvent* ev = event(e);
  if (ev->ipc) return ev->ipc->wait(ev->ipc->recorded());
  std::shared_ptr<Record> rec = latest(ev);
  if (!rec) return;
  if (rec->capture) {
    CTORCH_CHECK(rec->capture->ended.load(std::memory_order_acquire),
                 "CUDA error: operation not permitted on an event last recorded in a capturing stream");
    return;
  }
  check_capture_safe(nullptr, "synchronize_event");
  CTORCH_CHECK(StreamWorker::current() != rec->worker, "cannot synchronize an event from a task running on ",
               rec->worker->label(), ", where it was recorded (it would wait for itself)");
  rec->worker->wait(rec->ticket);
  if (rec->failed) throw Error(rec->error);
}

float EmulatedRuntime::elapsed_ms(impl::EventHandle start, impl::EventHandle end) {
  EmulatedEvent* a = event(start);
  EmulatedEvent* b = event(end);
  CTORCH_CHECK_VALUE(a->flags.enable_timing && b->flags.enable_timing,
                     "Both events must be created with argument 'enable_timing=True'.");
  std::shared_ptr<Record> ra = latest(a), rb = latest(b);
  CTORCH_CHECK_VALUE(ra && rb, "Both events must be recorded before calculating elapsed time.");
  CTORCH_CHECK(ra->worker->done(ra->ticket) && rb->worker->done(rb->ticket),
               "Both events must be completed before calculating elapsed time.");
  if (ra->failed) throw Error(ra->error);
  if (rb->failed) throw Error(rb->error);
  CTORCH_CHECK(a->device == b->device, "CUDA error: invalid resource handle (emulated: elapsed time between an "
               "event of cuda:", a->device, " and one of cuda:", b->device, ")");
  return static_cast<float>(static_cast<double>(rb->time_ns - ra->time_ns) / 1e6);
}

// ---------------------------------------------------------------------------------------------
// Memory

void* EmulatedRuntime::raw_allocate(DeviceIndex index, size_t bytes) {
  DeviceState& dev = device(index);
  if (bytes == 0) return nullptr;
  return dev.arena->allocate(bytes);
}

void EmulatedRuntime::raw_free(DeviceIndex index, void* ptr) noexcept {
  if (!ptr) return;
  try {
    Topology& t = topology();
    if (index < 0 || index >= static_cast<int>(t.devices.size())) return;
    DeviceState& dev = *t.devices[index];
    std::string error;
    if (!dev.arena->contains(ptr)) {
      error = detail::str_cat("invalid device pointer: ", hex(ptr), " (raw_free on emulated cuda:", index,
                              ": not memory of this device)");
    } else {
      // cudaFree waits for the device's work; from a stream task that could deadlock.
      if (!StreamWorker::current()) drain_device(dev);
      if (!dev.arena->deallocate(ptr)) {
        error = detail::str_cat("invalid device pointer: ", hex(ptr), " (raw_free on emulated cuda:", index,
                                ": not the start of a live allocation; double free?)");
      }
    }
    if (!error.empty()) {
      // raw_free must not throw: the error is sticky on the device, reported by synchronize_device.
      std::lock_guard<std::mutex> lock(dev.error_mu);
      if (dev.device_error.empty()) dev.device_error = error;
    }
  } catch (...) {
    // Only allocation failures while building the message can land here; nothing to undo.
  }
}

bool EmulatedRuntime::owns(const void* ptr, DeviceIndex* device) const noexcept {
  for (const auto& dev : topology().devices) {
    if (device_contains(*dev, ptr)) {
      if (device) *device = dev->index;
      return true;
    }
  }
  return false;
}

void* EmulatedRuntime::translate(const void* ptr, size_t bytes, DeviceIndex exec) const {
  Topology& t = topology();
  if (exec < 0 || exec >= static_cast<int>(t.devices.size())) invalid_ordinal();
  std::string reason;
  DeviceIndex owner = -1;
  if (!owns(ptr, &owner)) {
    reason = "it is not emulated device memory";
  } else {
    DeviceState& dev = *t.devices[owner];
    Lookup l = lookup_device_memory(dev, ptr, bytes);
    if (!l.ok) {
      reason = std::move(l.reason);
    } else if (owner != exec && !t.devices[exec]->peer[owner]) {
      reason = detail::str_cat("cuda:", exec, " has no peer access to cuda:", owner);
    } else {
      return l.alias;
    }
  }
  CTORCH_CHECK(false, "CUDA error: an illegal memory access was encountered (emulated cuda:", exec, " accessed ",
               hex(ptr), " (", bytes, " bytes), which is not a live allocation of an accessible device: ",
               reason, ")");
  __builtin_unreachable();
}

size_t EmulatedRuntime::committed_bytes(DeviceIndex index) const { return device(index).arena->committed_bytes(); }

size_t EmulatedRuntime::live_allocations(DeviceIndex index) const { return device(index).arena->live_count(); }

void EmulatedRuntime::memory_info(DeviceIndex index, size_t* free_bytes, size_t* total_bytes) {
  DeviceState& dev = device(index);
  const size_t total = dev.arena->capacity(), used = dev.arena->in_use();
  if (free_bytes) *free_bytes = total - used;
  if (total_bytes) *total_bytes = total;
}

void* EmulatedRuntime::pinned_allocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  return pinned_->allocate(bytes);
}

void EmulatedRuntime::pinned_free(void* ptr) noexcept {
  if (!ptr) return;
  if (!pinned_->contains(ptr)) return;  // not pinned memory: ignored (must not throw)
  // cudaFreeHost waits for work that may still use the buffer; from a stream task that could deadlock.
  if (!StreamWorker::current()) drain_all();
  pinned_->deallocate(ptr);
}

bool EmulatedRuntime::is_pinned_pointer(const void* ptr) const noexcept {
  try {
    return pinned_->contains(ptr);
  } catch (...) {
    return false;
  }
}

// Checks one side of a copy at enqueue time; returns the pointer to use (alias or host).
void* EmulatedRuntime::endpoint(const void* p, DeviceIndex index, size_t bytes, DeviceIndex exec, const char* fn,
                                const char* what) const {
  DeviceIndex owner = -1;
  const bool device_memory = owns(p, &owner);
  if (index < 0) {
    CTORCH_CHECK(!device_memory, "CUDA error: invalid argument (emulated ", fn, ": ", what, " ", hex(p),
                 " is memory of cuda:", owner, ", but its device index is -1 (host))");
    CTORCH_CHECK(p != nullptr, "CUDA error: invalid argument (emulated ", fn, ": ", what, " is null)");
    return const_cast<void*>(p);
  }
  DeviceState& dev = device(index);
  CTORCH_CHECK(device_memory && owner == index, "CUDA error: invalid argument (emulated ", fn, ": ", what, " ",
               hex(p), " is not memory of cuda:", index,
               device_memory ? detail::str_cat(" but of cuda:", owner) : std::string(), ")");
  Lookup l = lookup_device_memory(dev, p, bytes);
  CTORCH_CHECK(l.ok, "CUDA error: invalid argument (emulated ", fn, ": ", what, " ", hex(p), " (", bytes,
               " bytes): ", l.reason, ")");
  CTORCH_CHECK(index == exec || topology().devices[exec]->peer[index], "CUDA error: invalid argument (emulated ",
               fn, " on a stream of cuda:", exec, ": ", what, " is memory of cuda:", index, ", and cuda:", exec,
               " has no peer access to cuda:", index, ")");
  return l.alias;
}

void EmulatedRuntime::copy_async(void* dst, DeviceIndex dst_index, const void* src, DeviceIndex src_index,
                                 size_t bytes, Stream s) {
  StreamWorker& w = worker(s);  // validates s
  if (bytes == 0) return;
  const DeviceIndex exec = s.device().index();
  (void)endpoint(dst, dst_index, bytes, exec, "copy_async", "dst");
  (void)endpoint(src, src_index, bytes, exec, "copy_async", "src");
  const bool dst_pageable = dst_index < 0 && !pinned_->contains(dst, bytes);
  const bool src_pageable = src_index < 0 && !pinned_->contains(src, bytes);
  std::shared_ptr<DataPtr> staged;
  if (src_pageable && !dst_pageable) {
    // cudaMemcpyAsync from pageable memory returns once the source is staged. The staging
    // buffer comes from the cpu allocator, whose cache keeps large blocks warm between copies.
    staged = std::make_shared<DataPtr>(cpu_allocator()->allocate(bytes));
    std::memcpy(staged->get(), src, bytes);
    src = staged->get();
  }
  auto task = [this, dst, dst_index, src, src_index, bytes, exec, staged] {
    // Translated again: the memory may have been freed since the enqueue.
    void* d = dst_index < 0 ? dst : translate(dst, bytes, exec);
    const void* from = src_index < 0 ? src : translate(src, bytes, exec);
    copy_bytes(d, from, bytes);
  };
  if (dst_pageable) check_capture_safe(&s, "copy_async to pageable host memory");
  CTORCH_CHECK(!dst_pageable || StreamWorker::current() != &w, "emulated copy_async to pageable host memory on ",
               w.label(), " from a task running on it would wait for itself");
  const Ticket t = enqueue_internal(s, std::move(task), "copy_async", false, impl::TaskKind::Copy);
  if (dst_pageable) {
    // cudaMemcpyAsync to pageable memory returns once the copy has completed.
    w.wait(t);
    std::string msg;
    if (w.sticky_error(t, &msg)) throw Error(msg);
  }
}

void EmulatedRuntime::memset_async(void* dst, int value, size_t bytes, Stream s) {
  (void)worker(s);  // validates s
  if (bytes == 0) return;
  const DeviceIndex exec = s.device().index();
  DeviceIndex owner = -1;
  CTORCH_CHECK(owns(dst, &owner), "CUDA error: invalid argument (emulated memset_async: dst ", hex(dst),
               " is not emulated device memory)");
  (void)endpoint(dst, owner, bytes, exec, "memset_async", "dst");
  enqueue_internal(
      s, [this, dst, value, bytes, exec] { std::memset(translate(dst, bytes, exec), value, bytes); }, "memset_async",
      false, impl::TaskKind::Memset);
}

// ---------------------------------------------------------------------------------------------
// The process-wide instance

void shutdown_instance_at_exit() noexcept { instance().shutdown_workers(); }

EmulatedRuntime& instance() {
  static EmulatedRuntime* runtime = [] {
    auto* r = new EmulatedRuntime();  // leaked on purpose: see Note [Emulated runtime]
    std::atexit([] { shutdown_instance_at_exit(); });
    return r;
  }();
  return *runtime;
}

impl::DeviceRuntime* runtime_from_environment() {
  static std::once_flag once;
  static impl::DeviceRuntime* result = nullptr;
  std::call_once(once, [] {
    const char* env = std::getenv("CTORCH_EMULATED_CUDA");
    if (!env) return;
    std::optional<cuda::EmulationConfig> config = parse_config(env);
    if (!config || config->devices == 0) return;
    instance().configure(*config);
    result = &instance();
  });
  return result;
}

}  // namespace ctorch::api::backends::emulated

namespace ctorch::cuda {

void emulate(const EmulationConfig& config) {
  auto& runtime = backends::emulated::instance();
  // Layers above the runtime (the caching allocators) return cached memory and events first:
  // configure() refuses while any emulated allocation or event is alive.
  impl::run_runtime_reset_hooks(DeviceType::CUDA);
  runtime.configure(config);
  impl::reset_initialization(DeviceType::CUDA);  // the next use initializes the new devices
  if (config.devices > 0) {
    impl::register_runtime(DeviceType::CUDA, &runtime);
  } else if (impl::runtime_for(DeviceType::CUDA) == &runtime) {
    impl::register_runtime(DeviceType::CUDA, nullptr);
  }
}

void emulate(int devices) {
  EmulationConfig config;
  config.devices = devices;
  emulate(config);
}

bool is_emulated() noexcept {
  impl::DeviceRuntime* r = impl::runtime_for(DeviceType::CUDA);
  if (r == nullptr) return false;
  try {
    return r == &backends::emulated::instance();
  } catch (...) {
    return false;
  }
}

}  // namespace ctorch::cuda
