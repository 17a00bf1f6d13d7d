// Convolution (torch.conv2d, torch.conv1d, torch.conv_transpose2d, torch.conv_transpose1d) and its
// gradients.
//
// Note [Convolution]
// - conv2d is one recorded op (GradFn::Conv2d, node ConvolutionBackward0): its gradient is one
//   entry of the gradient table, which calls conv2d_backward.
// - A device with its own convolution kernel (the KernelTable's optional conv2d slot) runs it:
//   on the cpu oneDNN for float32 (backends/cpu/onednn_conv.cpp), on a real GPU cuDNN for
//   float32/float64/float16 (backends/cuda/cudnn_conv.cpp, Note [cuDNN convolution]; compiled, never
//   run), forward and both backward passes. Everything else (emulated devices, a case the kernel
//   declines), and second derivatives, take the generic path.
// - The generic path runs on every device with the device's own kernels: the input's windows are
//   copied into columns [C * KH * KW, N * OH * OW] (im2col), then one GEMM per group gives
//   [OC, N * OH * OW]. im2col is one kernel (the KernelTable's conv_columns slot: the thread functor
//   of kernels/conv_functors.h, which reads zeros for the padding; the CUDA grid walk of it on an
//   emulated device), the GEMM the device's (OpenBLAS on the cpu and, standing in for cuBLAS, on an
//   emulated device).
// - Backward: grad_weight = grad @ columns^T and grad_columns = weight^T @ grad (GEMMs);
//   grad_input folds the columns back (col2im: one kernel, each input element the sum of the column
//   entries that read it). Under create_graph the columns are an as_strided view of a padded copy
//   (a cat), the fold an index_add, so second derivatives flow through ordinary recorded ops; so
//   does a backend without the slot, with one strided add per kernel offset for the fold.
// - conv_transpose2d (GradFn::ConvTranspose2d, node ConvolutionBackward0 as in PyTorch) is conv2d's
//   input gradient: its forward is conv2d_backward's data pass (the device's own kernel where there
//   is one), its input gradient a conv2d of the gradient, its weight gradient conv2d's weight pass
//   with input and output swapped. An output padding adds rows no window reads (zero gradient).
#include "ops/conv.h"

#include "ctorch/conv.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"
#include "ops/pad.h"

