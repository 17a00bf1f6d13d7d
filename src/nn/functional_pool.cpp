// torch.nn.functional's padding, 1-d/3-d convolution and pooling, adaptive, Lp and un-pooling, and
// fold/unfold, composed of differentiable ops: a padded input viewed as its sliding windows
// (as_strided), then reductions or a matrix product. 1-d and 2-d pooling use the native 2-d ops.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ctorch/conv.h"
#include "ctorch/factories.h"
#include "ctorch/nn_conv.h"
#include "ctorch/nn_functional_layers.h"
#include "ctorch/ops.h"
#include "ctorch/pooling.h"
#include "ctorch/random.h"
#include "nn/functional_common.h"

namespace ctorch::nn::functional {

namespace detail {

std::vector<int64_t> expand_arg(IntArrayRef v, int64_t n, const char* op, const char* what) {
  if (v.size() == 1) return std::vector<int64_t>(static_cast<size_t>(n), v[0]);
  CTORCH_CHECK(static_cast<int64_t>(v.size()) == n, op, ": ", what, " must either be a single int, or a tuple of ", n,
               " ints");
  return std::vector<int64_t>(v.begin(), v.end());
}

int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

Tensor windows(const Tensor& x, IntArrayRef kernel, IntArrayRef stride, IntArrayRef dilation, IntArrayRef out) {
  const Tensor c = x.contiguous();
  const auto d = static_cast<int64_t>(kernel.size());
  const int64_t lead = c.dim() - d;
  std::vector<int64_t> size(c.sizes().begin(), c.sizes().begin() + lead);
  std::vector<int64_t> strides(c.strides().begin(), c.strides().begin() + lead);
  for (int64_t i = 0; i < d; ++i) {
    size.push_back(out[i]);
    strides.push_back(c.strides()[lead + i] * stride[i]);
  }
  for (int64_t i = 0; i < d; ++i) {
    size.push_back(kernel[i]);
    strides.push_back(c.strides()[lead + i] * dilation[i]);
  }
  return c.as_strided(size, strides);
}

Tensor arange_along(int64_t n, int64_t at, int64_t rank, Device device) {
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(at)] = n;
  return arange(n, TensorOptions(kLong).device(device)).view(shape);
}

Tensor flip_spatial(const Tensor& x, int64_t lead) {
  Tensor out = x;
  for (int64_t d = lead; d < x.dim(); ++d) {
    const int64_t n = x.size(d);
    out = out.index_select(d, arange(n - 1, -1, -1, TensorOptions(kLong).device(x.device())));
  }
  return out;
}

}  // namespace detail

using detail::expand_arg;
using detail::pool_out_size;

namespace {

// The index of padded position j (in [-left, size + right)) in an input dim of `size` for `mode`.
int64_t pad_source(int64_t j, int64_t size, const std::string& mode) {
  if (mode == "replicate") return std::clamp<int64_t>(j, 0, size - 1);
  if (mode == "circular") return ((j % size) + size) % size;
  // reflect: mirror about the first and last element.
  if (size == 1) return 0;
  const int64_t period = 2 * (size - 1);
  int64_t m = ((j % period) + period) % period;
  return m < size ? m : period - m;
}

// x with `left`/`right` positions of `value` added (or removed, when negative) along dim.
Tensor pad_constant_dim(const Tensor& x, int64_t dim, int64_t left, int64_t right, double value) {
  Tensor out = x;
  const int64_t cut_l = std::max<int64_t>(-left, 0), cut_r = std::max<int64_t>(-right, 0);
  if (cut_l + cut_r > 0) out = out.narrow(dim, cut_l, std::max<int64_t>(out.size(dim) - cut_l - cut_r, 0));
  std::vector<Tensor> parts;
  auto filler = [&](int64_t n) {
    std::vector<int64_t> shape(out.sizes().begin(), out.sizes().end());
    shape[static_cast<size_t>(dim)] = n;
    return full(shape, value, out.options());
  };
  if (left > 0) parts.push_back(filler(left));
  parts.push_back(out);
  if (right > 0) parts.push_back(filler(right));
  return parts.size() == 1 ? out : cat(parts, dim);
}

// Moves unbatched input [C, S...] to [1, C, S...]; `dims` spatial dims.
Tensor batched(const Tensor& input, int64_t dims, const char* op, bool& unbatched) {
  CTORCH_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, op, ": Expected ", dims + 1, "D or ", dims + 2,
               "D (batch mode) tensor for input, but got: ", input.sizes());
  unbatched = input.dim() == dims + 1;
  return unbatched ? input.unsqueeze(0) : input;
}

}  // namespace

