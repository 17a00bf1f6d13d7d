// Batch normalization (torch.batch_norm) and its gradients.
//
// Note [Batch normalization]
// - batch_norm is one recorded op (GradFn::BatchNorm, node NativeBatchNormBackward0 as PyTorch's
//   cpu one): the node keeps the statistics the forward used (the batch's mean and biased variance
//   in training, the running ones in eval) and its gradient is one entry of the gradient table.
// - float32 and float64 run the device's kernel (the KernelTable's batch_norm slot), forward and
//   backward: on the cpu oneDNN for float32 (backends/cpu/onednn_norm.cpp), otherwise the block
//   kernels of Note [Normalization kernels] (kernels/norm_functors.h: one block per channel computes
//   the statistics and normalizes). Other dtypes (statistics of another dtype than the input's, a
//   bias without a weight) and backwards under create_graph take the generic path: per-channel mean
//   and variance as reductions over [N, C, L] and one scale-and-shift, with the device's kernels.
// - Backward (training): gx = w * invstd * (g - mean(g) - xhat * mean(g * xhat)), gw = sum(g * xhat),
//   gb = sum(g); in eval gx = g * w * invstd. Under create_graph the statistics are recomputed from
//   the input with recorded ops, so second derivatives are exact.
// - The running statistics are updated after the forward, outside the graph, as PyTorch's kernels do
//   (running_var with the unbiased variance).
#include "ops/norm.h"

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/normalization.h"
#include "ctorch/ops.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"

namespace ctorch::inline api {

namespace {

struct NormShape {
  int64_t n, c, l;
};

NormShape shape_of(const Tensor& x) {
  const int64_t n = x.size(0), c = x.size(1);
  return {n, c, n * c == 0 ? 0 : x.numel() / (n * c)};
}

// The device's own kernel, or null (none, an empty tensor, or neither float32 nor float64).
const ops::KernelTable* own_kernel(const Tensor& x) {
  const ops::KernelTable& k = ops::kernels_for(x.device());
  if (k.batch_norm == nullptr || x.numel() == 0 || (x.dtype() != kFloat && x.dtype() != kDouble)) return nullptr;
  return &k;
}

// True when `t` is undefined or has `dtype`.
bool absent_or(const Tensor& t, ScalarType dtype) { return !t.defined() || t.dtype() == dtype; }

// A [C] tensor (or undefined) as [1, C, 1] for broadcasting over [N, C, L].
Tensor per_channel(const Tensor& t, int64_t c) { return t.view({1, c, 1}); }

struct Forward {
  Tensor out, mean, var;
};

// The forward computation (no recording): the output and the statistics it used.
Forward bn_forward(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& rm, const Tensor& rv,
                   bool use_batch, double eps) {
  const NormShape s = shape_of(x);
  const ScalarType t = x.dtype();
  const bool floats = absent_or(w, t) && absent_or(b, t) && (use_batch || (rm.dtype() == t && rv.dtype() == t)) &&
                      (w.defined() || !b.defined());  // oneDNN's kernel shifts only with a scale
  if (const ops::KernelTable* k = floats ? own_kernel(x) : nullptr) {
    const Tensor xc = x.contiguous(), wc = w.defined() ? w.contiguous() : Tensor(), bc = b.defined() ? b.contiguous() : Tensor();
    Forward f{empty(x.sizes(), x.options()), use_batch ? empty({s.c}, x.options()) : rm.contiguous(),
              use_batch ? empty({s.c}, x.options()) : rv.contiguous()};
    ops::BatchNormKernelArgs a;
    a.pass = use_batch ? ops::BatchNormPass::ForwardTraining : ops::BatchNormPass::ForwardInference;
    a.dtype = x.dtype();
    a.n = s.n, a.c = s.c, a.l = s.l, a.eps = eps;
    a.input = xc.data_ptr();
    a.weight = wc.defined() ? wc.data_ptr() : nullptr;
    a.bias = bc.defined() ? bc.data_ptr() : nullptr;
    a.mean = f.mean.data_ptr();
    a.var = f.var.data_ptr();
    a.output = f.out.data_ptr();
    if (k->batch_norm(a, ops::stream_for(x.device()))) return f;
  }
  const Tensor x3 = x.reshape({s.n, s.c, s.l});
  Forward f;
  if (use_batch) {
    f.mean = x3.mean(IntArrayRef{0, 2});
    f.var = x3.var(IntArrayRef{0, 2}, /*correction=*/0);
  } else {
    f.mean = rm, f.var = rv;
  }
  const Tensor invstd = (f.var + eps).rsqrt();
  const Tensor scale = w.defined() ? w * invstd : invstd;
  const Tensor shift = b.defined() ? b - f.mean * scale : -(f.mean * scale);
  f.out = (x3 * per_channel(scale, s.c) + per_channel(shift, s.c)).to(x.dtype()).view(x.sizes());
  return f;
}

// PyTorch's checks (native_batch_norm's and _batch_norm_impl_index's), with its texts.
void check_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                      const Tensor& running_var, bool training) {
  CTORCH_CHECK_VALUE(input.defined() && input.dim() >= 2,
                     "batch_norm: expected an input with at least 2 dims (N, C, ...), got ",
                     input.defined() ? input.dim() : 0, "D input");
  const int64_t c = input.size(1);
  auto check_features = [&](const char* name, const Tensor& t) {
    if (!t.defined()) return;
    CTORCH_CHECK(t.numel() == c, name, " should contain ", c, " elements not ", t.numel());
    CTORCH_CHECK_DEVICE(t.device() == input.device(), "Expected all tensors to be on the same device, but found at "
                        "least two devices, ", input.device(), " and ", t.device(), "! (", name, ")");
  };
  check_features("weight", weight);
  check_features("bias", bias);
  check_features("running_mean", running_mean);
  check_features("running_var", running_var);
  CTORCH_CHECK(is_floating_point(input.dtype()), "\"batch_norm\" not implemented for '",
               scalar_type_cpp_name(input.dtype()), "'");
  if (training || !running_mean.defined()) {
    const int64_t count = input.numel() / std::max<int64_t>(c, 1);
    CTORCH_CHECK_VALUE(count > 1, "Expected more than 1 value per channel when training, got input size ",
                       input.sizes());
  }
}

}  // namespace

