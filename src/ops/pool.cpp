// max_pool2d (torch.max_pool2d, max_pool2d_with_indices) and its gradient.
//
// Note [Max pooling]
// - One recorded op (GradFn::MaxPool2d, node MaxPool2DWithIndicesBackward0). The device's kernel (the
//   KernelTable's max_pool2d slot: the cpu's loop per plane, backends/cpu/pool.cpp, for float and
//   double; every other case and device Note [Pooling kernels]'s threads) runs it, forward and
//   backward. A backend without the slot takes the composition, with the device's kernels:
//   the input padded with -inf is viewed as its windows
//   [N, C, OH, OW, KH, KW] (as_strided), copied into rows of KH * KW, and max(-1) gives the
//   values and the position in the window (the first maximum; NaN wins, as PyTorch's kernels).
//   The position becomes PyTorch's index, the flat position in the input plane.
// - The gradient adds the output's gradient at those positions: the device's kernel (the node keeps
//   the geometry, so a kernel may gather per input element), or scatter_add over the output's
//   elements, an ordinary recorded op (always under create_graph, so second derivatives flow).
#include "ctorch/pooling.h"

#include <cmath>
#include <limits>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"
#include "ops/pad.h"
#include "ops/pool.h"

namespace ctorch::inline api {

namespace {

struct PoolParams {
  int64_t kernel[2], stride[2], padding[2], dilation[2];
};

// The kernel arguments of either pass: `planes` planes of h x w pooled into oh x ow.
ops::MaxPoolKernelArgs kernel_args(ScalarType dtype, int64_t planes, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  ops::MaxPoolKernelArgs a;
  a.dtype = dtype;
  a.planes = planes, a.h = h, a.w = w, a.oh = oh, a.ow = ow;
  return a;
}

// The forward computation on a batched input: (values, indices).
std::tuple<Tensor, Tensor> max_pool_forward(const Tensor& x, const PoolParams& p, int64_t oh, int64_t ow) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  if (const ops::KernelTable& k = ops::kernels_for(x.device()); k.max_pool2d != nullptr && n * c > 0) {
    const Tensor xc = x.contiguous();
    Tensor values = empty({n, c, oh, ow}, x.options());
    Tensor indices = empty({n, c, oh, ow}, x.options().dtype(kLong));
    ops::MaxPoolKernelArgs a = kernel_args(x.dtype(), n * c, h, w, oh, ow);
    for (int i = 0; i < 2; ++i) {
      a.kernel[i] = p.kernel[i], a.stride[i] = p.stride[i], a.padding[i] = p.padding[i], a.dilation[i] = p.dilation[i];
    }
    a.input = xc.data_ptr();
    a.output = values.data_ptr();
    a.indices = static_cast<int64_t*>(indices.data_ptr());
    if (k.max_pool2d(a, ops::stream_for(x.device()))) return {values, indices};
  }
  const int64_t kh = p.kernel[0], kw = p.kernel[1];
  // The windows may reach past the right padding in ceil mode: pad up to the last window's end.
  const int64_t end_h = (oh - 1) * p.stride[0] + p.dilation[0] * (kh - 1) + 1;
  const int64_t end_w = (ow - 1) * p.stride[1] + p.dilation[1] * (kw - 1) + 1;
  const double lowest = -std::numeric_limits<double>::infinity();
  Tensor xp = ops::pad_dim(x.contiguous(), 3, p.padding[1], std::max<int64_t>(end_w - w - p.padding[1], 0), lowest);
  xp = ops::pad_dim(xp, 2, p.padding[0], std::max<int64_t>(end_h - h - p.padding[0], 0), lowest).contiguous();
  const int64_t hp = xp.size(2), wp = xp.size(3);
  const Tensor windows = xp.as_strided({n, c, oh, ow, kh, kw},
                                       {c * hp * wp, hp * wp, p.stride[0] * wp, p.stride[1], p.dilation[0] * wp,
                                        p.dilation[1]})
                             .reshape({n, c, oh, ow, kh * kw});
  auto [values, at] = windows.max(-1);
  // The window position (i, j) of the maximum -> its flat position in the H x W plane.
  const TensorOptions longs = TensorOptions().dtype(kLong).device(x.device());
  const Tensor row0 = arange(oh, longs).mul(p.stride[0]).sub(p.padding[0]).view({oh, 1});
  const Tensor col0 = arange(ow, longs).mul(p.stride[1]).sub(p.padding[1]).view({1, ow});
  const Tensor rows = row0 + at.div(kw, std::string("floor")).mul(p.dilation[0]);
  const Tensor cols = col0 + at.remainder(kw).mul(p.dilation[1]);
  return {values, rows.mul(w).add(cols)};
}

std::tuple<Tensor, Tensor> max_pool2d_checked(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  PoolParams p{};
  ops::pooling_pair(kernel_size, "max_pool2d: kernel_size must either be a single int, or a tuple of two ints",
                    p.kernel);
  if (stride.empty()) {
    p.stride[0] = p.kernel[0], p.stride[1] = p.kernel[1];
  } else {
    ops::pooling_pair(stride, "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
                      p.stride);
  }
  ops::pooling_pair(padding, "max_pool2d: padding must be either be a single int, or a tuple of two ints", p.padding);
  ops::pooling_pair(dilation, "max_pool2d: dilation must be either a single int, or a tuple of two ints", p.dilation);
  CTORCH_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4) && input.numel() > 0,
               "non-empty 3D or 4D (batch mode) tensor expected for input");
  CTORCH_CHECK(p.stride[0] != 0 && p.stride[1] != 0, "stride should not be zero");
  CTORCH_CHECK(p.kernel[0] > 0 && p.kernel[1] > 0, "kernel size should be greater than zero, but got kH: ",
               p.kernel[0], " kW: ", p.kernel[1]);
  CTORCH_CHECK(p.stride[0] > 0 && p.stride[1] > 0, "stride should be greater than zero, but got dH: ", p.stride[0],
               " dW: ", p.stride[1]);
  CTORCH_CHECK(p.dilation[0] > 0 && p.dilation[1] > 0, "dilation should be greater than zero, but got dilationH: ",
               p.dilation[0], " dilationW: ", p.dilation[1]);
  CTORCH_CHECK(p.padding[0] >= 0 && p.padding[1] >= 0 && p.padding[0] * 2 <= p.kernel[0] &&
                   p.padding[1] * 2 <= p.kernel[1],
               "pad should be at most half of kernel size, but got pad=", p.padding[0], " and kernel_size=",
               p.kernel[0]);
  CTORCH_CHECK(is_floating_point(input.dtype()), "\"max_pool2d\" not implemented for '",
               scalar_type_cpp_name(input.dtype()), "'");
  const bool unbatched = input.dim() == 3;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  const int64_t h = x.size(2), w = x.size(3);
  const int64_t oh = ops::pooling_output_size(h, p.kernel[0], p.padding[0], p.stride[0], p.dilation[0], ceil_mode);
  const int64_t ow = ops::pooling_output_size(w, p.kernel[1], p.padding[1], p.stride[1], p.dilation[1], ceil_mode);
  CTORCH_CHECK(oh >= 1 && ow >= 1, "Given input size: (", x.size(1), "x", h, "x", w, "). Calculated output size: (",
               x.size(1), "x", oh, "x", ow, "). Output size is too small");
  Tensor values, indices;
  {
    AutoGradMode off(false);
    std::tie(values, indices) = max_pool_forward(x, p, oh, ow);
    if (unbatched) values = values.squeeze(0), indices = indices.squeeze(0);
  }
  if (ops::needs_grad({&input})) {  // PyTorch's kernel takes 3-d inputs as they are: the node is on `input`
    if (ops::GradRecorder* r = ops::grad_recorder()) {
      ops::GradArgs a;
      a.indices = indices;
      for (int i = 0; i < 2; ++i) {
        a.pool.kernel[i] = p.kernel[i], a.pool.stride[i] = p.stride[i], a.pool.padding[i] = p.padding[i];
        a.pool.dilation[i] = p.dilation[i];
      }
      r->record(ops::GradFn::MaxPool2d, {&input}, values, a);
    }
  }
  return {values, indices};
}

}  // namespace

