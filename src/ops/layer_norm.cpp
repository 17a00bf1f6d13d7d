// Layer normalization (torch.layer_norm) and its gradients.
//
// Note [Layer normalization]
// - layer_norm is one recorded op (GradFn::LayerNorm, node NativeLayerNormBackward0 as PyTorch's):
//   the input is seen as [M, N] rows (N the product of normalized_shape), and the node keeps each
//   row's mean and biased variance ([M]); its gradient is one entry of the gradient table.
// - float32 and float64 run the device's kernel (the KernelTable's layer_norm slot), forward and
//   backward: on the cpu oneDNN for float32 (backends/cpu/onednn_norm.cpp), otherwise the block
//   kernels of Note [Normalization kernels] (kernels/norm_functors.h: one block per row). Other
//   dtypes, a bias without a weight and backwards under create_graph take the generic path: row
//   means and variances as reductions and one scale-and-shift, with the device's kernels.
// - Backward: with xhat = (x - mean) * invstd and gxhat = g * w, gx = invstd * (gxhat - mean(gxhat)
//   - xhat * mean(gxhat * xhat)) over each row, gw = sum over rows of g * xhat, gb = sum of g. Under
//   create_graph the statistics are recomputed from the input with recorded ops (exact second
//   derivatives), as batch norm's (Note [Batch normalization]).
#include <sstream>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/normalization.h"
#include "ctorch/ops.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"
#include "ops/norm.h"