namespace ctorch::inline api {

namespace {

using ops::ConvParams;

// The sizes of one conv2d call: batched input [N, C, H, W], weight [OC, C / groups, KH, KW].
struct ConvShape {
  int64_t n, c, h, w, oc, kh, kw, oh, ow;
  int64_t padded_h(const ConvParams& p) const { return h + 2 * p.padding[0]; }
  int64_t padded_w(const ConvParams& p) const { return w + 2 * p.padding[1]; }
};

ConvShape shape_of(IntArrayRef x, IntArrayRef w, const ConvParams& p) {
  ConvShape s{x[0], x[1], x[2], x[3], w[0], w[2], w[3], 0, 0};
  s.oh = (s.h + 2 * p.padding[0] - p.dilation[0] * (s.kh - 1) - 1) / p.stride[0] + 1;
  s.ow = (s.w + 2 * p.padding[1] - p.dilation[1] * (s.kw - 1) - 1) / p.stride[1] + 1;
  return s;
}

// One value for every spatial dim, or one per dim (PyTorch's expand_param_if_needed).
void expand_param(IntArrayRef v, const char* name, int64_t dims, int64_t out[2]) {
  CTORCH_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == dims, "expected ", name,
               " to be a single integer value or a list of ", dims,
               " values to match the convolution dimensions, but got ", name, "=", v);
  for (int64_t i = 0; i < dims; ++i) out[i] = v.size() == 1 ? v[0] : v[static_cast<size_t>(i)];
}

// PyTorch's convolution checks (ConvUtils.h's check_shape_forward and _convolution's), in its order
// and with its texts; `x` is the batched input. A transposed weight is [C, OC / groups, KH, KW].
void check_conv(const Tensor& input, const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvParams& p,
                bool transposed = false) {
  const char* op = transposed ? "conv_transpose2d" : "conv2d";
  CTORCH_CHECK(weight.defined() && weight.dim() == 4, "expected a 4-dimensional weight for ", op,
               ", but got weight of size ", weight.defined() ? weight.sizes() : IntArrayRef());
  CTORCH_CHECK_DEVICE(input.device() == weight.device(), "Input type (", input.type_string(), ") and weight type (",
                      weight.type_string(),
                      ") should be the same or input should be a MKLDNN tensor and weight is a dense tensor");
  CTORCH_CHECK(input.dtype() == weight.dtype(), "expected scalar type ", scalar_type_cpp_name(input.dtype()),
                    " but found ", scalar_type_cpp_name(weight.dtype()));
  if (transposed) {  // PyTorch's cpu kernel: floating types and long; a GPU's: floating types
    const ScalarType t = input.dtype();
    const bool cpu_ok = t == kFloat || t == kDouble || t == kLong;
    CTORCH_CHECK(input.is_cuda() ? is_floating_point(t) : cpu_ok, "\"slow_conv_transpose2d_out_",
                 input.is_cuda() ? "cuda" : "cpu", "\" not implemented for '", scalar_type_cpp_name(t), "'");
  } else {
    CTORCH_CHECK(is_floating_point(input.dtype()) || is_integral(input.dtype(), /*include_bool=*/false),
                 "\"conv2d\" not implemented for '", scalar_type_cpp_name(input.dtype()), "'");
  }
  if (bias.defined()) {
    CTORCH_CHECK_DEVICE(bias.device() == input.device(), "Input type (", input.type_string(), ") and bias type (",
                        bias.type_string(), ") should be the same");
    CTORCH_CHECK(bias.dtype() == input.dtype(), "Input type (", type_meta_name(input.dtype()), ") and bias type (",
                 type_meta_name(bias.dtype()), ") should be the same");
  }
  for (int i = 0; i < 2; ++i) {
    CTORCH_CHECK(p.stride[i] > 0, "non-positive stride is not supported");
    CTORCH_CHECK(p.padding[i] >= 0, "negative padding is not supported");
    CTORCH_CHECK(p.dilation[i] > 0, "non-positive dilation is not supported");
  }
  CTORCH_CHECK(p.groups > 0, "non-positive groups is not supported");
  CTORCH_CHECK(weight.size(0) % p.groups == 0, "Given groups=", p.groups, ", expected weight to be divisible by ",
               p.groups, " at dimension 0, but got weight of size [", weight.sizes(), "] instead");
  const int64_t in_channels = transposed ? weight.size(0) : weight.size(1) * p.groups;
  const int64_t out_channels = transposed ? weight.size(1) * p.groups : weight.size(0);
  const char* given = transposed ? "Given transposed=1, weight of size " : "Given groups=";
  CTORCH_CHECK(x.size(1) == in_channels, given, transposed ? "" : std::to_string(p.groups) + ", weight of size ",
               weight.sizes(), ", expected input", input.sizes(), " to have ", in_channels, " channels, but got ",
               x.size(1), " channels instead");
  CTORCH_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels),
               transposed ? "Given transposed=1, weight of size " : "Given weight of size ", weight.sizes(),
               ", expected bias to be 1-dimensional with ", out_channels, " elements, but got bias of size ",
               bias.defined() ? bias.sizes() : IntArrayRef(), " instead");
  if (transposed) return;  // the output size is checked with the output padding
  const int64_t ph = x.size(2) + 2 * p.padding[0], pw = x.size(3) + 2 * p.padding[1];
  const int64_t kh = p.dilation[0] * (weight.size(2) - 1) + 1, kw = p.dilation[1] * (weight.size(3) - 1) + 1;
  CTORCH_CHECK(ph >= kh && pw >= kw, "Calculated padded input size per channel: (", ph, " x ", pw,
               "). Kernel size: (", kh, " x ", kw, "). Kernel size can't be greater than actual input size");
}

// `x` [N, C, H, W] with p.padding zeros around H and W (a cat: differentiable, contiguous).
Tensor padded(const Tensor& x, const ConvParams& p) {
  const Tensor r = ops::pad_dim(x.contiguous(), 3, p.padding[1], p.padding[1], 0.0);
  return ops::pad_dim(r, 2, p.padding[0], p.padding[0], 0.0);
}

// The geometry of the windows of the padded input, [C, KH, KW, N, OH, OW], in its elements.
std::array<int64_t, 6> window_strides(const ConvShape& s, const ConvParams& p) {
  const int64_t hp = s.padded_h(p), wp = s.padded_w(p);
  return {hp * wp, p.dilation[0] * wp, p.dilation[1], s.c * hp * wp, p.stride[0] * wp, p.stride[1]};
}

