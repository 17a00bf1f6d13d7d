// SyncState: the happens-before relation between work on streams and the host, as vector
// clocks (the model of PyTorch's StreamSynchronizations in torch/cuda/_sanitizer.py).
//
// Every kernel gets a sequence number. Each stream keeps a clock: for every stream, the last
// sequence number known to have finished (or been waited for) before the stream's next kernel
// starts. Recording an event copies the stream's clock into the event; waiting on an event merges
// it into the waiting stream; the host's clock grows when it synchronizes with a stream or an
// event (or sees a query return true), and every stream's next kernel starts after what the host
// knows. Pure bookkeeping, no device: unit-tested with made-up streams and events.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "ctorch/stream.h"

namespace ctorch::inline api::sanitizer {

/// The global order of kernel launches (1, 2, ...); 0 is "nothing".
using SeqNum = uint64_t;

/// Vector clocks of streams, events and the host.
class SyncState {
 public:
  /// A new kernel on `s`; returns its sequence number.
  SeqNum launch(Stream s);
  /// True when the kernel `seq` on `earlier` happens before the next kernel on `s`.
  bool ordered_before(Stream earlier, SeqNum seq, Stream s);
  /// `event` captures the work queued on `s` so far (cudaEventRecord).
  void record(const void* event, Stream s);
  /// The next kernels on `s` wait for `event` (cudaStreamWaitEvent); a never-recorded event adds nothing.
  void wait(Stream s, const void* event);
  /// The host has seen `event` complete.
  void host_waits_event(const void* event);
  /// The host has seen all work queued on `s` complete.
  void host_waits_stream(Stream s);
  /// The host has seen all work on every stream of `device` complete.
  void host_waits_device(Device device);
  /// Forgets `event` (destroyed; its handle may be reused).
  void forget_event(const void* event);
  /// The last sequence number the host has seen finish on `s` (0 when none).
  SeqNum host_knows(Stream s) const;

 private:
  using Clock = std::unordered_map<Stream, SeqNum>;
  struct StreamClock {
    Clock clock;
    uint64_t host_epoch = 0;  // host_epoch_ when host_ was last merged into clock
  };
  static void merge(Clock& into, const Clock& from);
  StreamClock& stream(Stream s);  // with the host's clock merged in

  SeqNum next_seq_ = 0;
  Clock host_;
  uint64_t host_epoch_ = 1;
  std::unordered_map<Stream, StreamClock> streams_;
  std::unordered_map<const void*, Clock> events_;
};

}  // namespace ctorch::api::sanitizer
