// Conv2d, ConvTranspose2d, MaxPool2d, AvgPool2d and AdaptiveAvgPool2d over their ops (ops/conv.cpp,
// ops/pool.cpp, ops/avg_pool.cpp).
#include <cmath>
#include <limits>
#include <sstream>

#include "ctorch/conv.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_conv.h"
#include "ctorch/ops.h"
#include "ctorch/pooling.h"

namespace ctorch::nn {

namespace {

std::string pair_str(Pair2 p) { return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ")"; }
// One number when both sides agree (what a layer made from an int prints), else the pair.
std::string int_or_pair_str(Pair2 p) { return p[0] == p[1] ? std::to_string(p[0]) : pair_str(p); }

}  // namespace

namespace functional {

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Pair2 stride, Pair2 padding,
              Pair2 dilation, int64_t groups) {
  return ctorch::conv2d(input, weight, bias, stride, padding, dilation, groups);
}

Tensor max_pool2d(const Tensor& input, Pair2 kernel_size, Pair2 stride, Pair2 padding, Pair2 dilation,
                  bool ceil_mode) {
  return ctorch::max_pool2d(input, kernel_size, stride[0] == 0 ? IntArrayRef() : IntArrayRef(stride), padding, dilation,
                            ceil_mode);
}

Tensor avg_pool2d(const Tensor& input, Pair2 kernel_size, Pair2 stride, Pair2 padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return ctorch::avg_pool2d(input, kernel_size, stride[0] == 0 ? IntArrayRef() : IntArrayRef(stride), padding,
                            ceil_mode, count_include_pad, divisor_override);
}

Tensor adaptive_avg_pool2d(const Tensor& input, Pair2 output_size) {
  return ctorch::adaptive_avg_pool2d(input, output_size);
}

}  // namespace functional

namespace {

// PyTorch's _ConvNd checks and reset_parameters: weight `shape` from kaiming_uniform_(a=sqrt(5)), the
// bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)); fan_in is shape[1] * KH * KW.
void init_conv(Module& m, Tensor& weight, Tensor& bias, std::vector<int64_t> shape, int64_t in_channels,
               int64_t out_channels, int64_t groups, bool with_bias) {
  CTORCH_CHECK_VALUE(groups > 0, "groups must be a positive integer");
  CTORCH_CHECK_VALUE(in_channels % groups == 0, "in_channels must be divisible by groups");
  CTORCH_CHECK_VALUE(out_channels % groups == 0, "out_channels must be divisible by groups");
  weight = m.register_parameter("weight", ctorch::empty(IntArrayRef(shape)));
  if (with_bias) bias = m.register_parameter("bias", ctorch::empty({out_channels}));
  NoGradGuard no_grad;
  const double fan_in = static_cast<double>(shape[1] * shape[2] * shape[3]);
  const double a = std::sqrt(5.0);
  const double bound = std::sqrt(3.0) * (std::sqrt(2.0 / (1 + a * a)) / std::sqrt(fan_in));
  weight.uniform_(-bound, bound);
  if (with_bias) bias.uniform_(-1 / std::sqrt(fan_in), 1 / std::sqrt(fan_in));
}

// PyTorch's _ConvNd.extra_repr (the fields that differ from their defaults).
std::string conv_repr(int64_t in, int64_t out, Pair2 k, Pair2 s, Pair2 p, Pair2 d, Pair2 op, int64_t groups,
                      bool with_bias) {
  std::ostringstream os;
  os << in << ", " << out << ", kernel_size=" << pair_str(k) << ", stride=" << pair_str(s);
  if (p != Pair2{0, 0}) os << ", padding=" << pair_str(p);
  if (d != Pair2{1, 1}) os << ", dilation=" << pair_str(d);
  if (op != Pair2{0, 0}) os << ", output_padding=" << pair_str(op);
  if (groups != 1) os << ", groups=" << groups;
  if (!with_bias) os << ", bias=False";
  return os.str();
}

}  // namespace

namespace functional {

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Pair2 stride, Pair2 padding,
                        Pair2 output_padding, int64_t groups, Pair2 dilation) {
  return ctorch::conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation);
}

}  // namespace functional

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, Pair2 kernel_size, Pair2 stride, Pair2 padding,
               Pair2 dilation, bool with_bias, int64_t groups)
    : UnaryModule("Conv2d"),
      in_channels(in_channels),
      out_channels(out_channels),
      kernel_size(kernel_size),
      stride(stride),
      padding(padding),
      dilation(dilation),
      groups(groups) {
  init_conv(*this, weight, bias, {out_channels, groups > 0 ? in_channels / groups : 0, kernel_size[0], kernel_size[1]},
            in_channels, out_channels, groups, with_bias);
}

