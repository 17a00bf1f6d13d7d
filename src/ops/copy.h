// Copies between devices (host to device, device to host, device to device) and the stream an
// op on a device runs on.
#pragma once

#include "ctorch/stream.h"
#include "ctorch/tensor.h"

namespace ctorch::ops {

/// The stream ops on `device` are enqueued on: the calling thread's current stream there.
Stream stream_for(Device device);

/// dst.copy_(src) when the two tensors are on different devices (or either is on cuda and a
/// runtime copy is needed). Shapes are already checked; src is broadcast to dst.
void copy_between_devices(Tensor& dst, const Tensor& src, bool non_blocking);

}  // namespace ctorch::ops
