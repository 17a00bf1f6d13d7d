// Interprocess events of the emulated runtime: Note [Emulated interprocess events] (ipc_event.h).
// The shared state lives in POSIX shared memory; EmulatedRuntime's impl::EventIpc methods and its
// record/wait of interprocess events are here, so runtime.cpp only branches to them.
#include "backends/emulated/ipc_event.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "backends/emulated/device_state.h"
#include "backends/emulated/runtime.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::emulated {

namespace {

constexpr uint32_t kHandleMagic = 0x45495443;  // "CTIE" little-endian
constexpr uint16_t kHandleVersion = 1;
constexpr uint32_t kStateMagic = 0x53455443;  // "CTES"
constexpr char kNamePrefix[] = "/ctorch-ev-";
constexpr size_t kObjectBytes = 4096;
constexpr auto kMaxSleep = std::chrono::microseconds(200);
constexpr auto kLivenessPeriod = std::chrono::milliseconds(20);

/// The 64 handle bytes (memcpy'd in and out; never aliased).
struct HandleLayout {
  uint32_t magic;
  uint16_t version;
  int16_t device;   // the event's device index in the creating process
  uint64_t nonce;   // equals the shared object's nonce
  char name[48];    // the shared object's name, NUL-terminated
};
static_assert(sizeof(HandleLayout) == impl::kIpcEventHandleSize);

using Clock = std::chrono::steady_clock;

bool process_alive(int32_t pid) noexcept { return pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH; }

uint64_t next_nonce() {
  static std::atomic<uint64_t> counter{std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32)};
  uint64_t z = counter.fetch_add(0x9e3779b97f4a7c15ull) + 0x9e3779b97f4a7c15ull;  // splitmix64
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 31)) | 1;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// This process's mappings by object name, so that an object is mapped once per process.
std::mutex g_mappings_mu;
std::map<std::string, std::weak_ptr<IpcEventMapping>> g_mappings;

void remember_mapping(const std::string& name, const std::shared_ptr<IpcEventMapping>& m) {
  std::lock_guard<std::mutex> lock(g_mappings_mu);
  std::erase_if(g_mappings, [](const auto& entry) { return entry.second.expired(); });
  g_mappings[name] = m;
}

std::shared_ptr<IpcEventMapping> mapping_named(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mappings_mu);
  auto it = g_mappings.find(name);
  return it == g_mappings.end() ? nullptr : it->second.lock();
}

}  // namespace

/// The shared object's contents (one page). Atomics are lock-free, hence address-free.
struct IpcSharedState {
  uint32_t magic;
  uint32_t version;
  uint64_t nonce;
  int32_t creator_pid;
  int16_t creator_device;
  std::atomic<uint64_t> recorded;   // sequence of the latest record
  std::atomic<uint64_t> completed;  // highest sequence whose record task ran
  std::atomic<uint64_t> failed;     // highest sequence whose record task found a sticky error
  std::atomic<int32_t> recorder_pid;
  char uuid[64];
};
static_assert(sizeof(IpcSharedState) <= kObjectBytes);
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<int32_t>::is_always_lock_free);