// im2col: the windows of padded input `xp` as columns [C * KH * KW, N * OH * OW].
Tensor im2col(const Tensor& xp, const ConvShape& s, const ConvParams& p) {
  const std::array<int64_t, 6> st = window_strides(s, p);
  return xp.as_strided({s.c, s.kh, s.kw, s.n, s.oh, s.ow}, st, xp.storage_offset())
      .reshape({s.c * s.kh * s.kw, s.n * s.oh * s.ow});
}

// The device's column kernel (Note [Convolution]): `src` into a new tensor of `dst_sizes`, or undefined when
// there is none (or grad mode records: the compositions below are differentiable).
Tensor columns_kernel(bool col2im, const Tensor& src, IntArrayRef dst_sizes, const ConvShape& s, const ConvParams& p) {
  const ops::KernelTable& k = ops::kernels_for(src.device());
  if (k.conv_columns == nullptr || GradMode::is_enabled() || !is_floating_point(src.dtype())) return Tensor();
  const Tensor sc = src.contiguous();
  Tensor dst = empty(dst_sizes, src.options());
  ops::ColumnsKernelArgs a;
  a.col2im = col2im;
  a.dtype = src.dtype();
  a.n = s.n, a.c = s.c, a.h = s.h, a.w = s.w, a.kh = s.kh, a.kw = s.kw, a.oh = s.oh, a.ow = s.ow;
  a.params = p;
  a.src = sc.data_ptr();
  a.dst = dst.data_ptr();
  return k.conv_columns(a, ops::stream_for(src.device())) ? dst : Tensor();
}

// im2col of the unpadded input `x` [N, C, H, W]: one kernel, or the strided view of its padded copy.
Tensor input_columns(const Tensor& x, const ConvShape& s, const ConvParams& p) {
  if (s.n * s.c > 0) {
    if (Tensor cols = columns_kernel(false, x, {s.c * s.kh * s.kw, s.n * s.oh * s.ow}, s, p); cols.defined()) {
      return cols;
    }
  }
  return im2col(padded(x, p), s, p);
}

// col2im: columns [C * KH * KW, N * OH * OW] added back into a zero padded input [N, C, Hp, Wp].
Tensor col2im(const Tensor& cols, const ConvShape& s, const ConvParams& p) {
  const int64_t hp = s.padded_h(p), wp = s.padded_w(p);
  const std::array<int64_t, 6> st = window_strides(s, p);
  if (GradMode::is_enabled()) {  // differentiable: one index_add of every column element
    const int64_t numel = s.n * s.c * hp * wp;
    const Tensor positions = arange(numel, TensorOptions().dtype(kLong).device(cols.device()))
                                 .as_strided({s.c, s.kh, s.kw, s.n, s.oh, s.ow}, st)
                                 .reshape({-1});
    Tensor flat = zeros({numel}, cols.options());
    flat.index_add_(0, positions, cols.reshape({-1}));
    return flat.view({s.n, s.c, hp, wp});
  }
  Tensor out = zeros({s.n, s.c, hp, wp}, cols.options());
  const Tensor c6 = cols.view({s.c, s.kh, s.kw, s.n, s.oh, s.ow});
  for (int64_t i = 0; i < s.kh; ++i) {
    for (int64_t j = 0; j < s.kw; ++j) {
      out.as_strided({s.c, s.n, s.oh, s.ow}, {st[0], st[3], st[4], st[5]}, i * st[1] + j * st[2])
          .add_(c6.select(1, i).select(1, j));
    }
  }
  return out;
}

// The interior of a padded [N, C, Hp, Wp] gradient: the input's gradient.
Tensor unpadded(const Tensor& gxp, const ConvShape& s, const ConvParams& p) {
  if (p.padding[0] == 0 && p.padding[1] == 0) return gxp;
  return gxp.narrow(2, p.padding[0], s.h).narrow(3, p.padding[1], s.w).contiguous();
}

// [G * M, K] @ [G * K, N] per group (transposes: of each group's block).
Tensor grouped_mm(const Tensor& a, bool trans_a, const Tensor& b, bool trans_b, int64_t groups) {
  if (groups == 1) return (trans_a ? a.t() : a).mm(trans_b ? b.t() : b);
  Tensor a3 = a.view({groups, a.size(0) / groups, a.size(1)});
  Tensor b3 = b.view({groups, b.size(0) / groups, b.size(1)});
  if (trans_a) a3 = a3.transpose(1, 2);
  if (trans_b) b3 = b3.transpose(1, 2);
  const Tensor r = a3.bmm(b3);
  return r.reshape({groups * r.size(1), r.size(2)});
}

