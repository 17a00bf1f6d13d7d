// Helpers shared by src/nn/functional_*.cpp: argument expansion, sliding-window views and the
// pooling output-size rule.
#pragma once

#include <string>
#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::nn::functional::detail {

/// `v` as `n` values: one value repeated, or exactly n; otherwise throws naming `op` and `what`.
std::vector<int64_t> expand_arg(IntArrayRef v, int64_t n, const char* op, const char* what);

/// PyTorch's pooling_output_shape: floor or ceil, and a last window must start inside the input or its left padding.
int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode);

/// The windows of the last kernel.size() dims of `x` as a view [lead..., O..., K...] (strides
/// `stride`, kernel taps `dilation` apart, `out` windows per dim): differentiable (as_strided).
Tensor windows(const Tensor& x, IntArrayRef kernel, IntArrayRef stride, IntArrayRef dilation, IntArrayRef out);

/// int64 arange(n) shaped to broadcast along dim `at` of a `rank`-dim tensor, on `device`.
Tensor arange_along(int64_t n, int64_t at, int64_t rank, Device device);

/// `x` with the spatial dims (all but the first `lead`) reversed (a convolution kernel's flip).
Tensor flip_spatial(const Tensor& x, int64_t lead);

}  // namespace ctorch::nn::functional::detail