Tensor pad(const Tensor& input, IntArrayRef pad, const std::string& mode, double value) {
  CTORCH_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  CTORCH_CHECK(static_cast<int64_t>(pad.size()) / 2 <= input.dim(), "Padding length too large");
  const auto n = static_cast<int64_t>(pad.size()) / 2;
  if (mode == "constant") {
    Tensor out = input;
    for (int64_t i = 0; i < n; ++i) out = pad_constant_dim(out, input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1], value);
    return out;
  }
  CTORCH_CHECK_NOT_IMPLEMENTED(mode == "reflect" || mode == "replicate" || mode == "circular",
                               "Unrecognised padding mode ", mode);
  CTORCH_CHECK(value == 0.0, "Padding mode \"", mode, "\"\" doesn't take in value argument");
  CTORCH_CHECK_NOT_IMPLEMENTED(n <= 3 && input.dim() >= n + 1 && input.dim() <= n + 2,
                               "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  Tensor out = input;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t dim = input.dim() - 1 - i, size = input.size(dim);
    const int64_t left = pad[2 * i], right = pad[2 * i + 1];
    if (mode == "reflect")
      CTORCH_CHECK(left < size && right < size, "Argument #4: Padding size should be less than the corresponding ",
                   "input dimension, but got: padding (", left, ", ", right, ") at dimension ", dim, " of input ",
                   input.sizes());
    if (mode == "circular")
      CTORCH_CHECK(left <= size && right <= size, "Padding value causes wrapping around more than once.");
    CTORCH_CHECK(size > 0 || (left <= 0 && right <= 0), "Expected a non-empty input dimension ", dim, " to pad");
    std::vector<int64_t> src;
    for (int64_t j = -left; j < size + right; ++j) src.push_back(pad_source(j, size, mode));
    out = out.index_select(dim, tensor(src, TensorOptions(kLong).device(input.device())));
  }
  return out;
}