// The arguments of the device's own convolution kernel for one pass over shape `s`.
ops::ConvKernelArgs kernel_args(ops::ConvPass pass, ScalarType dtype, const ConvShape& s, const ConvParams& p) {
  ops::ConvKernelArgs a;
  a.pass = pass;
  a.dtype = dtype;
  a.n = s.n, a.c = s.c, a.h = s.h, a.w = s.w, a.oc = s.oc, a.kh = s.kh, a.kw = s.kw, a.oh = s.oh, a.ow = s.ow;
  a.params = p;
  return a;
}

// The device's own convolution kernel (cpu: oneDNN), or null when it has none or the shape is empty.
const ops::KernelTable* own_kernel(Device device, const ConvShape& s) {
  const ops::KernelTable& k = ops::kernels_for(device);
  if (k.conv2d == nullptr || s.n == 0 || s.c == 0 || s.oc == 0) return nullptr;
  return &k;
}

// The forward computation on a batched input (no recording: the caller records).
Tensor conv2d_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvParams& p) {
  const ConvShape s = shape_of(x.sizes(), weight.sizes(), p);
  if (const ops::KernelTable* k = own_kernel(x.device(), s)) {
    const Tensor xc = x.contiguous(), wc = weight.contiguous(), bc = bias.defined() ? bias.contiguous() : Tensor();
    Tensor out = empty({s.n, s.oc, s.oh, s.ow}, x.options());
    ops::ConvKernelArgs a = kernel_args(ops::ConvPass::Forward, x.dtype(), s, p);
    a.input = xc.data_ptr();
    a.weight = wc.data_ptr();
    a.bias = bc.defined() ? bc.data_ptr() : nullptr;
    a.output = out.data_ptr();
    if (k->conv2d(a, ops::stream_for(x.device()))) return out;
  }
  const Tensor cols = input_columns(x, s, p);
  const Tensor out2d = grouped_mm(weight.reshape({s.oc, -1}), false, cols, false, p.groups);  // [OC, N * L]
  Tensor out = out2d.view({s.oc, s.n, s.oh, s.ow}).permute({1, 0, 2, 3}).contiguous();
  if (bias.defined()) out.add_(bias.view({1, s.oc, 1, 1}));
  return out;
}

ConvParams make_params(IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  ConvParams p;
  expand_param(stride, "stride", 2, p.stride);
  expand_param(padding, "padding", 2, p.padding);
  expand_param(dilation, "dilation", 2, p.dilation);
  p.groups = groups;
  return p;
}

// PyTorch's check of conv2d's input rank.
void check_conv2d_input(const Tensor& input) {
  CTORCH_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4),
               "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: ",
               input.defined() ? input.sizes() : IntArrayRef());
}

Tensor conv2d_checked(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p) {
  check_conv2d_input(input);
  const bool unbatched = input.dim() == 3;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  check_conv(input, x, weight, bias, p);
  Tensor out;
  if (ops::needs_grad({&x, &weight, &bias})) {
    out = ops::recorded(
        ops::GradFn::Conv2d, {&x, &weight, &bias}, [&] { return conv2d_forward(x, weight, bias, p); },
        [&](ops::GradArgs& a) { a.conv = p; });
  } else {
    out = conv2d_forward(x, weight, bias, p);
  }
  return unbatched ? out.squeeze(0) : out;
}

// The transposed convolution of a batched input (no recording): conv2d's input gradient for an
// output of `out_sizes`, which is what a transposed convolution is.
Tensor conv_transpose2d_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvParams& p,
                                IntArrayRef out_sizes) {
  const NoGradGuard no_grad;  // the device's own kernel, nothing recorded
  Tensor out = std::get<0>(ops::conv2d_backward(x, Tensor(), out_sizes, weight, weight.sizes(), p, {true, false, false}));
  if (bias.defined()) out.add_(bias.view({1, bias.size(0), 1, 1}));
  return out;
}

