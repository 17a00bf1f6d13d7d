// Max pooling inside the op layer: the backward the gradient table calls (Note [Max pooling]).
#pragma once

#include "ctorch/tensor.h"

namespace ctorch::inline api::ops {

/// The input's gradient of max_pool2d: `grad` added at `indices` (positions in each input plane).
/// With grad mode on (create_graph) it is a scatter_add, differentiable.
Tensor max_pool2d_backward(const Tensor& grad, IntArrayRef input_sizes, const Tensor& indices);

}  // namespace ctorch::api::ops