std::shared_ptr<IpcEventMapping> IpcEventMapping::create(DeviceIndex device, const std::string& uuid) {
  static std::atomic<uint32_t> counter{0};
  HandleLayout h{};
  h.magic = kHandleMagic;
  h.version = kHandleVersion;
  h.device = static_cast<int16_t>(device);
  h.nonce = next_nonce();
  int fd = -1;
  for (int attempt = 0; attempt < 64 && fd < 0; ++attempt) {
    std::snprintf(h.name, sizeof h.name, "%s%d-%u", kNamePrefix, static_cast<int>(getpid()), counter.fetch_add(1));
    fd = shm_open(h.name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno != EEXIST) break;  // EEXIST: left by a crashed process with our pid
  }
  CTORCH_CHECK(fd >= 0, "CUDA error: out of memory (emulated: shm_open(\"", h.name,
               "\") for an interprocess event failed: ", std::strerror(errno), ")");
  void* p = MAP_FAILED;
  if (ftruncate(fd, kObjectBytes) == 0) p = mmap(nullptr, kObjectBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (p == MAP_FAILED) {
    shm_unlink(h.name);
    CTORCH_CHECK(false, "CUDA error: out of memory (emulated: mapping the interprocess event \"", h.name,
                 "\" failed: ", std::strerror(err), ")");
  }
  auto* s = new (p) IpcSharedState{};
  s->version = kHandleVersion;
  s->nonce = h.nonce;
  s->creator_pid = static_cast<int32_t>(getpid());
  s->creator_device = h.device;
  std::snprintf(s->uuid, sizeof s->uuid, "%s", uuid.c_str());
  std::atomic_thread_fence(std::memory_order_release);
  s->magic = kStateMagic;
  std::shared_ptr<IpcEventMapping> m(new IpcEventMapping());
  m->state_ = s;
  m->owner_ = true;
  std::memcpy(m->handle_.data(), &h, sizeof h);
  remember_mapping(h.name, m);
  return m;
}

std::shared_ptr<IpcEventMapping> IpcEventMapping::open(const impl::IpcEventBytes& handle) {
  HandleLayout h;
  std::memcpy(&h, handle.data(), sizeof h);
  CTORCH_CHECK_VALUE(h.magic == kHandleMagic,
                     "invalid interprocess event handle: expected a handle of ctorch's emulated CUDA runtime (magic ",
                     hex32(kHandleMagic), "), but got magic ", hex32(h.magic),
                     " (a handle from real CUDA, or not an event handle)");
  CTORCH_CHECK_VALUE(h.version == kHandleVersion, "invalid interprocess event handle: expected version ",
                     kHandleVersion, ", but got version ", h.version);
  const size_t name_len = strnlen(h.name, sizeof h.name);
  CTORCH_CHECK_VALUE(name_len < sizeof h.name && std::strncmp(h.name, kNamePrefix, sizeof kNamePrefix - 1) == 0 &&
                         std::strchr(h.name + 1, '/') == nullptr,
                     "invalid interprocess event handle: expected a shared-memory name \"", kNamePrefix,
                     "<pid>-<n>\", but got a malformed one");
  const int fd = shm_open(h.name, O_RDWR, 0);
  CTORCH_CHECK(fd >= 0, "CUDA error: invalid resource handle (emulated: the interprocess event \"", h.name,
               "\" cannot be opened: ",
               errno == ENOENT ? std::string("it no longer exists; the process that created it destroyed it or exited")
                               : std::string(std::strerror(errno)),
               ")");
  if (std::shared_ptr<IpcEventMapping> mapped = mapping_named(h.name); mapped && mapped->state_->nonce == h.nonce) {
    close(fd);  // the name still exists (not released), and this process maps it already
    std::shared_ptr<IpcEventMapping> m(new IpcEventMapping());
    m->state_ = mapped->state_;
    m->handle_ = handle;
    m->shared_ = std::move(mapped);
    return m;
  }
  struct stat st {};
  void* p = MAP_FAILED;
  if (fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= kObjectBytes) {
    p = mmap(nullptr, kObjectBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  close(fd);
  CTORCH_CHECK(p != MAP_FAILED, "CUDA error: invalid resource handle (emulated: the interprocess event \"", h.name,
               "\" cannot be mapped)");
  auto* s = static_cast<IpcSharedState*>(p);
  if (s->magic != kStateMagic || s->nonce != h.nonce) {
    munmap(p, kObjectBytes);
    CTORCH_CHECK(false, "CUDA error: invalid resource handle (emulated: \"", h.name,
                 "\" now belongs to another event; the handle is stale)");
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  std::shared_ptr<IpcEventMapping> m(new IpcEventMapping());
  m->state_ = s;
  m->handle_ = handle;
  remember_mapping(h.name, m);
  return m;
}

IpcEventMapping::~IpcEventMapping() {
  release_name();
  if (!shared_) munmap(state_, kObjectBytes);
}

void IpcEventMapping::release_name() noexcept {
  if (owner_) shm_unlink(name());
  owner_ = false;
}

DeviceIndex IpcEventMapping::creator_device() const { return state_->creator_device; }

std::string IpcEventMapping::uuid() const { return std::string(state_->uuid, strnlen(state_->uuid, sizeof state_->uuid)); }

const char* IpcEventMapping::name() const { return reinterpret_cast<const HandleLayout*>(handle_.data())->name; }

uint64_t IpcEventMapping::begin_record() noexcept {
  state_->recorder_pid.store(static_cast<int32_t>(getpid()), std::memory_order_relaxed);
  return state_->recorded.fetch_add(1, std::memory_order_acq_rel) + 1;
}

void IpcEventMapping::complete(uint64_t seq, bool failed) noexcept {
  auto raise = [seq](std::atomic<uint64_t>& a) {
    uint64_t cur = a.load(std::memory_order_relaxed);
    while (cur < seq && !a.compare_exchange_weak(cur, seq, std::memory_order_release, std::memory_order_relaxed)) {
    }
  };
  if (failed) raise(state_->failed);  // before completed: a reader that sees completion sees the failure
  raise(state_->completed);
}

uint64_t IpcEventMapping::recorded() const noexcept { return state_->recorded.load(std::memory_order_acquire); }

IpcEventMapping::Status IpcEventMapping::status(uint64_t seq) const noexcept {
  if (seq == 0) return Status::kDone;  // never recorded
  if (state_->completed.load(std::memory_order_acquire) < seq) return Status::kPending;
  return state_->failed.load(std::memory_order_acquire) == seq ? Status::kFailed : Status::kDone;
}

void IpcEventMapping::throw_failed() const {
  CTORCH_CHECK(false, "CUDA error: an earlier error on the stream that recorded this interprocess event (emulated: "
               "the recording stream, in process ", state_->recorder_pid.load(), ", had a sticky error)");
  __builtin_unreachable();
}

bool IpcEventMapping::done(uint64_t seq) const {
  const Status s = status(seq);
  if (s == Status::kFailed) throw_failed();
  return s == Status::kDone;
}

void IpcEventMapping::wait(uint64_t seq) const {
  auto sleep = std::chrono::microseconds(1);
  auto next_check = Clock::now() + kLivenessPeriod;
  for (int spin = 0;; ++spin) {
    if (done(seq)) return;
    if (spin < 256) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, std::chrono::duration_cast<std::chrono::microseconds>(kMaxSleep));
    if (Clock::now() < next_check) continue;
    next_check = Clock::now() + kLivenessPeriod;
    const int32_t pid = state_->recorder_pid.load(std::memory_order_relaxed);
    if (pid != static_cast<int32_t>(getpid()) && !process_alive(pid) && !done(seq)) {
      CTORCH_CHECK(false, "CUDA error: launch failure (emulated: process ", pid,
                   ", which recorded the interprocess event \"", name(), "\", exited before the recorded work ran)");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// EmulatedRuntime: impl::EventIpc and the records and waits of interprocess events

std::shared_ptr<IpcEventMapping> new_ipc_event_state(const DeviceState& dev, impl::EventFlags flags) {
  CTORCH_CHECK_VALUE(!flags.enable_timing,
                     "CUDA error: invalid argument (emulated: an interprocess event needs timing disabled; expected "
                     "enable_timing=false with interprocess=true, but got enable_timing=true)");
  return IpcEventMapping::create(dev.index, dev.props.uuid);
}

impl::IpcEventBytes EmulatedRuntime::ipc_event_handle(impl::EventHandle e) {
  EmulatedEvent* ev = event(e);
  CTORCH_CHECK_VALUE(ev->ipc != nullptr, "CUDA error: invalid resource handle (emulated: ipc_event_handle needs an "
                     "event created with interprocess=true, but this one has interprocess=false)");
  return ev->ipc->handle();
}

impl::EventHandle EmulatedRuntime::open_ipc_event(DeviceIndex index, const impl::IpcEventBytes& handle) {
  DeviceState& dev = device(index);
  std::shared_ptr<IpcEventMapping> m = IpcEventMapping::open(handle);
  CTORCH_CHECK_VALUE(m->uuid() == dev.props.uuid, "from_ipc_handle: the event belongs to emulated device ",
                     m->uuid(), " (cuda:", m->creator_device(), " of the process that created it), but cuda:",
                     index, " is ", dev.props.uuid, " here; open it on the device it was created on");
  auto* e = new EmulatedEvent{index, impl::EventFlags{false, false, true}, {}, nullptr, std::move(m)};
  std::lock_guard<std::mutex> lock(events_mu_);
  events_.insert(e);
  return e;
}

void EmulatedRuntime::ipc_record(const std::shared_ptr<IpcEventMapping>& m, Stream s) {
  StreamWorker* w = &worker(s);  // validates s before the sequence is taken
  const uint64_t seq = m->begin_record();
  enqueue_internal(
      s,
      [m, seq, w] {
        std::string msg;
        m->complete(seq, w->sticky_error(&msg));
      },
      "record_event (interprocess)", /*always_run=*/true, impl::TaskKind::RecordEvent);
}

void EmulatedRuntime::ipc_wait(Stream s, const std::shared_ptr<IpcEventMapping>& m) {
  (void)worker(s);  // validates s
  const uint64_t seq = m->recorded();
  if (seq == 0 || m->status(seq) == IpcEventMapping::Status::kDone) return;
  enqueue_internal(
      s, [m, seq] { m->wait(seq); }, std::string("wait_event on the interprocess event ") + m->name(), false,
      impl::TaskKind::WaitEvent);
}

}  // namespace ctorch::api::backends::emulated