namespace ops {

void pooling_pair(IntArrayRef v, const char* what, int64_t out[2]) {
  CTORCH_CHECK(v.size() == 1 || v.size() == 2, what);
  out[0] = v[0];
  out[1] = v.size() == 2 ? v[1] : v[0];
}

int64_t pooling_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

Tensor max_pool2d_backward(const Tensor& grad, IntArrayRef input_sizes, const Tensor& indices, const PoolArgs& p) {
  const size_t nd = input_sizes.size();  // [N, C, H, W] or [C, H, W]
  const int64_t h = input_sizes[nd - 2], w = input_sizes[nd - 1];
  int64_t planes = 1;
  for (size_t i = 0; i + 2 < nd; ++i) planes *= input_sizes[i];
  if (!GradMode::is_enabled()) {
    if (const KernelTable& k = kernels_for(grad.device()); k.max_pool2d != nullptr && planes > 0) {
      const Tensor gc = grad.contiguous(), ic = indices.contiguous();
      Tensor out = empty(input_sizes, grad.options());
      MaxPoolKernelArgs a = kernel_args(grad.dtype(), planes, h, w, grad.size(-2), grad.size(-1));
      a.backward = true;
      for (int i = 0; i < 2; ++i) {
        a.kernel[i] = p.kernel[i], a.stride[i] = p.stride[i], a.padding[i] = p.padding[i], a.dilation[i] = p.dilation[i];
      }
      a.grad_output = gc.data_ptr();
      a.indices = static_cast<int64_t*>(const_cast<void*>(ic.data_ptr()));
      a.grad_input = out.data_ptr();
      if (k.max_pool2d(a, stream_for(grad.device()))) return out;
    }
  }
  // Differentiable (and every device without its own kernel): scatter_add into the planes.
  const Tensor plane_grad = zeros({planes, h * w}, grad.options())
                                .scatter_add(1, indices.reshape({planes, -1}), grad.reshape({planes, -1}));
  return plane_grad.view(input_sizes);
}

}  // namespace ops

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool2d_checked(input, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool2d_checked(input, kernel_size, stride, padding, dilation, ceil_mode));
}

}  // namespace ctorch::api
