// Stream: a value naming one queue of work on one device ({device, id}); cpu has one stream.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>

#include "ctorch/device.h"

namespace ctorch::inline api {

/// Identifier of a stream within its device; 0 is the default stream.
using StreamId = int64_t;

/// A queue of work on a device. A value type: copies name the same queue.
class Stream {
 public:
  /// Stream `id` of `device`.
  constexpr Stream(Device device, StreamId id) : device_(device), id_(id) {}
  /// The default stream of `device`.
  static constexpr Stream default_stream(Device device) { return Stream(device, 0); }

  constexpr Device device() const { return device_; }
  constexpr StreamId id() const { return id_; }
  constexpr bool operator==(const Stream& o) const { return device_ == o.device_ && id_ == o.id_; }
  constexpr bool operator!=(const Stream& o) const { return !(*this == o); }

 private:
  Device device_;
  StreamId id_;
};

/// Prints "<ctorch.cuda.Stream device=cuda:0 id=0>"-style text.
std::ostream& operator<<(std::ostream& os, const Stream& s);

}  // namespace ctorch::api

template <>
struct std::hash<ctorch::Stream> {
  size_t operator()(const ctorch::Stream& s) const noexcept {
    return std::hash<ctorch::Device>{}(s.device()) ^ (std::hash<int64_t>{}(s.id()) << 1);
  }
};
