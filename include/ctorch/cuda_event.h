// ctorch::cuda::Event (torch.cuda.Event): a marker in a stream, for waits, queries and timing.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ctorch/cuda_stream.h"

namespace ctorch::cuda {

namespace detail {
struct EventState;
}

/// The bytes of a cudaIpcEventHandle_t (64), as torch.cuda.Event.ipc_handle() returns them.
using IpcEventHandle = std::string;

/// A CUDA event. Copies name the same event (as Python references do). The native event is
/// created lazily, on the device of the stream of the first record().
class Event {
 public:
  /// An event with cudaEventCreateWithFlags' options (timing disabled by default). Throws
  /// ValueError for interprocess with enable_timing (CUDA needs interprocess events untimed).
  explicit Event(bool enable_timing = false, bool blocking = false, bool interprocess = false);
  /// Opens the event behind `handle` (ipc_handle() of this or another process) on `device`
  /// (index -1: the current device); it may be waited on, queried, synchronized and recorded.
  static Event from_ipc_handle(Device device, std::string_view handle);

  /// Captures the work queued so far on `stream` (default: the current stream). A created event
  /// may only be recorded on its own device.
  void record(std::optional<Stream> stream = std::nullopt) const;
  /// Makes future work on `stream` (default: the current stream) wait for the captured work.
  void wait(std::optional<Stream> stream = std::nullopt) const;
  /// True when the captured work has finished (true before the first record).
  bool query() const;
  /// Waits for the captured work (a no-op before the first record).
  void synchronize() const;
  /// The 64-byte interprocess handle (needs interprocess=true); creates the event on the current
  /// device when it was never recorded.
  IpcEventHandle ipc_handle() const;
  /// Milliseconds from this event to `end`; both need enable_timing, a record, and completion.
  float elapsed_time(const Event& end) const;

  /// The device of the event; nullopt until the first record.
  std::optional<Device> device() const;
  /// The native handle as an integer (0 until the first record).
  uintptr_t cuda_event() const;
  /// True once the native event exists (after the first record).
  bool is_created() const;
  /// True when created with enable_timing.
  bool enable_timing() const;

  /// Same event.
  bool operator==(const Event& o) const { return state_ == o.state_; }

 private:
  std::shared_ptr<detail::EventState> state_;
};

/// Prints PyTorch's repr: "<torch.cuda.Event 0x...>" or "<torch.cuda.Event uninitialized>".
std::ostream& operator<<(std::ostream& os, const Event& e);

}  // namespace ctorch::cuda
