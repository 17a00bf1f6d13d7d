// The stream sanitizer: the hooks of hooks.h over one SyncState and one AccessTracker, under one
// mutex; reports in the words of PyTorch's torch/cuda/_sanitizer.py.
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/error_rethrow.h"
#include "ctorch/cuda_sanitizer.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/tensor.h"
#include "memory/allocation_observer.h"
#include "memory/backtrace.h"
#include "runtime/current.h"
#include "sanitizer/access_tracker.h"
#include "sanitizer/hooks.h"

namespace ctorch::inline api::sanitizer {
namespace {

// Errors rethrown from other threads keep these types (core/error_rethrow.h); a race report keeps its
// fields. (CUDASanitizerErrors, whose what() is fixed, is rethrown as Error.)
const bool g_error_types_registered = [] {
  using cuda::SynchronizationError;
  using cuda::UnsynchronizedAccessError;
  ::ctorch::detail::register_error_type<SynchronizationError>("SynchronizationError");
  ::ctorch::detail::register_error_type(::ctorch::detail::ErrorType{
      "UnsynchronizedAccessError",
      [](const std::exception& e) { return dynamic_cast<const UnsynchronizedAccessError*>(&e) != nullptr; },
      [](const std::exception& e, const std::string& what) {
        const auto& u = dynamic_cast<const UnsynchronizedAccessError&>(e);
        throw UnsynchronizedAccessError(what, u.data_ptr, u.current_stream, u.current_op, u.previous_stream,
                                        u.previous_op, u.previous_in_freed_block);
      }});
  return true;
}();

struct State {
  std::mutex mu;
  SyncState sync;
  AccessTracker tracker;
  memory::FrameSymbolizer symbolize;
  // CUDA graphs: accesses captured per runtime capture id, then per graph token.
  std::map<uint64_t, std::vector<std::pair<uintptr_t, Access>>> captured;
  std::map<uint64_t, std::vector<std::pair<uintptr_t, Access>>> graphs;
  uint64_t next_token = 1;
};

// The runtime's id of the capture `stream` belongs to, 0 when it does not capture.
uint64_t capture_id_of(Stream stream) {
  impl::DeviceRuntime* rt = impl::runtime_for(DeviceType::CUDA);
  impl::StreamCapture* sc = rt ? impl::stream_capture(*rt) : nullptr;
  uint64_t id = 0;
  if (sc == nullptr || sc->capture_status(stream, &id) == impl::CaptureStatus::None) return 0;
  return id;
}

State& state() {
  static State* s = new State;  // never destroyed: tensors may be freed during exit
  return *s;
}

// Stack traces start at the hook's caller (capture_frames skips itself and this many more frames).
constexpr int kSkipFrames = 1;

// Note [Sanitizer stack traces]
// backtrace(3) costs about 5 us per launch here (DWARF unwinding), ten times the launch itself,
// so C++ stacks are opt-in: without them a report still names both kernels, their arguments,
// streams and the allocation. CTORCH_CUDA_SANITIZER=stacks (or enable_cuda_sanitizer(true)) records them.
std::atomic<bool> g_stack_traces{false};

// CTORCH_CUDA_SANITIZER (or TORCH_CUDA_SANITIZER): unset, empty or "0" leaves it off; "stacks" also
// records stack traces; anything else turns it on.
[[maybe_unused]] const bool g_env_checked = [] {
  for (const char* name : {"CTORCH_CUDA_SANITIZER", "TORCH_CUDA_SANITIZER"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0' || std::string(v) == "0") continue;
    g_stack_traces.store(std::string(v) == "stacks", std::memory_order_relaxed);
    set_active(true);
    break;
  }
  return true;
}();

std::string stream_name(Stream s) {
  std::ostringstream os;
  try {
    os << cuda::Stream(s).cuda_stream();
  } catch (...) {
    os << "id " << s.id();
  }
  os << " on " << s.device();
  return os.str();
}

void format_frames(std::ostream& os, const memory::FramesPtr& frames, memory::FrameSymbolizer& symbolize) {
  if (!frames) {
    os << "  (not recorded: CTORCH_CUDA_SANITIZER=stacks or enable_cuda_sanitizer(true) records stack traces)\n";
    return;
  }
  for (const cuda::Frame& f : symbolize(frames)) os << "  " << f.name << " (" << f.filename << ")\n";
}

void format_access(std::ostream& os, const Access& a, memory::FrameSymbolizer& symbolize) {
  os << a.op << "\n" << (a.write ? "writing to" : "reading from");
  if (a.num_names > 0) {
    os << " argument(s) ";
    for (uint8_t i = 0; i < a.num_names; ++i) os << (i ? ", " : "") << a.names[i];
    if (a.output) os << ", and to";
  }
  if (a.output) os << " the output";
  os << "\nWith stack trace:\n";
  format_frames(os, a.frames, symbolize);
}

cuda::UnsynchronizedAccessError make_error(const Race& r, memory::FrameSymbolizer& symbolize) {
  std::ostringstream os;
  os << "============================\n"
     << "CSAN detected a possible data race on tensor with data pointer " << r.base << "\n"
     << "Access by stream " << stream_name(r.current.stream) << " during kernel:\n";
  format_access(os, r.current, symbolize);
  os << "Previous access by stream " << stream_name(r.previous.stream) << " during kernel:\n";
  format_access(os, r.previous, symbolize);
  if (r.previous.freed_base != 0) {
    os << "That access was to an earlier tensor at data pointer " << r.previous.freed_base
       << ", freed while stream " << stream_name(r.previous.stream)
       << " could still use it: the caching allocator reused its memory. Call record_stream() on that tensor "
          "with the stream, or make the allocation stream wait for it before the tensor is freed.\n";
    if (r.previous.freed_alloc_frames) {
      os << "The freed tensor was allocated with stack trace:\n";
      format_frames(os, r.previous.freed_alloc_frames, symbolize);
    }
  }
  if (r.alloc_known) {
    os << "Tensor was allocated with stack trace:\n";
    format_frames(os, r.alloc_frames, symbolize);
  } else {
    os << "Trace for tensor allocation not found.";
  }
  return cuda::UnsynchronizedAccessError(os.str(), r.base, r.current.stream, r.current.op, r.previous.stream,
                                         r.previous.op, r.previous.freed_base != 0);
}

// The byte range of `t` within its storage.
void byte_range(const Tensor& t, size_t* begin, size_t* end) {
  const int64_t item = static_cast<int64_t>(element_size(t.dtype()));
  int64_t lo = t.impl()->storage_offset(), hi = lo;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t span = (t.size(d) - 1) * t.stride(d);
    (span < 0 ? lo : hi) += span;
  }
  *begin = static_cast<size_t>(lo * item);
  *end = static_cast<size_t>((hi + 1) * item);
}

}  // namespace

void kernel(const char* op, Stream stream, std::initializer_list<Operand> operands) {
  if (!stream.device().is_cuda()) return;
  // One access per allocation: an op touching a buffer twice (a.add_(a)) merges its operands.
  struct Pending {
    uintptr_t base;
    Access access;
  };
  std::array<Pending, 6> pending;
  size_t n = 0;
  for (const Operand& o : operands) {
    if (!o.tensor.defined() || !o.tensor.is_cuda() || o.tensor.numel() == 0) continue;
    const auto base = reinterpret_cast<uintptr_t>(o.tensor.impl()->storage()->data_ptr().get());
    if (base == 0) continue;
    size_t begin = 0, end = 0;
    byte_range(o.tensor, &begin, &end);
    Pending* p = nullptr;
    for (size_t i = 0; i < n; ++i) {
      if (pending[i].base == base) p = &pending[i];
    }
    if (p == nullptr) {
      CTORCH_INTERNAL_ASSERT(n < pending.size(), "[sanitizer] too many operands for ", op);
      p = &pending[n++];
      p->base = base;
      p->access = Access{};
      p->access.begin = begin;
      p->access.end = end;
    }
    Access& a = p->access;
    a.begin = std::min(a.begin, begin);
    a.end = std::max(a.end, end);
    a.write = a.write || o.write;
    a.output = a.output || o.output;
    if (o.name != nullptr && a.num_names < a.names.size()) a.names[a.num_names++] = o.name;
  }
  if (n == 0) return;
  memory::FramesPtr frames = g_stack_traces.load(std::memory_order_relaxed) ? memory::capture_frames(kSkipFrames) : nullptr;
  State& s = state();
  if (const uint64_t capture = capture_id_of(stream)) {
    // Captured, not run: kept for the graph's replays (graph_replayed).
    std::lock_guard<std::mutex> lock(s.mu);
    auto& list = s.captured[capture];
    for (size_t i = 0; i < n; ++i) {
      pending[i].access.op = op;
      pending[i].access.frames = frames;
      list.emplace_back(pending[i].base, pending[i].access);
    }
    return;
  }
  std::vector<cuda::UnsynchronizedAccessError> errors;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    std::vector<Race> races;
    // The would-be sequence number; launch() assigns it only when there is no race.
    for (size_t i = 0; i < n; ++i) {
      Access& a = pending[i].access;
      a.stream = stream;
      a.op = op;
      a.frames = frames;
      s.tracker.check(pending[i].base, a, s.sync, races);
    }
    if (races.empty()) {
      const SeqNum seq = s.sync.launch(stream);
      for (size_t i = 0; i < n; ++i) {
        pending[i].access.seq = seq;
        s.tracker.commit(pending[i].base, pending[i].access);
      }
      return;
    }
    for (const Race& r : races) errors.push_back(make_error(r, s.symbolize));
  }
  for (const auto& e : errors) std::cerr << e.what() << "\n";
  throw cuda::CUDASanitizerErrors(std::move(errors));
}

