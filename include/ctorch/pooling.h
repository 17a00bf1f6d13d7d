// Pooling ops over images (torch.max_pool2d, torch.nn.functional.max_pool2d(return_indices=True)).
#pragma once

#include <tuple>

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// Maximum over each window of input [N, C, H, W] (or [C, H, W]), padding counting as -inf, and
/// where it was: the flat position in the input's H x W plane (int64). stride {} means the kernel size.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = {0},
                                                   IntArrayRef dilation = {1}, bool ceil_mode = false);
/// torch.max_pool2d: the values of max_pool2d_with_indices.
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  IntArrayRef dilation = {1}, bool ceil_mode = false);

}  // namespace ctorch::api