// ---- convolution ---------------------------------------------------------------------------------

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  CTORCH_CHECK(weight.defined() && weight.dim() == 5,
               "expected a 5-dimensional weight for conv3d, but got weight of size ", weight.sizes());
  bool unbatched = false;
  CTORCH_CHECK(input.dim() == 4 || input.dim() == 5,
               "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: ", input.sizes());
  const Tensor x = batched(input, 3, "conv3d", unbatched);
  const auto s = expand_arg(stride, 3, "conv3d", "stride");
  const auto p = expand_arg(padding, 3, "conv3d", "padding");
  const auto dl = expand_arg(dilation, 3, "conv3d", "dilation");
  const int64_t n = x.size(0), c = x.size(1), oc = weight.size(0);
  CTORCH_CHECK(groups > 0 && c % groups == 0 && oc % groups == 0 && weight.size(1) * groups == c,
               "Given groups=", groups, ", weight of size ", weight.sizes(), ", expected input", x.sizes(), " to have ",
               weight.size(1) * groups, " channels, but got ", c, " channels instead");
  const Tensor xp = pad(x, {p[2], p[2], p[1], p[1], p[0], p[0]});
  std::vector<int64_t> k{weight.size(2), weight.size(3), weight.size(4)}, out(3);
  for (int i = 0; i < 3; ++i) {
    out[i] = (xp.size(2 + i) - dl[i] * (k[i] - 1) - 1) / s[i] + 1;
    CTORCH_CHECK(out[i] > 0 && xp.size(2 + i) >= dl[i] * (k[i] - 1) + 1, "Calculated padded input size per channel: (",
                 xp.size(2), " x ", xp.size(3), " x ", xp.size(4), "). Kernel size: (", k[0], " x ", k[1], " x ", k[2],
                 "). Kernel size can't be greater than actual input size");
  }
  const int64_t cg = c / groups, ocg = oc / groups, taps = k[0] * k[1] * k[2], positions = out[0] * out[1] * out[2];
  std::vector<Tensor> outs;
  for (int64_t g = 0; g < groups; ++g) {
    // [N, Cg, O..., K...] -> [N, P, Cg * K] @ [Cg * K, OCg].
    const Tensor cols = detail::windows(xp.narrow(1, g * cg, cg), k, s, dl, out)
                            .permute({0, 2, 3, 4, 1, 5, 6, 7})
                            .reshape({n, positions, cg * taps});
    outs.push_back(cols.matmul(weight.narrow(0, g * ocg, ocg).reshape({ocg, cg * taps}).t()));
  }
  Tensor y = (groups == 1 ? outs[0] : cat(outs, 2)).permute({0, 2, 1}).reshape({n, oc, out[0], out[1], out[2]});
  if (bias.defined()) y = y + bias.view({1, oc, 1, 1, 1});
  return unbatched ? y.squeeze(0) : y;
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  CTORCH_CHECK(weight.defined() && weight.dim() == 5,
               "expected a 5-dimensional weight for conv_transpose3d, but got weight of size ", weight.sizes());
  bool unbatched = false;
  Tensor x = batched(input, 3, "conv_transpose3d", unbatched);
  const auto s = expand_arg(stride, 3, "conv_transpose3d", "stride");
  const auto p = expand_arg(padding, 3, "conv_transpose3d", "padding");
  const auto op = expand_arg(output_padding, 3, "conv_transpose3d", "output_padding");
  const auto dl = expand_arg(dilation, 3, "conv_transpose3d", "dilation");
  CTORCH_CHECK(x.size(1) == weight.size(0), "Given transposed=1, weight of size ", weight.sizes(), ", expected input",
               x.sizes(), " to have ", weight.size(0), " channels, but got ", x.size(1), " channels instead");
  for (int i = 0; i < 3; ++i)
    CTORCH_CHECK(op[i] < s[i] || op[i] < dl[i],
                 "output padding must be smaller than either stride or dilation, but got output_padding_",
                 "depth: ", op[i], " stride: ", s[i], " dilation: ", dl[i]);
  // Zeros between the input's elements (the stride), then the padding a full convolution needs.
  for (int64_t i = 0; i < 3; ++i) {
    if (s[i] == 1) continue;
    const int64_t d = 2 + i, len = x.size(d);
    std::vector<int64_t> zshape(x.sizes().begin(), x.sizes().end());
    zshape.insert(zshape.begin() + d + 1, s[i] - 1);
    const Tensor spread = cat({x.unsqueeze(d + 1), zeros(zshape, x.options())}, d + 1);
    std::vector<int64_t> merged(x.sizes().begin(), x.sizes().end());
    merged[static_cast<size_t>(d)] = len * s[i];
    x = spread.reshape(merged).narrow(d, 0, (len - 1) * s[i] + 1);
  }
  std::vector<int64_t> pads;
  for (int64_t i = 2; i >= 0; --i) {
    const int64_t full_pad = dl[i] * (weight.size(2 + i) - 1) - p[i];
    pads.push_back(full_pad);
    pads.push_back(full_pad + op[i]);
  }
  x = pad(x, pads);
  const int64_t c = weight.size(0), cg = c / groups;
  std::vector<Tensor> ws;
  for (int64_t g = 0; g < groups; ++g) ws.push_back(weight.narrow(0, g * cg, cg).transpose(0, 1));
  const Tensor w = detail::flip_spatial(groups == 1 ? ws[0] : cat(ws, 0), 2);
  const Tensor y = conv3d(x, w, bias, {1}, {0}, dl, groups);
  return unbatched ? y.squeeze(0) : y;
}

Tensor convnd(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  switch (weight.dim()) {
    case 3:
      return ::ctorch::conv1d(input, weight, bias, stride, padding, dilation, groups);
    case 4:
      return ::ctorch::conv2d(input, weight, bias, stride, padding, dilation, groups);
    default:
      return conv3d(input, weight, bias, stride, padding, dilation, groups);
  }
}

Tensor conv_transposend(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  switch (weight.dim()) {
    case 3:
      return ::ctorch::conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation);
    case 4:
      return ::ctorch::conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation);
    default:
      return conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation);
  }
}

Tensor conv_padding_mode(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                         const std::string& padding, IntArrayRef dilation, int64_t groups) {
  const int64_t dims = weight.dim() - 2;
  if (padding == "valid") return convnd(input, weight, bias, stride, {0}, dilation, groups);
  CTORCH_CHECK(padding == "same", "Invalid padding string: '", padding, "'");
  const auto s = expand_arg(stride, dims, "conv", "stride");
  const auto dl = expand_arg(dilation, dims, "conv", "dilation");
  for (int64_t st : s) CTORCH_CHECK(st == 1, "padding='same' is not supported for strided convolutions");
  // Symmetric padding where the total is even; the odd extra goes on the right, padded beforehand.
  std::vector<int64_t> sym(static_cast<size_t>(dims)), extra;
  bool asymmetric = false;
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t total = dl[i] * (weight.size(2 + i) - 1);
    sym[i] = total / 2;
    asymmetric |= total % 2 != 0;
  }
  Tensor x = input;
  if (asymmetric) {
    for (int64_t i = dims - 1; i >= 0; --i) {
      const int64_t total = dl[i] * (weight.size(2 + i) - 1);
      extra.push_back(0);
      extra.push_back(total - 2 * sym[i]);
    }
    x = pad(x, extra);
  }
  return convnd(x, weight, bias, stride, sym, dilation, groups);
}

