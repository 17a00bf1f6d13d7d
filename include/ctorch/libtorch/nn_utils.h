// libtorch's torch::nn::utils (torch/nn/utils/clip_grad.h, convert_parameters.h, rnn.h) over
// ctorch::nn::utils: clip_grad_norm_ returns the total norm as a double, as libtorch 1.13's does.
#pragma once

#include <initializer_list>
#include <vector>

#include "ctorch/nn_rnn_utils.h"
#include "ctorch/nn_utils.h"

namespace torch::nn::utils {

using ::ctorch::nn::utils::clip_grad_value_;
using ::ctorch::nn::utils::parameters_to_vector;
using ::ctorch::nn::utils::vector_to_parameters;

/// Scales the gradients so that their joint `norm_type` norm is at most `max_norm`; returns the norm
/// before clipping.
inline double clip_grad_norm_(const std::vector<::ctorch::Tensor>& parameters, double max_norm, double norm_type = 2.0,
                              bool error_if_nonfinite = false) {
  return ::ctorch::nn::utils::clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite).item<double>();
}
/// clip_grad_norm_ of a braced list of tensors.
inline double clip_grad_norm_(std::initializer_list<::ctorch::Tensor> parameters, double max_norm,
                              double norm_type = 2.0, bool error_if_nonfinite = false) {
  return clip_grad_norm_(std::vector<::ctorch::Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}
/// clip_grad_norm_ of one tensor's gradient.
inline double clip_grad_norm_(const ::ctorch::Tensor& parameter, double max_norm, double norm_type = 2.0,
                              bool error_if_nonfinite = false) {
  return clip_grad_norm_(std::vector<::ctorch::Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

}  // namespace torch::nn::utils

namespace torch::nn::utils::rnn {
using ::ctorch::nn::utils::rnn::invert_permutation;
using ::ctorch::nn::utils::rnn::pack_padded_sequence;
using ::ctorch::nn::utils::rnn::pack_sequence;
using ::ctorch::nn::utils::rnn::PackedSequence;
using ::ctorch::nn::utils::rnn::pad_packed_sequence;
using ::ctorch::nn::utils::rnn::pad_sequence;
}  // namespace torch::nn::utils::rnn
