// Convolution and pooling over images (torch.nn.Conv2d, ConvTranspose2d, MaxPool2d, AvgPool2d,
// AdaptiveAvgPool2d and their functional forms).
#pragma once

#include <array>
#include <optional>

#include "ctorch/nn_layers.h"

namespace ctorch::nn {

/// A pair of sizes (kernel, stride, padding, dilation), as PyTorch's _pair.
using Pair2 = std::array<int64_t, 2>;

namespace functional {
/// 2-d convolution of input [N, C, H, W] (or [C, H, W]) with weight [OC, C / groups, KH, KW] (ctorch::conv2d).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), Pair2 stride = {1, 1},
              Pair2 padding = {0, 0}, Pair2 dilation = {1, 1}, int64_t groups = 1);
/// Maximum over each window (padding counts as -inf; ctorch::max_pool2d; stride {0, 0}: the kernel size).
Tensor max_pool2d(const Tensor& input, Pair2 kernel_size, Pair2 stride = {0, 0}, Pair2 padding = {0, 0},
                  Pair2 dilation = {1, 1}, bool ceil_mode = false);
/// Mean over each window (ctorch::avg_pool2d; stride {0, 0}: the kernel size).
Tensor avg_pool2d(const Tensor& input, Pair2 kernel_size, Pair2 stride = {0, 0}, Pair2 padding = {0, 0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// Mean over PyTorch's adaptive windows, giving an output_size image (ctorch::adaptive_avg_pool2d).
Tensor adaptive_avg_pool2d(const Tensor& input, Pair2 output_size);
}  // namespace functional

namespace functional {
/// Transposed 2-d convolution of input [N, C, H, W] with weight [C, OC / groups, KH, KW] (ctorch::conv_transpose2d).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
                        Pair2 stride = {1, 1}, Pair2 padding = {0, 0}, Pair2 output_padding = {0, 0},
                        int64_t groups = 1, Pair2 dilation = {1, 1});
}  // namespace functional

/// 2-d convolution (torch.nn.Conv2d with zero padding), initialized as PyTorch's.
class Conv2d : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Conv2d)
  void rebind() override;

 public:
  Conv2d(int64_t in_channels, int64_t out_channels, Pair2 kernel_size, Pair2 stride = {1, 1}, Pair2 padding = {0, 0},
         Pair2 dilation = {1, 1}, bool bias = true, int64_t groups = 1);
  /// A square kernel.
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1, int64_t padding = 0)
      : Conv2d(in_channels, out_channels, Pair2{kernel_size, kernel_size}, Pair2{stride, stride},
               Pair2{padding, padding}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t in_channels, out_channels;
  Pair2 kernel_size, stride, padding, dilation;
  int64_t groups;
};

/// Transposed 2-d convolution (torch.nn.ConvTranspose2d), initialized as PyTorch's; weight
/// [in_channels, out_channels / groups, KH, KW].
class ConvTranspose2d : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(ConvTranspose2d)
  void rebind() override;

 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, Pair2 kernel_size, Pair2 stride = {1, 1},
                  Pair2 padding = {0, 0}, Pair2 output_padding = {0, 0}, int64_t groups = 1, bool bias = true,
                  Pair2 dilation = {1, 1});
  Tensor forward(const Tensor& input) override;
  /// The output padding that makes the output `output_size` (its last two entries; PyTorch's checks).
  Tensor forward(const Tensor& input, IntArrayRef output_size);
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t in_channels, out_channels;
  Pair2 kernel_size, stride, padding, output_padding;
  int64_t groups;
  Pair2 dilation;
};

/// Max pooling (torch.nn.MaxPool2d; stride defaults to the kernel size).
class MaxPool2d : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(MaxPool2d)
 public:
  explicit MaxPool2d(int64_t kernel_size, std::optional<int64_t> stride = std::nullopt, int64_t padding = 0)
      : UnaryModule("MaxPool2d"), kernel_size(kernel_size), stride(stride.value_or(kernel_size)), padding(padding) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  int64_t kernel_size, stride, padding;
};

/// Average pooling (torch.nn.AvgPool2d; stride defaults to the kernel size).
class AvgPool2d : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(AvgPool2d)
 public:
  AvgPool2d(Pair2 kernel_size, std::optional<Pair2> stride = std::nullopt, Pair2 padding = {0, 0},
            bool ceil_mode = false, bool count_include_pad = true,
            std::optional<int64_t> divisor_override = std::nullopt)
      : UnaryModule("AvgPool2d"),
        kernel_size(kernel_size),
        stride(stride.value_or(kernel_size)),
        padding(padding),
        ceil_mode(ceil_mode),
        count_include_pad(count_include_pad),
        divisor_override(divisor_override) {}
  /// A square kernel.
  explicit AvgPool2d(int64_t kernel_size, std::optional<int64_t> stride = std::nullopt, int64_t padding = 0,
                     bool ceil_mode = false, bool count_include_pad = true,
                     std::optional<int64_t> divisor_override = std::nullopt)
      : AvgPool2d(Pair2{kernel_size, kernel_size}, Pair2{stride.value_or(kernel_size), stride.value_or(kernel_size)},
                  Pair2{padding, padding}, ceil_mode, count_include_pad, divisor_override) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  Pair2 kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
  std::optional<int64_t> divisor_override;
};

/// Adaptive average pooling (torch.nn.AdaptiveAvgPool2d): any input size pooled to output_size.
class AdaptiveAvgPool2d : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(AdaptiveAvgPool2d)
 public:
  explicit AdaptiveAvgPool2d(Pair2 output_size) : UnaryModule("AdaptiveAvgPool2d"), output_size(output_size) {}
  /// A square output.
  explicit AdaptiveAvgPool2d(int64_t output_size) : AdaptiveAvgPool2d(Pair2{output_size, output_size}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  Pair2 output_size;
};

}  // namespace ctorch::nn
