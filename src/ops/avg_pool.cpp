// avg_pool2d and adaptive_avg_pool2d (torch.nn.functional's) and their gradient.
//
// Note [Average pooling]
// - Each is one recorded op (GradFn::AvgPool2d, node AvgPool2DBackward0; GradFn::AdaptiveAvgPool2d,
//   node AdaptiveAvgPool2DBackward0). Floating dtypes run the device's kernel, forward and backward
//   (the KernelTable's avg_pool2d slot: every backend's is the one of Note [Pooling kernels] in
//   kernels/pool_functors.h). The composition below runs the rest (integers on the cpu, a backend
//   without the slot) and every backward under create_graph, so second derivatives flow:
//   - avg_pool2d: the input (zero-padded only when the padding or a ceil_mode window needs it) read
//     through strided views (as_strided, no copy): windows of up to 9 elements add their KH * KW
//     element views [N, C, OH, OW] in PyTorch's order (bit for bit its sums), larger ones reduce each
//     window row, then the rows. The sums are divided by each position's divisor. PyTorch's divisor
//     (the window's extent inside the padded input, or inside the input without count_include_pad, or
//     divisor_override) is a row factor times a column factor: a scalar when every window has the
//     same one, else one [OH, OW] tensor, made when the composition needs it.
//   - adaptive_avg_pool2d: output 1x1 is input.mean({-1, -2}, keepdim), PyTorch's own shortcut (its
//     node is MeanBackward1 there too); sizes that are multiples of the output are avg_pool2d with
//     kernel = stride = in / out; other sizes are two matrix products with 0/1 window-membership
//     matrices, Mh @ x @ Mw^T, divided by the window sizes (exact sums for integer-valued inputs, as
//     PyTorch's loop).
//   - Half and bfloat16 sum and divide in float and round once (PyTorch's accumulate type).
// - The composed gradient divides the output's gradient by the divisor and spreads it over the
//   windows one spatial dim at a time: where windows are regular and do not overlap (stride >= kernel,
//   adaptive sizes that divide) by expanding each value over its window, else by a product with the
//   membership matrix (the padding's share is dropped), with ordinary recorded ops.
#include <algorithm>
#include <vector>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ctorch/pooling.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"
#include "ops/pad.h"
#include "ops/pool.h"

