// Stream capture and graphs of the emulated runtime (private to backends/emulated).
//
// Note [Emulated stream capture]
// - begin_capture(s) registers a Capture for s. From then on every task that would be queued on
//   s's worker (enqueue_internal: kernels, copies, memsets, waits) is appended to the capture's
//   task list instead, and not run. Events recorded on a capturing stream carry the capture; a
//   stream that waits on such an event joins the capture (CUDA's fork), and its tasks go to the
//   same list. The list is one serialization of the captured DAG, in the order the host queued
//   the tasks; any serialization is a valid schedule of a CUDA graph, so the emulated graph runs
//   the captured work without concurrency between the joined streams. A joined stream must be
//   joined back (the origin, or another member, waits on an event it recorded after its last
//   task) before end_capture, else end_capture fails "capturing stream has unjoined work".
// - Potentially unsafe calls (synchronize_stream/device/event, query_stream/event, blocking
//   copies to pageable memory) check the active captures: a call on a capturing stream (or a
//   device synchronization of its device) is always refused; otherwise the calling thread is refused while it has a capture of mode Global or
//   ThreadLocal, or another thread has one of mode Global (cudaStreamCaptureMode). A refused call
//   throws "CUDA error: operation not permitted when stream is capturing" and invalidates the
//   captures that refused it; work queued on the legacy default stream while a blocking stream
//   captures is refused the same way with CUDA's
//   "operation would make the legacy stream depend on a capturing blocking stream".
//   Queuing on an invalidated capture throws "operation failed due to a previous error during
//   capture"; end_capture of an invalidated capture ends it and throws the same.
// - A graph is the captured list; an executable graph shares it. launch_graph queues ONE task on
//   the replay stream that runs the whole list in order: replay costs the host one enqueue.
//   Tasks hold the host aliases their launcher translated at capture time, so the memory they
//   touch must stay allocated across replays (the caching allocator's private pools do that).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ctorch/stream.h"
#include "runtime/device_runtime.h"
#include "runtime/task_hooks.h"

namespace ctorch::inline api::backends::emulated {

/// One captured task.
struct CapturedTask {
  std::function<void()> fn;
  std::string site;
};

/// One capture sequence (see the Note).
struct Capture {
  uint64_t id = 0;
  impl::CaptureMode mode = impl::CaptureMode::Global;
  std::thread::id thread;
  Stream origin = Stream::default_stream(Device(DeviceType::CPU, 0));
  bool invalidated = false;
  std::atomic<bool> ended{false};  // set by end_capture (read without the registry's mutex)
  std::vector<CapturedTask> tasks;
  // Per member stream (origin included): sequence of its last task, and up to which one it was joined back.
  struct Member {
    uint64_t last = 0;
    uint64_t joined = 0;
  };
  std::map<std::pair<DeviceIndex, StreamId>, Member> members;
  uint64_t seq = 0;  // tasks appended so far
};

/// A captured graph, or an executable one (they share the task list).
struct EmulatedGraph {
  DeviceIndex device = 0;
  std::shared_ptr<const std::vector<CapturedTask>> tasks;
};

/// The captures of one runtime.
struct CaptureRegistry {
  std::mutex mu;
  std::map<std::pair<DeviceIndex, StreamId>, std::shared_ptr<Capture>> by_stream;  // guarded by mu
  std::vector<std::shared_ptr<Capture>> active;                                     // guarded by mu
};

}  // namespace ctorch::api::backends::emulated
