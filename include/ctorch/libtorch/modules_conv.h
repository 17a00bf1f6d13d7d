// libtorch 1.13's convolution holders: torch::nn::Conv{1,2,3}d and ConvTranspose{1,2,3}d with their
// options (padding sizes, kValid or kSame; padding_mode kZeros, kReflect, kReplicate or kCircular),
// `->weight`, `->bias`, `->options`. The computation is the native F::convnd / conv_transposend.
#pragma once

#include <cmath>
#include <optional>
#include <ostream>
#include <sstream>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/libtorch/functional_layers.h"
#include "ctorch/libtorch/modules_common.h"
#include "ctorch/libtorch/nn.h"  // ModuleHolder, TORCH_MODULE (nn.h includes this header at its end)

namespace torch::nn {

/// libtorch's ConvNdImpl<D, Derived>: weight [out, in / groups, k...] (transposed: [in, out / groups,
/// k...]) from kaiming_uniform_(a = sqrt(5)), bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
template <size_t D, typename Derived>
class ConvNdImpl : public layers_detail::LayerCloneable<Derived> {
 public:
  explicit ConvNdImpl(detail::ConvNdOptions<D> options_, const char* name)
      : layers_detail::LayerCloneable<Derived>(name), options(std::move(options_)) {
    reset();
  }

  void reset() override {
    CTORCH_CHECK(options.in_channels() > 0 && options.groups() > 0 && options.out_channels() > 0,
                 "in_channels, groups and out_channels must be a positive integer.");
    CTORCH_CHECK(options.in_channels() % options.groups() == 0, "in_channels must be divisible by groups");
    CTORCH_CHECK(options.out_channels() % options.groups() == 0, "out_channels must be divisible by groups");
    reversed_padding_.assign(2 * D, 0);
    if (std::holds_alternative<enumtype::kSame>(options.padding())) {
      for (size_t i = 0; i < D; ++i)
        CTORCH_CHECK((*options.stride())[i] == 1, "padding='same' is not supported for strided convolutions");
      for (size_t i = 0; i < D; ++i) {
        const int64_t total = (*options.dilation())[i] * ((*options.kernel_size())[i] - 1);
        // Reversed: the last dim's (left, right) first.
        reversed_padding_[2 * (D - 1 - i)] = total / 2;
        reversed_padding_[2 * (D - 1 - i) + 1] = total - total / 2;
      }
    } else if (const auto* pad = std::get_if<ExpandingArray<D>>(&options.padding())) {
      for (size_t i = 0; i < D; ++i) {
        reversed_padding_[2 * (D - 1 - i)] = (**pad)[i];
        reversed_padding_[2 * (D - 1 - i) + 1] = (**pad)[i];
      }
    }
    std::vector<int64_t> shape =
        options.transposed() ? std::vector<int64_t>{options.in_channels(), options.out_channels() / options.groups()}
                             : std::vector<int64_t>{options.out_channels(), options.in_channels() / options.groups()};
    shape.insert(shape.end(), options.kernel_size()->begin(), options.kernel_size()->end());
    weight = this->register_parameter("weight", ::ctorch::empty(shape));
    bias = options.bias() ? this->register_parameter("bias", ::ctorch::empty({options.out_channels()})) : Tensor();
    reset_parameters();
  }

  /// Re-draws weight and bias as PyTorch's reset_parameters.
  void reset_parameters() {
    ::ctorch::NoGradGuard no_grad;
    double fan_in = static_cast<double>(weight.size(1));
    for (int64_t k : *options.kernel_size()) fan_in *= static_cast<double>(k);
    const double a = std::sqrt(5.0);
    const double bound = std::sqrt(3.0) * std::sqrt(2.0 / (1 + a * a)) / std::sqrt(fan_in);
    weight.uniform_(-bound, bound);
    if (bias.defined()) bias.uniform_(-1 / std::sqrt(fan_in), 1 / std::sqrt(fan_in));
  }