// ---- pooling -------------------------------------------------------------------------------------

std::tuple<Tensor, Tensor> max_poolnd_with_indices(int64_t dims, const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                   bool ceil_mode) {
  const char* op = dims == 1 ? "max_pool1d" : dims == 2 ? "max_pool2d" : "max_pool3d";
  const auto k = expand_arg(kernel_size, dims, op, "kernel_size");
  const auto s = stride.empty() ? k : expand_arg(stride, dims, op, "stride");
  const auto p = expand_arg(padding, dims, op, "padding");
  const auto dl = expand_arg(dilation, dims, op, "dilation");
  if (dims == 2) return ::ctorch::max_pool2d_with_indices(input, k, s, p, dl, ceil_mode);
  if (dims == 1) {
    CTORCH_CHECK(input.dim() == 2 || input.dim() == 3, "max_pool1d() Expected 2D or 3D input tensor, but got ",
                 input.sizes());
    auto [v, i] =
        ::ctorch::max_pool2d_with_indices(input.unsqueeze(-2), {1, k[0]}, {1, s[0]}, {0, p[0]}, {1, dl[0]}, ceil_mode);
    return {v.squeeze(-2), i.squeeze(-2)};
  }
  bool unbatched = false;
  const Tensor x = batched(input, 3, op, unbatched);
  std::vector<int64_t> out(3), pads;
  for (int64_t i = 0; i < 3; ++i) {
    CTORCH_CHECK(p[i] <= k[i] / 2, "pad should be at most half of effective kernel size, but got pad=", p[i],
                 ", kernel_size=", k[i], " and dilation=", dl[i]);
    out[i] = pool_out_size(x.size(2 + i), k[i], p[i], s[i], dl[i], ceil_mode);
    CTORCH_CHECK(out[i] > 0, "Given input size: (", x.sizes(), "). Calculated output size is too small");
  }
  for (int64_t i = 2; i >= 0; --i) {
    const int64_t need = (out[i] - 1) * s[i] + dl[i] * (k[i] - 1) + 1 - (x.size(2 + i) + 2 * p[i]);
    pads.push_back(p[i]);
    pads.push_back(p[i] + std::max<int64_t>(need, 0));
  }
  const Tensor xp = pad(x, pads, "constant", -std::numeric_limits<double>::infinity());
  const Tensor w = detail::windows(xp, k, s, dl, out).reshape({x.size(0), x.size(1), out[0], out[1], out[2], -1});
  auto [values, arg] = w.max(-1);
  // The window offset of each maximum, as a flat position in the input plane.
  Tensor flat = zeros({1}, TensorOptions(kLong).device(x.device()));
  int64_t plane = 1;
  for (int64_t i = 2; i >= 0; --i) {
    const Tensor tap = arg.remainder(k[i]);
    arg = arg.div(k[i], "floor");
    const Tensor pos = detail::arange_along(out[i], 2 + i, 5, x.device()) * s[i] - p[i] + tap * dl[i];
    flat = flat + pos * plane;
    plane *= x.size(2 + i);
  }
  if (unbatched) return {values.squeeze(0), flat.squeeze(0)};
  return {values, flat};
}

Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_poolnd_with_indices(1, input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_poolnd_with_indices(3, input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_poolnd(int64_t dims, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = dims == 1 ? "avg_pool1d" : dims == 2 ? "avg_pool2d" : "avg_pool3d";
  const auto k = expand_arg(kernel_size, dims, op, "kernel_size");
  const auto s = stride.empty() ? k : expand_arg(stride, dims, op, "stride");
  const auto p = expand_arg(padding, dims, op, "padding");
  if (dims == 2) return ::ctorch::avg_pool2d(input, k, s, p, ceil_mode, count_include_pad, divisor_override);
  if (dims == 1) {
    CTORCH_CHECK(input.dim() == 2 || input.dim() == 3, "avg_pool1d() Expected 2D or 3D input tensor, but got ",
                 input.sizes());
    return ::ctorch::avg_pool2d(input.unsqueeze(-2), IntArrayRef{1, k[0]}, {1, s[0]}, {0, p[0]}, ceil_mode,
                                count_include_pad, divisor_override)
        .squeeze(-2);
  }
  CTORCH_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  bool unbatched = false;
  const Tensor x = batched(input, 3, op, unbatched);
  std::vector<int64_t> out(3), one{1, 1, 1}, pads, extra;
  std::vector<int64_t> plane(x.sizes().begin() + 2, x.sizes().end());
  for (int64_t i = 0; i < 3; ++i) {
    CTORCH_CHECK(p[i] <= k[i] / 2, "pad should be at most half of kernel size, but got pad=", p[i],
                 " and kernel_size=", k[i]);
    out[i] = pool_out_size(x.size(2 + i), k[i], p[i], s[i], 1, ceil_mode);
  }
  for (int64_t i = 2; i >= 0; --i) {
    const int64_t need = (out[i] - 1) * s[i] + k[i] - (x.size(2 + i) + 2 * p[i]);
    pads.push_back(p[i]);
    pads.push_back(p[i]);
    extra.push_back(0);
    extra.push_back(std::max<int64_t>(need, 0));
  }
  const Tensor xp = pad(pad(x, pads), extra);
  const Tensor sums = detail::windows(xp, k, s, one, out).sum({5, 6, 7});
  if (divisor_override) return (unbatched ? sums.squeeze(0) : sums) / static_cast<double>(*divisor_override);
  // The divisor of each window: the positions inside the input (and its padding, when counted).
  const Tensor ones_plane = ones(plane, x.options());
  const Tensor counted = pad(pad(ones_plane, pads, "constant", count_include_pad ? 1.0 : 0.0), extra);
  const Tensor divisor = detail::windows(counted, k, s, one, out).sum({3, 4, 5});
  const Tensor y = sums / divisor;
  return unbatched ? y.squeeze(0) : y;
}

Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  return avg_poolnd(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad);
}

Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_poolnd(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}

namespace {
// The adaptive output sizes, a nullopt keeping the input's.
std::vector<int64_t> adaptive_sizes(const Tensor& x, int64_t dims,
                                    const std::vector<std::optional<int64_t>>& output_size, const char* op) {
  CTORCH_CHECK(static_cast<int64_t>(output_size.size()) == dims || output_size.size() == 1, op,
               ": output_size must be ", dims, " values");
  std::vector<int64_t> out;
  for (int64_t i = 0; i < dims; ++i) {
    const auto& o = output_size[output_size.size() == 1 ? 0 : i];
    out.push_back(o.value_or(x.size(x.dim() - dims + i)));
  }
  return out;
}
}  // namespace

std::tuple<Tensor, Tensor> adaptive_max_poolnd_with_indices(int64_t dims, const Tensor& input,
                                                            const std::vector<std::optional<int64_t>>& output_size) {
  const char* op = dims == 1 ? "adaptive_max_pool1d" : dims == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d";
  CTORCH_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, op, "(): Expected ", dims + 1, "D or ", dims + 2,
               "D tensor, but got ", input.sizes());
  const auto out = adaptive_sizes(input, dims, output_size, op);
  const int64_t lead = input.dim() - dims;
  // Separable: the maximum along each spatial dim in turn, carrying the flat plane position of each value.
  std::vector<int64_t> plane(input.sizes().begin() + lead, input.sizes().end());
  int64_t numel = 1;
  for (int64_t v : plane) numel *= v;
  Tensor values = input;
  Tensor where_from = arange(numel, TensorOptions(kLong).device(input.device())).view(plane).expand(input.sizes());
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t d = lead + i, in = values.size(d), o = out[i];
    std::vector<Tensor> vs, ws;
    for (int64_t j = 0; j < o; ++j) {
      const int64_t start = (j * in) / o, end = ((j + 1) * in + o - 1) / o;
      auto [v, a] = values.narrow(d, start, end - start).max(d, true);
      vs.push_back(v);
      ws.push_back(where_from.narrow(d, start, end - start).gather(d, a));
    }
    values = cat(vs, d);
    where_from = cat(ws, d);
  }
  return {values, where_from};
}