uint64_t graph_captured(uint64_t capture_id) noexcept {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.captured.find(capture_id);
  if (it == s.captured.end()) return 0;
  const uint64_t token = s.next_token++;
  try {
    s.graphs[token] = std::move(it->second);
  } catch (...) {
    s.captured.erase(it);
    return 0;
  }
  s.captured.erase(it);
  return token;
}

void graph_replayed(uint64_t token, Stream stream) {
  State& s = state();
  std::vector<cuda::UnsynchronizedAccessError> errors;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.graphs.find(token);
    if (it == s.graphs.end()) return;
    // Checked as a whole before anything is recorded: a replay that races changes nothing.
    std::vector<Race> races;
    for (auto& [base, access] : it->second) {
      access.stream = stream;
      s.tracker.check(base, access, s.sync, races);
    }
    if (races.empty()) {
      for (auto& [base, access] : it->second) {
        access.seq = s.sync.launch(stream);
        s.tracker.commit(base, access);
      }
      return;
    }
    for (const Race& r : races) errors.push_back(make_error(r, s.symbolize));
  }
  for (const auto& e : errors) std::cerr << e.what() << "\n";
  throw cuda::CUDASanitizerErrors(std::move(errors));
}

void graph_destroyed(uint64_t token) noexcept {
  if (token == 0) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.graphs.erase(token);
}