namespace ops {

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& var, double eps,
                                                       bool use_batch_stats, std::array<bool, 3> wanted) {
  const NormShape s = shape_of(input);
  const ScalarType t = input.dtype();
  const bool floats = grad.dtype() == t && mean.dtype() == t && var.dtype() == t && absent_or(weight, t) &&
                      (weight.defined() || (!wanted[1] && !wanted[2]));  // the kernel's gw, gb come with a weight
  if (const KernelTable* k = !GradMode::is_enabled() && floats ? own_kernel(input) : nullptr) {
    const Tensor xc = input.contiguous(), gc = grad.contiguous(), wc = weight.defined() ? weight.contiguous() : Tensor();
    const Tensor mc = mean.contiguous(), vc = var.contiguous();
    Tensor gi = empty(input.sizes(), input.options());
    Tensor gw = wc.defined() ? empty({s.c}, input.options()) : Tensor();
    Tensor gb = wc.defined() ? empty({s.c}, input.options()) : Tensor();
    BatchNormKernelArgs a;
    a.pass = BatchNormPass::Backward;
    a.dtype = input.dtype();
    a.n = s.n, a.c = s.c, a.l = s.l, a.eps = eps, a.use_batch_stats = use_batch_stats;
    a.input = xc.data_ptr();
    a.weight = wc.defined() ? wc.data_ptr() : nullptr;
    a.mean = const_cast<void*>(mc.data_ptr());
    a.var = const_cast<void*>(vc.data_ptr());
    a.grad_output = gc.data_ptr();
    a.grad_input = gi.data_ptr();
    a.grad_weight = gw.defined() ? gw.data_ptr() : nullptr;
    a.grad_bias = gb.defined() ? gb.data_ptr() : nullptr;
    if (k->batch_norm(a, stream_for(grad.device()))) {
      return {wanted[0] ? gi : Tensor(), wanted[1] ? gw : Tensor(), wanted[2] ? gb : Tensor()};
    }
  }
  const Tensor x3 = input.reshape({s.n, s.c, s.l}), g3 = grad.reshape({s.n, s.c, s.l});
  Tensor m = mean, v = var;
  if (use_batch_stats && GradMode::is_enabled()) {  // create_graph: the statistics as functions of the input
    m = x3.mean(IntArrayRef{0, 2});
    v = x3.var(IntArrayRef{0, 2}, /*correction=*/0);
  }
  const Tensor invstd = (v + eps).rsqrt();
  const Tensor g_sum = g3.sum(IntArrayRef{0, 2});
  const bool need_xhat = wanted[1] || (wanted[0] && use_batch_stats);
  const Tensor xhat = need_xhat ? (x3 - per_channel(m, s.c)) * per_channel(invstd, s.c) : Tensor();
  const Tensor gxhat_sum = need_xhat ? (g3 * xhat).sum(IntArrayRef{0, 2}) : Tensor();
  Tensor grad_input;
  if (wanted[0]) {
    const Tensor scale = per_channel(weight.defined() ? weight * invstd : invstd, s.c);
    if (use_batch_stats) {
      const double count = static_cast<double>(s.n * s.l);
      grad_input = scale * (g3 - per_channel(g_sum, s.c) / count - xhat * per_channel(gxhat_sum, s.c) / count);
    } else {
      grad_input = g3 * scale;
    }
    grad_input = grad_input.reshape(input.sizes());
  }
  return {grad_input, wanted[1] ? gxhat_sum : Tensor(), wanted[2] ? g_sum : Tensor()};
}

}  // namespace ops

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps, bool /*cudnn_enabled*/) {
  check_batch_norm(input, weight, bias, running_mean, running_var, training);
  const bool use_batch = training || !running_mean.defined();
  Forward f;
  Tensor out;
  if (ops::needs_grad({&input, &weight, &bias})) {
    out = ops::recorded(
        ops::GradFn::BatchNorm, {&input, &weight, &bias},
        [&] {
          f = bn_forward(input, weight, bias, running_mean, running_var, use_batch, eps);
          return f.out;
        },
        [&](ops::GradArgs& a) {
          a.stats[0] = f.mean;
          a.stats[1] = f.var;
          a.p = eps;
          a.keepdim = use_batch;
          a.has_weight = weight.defined();
        });
  } else {
    NoGradGuard no_grad;
    f = bn_forward(input, weight, bias, running_mean, running_var, use_batch, eps);
    out = f.out;
  }
  if (training && running_mean.defined()) {  // outside the graph, as PyTorch's kernels update them
    NoGradGuard no_grad;
    const NormShape s = shape_of(input);
    const double count = static_cast<double>(s.n * s.l);
    Tensor(running_mean).mul_(1 - momentum).add_(f.mean.to(running_mean.dtype()), momentum);
    if (running_var.defined()) {
      Tensor(running_var).mul_(1 - momentum).add_((f.var * (count / (count - 1))).to(running_var.dtype()), momentum);
    }
  }
  return out;
}

}  // namespace ctorch::api