Tensor adaptive_avg_poolnd(int64_t dims, const Tensor& input, const std::vector<std::optional<int64_t>>& output_size) {
  const char* op = dims == 1 ? "adaptive_avg_pool1d" : dims == 2 ? "adaptive_avg_pool2d" : "adaptive_avg_pool3d";
  CTORCH_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, op, "(): Expected ", dims + 1, "D or ", dims + 2,
               "D tensor, but got ", input.sizes());
  const auto out = adaptive_sizes(input, dims, output_size, op);
  if (dims == 2) return ::ctorch::adaptive_avg_pool2d(input, out);
  const int64_t lead = input.dim() - dims;
  Tensor values = input;
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t d = lead + i, in = values.size(d), o = out[i];
    std::vector<Tensor> vs;
    for (int64_t j = 0; j < o; ++j) {
      const int64_t start = (j * in) / o, end = ((j + 1) * in + o - 1) / o;
      vs.push_back(values.narrow(d, start, end - start).mean({d}, true));
    }
    values = cat(vs, d);
  }
  return values;
}

Tensor lp_poolnd(int64_t dims, const Tensor& input, double norm_type, IntArrayRef kernel_size, IntArrayRef stride,
                 bool ceil_mode) {
  const char* op = dims == 1 ? "lp_pool1d" : "lp_pool2d";
  const auto k = expand_arg(kernel_size, dims, op, "kernel_size");
  int64_t taps = 1;
  for (int64_t v : k) taps *= v;
  const Tensor out = avg_poolnd(dims, input.pow(norm_type), k, stride, {0}, ceil_mode);
  return (out.sign() * out.abs().relu()).mul(static_cast<double>(taps)).pow(1.0 / norm_type);
}

