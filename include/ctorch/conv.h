// Convolution ops (torch.conv2d, torch.conv1d, torch.conv_transpose2d/1d): im2col + GEMM on every device, oneDNN on the cpu
// where it applies (docs in src/ops/conv.cpp, Note [Convolution]).
#pragma once

#include <string_view>
#include <type_traits>

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// torch.conv2d: input [N, C, H, W] (or unbatched [C, H, W]) with weight [OC, C / groups, KH, KW]
/// and an optional bias [OC]; stride, padding and dilation are one value or one per spatial dim.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1},
              IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
/// torch.conv2d with padding "valid" (none) or "same" (the output keeps the input's size; stride 1).
Tensor conv2d_padding_mode(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                           std::string_view padding, IntArrayRef dilation = {1}, int64_t groups = 1);
/// conv2d(input, weight, bias, stride, "same"): a template, so a braced padding ({0}) never means a string.
template <class S, std::enable_if_t<std::is_convertible_v<const S&, std::string_view>, int> = 0>
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, const S& padding,
              IntArrayRef dilation = {1}, int64_t groups = 1) {
  return conv2d_padding_mode(input, weight, bias, stride, std::string_view(padding), dilation, groups);
}
/// torch.conv1d: input [N, C, L] (or [C, L]) with weight [OC, C / groups, K].
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1},
              IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);

/// torch.conv_transpose2d: input [N, C, H, W] (or [C, H, W]) with weight [C, OC / groups, KH, KW]; the
/// output is (H - 1) * stride - 2 * padding + dilation * (KH - 1) + output_padding + 1 high (and wide).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0}, int64_t groups = 1,
                        IntArrayRef dilation = {1});
/// torch.conv_transpose1d: input [N, C, L] (or [C, L]) with weight [C, OC / groups, K].
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0}, int64_t groups = 1,
                        IntArrayRef dilation = {1});

}  // namespace ctorch::api