namespace ctorch::inline api {

namespace {

struct Rows {
  int64_t m, n;
};

Rows rows_of(const Tensor& x, int64_t normalized_ndim) {
  int64_t n = 1;
  for (int64_t d = x.dim() - normalized_ndim; d < x.dim(); ++d) n *= x.size(d);
  return {n == 0 ? 0 : x.numel() / n, n};
}

// The device's own kernel for float32 or float64 rows, or null.
const ops::KernelTable* own_kernel(const Tensor& x, const Tensor& w, const Tensor& b) {
  const ops::KernelTable& k = ops::kernels_for(x.device());
  const ScalarType t = x.dtype();
  if (k.layer_norm == nullptr || x.numel() == 0 || (t != kFloat && t != kDouble)) return nullptr;
  if ((w.defined() && w.dtype() != t) || (b.defined() && b.dtype() != t)) return nullptr;
  if (b.defined() && !w.defined()) return nullptr;  // the kernel shifts only with a scale
  return &k;
}

struct Forward {
  Tensor out, mean, var;
};

Forward ln_forward(const Tensor& x, const Tensor& w, const Tensor& b, int64_t normalized_ndim, double eps) {
  const Rows r = rows_of(x, normalized_ndim);
  if (const ops::KernelTable* k = own_kernel(x, w, b)) {
    const Tensor xc = x.contiguous(), wc = w.defined() ? w.contiguous() : Tensor(), bc = b.defined() ? b.contiguous() : Tensor();
    Forward f{empty(x.sizes(), x.options()), empty({r.m}, x.options()), empty({r.m}, x.options())};
    ops::LayerNormKernelArgs a;
    a.dtype = x.dtype();
    a.m = r.m, a.n = r.n, a.eps = eps;
    a.input = xc.data_ptr();
    a.weight = wc.defined() ? wc.data_ptr() : nullptr;
    a.bias = bc.defined() ? bc.data_ptr() : nullptr;
    a.mean = f.mean.data_ptr();
    a.var = f.var.data_ptr();
    a.output = f.out.data_ptr();
    if (k->layer_norm(a, ops::stream_for(x.device()))) return f;
  }
  const Tensor x2 = x.reshape({r.m, r.n});
  Forward f;
  f.mean = x2.mean(IntArrayRef{1});
  f.var = x2.var(IntArrayRef{1}, /*correction=*/0);
  Tensor out = (x2 - f.mean.unsqueeze(1)) * (f.var + eps).rsqrt().unsqueeze(1);
  if (w.defined()) out = out * w.reshape({1, r.n});
  if (b.defined()) out = out + b.reshape({1, r.n});
  f.out = out.view(x.sizes());
  return f;
}

// PyTorch's _check_layer_norm_inputs, with its texts.
void check_layer_norm(const Tensor& input, IntArrayRef shape, const Tensor& weight, const Tensor& bias) {
  CTORCH_CHECK(input.defined(), "layer_norm: expected a defined input");
  CTORCH_CHECK(!shape.empty(), "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
               "element, but got normalized_shape = ", shape);
  CTORCH_CHECK(!weight.defined() || weight.sizes() == shape, "Expected weight to be of same shape as "
               "normalized_shape, but got weight of shape ", weight.sizes(), " and normalized_shape = ", shape);
  CTORCH_CHECK(!bias.defined() || bias.sizes() == shape, "Expected bias to be of same shape as normalized_shape, but "
               "got bias of shape ", bias.sizes(), " and normalized_shape = ", shape);
  const auto nd = static_cast<int64_t>(shape.size());
  bool matches = input.dim() >= nd;
  for (int64_t i = 0; matches && i < nd; ++i) matches = input.size(input.dim() - nd + i) == shape[static_cast<size_t>(i)];
  if (!matches) {
    std::ostringstream ss;
    ss << "Given normalized_shape=" << shape << ", expected input with shape [*";
    for (int64_t s : shape) ss << ", " << s;
    ss << "], but got input of size" << input.sizes();
    CTORCH_CHECK(false, ss.str());
  }
  for (const Tensor* t : {&weight, &bias}) {
    CTORCH_CHECK_DEVICE(!t->defined() || t->device() == input.device(), "Expected all tensors to be on the same "
                        "device, but found at least two devices, ", input.device(), " and ", t->device(), "!");
  }
  CTORCH_CHECK(is_floating_point(input.dtype()), "\"LayerNormKernelImpl\" not implemented for '",
               scalar_type_cpp_name(input.dtype()), "'");
}

}  // namespace

namespace ops {

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& var, double eps,
                                                       int64_t normalized_ndim, std::array<bool, 3> wanted) {
  const Rows r = rows_of(input, normalized_ndim);
  const ScalarType t = input.dtype();
  const bool floats = grad.dtype() == t && mean.dtype() == t && var.dtype() == t &&
                      (weight.defined() || (!wanted[1] && !wanted[2]));  // the kernel's gw, gb come with a weight
  if (const KernelTable* k = !GradMode::is_enabled() && floats ? own_kernel(input, weight, Tensor()) : nullptr) {
    const Tensor xc = input.contiguous(), gc = grad.contiguous(), wc = weight.defined() ? weight.contiguous() : Tensor();
    const Tensor mc = mean.contiguous(), vc = var.contiguous();
    Tensor gi = empty(input.sizes(), input.options());
    Tensor gw = wc.defined() ? empty(wc.sizes(), input.options()) : Tensor();
    Tensor gb = wc.defined() ? empty(wc.sizes(), input.options()) : Tensor();
    LayerNormKernelArgs a;
    a.backward = true;
    a.dtype = input.dtype();
    a.m = r.m, a.n = r.n, a.eps = eps;
    a.input = xc.data_ptr();
    a.weight = wc.defined() ? wc.data_ptr() : nullptr;
    a.mean = const_cast<void*>(mc.data_ptr());
    a.var = const_cast<void*>(vc.data_ptr());
    a.grad_output = gc.data_ptr();
    a.grad_input = gi.data_ptr();
    a.grad_weight = gw.defined() ? gw.data_ptr() : nullptr;
    a.grad_bias = gb.defined() ? gb.data_ptr() : nullptr;
    if (k->layer_norm(a, stream_for(grad.device()))) {
      return {wanted[0] ? gi : Tensor(), wanted[1] ? gw : Tensor(), wanted[2] ? gb : Tensor()};
    }
  }
  const Tensor x2 = input.reshape({r.m, r.n}), g2 = grad.reshape({r.m, r.n});
  Tensor m = mean, v = var;
  if (GradMode::is_enabled()) {  // create_graph: the statistics as functions of the input
    m = x2.mean(IntArrayRef{1});
    v = x2.var(IntArrayRef{1}, /*correction=*/0);
  }
  const Tensor invstd = (v + eps).rsqrt().unsqueeze(1);
  const Tensor xhat = (x2 - m.unsqueeze(1)) * invstd;
  Tensor gi, gw, gb;
  if (wanted[0]) {
    const Tensor gxhat = weight.defined() ? g2 * weight.reshape({1, r.n}) : g2;
    gi = (invstd * (gxhat - gxhat.mean(IntArrayRef{1}, /*keepdim=*/true) -
                    xhat * (gxhat * xhat).mean(IntArrayRef{1}, /*keepdim=*/true)))
             .reshape(input.sizes());
  }
  DimVector shape;
  for (int64_t d = input.dim() - normalized_ndim; d < input.dim(); ++d) shape.push_back(input.size(d));
  if (wanted[1]) gw = (g2 * xhat).sum(IntArrayRef{0}).view(shape);
  if (wanted[2]) gb = g2.sum(IntArrayRef{0}).view(shape);
  return {gi, gw, gb};
}

}  // namespace ops

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps, bool /*cudnn_enable*/) {
  check_layer_norm(input, normalized_shape, weight, bias);
  const auto nd = static_cast<int64_t>(normalized_shape.size());
  if (!ops::needs_grad({&input, &weight, &bias})) {
    NoGradGuard no_grad;
    return ln_forward(input, weight, bias, nd, eps).out;
  }
  Forward f;
  return ops::recorded(
      ops::GradFn::LayerNorm, {&input, &weight, &bias},
      [&] {
        f = ln_forward(input, weight, bias, nd, eps);
        return f.out;
      },
      [&](ops::GradArgs& a) {
        a.stats[0] = f.mean;
        a.stats[1] = f.var;
        a.p = eps;
        a.dim = nd;
        a.has_weight = weight.defined();
      });
}

}  // namespace ctorch::api