Tensor max_unpoolnd(int64_t dims, const Tensor& input, const Tensor& indices, IntArrayRef kernel_size,
                    IntArrayRef stride, IntArrayRef padding, const std::optional<std::vector<int64_t>>& output_size) {
  const char* op = dims == 1 ? "max_unpool1d" : dims == 2 ? "max_unpool2d" : "max_unpool3d";
  const auto k = expand_arg(kernel_size, dims, op, "kernel_size");
  const auto s = stride.empty() ? k : expand_arg(stride, dims, op, "stride");
  const auto p = expand_arg(padding, dims, op, "padding");
  CTORCH_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, op, ": Expected ", dims + 1, "D or ", dims + 2,
               "D tensor, but got ", input.sizes());
  CTORCH_CHECK(indices.sizes() == input.sizes(), "Expected shape of indices to be same as that of the input tensor (",
               input.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  const int64_t lead = input.dim() - dims;
  std::vector<int64_t> defaults;
  for (int64_t i = 0; i < dims; ++i) defaults.push_back((input.size(lead + i) - 1) * s[i] - 2 * p[i] + k[i]);
  std::vector<int64_t> out = defaults;
  if (output_size) {
    std::vector<int64_t> given = *output_size;
    if (static_cast<int64_t>(given.size()) == dims + lead) given.erase(given.begin(), given.begin() + lead);
    CTORCH_CHECK(static_cast<int64_t>(given.size()) == dims, "output_size should be a sequence containing ", dims,
                 " or ", dims + lead, " elements, but it has a length of '", output_size->size(), "'");
    for (int64_t i = 0; i < dims; ++i) {
      const int64_t lo = defaults[i] - s[i], hi = defaults[i] + s[i];
      CTORCH_CHECK(lo < given[i] && given[i] < hi, "invalid output_size \"", IntArrayRef(*output_size), "\" (dim ", i,
                   " must be between ", lo, " and ", hi, ")");
    }
    out = given;
  }
  std::vector<int64_t> flat_shape(input.sizes().begin(), input.sizes().begin() + lead), full_shape = flat_shape;
  int64_t numel = 1;
  for (int64_t v : out) numel *= v;
  flat_shape.push_back(numel);
  full_shape.insert(full_shape.end(), out.begin(), out.end());
  const Tensor src = input.flatten(lead), idx = indices.flatten(lead);
  return zeros(flat_shape, input.options()).scatter(lead, idx, src).view(full_shape);
}

// ---- fold and unfold -----------------------------------------------------------------------------

Tensor unfold(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  CTORCH_CHECK_NOT_IMPLEMENTED(input.dim() == 4, "Input Error: Only 4D input Tensors are supported (got ", input.dim(),
                               "D)");
  const Tensor& x = input;
  const auto k = expand_arg(kernel_size, 2, "unfold", "kernel_size");
  const auto dl = expand_arg(dilation, 2, "unfold", "dilation");
  const auto p = expand_arg(padding, 2, "unfold", "padding");
  const auto s = expand_arg(stride, 2, "unfold", "stride");
  const Tensor xp = pad(x, {p[1], p[1], p[0], p[0]});
  std::vector<int64_t> out(2);
  for (int i = 0; i < 2; ++i) {
    out[i] = (xp.size(2 + i) - dl[i] * (k[i] - 1) - 1) / s[i] + 1;
    CTORCH_CHECK(out[i] > 0, "Given input with spatial size (", x.size(2), ", ", x.size(3), "), kernel_size=(", k[0],
                 ", ", k[1], "), dilation=(", dl[0], ", ", dl[1], "), padding=(", p[0], ", ", p[1],
                 "), calculated shape of the array of sliding blocks as (", out[0], ", ", out[1],
                 "), but its components must be at least one.");
  }
  return detail::windows(xp, k, s, dl, out)
      .permute({0, 1, 4, 5, 2, 3})
      .reshape({x.size(0), x.size(1) * k[0] * k[1], out[0] * out[1]});
}

