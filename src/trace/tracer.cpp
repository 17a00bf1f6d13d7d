// The tracer: a impl::TaskObserver for device tasks plus host-side records, written as Chrome
// trace-event JSON (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
//
// Layout of the trace: pid 0 is the host (one tid per host thread); pid 1 + N is cuda:N, one tid
// per stream (the StreamId). Device tasks are complete events ("X") from the moment their stream
// started them to the moment they ended, with the time they waited in the queue in args.
// NVTX push/pop are "B"/"E" on the host thread, range_start/end are async "b"/"e", marks are
// instants ("i"). Ranges still open at stop() are closed then, so every B has its E.
#include "trace/tracer.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ctorch/cuda_trace.h"
#include "ctorch/error.h"
#include "trace/event_timed_task.h"
#include "runtime/task_hooks.h"
#include "trace/op_timing.h"

namespace ctorch::inline api::tracing {
namespace {

struct Record {
  char ph;
  std::string name;
  const char* cat;
  double ts;
  double dur;  // X only
  int pid;
  int64_t tid;
  uint64_t id;       // b/e only
  std::string args;  // a JSON object's members, without braces
};

struct Pending {
  int pid;
  int64_t tid;
  std::string name;
  impl::TaskKind kind;
  double enqueue_us;
  double begin_us = -1;
};

std::atomic<int64_t> g_next_host_tid{1};
thread_local int64_t t_host_tid = 0;

int64_t host_tid() {
  if (t_host_tid == 0) t_host_tid = g_next_host_tid.fetch_add(1);
  return t_host_tid;
}

class Tracer final : public impl::TaskObserver {
 public:
  static Tracer& get() {
    static Tracer* tracer = new Tracer();  // never destroyed: see Note [Task observers]
    return *tracer;
  }

  bool on() const noexcept { return on_.load(std::memory_order_acquire); }

  double now_us() const {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0_).count();
  }

  void start() {
    impl::add_task_observer(this);
    open_event_timed_tasks();
    start_op_timing();
    std::lock_guard<std::mutex> lock(mu_);
    records_.clear();
    pending_.clear();
    open_ranges_.clear();
    open_async_.clear();
    tracks_.clear();
    t0_ = std::chrono::steady_clock::now();
    on_.store(true, std::memory_order_release);
  }

  void stop() {
    stop_op_timing();
    if (on()) resolve_event_timed_tasks();  // records while still on
    std::lock_guard<std::mutex> lock(mu_);
    if (!on()) return;
    const double t = now_us();
    for (auto& [tid, names] : open_ranges_) {
      while (!names.empty()) {
        records_.push_back({'E', names.back(), "nvtx", t, 0, 0, tid, 0, ""});
        names.pop_back();
      }
    }
    for (auto& [id, name] : open_async_) records_.push_back({'e', name, "nvtx", t, 0, 0, 0, id, ""});
    open_ranges_.clear();
    open_async_.clear();
    pending_.clear();
    on_.store(false, std::memory_order_release);
  }

  // --- impl::TaskObserver ---
  uint64_t on_enqueue(const impl::TaskInfo& info) override {
    if (!on()) return 0;
    const int pid = 1 + info.stream.device().index();
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t token = ++next_token_;
    pending_.emplace(token, Pending{pid, info.stream.id(), info.name ? info.name : "", info.kind, now_us()});
    tracks_.insert({pid, info.stream.id()});
    return token;
  }

