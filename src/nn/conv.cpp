// Conv2d, ConvTranspose2d and MaxPool2d over their ops (ops/conv.cpp, ops/pool.cpp); average pooling built from
// differentiable ops: each output position's window is gathered with index_select from the
// flattened image, with one extra column standing for the zero padding; its backward is
// index_add, which accumulates overlapping windows deterministically.
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

struct Windows {
  Tensor cols;  ///< [N, C, OH * OW, KH * KW]
  int64_t oh, ow;
};

// The windows of `input` [N, C, H, W], padding filled with `pad_value`.
Windows gather_windows(const Tensor& input, Pair2 k, Pair2 s, Pair2 p, Pair2 d, double pad_value, const char* op) {
  CTORCH_CHECK(input.dim() == 4, op, ": expected a 4-d input [N, C, H, W], got ", input.dim(), "-d");
  for (int i = 0; i < 2; ++i) {
    CTORCH_CHECK(k[i] > 0 && s[i] > 0 && d[i] > 0 && p[i] >= 0, op,
                 ": kernel_size, stride and dilation must be positive and padding non-negative");
  }
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) / s[0] + 1;
  const int64_t ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
  CTORCH_CHECK(oh > 0 && ow > 0, op, ": the output size is too small (", oh, "x", ow, ") for input ", input.sizes());
  // Positions within one channel's image, h * w standing for padding.
  std::vector<int64_t> pos;
  pos.reserve(static_cast<size_t>(oh * ow * k[0] * k[1]));
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      for (int64_t i = 0; i < k[0]; ++i) {
        for (int64_t j = 0; j < k[1]; ++j) {
          const int64_t yy = y * s[0] - p[0] + i * d[0], xx = x * s[1] - p[1] + j * d[1];
          pos.push_back(yy >= 0 && yy < h && xx >= 0 && xx < w ? yy * w + xx : h * w);
        }
      }
    }
  }
  const Tensor index = tensor(pos).to(input.device());
  const Tensor flat = input.reshape({n, c, h * w});
  const Tensor padded = cat({flat, full({n, c, 1}, pad_value, input.options())}, 2);
  const Tensor cols = padded.index_select(2, index).view({n, c, oh * ow, k[0] * k[1]});
  return {cols, oh, ow};
}

std::string pair_str(Pair2 p) { return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ")"; }

// PyTorch's 3-d inputs are a batch of one.
Tensor batched(const Tensor& input) { return input.dim() == 3 ? input.unsqueeze(0) : input; }
Tensor unbatched(const Tensor& out, const Tensor& input) { return input.dim() == 3 ? out.squeeze(0) : out; }

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

Tensor avg_pool2d(const Tensor& input, Pair2 kernel_size, Pair2 stride, Pair2 padding) {
  if (stride[0] == 0) stride = kernel_size;
  CTORCH_CHECK(padding[0] * 2 <= kernel_size[0] && padding[1] * 2 <= kernel_size[1],
               "pad should be at most half of kernel size, but got pad=", padding[0], ", kernel_size=", kernel_size[0]);
  const Tensor x = batched(input);
  const Windows win = gather_windows(x, kernel_size, stride, padding, {1, 1}, 0.0, "avg_pool2d");
  const Tensor out = win.cols.mean(IntArrayRef{3}).view({x.size(0), x.size(1), win.oh, win.ow});
  return unbatched(out, input);
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
  return functional::avg_pool2d(input, {kernel_size, kernel_size}, {stride, stride}, {padding, padding});
}

std::string AvgPool2d::extra_repr() const {
  return "kernel_size=" + std::to_string(kernel_size) + ", stride=" + std::to_string(stride) +
         ", padding=" + std::to_string(padding);
}

void Conv2d::rebind() {
  weight = registered_parameter("weight");
  bias = registered_parameter("bias");
}

}  // namespace ctorch::nn
