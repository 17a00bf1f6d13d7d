// Normalization ops (torch.batch_norm): one recorded op, a device's own kernel where it has one
// (cpu: oneDNN), otherwise reductions and elementwise ops on the device (src/ops/norm.cpp).
#pragma once

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// torch.batch_norm: input [N, C, *] normalized per channel with the batch's statistics (training,
/// or no running statistics) or the running ones; running_mean/running_var, when given, are
/// updated in training with `momentum` (the variance unbiased). weight/bias: [C] or undefined.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps, bool cudnn_enabled = true);

}  // namespace ctorch::api