  void on_begin(uint64_t token) noexcept override {
    if (token == 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(token);
    if (it != pending_.end()) it->second.begin_us = now_us();
  }

  void on_end(uint64_t token, bool ok) noexcept override {
    if (token == 0) return;
    try {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = pending_.find(token);
      if (it == pending_.end()) return;
      Pending& p = it->second;
      if (on() && p.begin_us >= 0) {
        const double end = now_us();
        std::ostringstream args;
        args << "\"kind\":\"" << impl::task_kind_name(p.kind) << "\",\"stream_id\":" << p.tid
             << ",\"queued_us\":" << (p.begin_us - p.enqueue_us) << ",\"ok\":" << (ok ? "true" : "false");
        records_.push_back({'X', std::move(p.name), impl::task_kind_name(p.kind), p.begin_us, end - p.begin_us, p.pid,
                            p.tid, 0, args.str()});
      }
      pending_.erase(it);
    } catch (...) {  // out of memory while recording: drop the record
    }
  }

  void device_task(Stream stream, impl::TaskKind kind, const char* name, double begin_us, double dur_us) {
    const int pid = 1 + stream.device().index();
    std::ostringstream args;
    args << "\"kind\":\"" << impl::task_kind_name(kind) << "\",\"stream_id\":" << stream.id() << ",\"timed_by\":\"events\"";
    std::lock_guard<std::mutex> lock(mu_);
    if (!on()) return;
    tracks_.insert({pid, stream.id()});
    records_.push_back({'X', name, impl::task_kind_name(kind), begin_us, dur_us, pid, stream.id(), 0, args.str()});
  }

  // --- host side ---
  void host(char ph, std::string name, const char* cat, double ts, double dur, uint64_t id = 0) {
    const int64_t tid = host_tid();
    std::lock_guard<std::mutex> lock(mu_);
    if (!on()) return;
    tracks_.insert({0, tid});
    if (ph == 'B') open_ranges_[tid].push_back(name);
    if (ph == 'E') {
      auto& names = open_ranges_[tid];
      if (names.empty()) return;  // opened before start(): no B to match
      name = names.back();
      names.pop_back();
    }
    if (ph == 'b') open_async_[id] = name;
    if (ph == 'e') {
      auto it = open_async_.find(id);
      if (it == open_async_.end()) return;
      name = it->second;
      open_async_.erase(it);
    }
    records_.push_back({ph, std::move(name), cat, ts, dur, 0, tid, id, ""});
  }

  std::string json() {
    std::lock_guard<std::mutex> lock(mu_);
    std::ostringstream os;
    os.precision(3);
    os << std::fixed << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
    bool first = true;
    auto sep = [&] {
      if (!first) os << ",\n";
      first = false;
    };
    std::set<int> pids;
    for (const auto& [pid, tid] : tracks_) pids.insert(pid);
    for (int pid : pids) {
      sep();
      os << "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":" << pid << ",\"tid\":0,\"args\":{\"name\":\""
         << (pid == 0 ? std::string("host") : "cuda:" + std::to_string(pid - 1)) << "\"}}";
    }
    for (const auto& [pid, tid] : tracks_) {
      sep();
      std::string label = pid == 0 ? "host thread " + std::to_string(tid)
                                   : (tid == 0 ? std::string("default stream") : "stream " + std::to_string(tid));
      os << "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":" << pid << ",\"tid\":" << tid
         << ",\"args\":{\"name\":\"" << label << "\"}}";
    }
    for (const Record& r : records_) {
      sep();
      os << "{\"name\":\"" << escape(r.name) << "\",\"cat\":\"" << r.cat << "\",\"ph\":\"" << r.ph
         << "\",\"ts\":" << r.ts << ",\"pid\":" << r.pid << ",\"tid\":" << r.tid;
      if (r.ph == 'X') os << ",\"dur\":" << r.dur;
      if (r.ph == 'b' || r.ph == 'e') os << ",\"id\":" << r.id;
      if (r.ph == 'i') os << ",\"s\":\"t\"";
      if (!r.args.empty()) os << ",\"args\":{" << r.args << "}";
      os << "}";
    }
    os << "]}\n";
    return os.str();
  }

 private:
  Tracer() = default;

  static std::string escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
    return out;
  }

  std::atomic<bool> on_{false};
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::mutex mu_;
  // Everything below is guarded by mu_.
  std::vector<Record> records_;
  std::unordered_map<uint64_t, Pending> pending_;
  uint64_t next_token_ = 0;
  std::map<int64_t, std::vector<std::string>> open_ranges_;  // host tid -> open B names
  std::map<uint64_t, std::string> open_async_;               // range id -> name
  std::set<std::pair<int, int64_t>> tracks_;                 // (pid, tid) seen
};

}  // namespace

bool tracing() noexcept { return Tracer::get().on(); }

double trace_now_us() noexcept { return Tracer::get().now_us(); }

void record_device_task(Stream stream, impl::TaskKind kind, const char* name, double begin_us, double dur_us) noexcept {
  try {
    Tracer::get().device_task(stream, kind, name, begin_us, dur_us);
  } catch (...) {  // out of memory while recording: drop the record
  }
}

HostSpan::HostSpan(const char* name) noexcept : name_(name) {
  Tracer& t = Tracer::get();
  if (t.on()) begin_us_ = t.now_us();
}

HostSpan::~HostSpan() {
  if (begin_us_ < 0) return;
  try {
    Tracer& t = Tracer::get();
    t.host('X', name_, "host", begin_us_, t.now_us() - begin_us_);
  } catch (...) {  // never throw from a destructor
  }
}

void nvtx_push(const std::string& message) {
  Tracer& t = Tracer::get();
  if (t.on()) t.host('B', message, "nvtx", t.now_us(), 0);
}

void nvtx_pop() {
  Tracer& t = Tracer::get();
  if (t.on()) t.host('E', "", "nvtx", t.now_us(), 0);
}

void nvtx_start(uint64_t id, const std::string& message) {
  Tracer& t = Tracer::get();
  if (t.on()) t.host('b', message, "nvtx", t.now_us(), 0, id);
}

void nvtx_end(uint64_t id) {
  Tracer& t = Tracer::get();
  if (t.on()) t.host('e', "", "nvtx", t.now_us(), 0, id);
}

void nvtx_mark(const std::string& message) {
  Tracer& t = Tracer::get();
  if (t.on()) t.host('i', message, "nvtx", t.now_us(), 0);
}

}  // namespace ctorch::api::tracing

namespace ctorch::cuda::trace {

void start() { tracing::Tracer::get().start(); }

void stop() { tracing::Tracer::get().stop(); }

bool is_tracing() noexcept { return tracing::Tracer::get().on(); }

std::string json() { return tracing::Tracer::get().json(); }

void save(const std::string& path) {
  const std::string text = json();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  CTORCH_CHECK(out.good(), "[trace.save] cannot open '", path, "' for writing: ", std::strerror(errno));
  out << text;
  out.close();
  CTORCH_CHECK(!out.fail(), "[trace.save] cannot write '", path, "': ", std::strerror(errno));
}

}  // namespace ctorch::cuda::trace
