// Copies between devices (host to device, device to host, device to device).
#pragma once

#include "ctorch/stream.h"
#include "ctorch/tensor.h"

namespace ctorch::inline api::ops {

/// dst.copy_(src) when the two tensors are on different devices (or either is on cuda and a
/// runtime copy is needed). Shapes are already checked; src is broadcast to dst.
void copy_between_devices(Tensor& dst, const Tensor& src, bool non_blocking);

}  // namespace ctorch::api::ops