#define CTORCH_SANITIZER_LOCKED_(body)      \
  do {                                      \
    State& s = state();                     \
    try {                                   \
      std::lock_guard<std::mutex> lock(s.mu); \
      body;                                 \
    } catch (...) {                         \
      /* bookkeeping only: out of memory */ \
    }                                       \
  } while (0)

void event_record(const void* event, Stream stream) noexcept {
  if (stream.device().is_cuda()) CTORCH_SANITIZER_LOCKED_(s.sync.record(event, stream));
}
void event_wait(const void* event, Stream stream) noexcept {
  if (stream.device().is_cuda()) CTORCH_SANITIZER_LOCKED_(s.sync.wait(stream, event));
}
void event_synchronize(const void* event) noexcept { CTORCH_SANITIZER_LOCKED_(s.sync.host_waits_event(event)); }
void event_destroy(const void* event) noexcept { CTORCH_SANITIZER_LOCKED_(s.sync.forget_event(event)); }
void stream_synchronize(Stream stream) noexcept {
  if (stream.device().is_cuda()) CTORCH_SANITIZER_LOCKED_(s.sync.host_waits_stream(stream));
}
void device_synchronize(Device device) noexcept { CTORCH_SANITIZER_LOCKED_(s.sync.host_waits_device(device)); }