Tensor conv_transpose2d_checked(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p,
                                IntArrayRef output_padding) {
  CTORCH_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4),
               "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: ",
               input.defined() ? input.sizes() : IntArrayRef());
  int64_t op[2];
  expand_param(output_padding, "output_padding", 2, op);
  const bool unbatched = input.dim() == 3;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  check_conv(input, x, weight, bias, p, /*transposed=*/true);
  CTORCH_CHECK(op[0] >= 0 && op[1] >= 0, "negative output_padding is not supported");
  CTORCH_CHECK((op[0] < p.stride[0] || op[0] < p.dilation[0]) && (op[1] < p.stride[1] || op[1] < p.dilation[1]),
               "output padding must be smaller than either stride or dilation, but got output_padding_height: ", op[0],
               " output_padding_width: ", op[1], " stride_height: ", p.stride[0], " stride_width: ", p.stride[1],
               " dilation_height: ", p.dilation[0], " dilation_width: ", p.dilation[1]);
  int64_t out_hw[2];
  for (int i = 0; i < 2; ++i) {
    out_hw[i] = (x.size(2 + i) - 1) * p.stride[i] - 2 * p.padding[i] + p.dilation[i] * (weight.size(2 + i) - 1) +
                op[i] + 1;
  }
  CTORCH_CHECK(out_hw[0] >= 1 && out_hw[1] >= 1, "Given input size per channel: (", x.size(2), " x ", x.size(3),
               "). Calculated output size per channel: (", out_hw[0], " x ", out_hw[1], "). Output size is too small");
  const std::array<int64_t, 4> out_sizes{x.size(0), weight.size(1) * p.groups, out_hw[0], out_hw[1]};
  Tensor out;
  if (ops::needs_grad({&x, &weight, &bias})) {
    out = ops::recorded(
        ops::GradFn::ConvTranspose2d, {&x, &weight, &bias},
        [&] { return conv_transpose2d_forward(x, weight, bias, p, out_sizes); }, [&](ops::GradArgs& a) { a.conv = p; });
  } else {
    out = conv_transpose2d_forward(x, weight, bias, p, out_sizes);
  }
  return unbatched ? out.squeeze(0) : out;
}

}  // namespace

namespace ops {

std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad, const Tensor& input, IntArrayRef input_sizes,
                                                   const Tensor& weight, IntArrayRef weight_sizes,
                                                   const ConvParams& p, std::array<bool, 3> wanted) {
  ConvShape s = shape_of(input_sizes, weight_sizes, p);
  s.oh = grad.size(2), s.ow = grad.size(3);  // a transposed conv's output padding may leave rows unread
  Tensor grad_input, grad_weight, grad_bias;
  const ops::KernelTable* k = GradMode::is_enabled() ? nullptr : own_kernel(grad.device(), s);
  if (k != nullptr) {  // the device's own kernels; what they do not cover falls through
    const Tensor gc = grad.contiguous();
    const Stream stream = ops::stream_for(grad.device());
    if (wanted[0]) {
      const Tensor wc = weight.contiguous();
      Tensor gi = empty(input_sizes, grad.options());
      ops::ConvKernelArgs a = kernel_args(ops::ConvPass::BackwardData, grad.dtype(), s, p);
      a.grad_output = gc.data_ptr();
      a.weight = wc.data_ptr();
      a.grad_input = gi.data_ptr();
      if (k->conv2d(a, stream)) grad_input = gi, wanted[0] = false;
    }
    if (wanted[1]) {
      const Tensor xc = input.contiguous();
      Tensor gw = empty(weight_sizes, grad.options());
      Tensor gb = wanted[2] ? empty({s.oc}, grad.options()) : Tensor();
      ops::ConvKernelArgs a = kernel_args(ops::ConvPass::BackwardWeights, grad.dtype(), s, p);
      a.input = xc.data_ptr();
      a.grad_output = gc.data_ptr();
      a.grad_weight = gw.data_ptr();
      a.grad_bias = gb.defined() ? gb.data_ptr() : nullptr;
      if (k->conv2d(a, stream)) {
        grad_weight = gw, wanted[1] = false;
        if (gb.defined()) grad_bias = gb, wanted[2] = false;
      }
    }
  }
  const Tensor g2d = wanted[0] || wanted[1] ? grad.permute({1, 0, 2, 3}).reshape({s.oc, s.n * s.oh * s.ow})
                                            : Tensor();  // [OC, N * L]
  if (wanted[0]) {
    const Tensor cols = grouped_mm(weight.reshape({s.oc, -1}), true, g2d, false, p.groups);  // [C * KK, N * L]
    grad_input = s.n * s.c > 0 ? columns_kernel(true, cols, {s.n, s.c, s.h, s.w}, s, p) : Tensor();
    if (!grad_input.defined()) grad_input = unpadded(col2im(cols, s, p), s, p);
  }
  if (wanted[1]) {
    const Tensor cols = input_columns(input, s, p);
    grad_weight = grouped_mm(g2d, false, cols, true, p.groups).view(weight_sizes);
  }
  // The bias's gradient: over the rows of [OC, N * L] when they exist (a contiguous reduction).
  if (wanted[2]) grad_bias = g2d.defined() ? g2d.sum({1}) : grad.sum({0, 2, 3});
  return {grad_input, grad_weight, grad_bias};
}