  /// libtorch's text: "torch::nn::Conv2d(3, 4, kernel_size=[5, 5], stride=[1, 1])".
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::" << this->name() << "(" << options.in_channels() << ", " << options.out_channels()
           << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
    if (std::holds_alternative<enumtype::kValid>(options.padding())) stream << ", padding='valid'";
    if (std::holds_alternative<enumtype::kSame>(options.padding())) stream << ", padding='same'";
    if (const auto* pad = std::get_if<ExpandingArray<D>>(&options.padding()); pad && **pad != *ExpandingArray<D>(0))
      stream << ", padding=" << *pad;
    if (*options.dilation() != *ExpandingArray<D>(1)) stream << ", dilation=" << options.dilation();
    if (*options.output_padding() != *ExpandingArray<D>(0)) stream << ", output_padding=" << options.output_padding();
    if (options.groups() != 1) stream << ", groups=" << options.groups();
    if (!options.bias()) stream << ", bias=false";
    if (!std::holds_alternative<enumtype::kZeros>(options.padding_mode()))
      stream << ", padding_mode=" << enumtype::get_enum_name(options.padding_mode());
    stream << ")";
  }

  /// PyTorch's _ConvNd.extra_repr.
  std::string extra_repr() const override {
    using layers_detail::py_tuple;
    std::ostringstream os;
    os << options.in_channels() << ", " << options.out_channels()
       << ", kernel_size=" << py_tuple(*options.kernel_size()) << ", stride=" << py_tuple(*options.stride());
    if (std::holds_alternative<enumtype::kValid>(options.padding())) os << ", padding=valid";
    if (std::holds_alternative<enumtype::kSame>(options.padding())) os << ", padding=same";
    if (const auto* pad = std::get_if<ExpandingArray<D>>(&options.padding()); pad && **pad != *ExpandingArray<D>(0))
      os << ", padding=" << py_tuple(**pad);
    if (*options.dilation() != *ExpandingArray<D>(1)) os << ", dilation=" << py_tuple(*options.dilation());
    if (*options.output_padding() != *ExpandingArray<D>(0))
      os << ", output_padding=" << py_tuple(*options.output_padding());
    if (options.groups() != 1) os << ", groups=" << options.groups();
    if (!options.bias()) os << ", bias=False";
    if (!std::holds_alternative<enumtype::kZeros>(options.padding_mode()))
      os << ", padding_mode=" << enumtype::enum_name_native(options.padding_mode());
    return os.str();
  }

  detail::ConvNdOptions<D> options;
  Tensor weight;
  Tensor bias;

 protected:
  /// The input padded by the padding mode (non-zero modes), or as is.
  Tensor padded_input(const Tensor& input) const {
    if (std::holds_alternative<enumtype::kZeros>(options.padding_mode())) return input;
    return ::ctorch::nn::functional::pad(input, reversed_padding_, enumtype::enum_name_native(options.padding_mode()));
  }

