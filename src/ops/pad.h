// Constant padding inside the op layer (convolution's zeros, max pooling's -inf).
#pragma once

#include "ctorch/tensor.h"

namespace ctorch::inline api::ops {

/// `x` with `before` slices of `value` in front of dim `dim` and `after` behind it: a cat, so
/// differentiable and contiguous along the result; `x` itself when both are 0.
Tensor pad_dim(const Tensor& x, int64_t dim, int64_t before, int64_t after, double value);

}  // namespace ctorch::api::ops