std::tuple<Tensor, Tensor, Tensor> conv_transpose2d_backward(const Tensor& grad, const Tensor& input,
                                                             IntArrayRef input_sizes, const Tensor& weight, IntArrayRef weight_sizes,
                                                             const ConvParams& p, std::array<bool, 3> wanted) {
  Tensor grad_input, grad_weight, grad_bias;
  if (wanted[0]) {  // the forward convolution of the gradient (recorded under create_graph)
    const Tensor gi = conv2d_checked(grad, weight, Tensor(), p);
    grad_input = gi.narrow(2, 0, input_sizes[2]).narrow(3, 0, input_sizes[3]);  // rows of an output padding >= stride
  }
  if (wanted[1]) {  // conv2d's weight gradient with the roles of input and output swapped
    grad_weight = std::get<1>(conv2d_backward(input, grad, grad.sizes(), Tensor(), weight_sizes, p, {false, true, false}));
  }
  if (wanted[2]) grad_bias = grad.sum({0, 2, 3});
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace ops

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  return conv2d_checked(input, weight, bias, make_params(stride, padding, dilation, groups));
}

Tensor conv2d_padding_mode(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                           std::string_view padding, IntArrayRef dilation, int64_t groups) {
  CTORCH_CHECK(padding == "valid" || padding == "same", "Invalid padding string: '", padding, "'");
  ConvParams p = make_params(stride, {0}, dilation, groups);
  if (padding == "valid") return conv2d_checked(input, weight, bias, p);
  CTORCH_CHECK(p.stride[0] == 1 && p.stride[1] == 1, "padding='same' is not supported for strided convolutions");
  check_conv2d_input(input);
  CTORCH_CHECK(weight.defined() && weight.dim() == 4, "expected a 4-dimensional weight for conv2d, but got weight of size ",
               weight.defined() ? weight.sizes() : IntArrayRef());
  // PyTorch's _convolution_mode: symmetric padding, and one extra row/column on the far side
  // when the total is odd (an asymmetric pad of the input first).
  Tensor x = input;
  for (int i = 0; i < 2; ++i) {
    const int64_t total = p.dilation[i] * (weight.size(2 + i) - 1);
    p.padding[i] = total / 2;
    if (total % 2 != 0) x = ops::pad_dim(x, input.dim() - 2 + i, 0, 1, 0.0);
  }
  return conv2d_checked(x, weight, bias, p);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  CTORCH_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
               "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: ",
               input.defined() ? input.sizes() : IntArrayRef());
  CTORCH_CHECK(weight.defined() && weight.dim() == 3, "expected a 3-dimensional weight for conv1d, but got weight of size ",
               weight.defined() ? weight.sizes() : IntArrayRef());
  int64_t st[1], pad[1], dil[1];
  expand_param(stride, "stride", 1, st);
  expand_param(padding, "padding", 1, pad);
  expand_param(dilation, "dilation", 1, dil);
  const int64_t h_dim = input.dim() - 1;  // the length L becomes [1, L]
  const Tensor out = conv2d_checked(input.unsqueeze(h_dim), weight.unsqueeze(2), bias,
                                    make_params({1, st[0]}, {0, pad[0]}, {1, dil[0]}, groups));
  return out.squeeze(h_dim);
}


Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_transpose2d_checked(input, weight, bias, make_params(stride, padding, dilation, groups), output_padding);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  CTORCH_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
               "Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of size: ",
               input.defined() ? input.sizes() : IntArrayRef());
  CTORCH_CHECK(weight.defined() && weight.dim() == 3,
               "expected a 3-dimensional weight for conv_transpose1d, but got weight of size ",
               weight.defined() ? weight.sizes() : IntArrayRef());
  int64_t st[1], pad[1], opad[1], dil[1];
  expand_param(stride, "stride", 1, st);
  expand_param(padding, "padding", 1, pad);
  expand_param(output_padding, "output_padding", 1, opad);
  expand_param(dilation, "dilation", 1, dil);
  const int64_t h_dim = input.dim() - 1;  // the length L becomes [1, L]
  const Tensor out = conv_transpose2d_checked(input.unsqueeze(h_dim), weight.unsqueeze(2), bias,
                                              make_params({1, st[0]}, {0, pad[0]}, {1, dil[0]}, groups), {0, opad[0]});
  return out.squeeze(h_dim);
}

}  // namespace ctorch::api
