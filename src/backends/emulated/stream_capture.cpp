// Stream capture and graphs of the emulated runtime: Note [Emulated stream capture] (stream_capture.h).
#include "backends/emulated/stream_capture.h"

#include <atomic>
#include <fstream>

#include "backends/emulated/device_state.h"
#include "backends/emulated/runtime.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::emulated {
namespace {

std::atomic<uint64_t> g_next_capture_id{1};

using Key = std::pair<DeviceIndex, StreamId>;
Key key_of(Stream s) { return {s.device().index(), s.id()}; }

const char* mode_name(impl::CaptureMode mode) {
  switch (mode) {
    case impl::CaptureMode::Global: return "global";
    case impl::CaptureMode::ThreadLocal: return "thread_local";
    case impl::CaptureMode::Relaxed: return "relaxed";
  }
  return "?";
}

std::string describe(const Capture& c) {
  return detail::str_cat("capture ", c.id, " of ", c.origin, ", mode ", mode_name(c.mode));
}

[[noreturn]] void throw_invalidated(const Capture& c) {
  throw Error(detail::str_cat("CUDA error: operation failed due to a previous error during capture (emulated: ",
                              describe(c), " was invalidated)"));
}

// Ends `c` (caller holds the registry's mutex): its streams capture no more.
void end_locked(CaptureRegistry& reg, const std::shared_ptr<Capture>& c, std::atomic<int>& count) {
  c->ended.store(true, std::memory_order_release);
  for (const auto& [key, member] : c->members) reg.by_stream.erase(key);
  for (auto it = reg.active.begin(); it != reg.active.end(); ++it) {
    if (*it == c) {
      reg.active.erase(it);
      count.fetch_sub(1, std::memory_order_acq_rel);
      break;
    }
  }
}

EmulatedGraph* graph_of(void* handle) {
  CTORCH_CHECK(handle != nullptr, "CUDA error: invalid argument (emulated: null graph)");
  return static_cast<EmulatedGraph*>(handle);
}

}  // namespace

void EmulatedRuntime::begin_capture(Stream s, impl::CaptureMode mode) {
  (void)worker(s);  // validates s
  CTORCH_CHECK(s.id() != 0, "CUDA error: operation not supported on the legacy stream (emulated: ",
               "cudaStreamBeginCapture on the default stream of cuda:", s.device().index(), ")");
  auto c = std::make_shared<Capture>();
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->origin = s;
  c->members[key_of(s)] = {};
  std::lock_guard<std::mutex> lock(captures_->mu);
  CTORCH_CHECK(captures_->by_stream.count(key_of(s)) == 0,
               "CUDA error: operation not permitted when stream is capturing (emulated: ", s,
               " already captures)");
  c->id = g_next_capture_id.fetch_add(1);
  captures_->by_stream[key_of(s)] = c;
  captures_->active.push_back(c);
  capture_count_.fetch_add(1, std::memory_order_acq_rel);
}

impl::GraphHandle EmulatedRuntime::end_capture(Stream s) {
  (void)worker(s);
  std::shared_ptr<Capture> c;
  {
    std::lock_guard<std::mutex> lock(captures_->mu);
    auto it = captures_->by_stream.find(key_of(s));
    CTORCH_CHECK(it != captures_->by_stream.end() && it->second->origin == s,
                 "CUDA error: capture was not initiated in this stream (emulated: cudaStreamEndCapture on ", s, ")");
    c = it->second;
    if (!c->invalidated) {
      for (const auto& [key, m] : c->members) {
        if (key != key_of(s) && m.last > m.joined) {
          c->invalidated = true;
          end_locked(*captures_, c, capture_count_);
          throw Error(detail::str_cat("CUDA error: capturing stream has unjoined work (emulated: stream ",
                                      key.second, " of cuda:", key.first, " joined ", describe(*c),
                                      " and was not joined back)"));
        }
      }
    }
    end_locked(*captures_, c, capture_count_);
  }
  if (c->invalidated) {
    std::vector<CapturedTask> dropped;
    {
      std::lock_guard<std::mutex> lock(captures_->mu);
      dropped.swap(c->tasks);  // events recorded in the capture may keep it alive: free its tasks now
    }
    throw_invalidated(*c);
  }
  auto* g = new EmulatedGraph{s.device().index(),
                              std::make_shared<const std::vector<CapturedTask>>(std::move(c->tasks))};
  return g;
}

impl::CaptureStatus EmulatedRuntime::capture_status(Stream s, uint64_t* id) {
  if (id) *id = 0;
  if (capture_count_.load(std::memory_order_acquire) == 0) return impl::CaptureStatus::None;
  std::lock_guard<std::mutex> lock(captures_->mu);
  auto it = captures_->by_stream.find(key_of(s));
  if (it == captures_->by_stream.end()) return impl::CaptureStatus::None;
  if (id) *id = it->second->id;
  return it->second->invalidated ? impl::CaptureStatus::Invalidated : impl::CaptureStatus::Active;
}

bool EmulatedRuntime::capture_task(Stream s, bool legacy, std::function<void()>& task, const std::string& site) {
  std::lock_guard<std::mutex> lock(captures_->mu);
  auto it = captures_->by_stream.find(key_of(s));
  if (it == captures_->by_stream.end()) {
    if (!legacy) return false;
    // The legacy default stream (and blocking streams) synchronize with the blocking streams of
    // the device: refused while one of them captures (cudaErrorStreamCaptureImplicit).
    for (const auto& c : captures_->active) {
      const Stream o = c->origin;
      if (o.device() != s.device() || (o.id() & 1) != 0 || o.id() == 0) continue;  // only blocking streams
      c->invalidated = true;
      throw Error(detail::str_cat(
          "CUDA error: operation would make the legacy stream depend on a capturing blocking stream (emulated: work "
          "queued on ", s, " while ", describe(*c), " runs)"));
    }
    return false;
  }
  Capture& c = *it->second;
  if (c.invalidated) throw_invalidated(c);
  c.tasks.push_back(CapturedTask{std::move(task), site});
  c.members[key_of(s)].last = ++c.seq;
  return true;
}

