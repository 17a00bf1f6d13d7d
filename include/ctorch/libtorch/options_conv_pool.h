// libtorch 1.13's options of the convolution, pooling, padding and fold layers (torch/nn/options/
// conv.h, pooling.h, padding.h, fold.h): torch::nn::Conv2dOptions(in, out, k).stride(2), ... and
// their functional forms torch::nn::functional::Conv2dFuncOptions, ... (F:: is ctorch::nn::functional).
#pragma once

#include <optional>
#include <variant>
#include <vector>

#include "ctorch/libtorch/arg.h"
#include "ctorch/libtorch/enum.h"
#include "ctorch/libtorch/expanding_array.h"

namespace torch::nn {

namespace detail {
/// How a convolution pads: zeros, reflect, replicate or circular.
using conv_padding_mode_t =
    std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
/// A convolution's padding: sizes, kValid or kSame.
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
}  // namespace detail

namespace detail {
/// The options a convolution layer keeps (libtorch's ConvNdOptions): both kinds' fields.
template <size_t D>
struct ConvNdOptions {
  using padding_t = conv_padding_t<D>;
  ConvNdOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  /// Padding from a braced list.
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(padding_t(ExpandingArray<D>(il))); }
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(bool, transposed) = false;
  TORCH_ARG(ExpandingArray<D>, output_padding) = 0;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(conv_padding_mode_t, padding_mode) = torch::kZeros;
};
}  // namespace detail

/// torch::nn::Conv{1,2,3}dOptions(in_channels, out_channels, kernel_size).
template <size_t D>
struct ConvOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  using padding_t = detail::conv_padding_t<D>;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  /// Padding from a braced list.
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(padding_t(ExpandingArray<D>(il))); }
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(padding_mode_t, padding_mode) = torch::kZeros;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

/// torch::nn::ConvTranspose{1,2,3}dOptions(in_channels, out_channels, kernel_size).
template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, output_padding) = 0;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(padding_mode_t, padding_mode) = torch::kZeros;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

/// torch::nn::AvgPool{1,2,3}dOptions(kernel_size); the stride defaults to the kernel size.
template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(bool, ceil_mode) = false;
  TORCH_ARG(bool, count_include_pad) = true;
  TORCH_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

/// torch::nn::MaxPool{1,2,3}dOptions(kernel_size); the stride defaults to the kernel size.
template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

/// torch::nn::AdaptiveMaxPool{1,2,3}dOptions(output_size).
template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<3>>;

/// torch::nn::AdaptiveAvgPool{1,2,3}dOptions(output_size).
template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<3>>;

/// torch::nn::MaxUnpool{1,2,3}dOptions(kernel_size); the stride defaults to the kernel size.
template <size_t D>
struct MaxUnpoolOptions {
  MaxUnpoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

/// torch::nn::LPPool{1,2}dOptions(norm_type, kernel_size); the stride defaults to the kernel size.
template <size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  TORCH_ARG(double, norm_type);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

/// torch::nn::ReflectionPad{1,2,3}dOptions(padding): (left, right[, top, bottom[, front, back]]).
template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

/// torch::nn::ReplicationPad{1,2,3}dOptions(padding).
template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

/// torch::nn::ZeroPad2dOptions(padding).
struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}  // NOLINT
  TORCH_ARG(ExpandingArray<4>, padding);
};

/// torch::nn::ConstantPad{1,2,3}dOptions(padding, value).
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(padding), value_(value) {}
  TORCH_ARG(ExpandingArray<D * 2>, padding);
  TORCH_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

/// torch::nn::FoldOptions(output_size, kernel_size).
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(std::move(output_size)), kernel_size_(std::move(kernel_size)) {}
  TORCH_ARG(ExpandingArray<2>, output_size);
  TORCH_ARG(ExpandingArray<2>, kernel_size);
  TORCH_ARG(ExpandingArray<2>, dilation) = 1;
  TORCH_ARG(ExpandingArray<2>, padding) = 0;
  TORCH_ARG(ExpandingArray<2>, stride) = 1;
};

