// Dropout as one op (torch.native_dropout): one kernel draws the mask and scales the kept values,
// one recorded node (NativeDropoutBackward0) scales the gradient by the same mask.
#pragma once

#include <optional>
#include <tuple>

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// (input * mask / (1 - p), mask): each element kept with probability 1 - p (mask is bool); with
/// train == false, (input.clone(), all true). cpu: bernoulli_(1 - p)'s draws; cuda: PyTorch's fused
/// dropout kernel (Note [Fused dropout]).
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train);
/// grad_output * mask * scale (aten::native_dropout_backward; mask bool or of grad_output's dtype).
Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale);

}  // namespace ctorch::api