Tensor fold(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
            IntArrayRef padding, IntArrayRef stride) {
  CTORCH_CHECK_NOT_IMPLEMENTED(input.dim() == 3 || input.dim() == 2,
                               "Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got ",
                               input.dim(), "D)");
  const bool unbatched = input.dim() == 2;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  const auto o = expand_arg(output_size, 2, "fold", "output_size");
  const auto k = expand_arg(kernel_size, 2, "fold", "kernel_size");
  const auto dl = expand_arg(dilation, 2, "fold", "dilation");
  const auto p = expand_arg(padding, 2, "fold", "padding");
  const auto s = expand_arg(stride, 2, "fold", "stride");
  const int64_t taps = k[0] * k[1];
  CTORCH_CHECK(x.size(1) % taps == 0, "Expected size of input's dimension 1 to be divisible by the product of ",
               "kernel_size, but got input.size(1)=", x.size(1), " and kernel_size=(", k[0], ", ", k[1], ")");
  const int64_t c = x.size(1) / taps, hp = o[0] + 2 * p[0], wp = o[1] + 2 * p[1];
  const int64_t bh = (hp - dl[0] * (k[0] - 1) - 1) / s[0] + 1, bw = (wp - dl[1] * (k[1] - 1) - 1) / s[1] + 1;
  CTORCH_CHECK(x.size(2) == bh * bw, "Given output_size=(", o[0], ", ", o[1], "), kernel_size=(", k[0], ", ", k[1],
               "), dilation=(", dl[0], ", ", dl[1], "), padding=(", p[0], ", ", p[1], "), stride=(", s[0], ", ", s[1],
               "), expected size of input's dimension 2 to match the calculated number of sliding blocks ", bh, " * ",
               bw, " = ", bh * bw, ", but got input.size(2)=", x.size(2), ".");
  // Padded-plane position of each (kernel tap, block): [KH, KW, BH, BW] flattened to [K * L].
  const Device dev = x.device();
  const Tensor rows = detail::arange_along(k[0], 0, 4, dev) * dl[0] + detail::arange_along(bh, 2, 4, dev) * s[0];
  const Tensor cols = detail::arange_along(k[1], 1, 4, dev) * dl[1] + detail::arange_along(bw, 3, 4, dev) * s[1];
  const Tensor index = (rows * wp + cols).reshape({1, 1, taps * bh * bw}).expand({x.size(0), c, taps * bh * bw});
  const Tensor src = x.reshape({x.size(0), c, taps * bh * bw});
  const Tensor y = zeros({x.size(0), c, hp * wp}, x.options())
                       .scatter_add(2, index, src)
                       .view({x.size(0), c, hp, wp})
                       .narrow(2, p[0], o[0])
                       .narrow(3, p[1], o[1]);
  return unbatched ? y.squeeze(0) : y;
}

Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor) {
  CTORCH_CHECK(input.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
               input.dim(), " dimension(s)");
  CTORCH_CHECK(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got ", upscale_factor);
  const int64_t r = upscale_factor, n = input.dim(), c = input.size(n - 3), h = input.size(n - 2),
                w = input.size(n - 1);
  CTORCH_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square ",
               "of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3);
  auto shape = lead;
  shape.insert(shape.end(), {c / (r * r), r, r, h, w});
  std::vector<int64_t> perm;
  const auto l = static_cast<int64_t>(lead.size());
  for (int64_t i = 0; i < l; ++i) perm.push_back(i);
  perm.insert(perm.end(), {l, l + 3, l + 1, l + 4, l + 2});
  auto out = lead;
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  return input.reshape(shape).permute(perm).reshape(out);
}

Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor) {
  CTORCH_CHECK(input.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
               input.dim(), " dimension(s)");
  CTORCH_CHECK(downscale_factor > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", downscale_factor);
  const int64_t r = downscale_factor, n = input.dim(), c = input.size(n - 3), h = input.size(n - 2),
                w = input.size(n - 1);
  CTORCH_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
               " is not divisible by ", r);
  CTORCH_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
               " is not divisible by ", r);
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3);
  auto shape = lead;
  shape.insert(shape.end(), {c, h / r, r, w / r, r});
  std::vector<int64_t> perm;
  const auto l = static_cast<int64_t>(lead.size());
  for (int64_t i = 0; i < l; ++i) perm.push_back(i);
  perm.insert(perm.end(), {l, l + 2, l + 4, l + 1, l + 3});
  auto out = lead;
  out.insert(out.end(), {c * r * r, h / r, w / r});
  return input.reshape(shape).permute(perm).reshape(out);
}

}  // namespace ctorch::nn::functional