/// torch::nn::UnfoldOptions(kernel_size).
struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(std::move(kernel_size)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<2>, kernel_size);
  TORCH_ARG(ExpandingArray<2>, dilation) = 1;
  TORCH_ARG(ExpandingArray<2>, padding) = 0;
  TORCH_ARG(ExpandingArray<2>, stride) = 1;
};

}  // namespace torch::nn

namespace ctorch::nn::functional {
using ::torch::ExpandingArray;

/// F::Conv{1,2,3}dFuncOptions().stride(s).padding(p).bias(b).
template <size_t D>
struct ConvFuncOptions {
  using padding_t = ::torch::nn::detail::conv_padding_t<D>;
  TORCH_ARG(Tensor, bias) = Tensor();
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  /// Padding from a braced list.
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(padding_t(ExpandingArray<D>(il))); }
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

/// F::ConvTranspose{1,2,3}dFuncOptions().
template <size_t D>
struct ConvTransposeFuncOptions {
  TORCH_ARG(Tensor, bias) = Tensor();
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, output_padding) = 0;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

using AvgPool1dFuncOptions = ::torch::nn::AvgPool1dOptions;
using AvgPool2dFuncOptions = ::torch::nn::AvgPool2dOptions;
using AvgPool3dFuncOptions = ::torch::nn::AvgPool3dOptions;
using MaxPool1dFuncOptions = ::torch::nn::MaxPool1dOptions;
using MaxPool2dFuncOptions = ::torch::nn::MaxPool2dOptions;
using MaxPool3dFuncOptions = ::torch::nn::MaxPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = ::torch::nn::AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = ::torch::nn::AdaptiveMaxPool2dOptions;
using AdaptiveMaxPool3dFuncOptions = ::torch::nn::AdaptiveMaxPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = ::torch::nn::AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = ::torch::nn::AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = ::torch::nn::AdaptiveAvgPool3dOptions;
using LPPool1dFuncOptions = ::torch::nn::LPPool1dOptions;
using LPPool2dFuncOptions = ::torch::nn::LPPool2dOptions;
using FoldFuncOptions = ::torch::nn::FoldOptions;
using UnfoldFuncOptions = ::torch::nn::UnfoldOptions;

/// F::MaxUnpool{1,2,3}dFuncOptions(kernel_size).output_size(sizes).
template <size_t D>
struct MaxUnpoolFuncOptions {
  MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;

/// F::PadFuncOptions(pad).mode(torch::kReflect).value(v).
struct PadFuncOptions {
  using mode_t = std::variant<::torch::enumtype::kConstant, ::torch::enumtype::kReflect, ::torch::enumtype::kReplicate,
                              ::torch::enumtype::kCircular>;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, pad);
  TORCH_ARG(mode_t, mode) = ::torch::kConstant;
  TORCH_ARG(double, value) = 0;
};

}  // namespace ctorch::nn::functional

namespace torch::nn {
/// torch::nn::FractionalMaxPool{2,3}dOptions(kernel_size).output_size(s) or .output_ratio(r).
template <size_t D>
struct FractionalMaxPoolOptions {
  FractionalMaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  using ExpandingArrayDouble = torch::ExpandingArray<D, double>;
  TORCH_ARG(std::optional<ExpandingArrayDouble>, output_ratio) = std::nullopt;
  TORCH_ARG(Tensor, _random_samples) = Tensor();
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;
}  // namespace torch::nn

namespace ctorch::nn::functional {
using FractionalMaxPool2dFuncOptions = ::torch::nn::FractionalMaxPool2dOptions;
using FractionalMaxPool3dFuncOptions = ::torch::nn::FractionalMaxPool3dOptions;
}  // namespace ctorch::nn::functional