namespace ctorch::inline api {

namespace {

using ops::PoolArgs;

// The windows along one spatial dim, clipped to the input [0, in).
struct Axis {
  int64_t in, out, k, s, p;
  bool adaptive;
  int64_t start(int64_t o) const { return adaptive ? o * in / out : std::max<int64_t>(o * s - p, 0); }
  int64_t end(int64_t o) const { return adaptive ? ((o + 1) * in + out - 1) / out : std::min(o * s - p + k, in); }
  // Evenly spaced windows that do not overlap: each input element is in at most one.
  bool regular() const { return adaptive ? in % out == 0 : s >= k; }
};

Axis axis_of(const PoolArgs& a, int64_t in, int d) {
  return Axis{in, a.out[d], a.kernel[d], a.stride[d], a.padding[d], a.adaptive};
}

// Half and bfloat16 accumulate in float (PyTorch's acc_type on the cpu).
ScalarType compute_dtype(ScalarType t) { return t == kHalf || t == kBFloat16 ? kFloat : t; }

// PyTorch's divide factor along one dim: the window's extent inside the padded input
// (count_include_pad; ceil_mode windows may run past it) or inside the input.
std::vector<double> factors(const Axis& x, bool count_include_pad) {
  std::vector<double> f(static_cast<size_t>(x.out));
  for (int64_t o = 0; o < x.out; ++o) {
    const int64_t hs = o * x.s - x.p;
    f[static_cast<size_t>(o)] = static_cast<double>(!x.adaptive && count_include_pad ? std::min(hs + x.k, x.in + x.p) - hs
                                                                                     : x.end(o) - x.start(o));
  }
  return f;
}

// The divisor of every output position: a scalar when all are equal, else an [OH, OW] tensor.
struct Divisor {
  Tensor tensor;  ///< [OH, OW] in the compute dtype, or undefined: `scalar` everywhere
  double scalar = 1;
};

Divisor divisor_of(const PoolArgs& a, int64_t h, int64_t w, Device device, ScalarType dtype) {
  if (a.divisor_override != 0) return Divisor{Tensor(), static_cast<double>(a.divisor_override)};
  const std::vector<double> fh = factors(axis_of(a, h, 0), a.count_include_pad);
  const std::vector<double> fw = factors(axis_of(a, w, 1), a.count_include_pad);
  const bool same_h = std::all_of(fh.begin(), fh.end(), [&](double v) { return v == fh[0]; });
  const bool same_w = std::all_of(fw.begin(), fw.end(), [&](double v) { return v == fw[0]; });
  if (fh.empty() || fw.empty() || (same_h && same_w)) {
    return Divisor{Tensor(), fh.empty() || fw.empty() ? 1.0 : fh[0] * fw[0]};
  }
  std::vector<double> d;
  d.reserve(fh.size() * fw.size());
  for (double r : fh) {
    for (double c : fw) d.push_back(r * c);
  }
  return Divisor{tensor(d).view({a.out[0], a.out[1]}).to(device, dtype), 1.0};
}

// sums / divisor (integers: truncated, as PyTorch's integer kernel).
Tensor divided(const Tensor& sums, const Divisor& d) {
  if (!is_floating_point(sums.dtype())) {
    return d.tensor.defined() ? sums.div(d.tensor, std::string("trunc"))
                              : sums.div(Scalar(static_cast<int64_t>(d.scalar)), std::string("trunc"));
  }
  return d.tensor.defined() ? sums.div(d.tensor) : sums.div(Scalar(d.scalar));
}

// The device's own kernel (Note [Pooling kernels]) over `planes` planes: forward reads `src` [.., H, W] and
// writes `dst` [.., OH, OW], backward the reverse. False when there is none for this dtype.
bool pool_kernel(const PoolArgs& a, bool backward, int64_t planes, int64_t h, int64_t w, const Tensor& src,
                 const Tensor& dst) {
  const ops::KernelTable& k = ops::kernels_for(src.device());
  if (k.avg_pool2d == nullptr || planes == 0 || !is_floating_point(src.dtype())) return false;
  ops::AvgPoolKernelArgs args;
  args.backward = backward;
  args.adaptive = a.adaptive;
  args.count_include_pad = a.count_include_pad;
  args.divisor_override = a.divisor_override;
  args.dtype = src.dtype();
  args.planes = planes, args.h = h, args.w = w, args.oh = a.out[0], args.ow = a.out[1];
  for (int i = 0; i < 2; ++i) args.kernel[i] = a.kernel[i], args.stride[i] = a.stride[i], args.padding[i] = a.padding[i];
  (backward ? args.grad_output : args.input) = src.data_ptr();
  (backward ? args.grad_input : args.output) = dst.data_ptr();
  return k.avg_pool2d(args, ops::stream_for(src.device()));
}

// The sum over each window of x [N, C, H, W] (zeros outside), from strided views of the (padded) input.
Tensor window_sums(const Tensor& x, const PoolArgs& a, ScalarType dtype) {
  const int64_t h = x.size(2), w = x.size(3), oh = a.out[0], ow = a.out[1], kh = a.kernel[0], kw = a.kernel[1];
  const int64_t right_h = std::max<int64_t>((oh - 1) * a.stride[0] + kh - h - a.padding[0], 0);
  const int64_t right_w = std::max<int64_t>((ow - 1) * a.stride[1] + kw - w - a.padding[1], 0);
  Tensor xp = x.to(dtype);
  if (a.padding[0] + right_h + a.padding[1] + right_w > 0) {
    xp = ops::pad_dim(ops::pad_dim(xp, 3, a.padding[1], right_w, 0.0), 2, a.padding[0], right_h, 0.0).contiguous();
  }
  const int64_t n = xp.size(0), c = xp.size(1), sn = xp.stride(0), sc = xp.stride(1), sh = xp.stride(2),
                sw = xp.stride(3);
  if (kh * kw <= 9) {
    // Small windows: the window's elements as KH * KW strided views [N, C, OH, OW], added in PyTorch's
    // order (row by row), so sums round as its loop's.
    auto element = [&](int64_t i, int64_t j) {
      return xp.as_strided({n, c, oh, ow}, {sn, sc, sh * a.stride[0], sw * a.stride[1]},
                           xp.storage_offset() + i * sh + j * sw);
    };
    Tensor sum = kh * kw == 1 ? element(0, 0).clone() : element(0, 0) + element(kw > 1 ? 0 : 1, kw > 1 ? 1 : 0);
    for (int64_t k = 2; k < kh * kw; ++k) sum.add_(element(k / kw, k % kw));
    return sum;
  }
  // Larger windows: each window row summed (a reduction over KW), then the KH row sums.
  const int64_t rows_needed = (oh - 1) * a.stride[0] + kh;
  const Tensor rows = xp.as_strided({n, c, rows_needed, ow, kw}, {sn, sc, sh, sw * a.stride[1], sw}, xp.storage_offset())
                          .sum(IntArrayRef{4});
  return rows.as_strided({n, c, oh, ow, kh}, {rows.stride(0), rows.stride(1), rows.stride(2) * a.stride[0],
                                               rows.stride(3), rows.stride(2)})
      .sum(IntArrayRef{4});
}

// The 0/1 matrix [out, in] whose row o marks window o.
Tensor membership(const Axis& x, Device device, ScalarType dtype) {
  std::vector<double> m(static_cast<size_t>(x.out * x.in), 0.0);
  for (int64_t o = 0; o < x.out; ++o) {
    for (int64_t i = x.start(o); i < x.end(o); ++i) m[static_cast<size_t>(o * x.in + i)] = 1.0;
  }
  return tensor(m).view({x.out, x.in}).to(device, dtype);
}

// t [P, A, B] times m [A, A2] along dim 1, or m [B, B2] along dim 2.
Tensor times_along(const Tensor& t, int64_t dim, const Tensor& m) {
  const int64_t planes = t.size(0), a = t.size(1), b = t.size(2);
  if (dim == 2) return t.reshape({planes * a, b}).mm(m).view({planes, a, m.size(1)});
  return t.transpose(1, 2).reshape({planes * b, a}).mm(m).view({planes, b, m.size(1)}).transpose(1, 2);
}

// t with x.out at `dim`: each value repeated over its (regular) window, x.in at `dim`.
Tensor spread(const Tensor& t, int64_t dim, const Axis& x) {
  DimVector sizes(t.sizes());
  Tensor e = t.unsqueeze(dim + 1);
  DimVector expanded(e.sizes());
  expanded[static_cast<size_t>(dim + 1)] = x.k;
  e = ops::pad_dim(e.expand(expanded), dim + 1, 0, x.s - x.k, 0.0);  // gaps between windows: zeros
  sizes[static_cast<size_t>(dim)] = x.out * x.s;
  e = e.reshape(sizes);  // padded coordinates [0, out * s)
  const int64_t take = std::min(x.in, std::max<int64_t>(x.out * x.s - x.p, 0));
  return ops::pad_dim(e.narrow(dim, x.p, take), dim, 0, x.in - take, 0.0);
}

// Records `out` as produced by `fn` from `input` when it needs a gradient.
void record(ops::GradFn fn, const Tensor& input, Tensor& out, const PoolArgs& a) {
  if (!ops::needs_grad({&input})) return;
  if (ops::GradRecorder* r = ops::grad_recorder()) {
    ops::GradArgs args;
    args.pool = a;
    r->record(fn, {&input}, out, args);
  }
}

// PyTorch's dtypes for each device (its cpu and CUDA kernels' dispatch lists).
void check_dtype(const Tensor& input, const char* op, bool integers_on_cpu) {
  const ScalarType t = input.dtype();
  const bool cpu = input.device().is_cpu();
  const bool ok = t == kFloat || t == kDouble || t == kBFloat16 || (t == kHalf && !cpu) ||
                  (t == kLong && cpu && integers_on_cpu);
  CTORCH_CHECK(ok, "\"", op, "\" not implemented for '", scalar_type_cpp_name(t), "'");
}

// One dim's output size with pooling_output_shape's checks.
int64_t checked_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, bool ceil_mode) {
  CTORCH_CHECK(stride != 0, "stride should not be zero");
  CTORCH_CHECK(pad >= 0, "pad must be non-negative, but got pad: ", pad);
  CTORCH_CHECK(pad <= k / 2, "pad should be at most half of kernel size, but got pad=", pad, " and kernel_size=", k);
  return ops::pooling_output_size(in, k, pad, stride, 1, ceil_mode);
}

}  // namespace

Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  // PyTorch's checks in its order (avg_pool2d's meta function, pooling_output_shape, pool2d_shape_check).
  PoolArgs a;
  ops::pooling_pair(kernel_size, "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints",
                    a.kernel);
  if (stride.empty()) {
    a.stride[0] = a.kernel[0], a.stride[1] = a.kernel[1];
  } else {
    ops::pooling_pair(stride, "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
                      a.stride);
  }
  ops::pooling_pair(padding, "avg_pool2d: padding must either be a single int, or a tuple of two ints", a.padding);
  CTORCH_CHECK(!divisor_override.has_value() || *divisor_override != 0, "divisor must be not zero");
  CTORCH_CHECK(input.defined(), "avg_pool2d: expected a defined input");
  const int64_t planes_in = input.size(-3), h = input.size(-2), w = input.size(-1);
  a.out[0] = checked_output_size(h, a.kernel[0], a.padding[0], a.stride[0], ceil_mode);
  a.out[1] = checked_output_size(w, a.kernel[1], a.padding[1], a.stride[1], ceil_mode);
  CTORCH_CHECK(a.kernel[0] > 0 && a.kernel[1] > 0, "kernel size should be greater than zero, but got kH: ",
               a.kernel[0], " kW: ", a.kernel[1]);
  CTORCH_CHECK(a.stride[0] > 0 && a.stride[1] > 0, "stride should be greater than zero, but got dH: ", a.stride[0],
               " dW: ", a.stride[1]);
  const int64_t nd = input.dim();
  const bool valid_dims = input.size(1) != 0 && input.size(2) != 0;
  CTORCH_CHECK((nd == 3 && input.size(0) != 0 && valid_dims) || (nd == 4 && valid_dims && input.size(3) != 0),
               "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:",
               input.sizes());
  CTORCH_CHECK(a.kernel[1] / 2 >= a.padding[1] && a.kernel[0] / 2 >= a.padding[0],
               "pad should be smaller than or equal to half of kernel size, but got padW = ", a.padding[1],
               ", padH = ", a.padding[0], ", kW = ", a.kernel[1], ", kH = ", a.kernel[0]);
  CTORCH_CHECK(a.out[0] >= 1 && a.out[1] >= 1, "Given input size: (", planes_in, "x", h, "x", w,
               "). Calculated output size: (", planes_in, "x", a.out[0], "x", a.out[1], "). Output size is too small");
  check_dtype(input, "avg_pool2d", /*integers_on_cpu=*/true);

  a.count_include_pad = count_include_pad;
  a.divisor_override = divisor_override.value_or(0);
  const ScalarType dtype = compute_dtype(input.dtype());
  Tensor out;
  {
    AutoGradMode off(false);
    const Tensor x = nd == 3 ? input.unsqueeze(0) : input;
    const int64_t planes = x.size(0) * x.size(1);
    out = empty({x.size(0), x.size(1), a.out[0], a.out[1]}, x.options());
    if (!pool_kernel(a, /*backward=*/false, planes, h, w, x.contiguous(), out)) {
      out = divided(window_sums(x, a, dtype), divisor_of(a, h, w, input.device(), dtype)).to(input.dtype());
    }
    if (nd == 3) out = out.squeeze(0);
  }
  record(ops::GradFn::AvgPool2d, input, out, a);
  return out;
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  CTORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  CTORCH_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
               "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {",
               output_size[0], ", ", output_size[1], "}");
  CTORCH_CHECK(input.defined(), "adaptive_avg_pool2d: expected a defined input");
  // PyTorch's shortcut for global pooling, before its other checks (a mean over the last two dims).
  if (output_size[0] == 1 && output_size[1] == 1) return input.mean(IntArrayRef{-1, -2}, /*keepdim=*/true);
  const int64_t nd = input.dim();
  CTORCH_CHECK(nd == 3 || nd == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ", input.sizes());
  for (int64_t d : {nd - 2, nd - 1}) {
    CTORCH_CHECK(input.size(d) > 0,
                 "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has "
                 "sizes ",
                 input.sizes(), " with dimension ", d, " being empty");
  }
  check_dtype(input, "adaptive_avg_pool2d", /*integers_on_cpu=*/false);

  const int64_t h = input.size(-2), w = input.size(-1);
  PoolArgs a;
  a.adaptive = true;
  a.out[0] = output_size[0], a.out[1] = output_size[1];
  for (int d = 0; d < 2; ++d) {  // a size that divides: windows of kernel = stride = in / out
    const int64_t in = d == 0 ? h : w;
    if (a.out[d] > 0 && in % a.out[d] == 0) a.kernel[d] = a.stride[d] = in / a.out[d];
  }
  const ScalarType dtype = compute_dtype(input.dtype());
  Tensor out;
  {
    AutoGradMode off(false);
    const Tensor x = nd == 3 ? input.unsqueeze(0) : input;
    const int64_t n = x.size(0), c = x.size(1);
    const Axis rows = axis_of(a, h, 0), cols = axis_of(a, w, 1);
    out = empty({n, c, a.out[0], a.out[1]}, x.options());
    if (a.out[0] == 0 || a.out[1] == 0 || n * c == 0 || pool_kernel(a, false, n * c, h, w, x.contiguous(), out)) {
      // empty, or computed by the device's kernel
    } else if (rows.regular() && cols.regular()) {  // avg_pool2d with kernel = stride = in / out
      out = divided(window_sums(x, a, dtype), divisor_of(a, h, w, input.device(), dtype)).to(input.dtype());
    } else {
      const Tensor planes = x.reshape({n * c, h, w}).to(dtype);
      const Tensor sums = times_along(times_along(planes, 2, membership(cols, input.device(), dtype).t()), 1,
                                      membership(rows, input.device(), dtype).t());
      out = divided(sums, divisor_of(a, h, w, input.device(), dtype)).to(input.dtype()).reshape({n, c, a.out[0], a.out[1]});
    }
    if (nd == 3) out = out.squeeze(0);
  }
  record(ops::GradFn::AdaptiveAvgPool2d, input, out, a);
  return out;
}

