// torch.nn.utils: gradient clipping.
#pragma once

#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::nn::utils {

/// Scales the gradients of `parameters` in place so that their joint `norm_type` norm is at most
/// `max_norm`; returns that norm before clipping (torch.nn.utils.clip_grad_norm_). With
/// error_if_nonfinite, a NaN or infinite norm raises instead.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps every gradient of `parameters` to [-clip_value, clip_value] in place (clip_grad_value_).
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

}  // namespace ctorch::nn::utils
