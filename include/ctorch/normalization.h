// Normalization ops (torch.batch_norm, torch.layer_norm): one recorded op each, a device's own kernel
// where it has one (cpu: oneDNN), otherwise reductions and elementwise ops on the device
// (src/ops/norm.cpp, src/ops/layer_norm.cpp).
#pragma once

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// torch.batch_norm: input [N, C, *] normalized per channel with the batch's statistics (training,
/// or no running statistics) or the running ones; running_mean/running_var, when given, are
/// updated in training with `momentum` (the variance unbiased). weight/bias: [C] or undefined.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps, bool cudnn_enabled = true);

/// torch.layer_norm: input [*, normalized_shape] normalized over its last normalized_shape.size() dims
/// with their mean and biased variance, then scaled by weight and shifted by bias (normalized_shape, or
/// undefined).
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5, bool cudnn_enable = true);

}  // namespace ctorch::api