namespace ops {

Tensor avg_pool2d_backward(const Tensor& grad, IntArrayRef input_sizes, const PoolArgs& a) {
  const size_t nd = input_sizes.size();  // [N, C, H, W] or [C, H, W]
  const int64_t h = input_sizes[nd - 2], w = input_sizes[nd - 1];
  int64_t planes = 1;
  for (size_t i = 0; i + 2 < nd; ++i) planes *= input_sizes[i];
  if (planes == 0 || a.out[0] == 0 || a.out[1] == 0) return zeros(input_sizes, grad.options());
  if (!GradMode::is_enabled()) {
    Tensor out = empty(input_sizes, grad.options());
    if (pool_kernel(a, /*backward=*/true, planes, h, w, grad.contiguous(), out)) return out;
  }
  const ScalarType dtype = compute_dtype(grad.dtype());
  Tensor g = grad.reshape({planes, a.out[0], a.out[1]}).to(dtype);
  const Divisor d = divisor_of(a, h, w, grad.device(), dtype);
  g = d.tensor.defined() ? g / d.tensor : g / d.scalar;
  // Columns first ([P, OH, OW] -> [P, OH, W]), then rows (-> [P, H, W]).
  const Axis rows = axis_of(a, h, 0), cols = axis_of(a, w, 1);
  g = cols.regular() ? spread(g, 2, cols) : times_along(g, 2, membership(cols, grad.device(), dtype));
  g = rows.regular() ? spread(g, 1, rows) : times_along(g, 1, membership(rows, grad.device(), dtype));
  return g.reshape(input_sizes).to(grad.dtype());
}

}  // namespace ops

}  // namespace ctorch::api
