// torch.nn.utils: gradient clipping and parameters <-> one vector.
#pragma once

#include <initializer_list>
#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::nn::utils {

/// Scales the gradients of `parameters` in place so that their joint `norm_type` norm is at most
/// `max_norm`; returns that norm before clipping (torch.nn.utils.clip_grad_norm_). With
/// error_if_nonfinite, a NaN or infinite norm raises instead.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// clip_grad_norm_ of one tensor's gradient.
Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
/// clip_grad_norm_ of a braced list of tensors.
Tensor clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps every gradient of `parameters` to [-clip_value, clip_value] in place (clip_grad_value_).
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
/// clip_grad_value_ of one tensor's gradient.
void clip_grad_value_(const Tensor& parameter, double clip_value);
/// clip_grad_value_ of a braced list of tensors.
void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);

/// The parameters flattened and concatenated into one vector (all on one device).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
/// Points each parameter's data at its slice of `vec` (the inverse of parameters_to_vector).
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ctorch::nn::utils
