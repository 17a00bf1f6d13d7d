// ctorch::cuda::Stream and friends: torch.cuda.Stream, ExternalStream, current_stream,
// default_stream, set_stream and the `with torch.cuda.stream(s):` block (StreamContext).
// Same code for real and emulated CUDA. The current stream is per device and per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <utility>

#include "ctorch/cuda.h"
#include "ctorch/stream.h"

namespace ctorch::cuda {

class Event;

/// A CUDA stream (torch.cuda.Stream): a value naming one queue of work on one device.
class Stream {
 public:
  /// A stream from `device`'s pool, handed out round-robin per priority level (getStreamFromPool).
  /// `priority` must be <= 0; lower is higher priority, clamped to priority_range().
  explicit Stream(DeviceArg device = {}, int priority = 0);
  /// Wraps a core stream; it must be a cuda stream.
  explicit Stream(::ctorch::Stream s);
  /// (least, greatest) priority, e.g. (0, -3) (torch.cuda.Stream.priority_range()).
  static std::pair<int, int> priority_range();

  /// The core value (device and StreamId).
  ::ctorch::Stream unwrap() const { return stream_; }
  operator ::ctorch::Stream() const { return stream_; }  // NOLINT: as c10::cuda::CUDAStream
  /// The StreamId (0 for the default stream).
  int64_t stream_id() const { return stream_.id(); }
  /// The device index.
  int device_index() const { return stream_.device().index(); }
  /// The device (cuda:N).
  Device device() const { return stream_.device(); }
  /// The native handle as an integer (cudaStream_t; 0 for the default stream).
  uintptr_t cuda_stream() const;
  /// The stream's priority.
  int priority() const;

  /// True when all work queued on the stream has finished.
  bool query() const;
  /// Waits for all work queued on the stream (reported by the sync debug mode).
  void synchronize() const;
  /// Makes future work on this stream wait for `event` (the host does not block).
  void wait_event(const Event& event) const;
  /// Makes future work on this stream wait for the work queued on `stream` so far.
  void wait_stream(const Stream& stream) const;
  /// Records a new (timing-disabled) event on this stream and returns it.
  Event record_event() const;
  /// Records `event` on this stream and returns it.
  Event record_event(const Event& event) const;

  /// Same device and StreamId.
  bool operator==(const Stream& o) const { return stream_ == o.stream_; }
  bool operator!=(const Stream& o) const { return !(*this == o); }

 protected:
  struct Raw {};
  Stream(Raw, ::ctorch::Stream s) : stream_(s) {}

 private:
  ::ctorch::Stream stream_;
};

/// Prints PyTorch's repr: "<torch.cuda.Stream device=cuda:0 cuda_stream=0x0>".
std::ostream& operator<<(std::ostream& os, const Stream& s);

/// A stream created outside ctorch (torch.cuda.ExternalStream); not owned: the caller keeps it
/// alive. On emulated devices the handle is one from Stream::cuda_stream().
class ExternalStream : public Stream {
 public:
  /// Wraps native `stream_ptr` (a cudaStream_t) of `device`; `priority` must be 0.
  explicit ExternalStream(uintptr_t stream_ptr, DeviceArg device = {}, int priority = 0);
};

/// torch.cuda.get_stream_from_external: the Stream of a native handle.
Stream get_stream_from_external(uintptr_t data_ptr, DeviceArg device = {});
/// The calling thread's current stream on `device`.
Stream current_stream(DeviceArg device = {});
/// The default (legacy NULL) stream of `device`.
Stream default_stream(DeviceArg device = {});
/// Makes `s` the current stream of its device AND makes its device current (nullopt: no-op).
void set_stream(std::optional<Stream> s);

/// The `with torch.cuda.stream(s):` block: makes `s` and its device current for the scope and
/// restores the previous device and both devices' previous streams at exit (also on throw).
class StreamContext {
 public:
  /// Enters the block; nullopt makes it a no-op.
  explicit StreamContext(std::optional<Stream> s);
  ~StreamContext();
  StreamContext(const StreamContext&) = delete;
  StreamContext& operator=(const StreamContext&) = delete;
  /// The stream of the block (nullopt for a no-op block).
  const std::optional<Stream>& stream() const { return stream_; }

 private:
  std::optional<Stream> stream_;
  std::optional<Stream> src_prev_;
  std::optional<Stream> dst_prev_;
};

/// torch.cuda.stream(s): `auto block = ctorch::cuda::stream(s);`.
[[nodiscard]] inline StreamContext stream(std::optional<Stream> s) { return StreamContext(s); }

namespace detail {
/// Makes `s` current on its device without switching the current device (c10's
/// setCurrentCUDAStream, for ctorch/torch.h).
void set_current_stream_only(const Stream& s);
}  // namespace detail

}  // namespace ctorch::cuda

template <>
struct std::hash<ctorch::cuda::Stream> {
  /// Hash of (device, StreamId): consistent with ==, and no runtime call (cuda_stream() could throw).
  size_t operator()(const ctorch::cuda::Stream& s) const noexcept { return std::hash<ctorch::Stream>{}(s.unwrap()); }
};