void memory_allocated(const void* ptr, size_t bytes, Stream stream) noexcept {
  if (ptr == nullptr) return;
  memory::FramesPtr frames;
  try {
    if (g_stack_traces.load(std::memory_order_relaxed)) frames = memory::capture_frames(kSkipFrames);
  } catch (...) {
  }
  CTORCH_SANITIZER_LOCKED_(s.tracker.allocated(reinterpret_cast<uintptr_t>(ptr), bytes, stream, frames));
}
void memory_freed(const void* ptr, bool reusable) noexcept {
  if (ptr != nullptr) CTORCH_SANITIZER_LOCKED_(s.tracker.freed(reinterpret_cast<uintptr_t>(ptr), reusable, s.sync));
}
void record_stream(const void* ptr, Stream stream) noexcept {
  if (ptr != nullptr) CTORCH_SANITIZER_LOCKED_(s.tracker.record_stream(reinterpret_cast<uintptr_t>(ptr), stream));
}

#undef CTORCH_SANITIZER_LOCKED_

namespace {

// The sanitizer as an observer of the op boundary and of the device allocators, registered while on.
class Observer final : public ops::OpObserver, public memory::AllocationObserver {
 public:
  uint64_t before(const ops::OpCall& call) override {
    if (call.family != ops::OpFamily::View) kernel(call.name, call.stream, call.operands);
    return 0;
  }
  void after(const ops::OpCall&, uint64_t, bool) noexcept override {}
  void on_sync(ops::SyncKind kind, const void* event, Stream stream) noexcept override {
    switch (kind) {
      case ops::SyncKind::EventRecord: event_record(event, stream); break;
      case ops::SyncKind::EventWait: event_wait(event, stream); break;
      case ops::SyncKind::EventDestroy: event_destroy(event); break;
      case ops::SyncKind::StreamSynchronize: stream_synchronize(stream); break;
    }
  }
  void allocated(const void* ptr, size_t bytes, Stream stream) noexcept override {
    memory_allocated(ptr, bytes, stream);
  }
  void freed(const void* ptr, bool reusable) noexcept override { memory_freed(ptr, reusable); }
  void stream_recorded(const void* ptr, Stream stream) noexcept override { record_stream(ptr, stream); }
};

Observer& observer() {
  static Observer* o = new Observer;  // never destroyed (Note [Op observers])
  return *o;
}

}  // namespace

void set_active(bool on) {
  if (on) {
    ops::add_op_observer(&observer());
    memory::set_allocation_observer(&observer());
  } else {
    memory::set_allocation_observer(nullptr);
    ops::remove_op_observer(&observer());
  }
  g_active.store(on, std::memory_order_relaxed);
}

}  // namespace ctorch::api::sanitizer

namespace ctorch::cuda {

CUDASanitizerErrors::CUDASanitizerErrors(std::vector<UnsynchronizedAccessError> errors)
    : Error("detected " + std::to_string(errors.size()) + " errors"), errors_(std::move(errors)) {}

void enable_cuda_sanitizer(bool stack_traces) {
  sanitizer::g_stack_traces.store(stack_traces, std::memory_order_relaxed);
  sanitizer::set_active(true);
}

void disable_cuda_sanitizer() {
  sanitizer::set_active(false);
  sanitizer::State& s = sanitizer::state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.sync = sanitizer::SyncState();
  s.tracker = sanitizer::AccessTracker();
}

bool is_cuda_sanitizer_enabled() noexcept { return sanitizer::active(); }

}  // namespace ctorch::cuda