void EmulatedRuntime::check_capture_safe(const Stream* s, const char* what, DeviceIndex device) {
  if (capture_count_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> lock(captures_->mu);
  const auto me = std::this_thread::get_id();
  std::shared_ptr<Capture> refused;
  if (s != nullptr) {
    auto it = captures_->by_stream.find(key_of(*s));
    if (it != captures_->by_stream.end()) refused = it->second;
  }
  for (const auto& c : captures_->active) {
    if (refused) break;
    if (device >= 0 && c->origin.device().index() == device) {
      refused = c;  // waiting for every stream of the device includes the capturing one
      break;
    }
    const bool mine = c->thread == me;
    if ((mine && c->mode != impl::CaptureMode::Relaxed) || (!mine && c->mode == impl::CaptureMode::Global)) {
      refused = c;
    }
  }
  if (!refused) return;
  refused->invalidated = true;
  throw Error(detail::str_cat("CUDA error: operation not permitted when stream is capturing (emulated: ", what,
                              " during ", describe(*refused), "; the capture is invalidated)"));
}

bool EmulatedRuntime::capture_record(EmulatedEvent* ev, Stream s) {
  if (capture_count_.load(std::memory_order_acquire) == 0) return false;
  std::shared_ptr<Record> rec;
  {
    std::lock_guard<std::mutex> lock(captures_->mu);
    auto it = captures_->by_stream.find(key_of(s));
    if (it == captures_->by_stream.end()) return false;
    if (it->second->invalidated) throw_invalidated(*it->second);
    rec = std::make_shared<Record>();
    rec->worker = &worker(s);
    rec->capture = it->second;
    rec->stream = s;
    rec->capture_seq = it->second->members[key_of(s)].last;
  }
  std::lock_guard<std::mutex> lock(ev->mu);
  ev->record = std::move(rec);
  return true;
}

bool EmulatedRuntime::capture_wait(Stream s, const std::shared_ptr<Record>& rec) {
  if (!rec->capture) return false;
  std::lock_guard<std::mutex> lock(captures_->mu);
  Capture& c = *rec->capture;
  if (c.ended.load(std::memory_order_acquire)) return true;  // the recording capture is over: its record is not real work to wait for
  if (c.invalidated) throw_invalidated(c);
  auto it = captures_->by_stream.find(key_of(s));
  if (it == captures_->by_stream.end()) {
    // Fork: s joins the capture.
    CTORCH_CHECK(s.device() == c.origin.device(), "CUDA error: invalid argument (emulated: ", s,
                 " cannot join ", describe(c), " on another device)");
    captures_->by_stream[key_of(s)] = rec->capture;
    c.members[key_of(s)] = {};
    return true;
  }
  if (it->second.get() != &c) {
    it->second->invalidated = true;
    c.invalidated = true;
    throw Error(detail::str_cat("CUDA error: operation would result in a merge of separate capture sequences (emulated: ",
                                s, " waits on an event of ", describe(c), ")"));
  }
  // Same capture: the list is already ordered; a wait on another member joins that member back.
  if (rec->stream != s) {
    Capture::Member& m = c.members[key_of(rec->stream)];
    if (rec->capture_seq >= m.last) m.joined = m.last;
  }
  return true;
}

size_t EmulatedRuntime::graph_node_count(impl::GraphHandle g) { return graph_of(g)->tasks->size(); }

impl::GraphExecHandle EmulatedRuntime::instantiate_graph(impl::GraphHandle g) {
  EmulatedGraph* graph = graph_of(g);
  return new EmulatedGraph{graph->device, graph->tasks};
}

void EmulatedRuntime::launch_graph(impl::GraphExecHandle exec, Stream s) {
  EmulatedGraph* graph = graph_of(exec);
  CTORCH_CHECK(s.device().is_cuda() && s.device().index() == graph->device,
               "CUDA error: invalid argument (emulated: a graph of cuda:", graph->device, " launched on ", s, ")");
  auto tasks = graph->tasks;
  if (tasks->empty()) return;
  enqueue_internal(
      s,
      [tasks] {
        for (const CapturedTask& t : *tasks) t.fn();
      },
      "graph replay", false, impl::TaskKind::Kernel);
}

void EmulatedRuntime::destroy_graph(impl::GraphHandle g) noexcept { delete static_cast<EmulatedGraph*>(g); }

void EmulatedRuntime::destroy_graph_exec(impl::GraphExecHandle exec) noexcept {
  delete static_cast<EmulatedGraph*>(exec);
}

void EmulatedRuntime::debug_dump_graph(impl::GraphHandle g, const std::string& path) {
  EmulatedGraph* graph = graph_of(g);
  std::ofstream out(path);
  CTORCH_CHECK(out.good(), "debug_dump: cannot open ", path);
  out << "digraph emulated_cuda_graph {\n";
  for (size_t i = 0; i < graph->tasks->size(); ++i) {
    out << "  n" << i << " [label=\"" << (*graph->tasks)[i].site << "\"];\n";
    if (i > 0) out << "  n" << i - 1 << " -> n" << i << ";\n";
  }
  out << "}\n";
}

}  // namespace ctorch::api::backends::emulated