namespace ctorch::nn::functional {

std::tuple<Tensor, Tensor> fractional_max_poolnd_with_indices(int64_t dims, const Tensor& input,
                                                              IntArrayRef kernel_size,
                                                              const std::optional<std::vector<int64_t>>& output_size,
                                                              const std::optional<std::vector<double>>& output_ratio,
                                                              const Tensor& random_samples) {
  const char* op = dims == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d";
  CTORCH_CHECK_VALUE(output_size || output_ratio, op, " requires specifying either an output_size or an output_ratio");
  bool unbatched = false;
  const Tensor x = batched(input, dims, op, unbatched);
  const auto k = expand_arg(kernel_size, dims, op, "kernel_size");
  std::vector<int64_t> out(static_cast<size_t>(dims));
  for (int64_t d = 0; d < dims; ++d) {
    const int64_t in = x.size(2 + d);
    if (output_size) {
      out[d] = expand_arg(*output_size, dims, op, "output_size")[d];
    } else {
      const auto& r = *output_ratio;
      CTORCH_CHECK_VALUE(r.size() == 1 || static_cast<int64_t>(r.size()) == dims, op,
                         ": output_ratio must be a single value or one per dim");
      out[d] = static_cast<int64_t>(static_cast<double>(in) * r[r.size() == 1 ? 0 : d]);
    }
    CTORCH_CHECK(out[d] + k[d] - 1 <= in, op, "(): pool size ", k[d], " too large relative to input size ", in,
                 " (output size ", out[d], ")");
  }
  const int64_t n = x.size(0), c = x.size(1), planes = n * c;
  Tensor samples = random_samples.defined() ? random_samples : rand({n, c, dims}, x.options());
  CTORCH_CHECK(samples.numel() == planes * dims, op, "(): expected _random_samples of size [", n, ", ", c, ", ", dims,
               "], but got ", samples.sizes());
  const std::vector<double> u = samples.to(kDouble).cpu().contiguous().to_vector<double>();
  std::vector<int64_t> plane(x.sizes().begin() + 2, x.sizes().end());
  int64_t numel = 1;
  for (int64_t v : plane) numel *= v;
  std::vector<int64_t> flat_shape{planes};
  flat_shape.insert(flat_shape.end(), plane.begin(), plane.end());
  Tensor values = x.reshape(flat_shape);
  Tensor where_from =
      arange(numel, TensorOptions(kLong).device(x.device())).view(plane).unsqueeze(0).expand(flat_shape);
  const TensorOptions idx = TensorOptions(kLong).device(x.device());
  for (int64_t d = 0; d < dims; ++d) {
    // Window starts per plane (PyTorch's generate_intervals), then the k taps of each window.
    const int64_t in = x.size(2 + d), o = out[d];
    const double alpha = o > 1 ? static_cast<double>(in - k[d]) / static_cast<double>(o - 1) : 0.0;
    std::vector<int64_t> taps;
    for (int64_t p = 0; p < planes; ++p) {
      // PyTorch's sample order: (w, h) for 2-d planes, (t, h, w) for 3-d.
      const double s = u[static_cast<size_t>(p * dims + (dims == 2 ? 1 - d : d))];
      for (int64_t i = 0; i < o; ++i) {
        const int64_t start =
            i == o - 1 ? in - k[d]
                       : static_cast<int64_t>((static_cast<double>(i) + s) * alpha) - static_cast<int64_t>(s * alpha);
        for (int64_t j = 0; j < k[d]; ++j) taps.push_back(start + j);
      }
    }
    const int64_t dim = 1 + d;
    std::vector<int64_t> ishape(static_cast<size_t>(values.dim()), 1);
    ishape[0] = planes;
    ishape[static_cast<size_t>(dim)] = o * k[d];
    std::vector<int64_t> eshape(values.sizes().begin(), values.sizes().end());
    eshape[static_cast<size_t>(dim)] = o * k[d];
    const Tensor index = tensor(taps, idx).view(ishape).expand(eshape);
    std::vector<int64_t> split = eshape;
    split[static_cast<size_t>(dim)] = o;
    split.insert(split.begin() + dim + 1, k[d]);
    auto [v, a] = values.gather(dim, index).reshape(split).max(dim + 1, true);
    values = v.squeeze(dim + 1);
    where_from = where_from.gather(dim, index).reshape(split).gather(dim + 1, a).squeeze(dim + 1);
  }
  std::vector<int64_t> result{n, c};
  result.insert(result.end(), out.begin(), out.end());
  values = values.reshape(result);
  where_from = where_from.reshape(result);
  if (unbatched) return {values.squeeze(0), where_from.squeeze(0)};
  return {values, where_from};
}

}  // namespace ctorch::nn::functional
