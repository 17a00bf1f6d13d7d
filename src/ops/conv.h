// Convolution inside the op layer: the backward the gradient table calls (Note [Convolution]).
#pragma once

#include <array>
#include <tuple>

#include "ctorch/tensor.h"
#include "ops/kernel_table.h"

namespace ctorch::inline api::ops {

/// Gradients of conv2d with respect to input, weight and bias, those `wanted` (the others undefined).
/// `input` is needed for the weight's gradient, `weight` for the input's; sizes come from the
/// metadata. With grad mode on (create_graph), the gradients are built from differentiable ops.
std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad, const Tensor& input, IntArrayRef input_sizes,
                                                   const Tensor& weight, IntArrayRef weight_sizes,
                                                   const ConvParams& params, std::array<bool, 3> wanted);

/// Gradients of conv_transpose2d with respect to input, weight and bias, those `wanted`; `input` is
/// needed for the weight's gradient, `weight` for the input's.
std::tuple<Tensor, Tensor, Tensor> conv_transpose2d_backward(const Tensor& grad, const Tensor& input,
                                                             IntArrayRef input_sizes, const Tensor& weight, IntArrayRef weight_sizes,
                                                             const ConvParams& params, std::array<bool, 3> wanted);

}  // namespace ctorch::api::ops
