// Pooling ops over images (torch.max_pool2d, torch.nn.functional.max_pool2d(return_indices=True),
// torch.nn.functional.avg_pool2d, torch.nn.functional.adaptive_avg_pool2d).
#pragma once

#include <optional>
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
/// torch.nn.functional.avg_pool2d: the mean over each window of input [N, C, H, W] (or [C, H, W]); stride {}
/// means the kernel size; the divisor counts the zero padding (count_include_pad) or only the input, unless
/// divisor_override replaces it.
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// torch.nn.functional.adaptive_avg_pool2d: output_size {OH, OW}, output (i, j) the mean of rows
/// [floor(i * H / OH), ceil((i + 1) * H / OH)) and the same rule for columns.
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);

}  // namespace ctorch::api