  std::vector<int64_t> reversed_padding_;
};

namespace layers_detail {
/// A ConvNdOptions from the options of a convolution (not transposed).
template <size_t D>
detail::ConvNdOptions<D> conv_nd_options(const ConvOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .transposed(false)
      .output_padding(0)
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}
/// A ConvNdOptions from the options of a transposed convolution.
template <size_t D>
detail::ConvNdOptions<D> conv_nd_options(const ConvTransposeOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(typename detail::ConvNdOptions<D>::padding_t(o.padding()))
      .dilation(o.dilation())
      .transposed(true)
      .output_padding(o.output_padding())
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}
}  // namespace layers_detail

/// libtorch's Conv{1,2,3}dImpl.
template <size_t D, class Derived>
class ConvImplT : public ConvNdImpl<D, Derived> {
 public:
  ConvImplT(int64_t input_channels, int64_t output_channels, ExpandingArray<D> kernel_size)
      : ConvImplT(ConvOptions<D>(input_channels, output_channels, kernel_size)) {}
  explicit ConvImplT(const ConvOptions<D>& options_)
      : ConvNdImpl<D, Derived>(layers_detail::conv_nd_options(options_), D == 1   ? "Conv1d"
                                                                         : D == 2 ? "Conv2d"
                                                                                  : "Conv3d") {}
  /// The convolution (after the padding mode's padding, when it is not zeros).
  Tensor forward(const Tensor& input) override {
    const auto& o = this->options;
    if (!std::holds_alternative<enumtype::kZeros>(o.padding_mode()))
      return ::ctorch::nn::functional::convnd(this->padded_input(input), this->weight, this->bias, *o.stride(), {0},
                                              *o.dilation(), o.groups());
    ::ctorch::nn::functional::ConvFuncOptions<D> f;
    f.bias(this->bias).stride(o.stride()).padding(o.padding()).dilation(o.dilation()).groups(o.groups());
    return ::ctorch::nn::functional::libtorch_detail::conv<D>(input, this->weight, f);
  }
};

#define CTORCH_TORCH_CONV(D)                                   \
  class Conv##D##dImpl : public ConvImplT<D, Conv##D##dImpl> { \
   public:                                                     \
    using ConvImplT<D, Conv##D##dImpl>::ConvImplT;             \
  };                                                           \
  TORCH_MODULE(Conv##D##d)
CTORCH_TORCH_CONV(1);
CTORCH_TORCH_CONV(2);
CTORCH_TORCH_CONV(3);
#undef CTORCH_TORCH_CONV

/// libtorch's ConvTranspose{1,2,3}dImpl: forward takes an optional output size.
template <size_t D, class Derived>
class ConvTransposeImplT : public ConvNdImpl<D, Derived> {
 public:
  ConvTransposeImplT(int64_t input_channels, int64_t output_channels, ExpandingArray<D> kernel_size)
      : ConvTransposeImplT(ConvTransposeOptions<D>(input_channels, output_channels, kernel_size)) {}
  explicit ConvTransposeImplT(const ConvTransposeOptions<D>& options_)
      : ConvNdImpl<D, Derived>(layers_detail::conv_nd_options(options_), D == 1   ? "ConvTranspose1d"
                                                                         : D == 2 ? "ConvTranspose2d"
                                                                                  : "ConvTranspose3d") {}
  Tensor forward(const Tensor& input) override { return forward(input, std::nullopt); }
  /// The transposed convolution; `output_size` picks the output padding that gives it.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
    const auto& o = this->options;
    CTORCH_CHECK_VALUE(std::holds_alternative<enumtype::kZeros>(o.padding_mode()),
                       "Only `zeros` padding mode is supported for ", this->name());
    const auto& pad = std::get<ExpandingArray<D>>(o.padding());
    const std::vector<int64_t> output_padding =
        this->output_padding(input, output_size, *o.stride(), *pad, *o.kernel_size(), *o.dilation());
    return ::ctorch::nn::functional::conv_transposend(input, this->weight, this->bias, *o.stride(), *pad,
                                                      output_padding, o.groups(), *o.dilation());
  }

 protected:
  /// libtorch's ConvTransposeNdImpl::_output_padding (its checks and texts).
  std::vector<int64_t> output_padding(const Tensor& input, const std::optional<IntArrayRef>& output_size,
                                      IntArrayRef stride, IntArrayRef padding, IntArrayRef kernel_size,
                                      IntArrayRef dilation) const {
    const auto& op = *this->options.output_padding();
    if (!output_size) return std::vector<int64_t>(op.begin(), op.end());
    const int64_t k = input.dim() - 2;
    std::vector<int64_t> out(output_size->begin(), output_size->end());
    if (static_cast<int64_t>(out.size()) == k + 2) out.erase(out.begin(), out.begin() + 2);
    CTORCH_CHECK(static_cast<int64_t>(out.size()) == k, "output_size must have ", k, " or ", k + 2, " elements (got ",
                 out.size(), ")");
    std::vector<int64_t> min_sizes, max_sizes, result;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t dim_size =
          (input.size(d + 2) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1;
      min_sizes.push_back(dim_size);
      max_sizes.push_back(dim_size + stride[d] - 1);
    }
    for (int64_t d = 0; d < k; ++d)
      CTORCH_CHECK(out[d] >= min_sizes[d] && out[d] <= max_sizes[d], "requested an output size of ", IntArrayRef(out),
                   ", but valid sizes range from ", IntArrayRef(min_sizes), " to ", IntArrayRef(max_sizes),
                   " (for an input of ", input.sizes().slice(2), ")");
    for (int64_t d = 0; d < k; ++d) result.push_back(out[d] - min_sizes[d]);
    return result;
  }
};

#define CTORCH_TORCH_CONV_TRANSPOSE(D)                                                    \
  class ConvTranspose##D##dImpl : public ConvTransposeImplT<D, ConvTranspose##D##dImpl> { \
   public:                                                                                \
    using ConvTransposeImplT<D, ConvTranspose##D##dImpl>::ConvTransposeImplT;             \
    using ConvTransposeImplT<D, ConvTranspose##D##dImpl>::forward;                        \
  };                                                                                      \
  TORCH_MODULE(ConvTranspose##D##d)
CTORCH_TORCH_CONV_TRANSPOSE(1);
CTORCH_TORCH_CONV_TRANSPOSE(2);
CTORCH_TORCH_CONV_TRANSPOSE(3);
#undef CTORCH_TORCH_CONV_TRANSPOSE

}  // namespace torch::nn