Tensor Conv2d::forward(const Tensor& input) {
  return functional::conv2d(input, weight, bias, stride, padding, dilation, groups);
}

std::string Conv2d::extra_repr() const {
  return conv_repr(in_channels, out_channels, kernel_size, stride, padding, dilation, {0, 0}, groups, bias.defined());
}

ConvTranspose2d::ConvTranspose2d(int64_t in_channels, int64_t out_channels, Pair2 kernel_size, Pair2 stride,
                                 Pair2 padding, Pair2 output_padding, int64_t groups, bool with_bias, Pair2 dilation)
    : UnaryModule("ConvTranspose2d"),
      in_channels(in_channels),
      out_channels(out_channels),
      kernel_size(kernel_size),
      stride(stride),
      padding(padding),
      output_padding(output_padding),
      groups(groups),
      dilation(dilation) {
  init_conv(*this, weight, bias, {in_channels, groups > 0 ? out_channels / groups : 0, kernel_size[0], kernel_size[1]},
            in_channels, out_channels, groups, with_bias);
}

Tensor ConvTranspose2d::forward(const Tensor& input) {
  return functional::conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation);
}

Tensor ConvTranspose2d::forward(const Tensor& input, IntArrayRef output_size) {
  // PyTorch's _ConvTransposeNd._output_padding.
  const int64_t spatial = 2, given = static_cast<int64_t>(output_size.size());
  CTORCH_CHECK_VALUE(given == spatial || given == spatial + 2, "ConvTranspose2D: for ", input.dim(),
                     "D input, output_size must have ", spatial, " or ", spatial + 2, " elements (got ", given, ")");
  CTORCH_CHECK(input.dim() >= 2, "ConvTranspose2d: expected a batched or unbatched image, got input of size ",
               input.sizes());
  const IntArrayRef want = output_size.slice(static_cast<size_t>(given - spatial));
  Pair2 pad{0, 0}, lo{0, 0}, hi{0, 0};
  for (size_t i = 0; i < 2; ++i) {
    const int64_t in = input.size(input.dim() - 2 + static_cast<int64_t>(i));
    lo[i] = (in - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel_size[i] - 1) + 1;
    hi[i] = lo[i] + stride[i] - 1;
  }
  for (size_t i = 0; i < 2; ++i) {
    CTORCH_CHECK_VALUE(want[i] >= lo[i] && want[i] <= hi[i], "requested an output size of ", want,
                       ", but valid sizes range from ", IntArrayRef(lo), " to ", IntArrayRef(hi),
                       " (for an input of torch.Size(", input.sizes().slice(input.sizes().size() - 2), "))");
    pad[i] = want[i] - lo[i];
  }
  return functional::conv_transpose2d(input, weight, bias, stride, padding, pad, groups, dilation);
}

std::string ConvTranspose2d::extra_repr() const {
  return conv_repr(in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                   bias.defined());
}

void ConvTranspose2d::rebind() {
  weight = registered_parameter("weight");
  bias = registered_parameter("bias");
}

Tensor MaxPool2d::forward(const Tensor& input) {
  return functional::max_pool2d(input, {kernel_size, kernel_size}, {stride, stride}, {padding, padding});
}

std::string MaxPool2d::extra_repr() const {
  return "kernel_size=" + std::to_string(kernel_size) + ", stride=" + std::to_string(stride) +
         ", padding=" + std::to_string(padding) + ", dilation=1, ceil_mode=False";
}

Tensor AvgPool2d::forward(const Tensor& input) {
  return functional::avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}

// PyTorch's AvgPool2d.extra_repr (ceil_mode and the divisor are not shown).
std::string AvgPool2d::extra_repr() const {
  return "kernel_size=" + int_or_pair_str(kernel_size) + ", stride=" + int_or_pair_str(stride) +
         ", padding=" + int_or_pair_str(padding);
}

Tensor AdaptiveAvgPool2d::forward(const Tensor& input) { return functional::adaptive_avg_pool2d(input, output_size); }

std::string AdaptiveAvgPool2d::extra_repr() const { return "output_size=" + int_or_pair_str(output_size); }

void Conv2d::rebind() {
  weight = registered_parameter("weight");
  bias = registered_parameter("bias");
}

}  // namespace ctorch::nn
