// Pooling inside the op layer: the backwards the gradient table calls (Note [Max pooling], Note [Average
// pooling]) and the output-size rule the pooling ops share.
#pragma once

#include "ctorch/tensor.h"
#include "ops/grad_hook.h"

namespace ctorch::inline api::ops {

/// The input's gradient of max_pool2d (window geometry `p`): `grad` added at `indices` (positions in each
/// input plane). With grad mode on (create_graph) it is a scatter_add, differentiable.
Tensor max_pool2d_backward(const Tensor& grad, IntArrayRef input_sizes, const Tensor& indices, const PoolArgs& p);

/// A pooling argument given as one int for both dims or one per dim, into `out`; otherwise throws
/// `what` (PyTorch's text, which names the op and the argument).
void pooling_pair(IntArrayRef v, const char* what, int64_t out[2]);

/// PyTorch's pooling_output_shape: floor or ceil, and a last window must start inside the input or its left padding.
int64_t pooling_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode);

/// The input's gradient of avg_pool2d / adaptive_avg_pool2d: `grad` divided by each position's divisor and
/// spread over its window, with ordinary (recorded) ops.
Tensor avg_pool2d_backward(const Tensor& grad, IntArrayRef input_sizes, const PoolArgs& args);

}  // namespace ctorch::api::ops
