// The recording hook: how differentiable ops hand their calls to autograd, which sits above this
// layer (autograd/recorder.cpp registers the recorder; nothing here includes autograd).
//
// Note [Recording hook]
// - A differentiable op checks `needs_grad(inputs)` (an input requires grad, and the calling
//   thread's grad mode is on): a few loads when nothing requires grad.
// - When it does, the op runs through `recorded(...)`: its implementation runs with grad mode off
//   (so inner calls, such as the conversions of a promoted operand, record nothing), then the
//   recorder sees the call once: which backward formula (GradFn), the inputs, the output and the
//   op's parameters (GradArgs). Ops built from other public ops (matmul, linear, reshape) record
//   nothing themselves: the ops they call record, as PyTorch's composite ops do.
// - In-place ops call `recorded_inplace(...)`: the recorder first checks that `self` may be
//   written (a leaf that requires grad may not), before anything runs; an op whose formula needs
//   the value `self` had before the write gets a recorded clone of it as its input. Another
//   operand that shares self's storage is saved with self's version before the write, so reading
//   it at backward raises PyTorch's "modified by an inplace operation" error (`y.mul_(y)`). A write
//   into a view rebases its base's history (autograd/copy_slices.h, PyTorch's CopySlices).
#pragma once

#include <initializer_list>
#include <optional>

#include "ctorch/grad_mode.h"
#include "ctorch/tensor.h"
#include "kernels/functors.h"
#include "ops/kernel_table.h"

namespace ctorch::inline api::ops {

/// The key of a recorded call's gradient (autograd/derivatives.cpp: Note [Gradient table]).
enum class GradFn : uint8_t {
  Unary,       ///< args.unary (clamp bounds in lo/hi)
  Binary,      ///< args.binary with args.side, args.scalar, args.alpha
  Sum,         ///< args.dims (empty: all), args.keepdim
  Mean,        ///< as Sum
  Prod,        ///< as Sum
  Norm,        ///< args.p, args.dims, args.keepdim
  Var,         ///< args.dims, args.correction, args.keepdim
  Std,         ///< as Var
  MaxAll,      ///< max() of all elements
  MinAll,      ///< min() of all elements
  MaxDim,      ///< values of max(dim) (the indices are input 1 of the record)
  MinDim,      ///< values of min(dim)
  Softmax,     ///< args.dim
  LogSoftmax,  ///< args.dim
  Mm,
  Bmm,
  Addmm,       ///< args.scalar = beta, args.alpha
  Matmul,      ///< matmul's dot, mv and batched cases (one gemm over the broadcast batch)
  View,        ///< any view that keeps the element order (view, reshape, squeeze, unsqueeze, flatten)
  Squeeze,     ///< squeeze() of all size-1 dims
  SqueezeDim,  ///< squeeze(dim)
  Unsqueeze,   ///< args.dim
  Permute,     ///< args.dims
  Transpose,   ///< args.dim, args.dim1
  T,           ///< t()
  Expand,
  Select,      ///< args.dim, args.start (the index)
  Slice,       ///< args.dim, args.start, args.end, args.step
  Alias,       ///< a view with the same geometry
  AsStrided,   ///< args.dims (size), args.strides, args.start (storage offset)
  ToCopy,      ///< to(dtype/device)
  Clone,
  Copy,        ///< copy_ (in place): inputs self, src
  Fill,        ///< fill_ (in place)
  Zero,        ///< zero_ (in place)
  Cat,         ///< args.dim; every tensor is an input
  Stack,       ///< args.dim
  Where,       ///< inputs condition, self, other (condition not differentiable)
  Index,       ///< advanced indexing: args.index_list
  IndexPut,    ///< index_put_ (in place): inputs self, values; args.index_list, args.accumulate
  IndexSelect, ///< args.dim, args.indices (the index)
  Gather,      ///< args.dim, args.indices
  Scatter,     ///< scatter_ (in place): inputs self, src; args.dim, args.indices
  ScatterAdd,  ///< scatter_add_ (in place): as Scatter
  IndexAdd,    ///< index_add_ (in place): inputs self, source; args.dim, args.indices, args.alpha
  Conv2d,      ///< inputs input [N, C, H, W], weight, bias (may be undefined); args.conv
  ConvTranspose2d,  ///< as Conv2d, weight [C, OC / groups, KH, KW]
  MaxPool2d,   ///< input [N, C, H, W] or [C, H, W]; args.indices (flat positions in the H x W plane), args.pool
  AvgPool2d,   ///< input [N, C, H, W] or [C, H, W]; args.pool
  AdaptiveAvgPool2d,  ///< as AvgPool2d (args.pool.adaptive)
  BatchNorm,   ///< inputs input [N, C, *], weight, bias (may be undefined); args.stats, args.p (eps), args.keepdim (batch stats)
  NativeDropout,  ///< args.indices (the bool mask), args.p (the scale)
  LayerNorm,   ///< inputs input [*, normalized], weight, bias (may be undefined); args.stats (row mean, biased
               ///< variance), args.p (eps), args.dim (normalized dims)
};

/// The geometry of a 2-d pooling (MaxPool2d, AvgPool2d, AdaptiveAvgPool2d) and an average's divisor rule.
struct PoolArgs {
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  int64_t out[2] = {0, 0};        ///< output height and width
  bool adaptive = false;          ///< PyTorch's adaptive windows [floor(i * in / out), ceil((i + 1) * in / out))
  bool count_include_pad = true;  ///< average: the divisor counts the padding
  int64_t divisor_override = 0;   ///< average: 0, or the divisor of every window
};

/// The parameters a backward formula needs.
struct GradArgs {
  kernels::UnaryOp unary = kernels::UnaryOp::Identity;
  kernels::BinaryOp binary = kernels::BinaryOp::Add;
  ScalarOperand side = ScalarOperand::None;
  Scalar alpha = 1;
  Scalar scalar = 0;
  std::optional<Scalar> lo, hi;
  DimVector dims;
  DimVector strides;  ///< AsStrided
  DimVector self_strides;  ///< AsStrided: the input's strides (its geometry is saved, not the input)
  int64_t self_offset = 0, self_storage = 0;  ///< AsStrided: the input's storage offset and storage size (elements)
  int64_t dim = 0, dim1 = 0, start = 0, end = 0, step = 1;
  int64_t correction = 1;
  double p = 2;
  bool keepdim = false;
  Tensor indices;  ///< MaxDim / MinDim: the positions of the values; the index of index_select, gather, ...; NativeDropout's mask
  std::vector<std::optional<Tensor>> index_list;  ///< Index / IndexPut: the index tensors (nullopt: a full slice)
  bool accumulate = false;                         ///< IndexPut
  ConvParams conv;                                 ///< Conv2d, ConvTranspose2d
  Tensor stats[2];                                 ///< BatchNorm: the mean and (biased) variance used, [C]; LayerNorm's per row
  bool has_weight = false;                         ///< BatchNorm, LayerNorm: input 1 (the weight) is defined
  PoolArgs pool;                                ///< MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
};

/// `dims` wrapped for a tensor of `ndim` dims (an empty list stays empty: every dim).
DimVector wrapped_dims(IntArrayRef dims, int64_t ndim);

/// Receives the recorded calls (autograd's implementation registers itself at load).
class GradRecorder {
 public:
  virtual ~GradRecorder() = default;
  /// Before an in-place op writes `self` while recording: throws when it may not be written.
  virtual void check_inplace(const Tensor& self) = 0;
  /// Records one call: `output` (a fresh result, or self of an in-place op) gets the node.
  virtual void record(GradFn fn, ArrayRef<const Tensor*> inputs, Tensor& output, const GradArgs& args) = 0;
  /// Records an in-place call on `self`: inputs[0] is self's history before the write; operands that
  /// share self's storage are saved with `version_before`; a view's base gets the history (CopySlices).
  virtual void record_inplace(GradFn fn, ArrayRef<const Tensor*> inputs, Tensor& self, const GradArgs& args,
                              uint32_t version_before) = 0;
  /// Makes `view` (of `base`) a view whose in-place writes record on `base` even though neither
  /// requires grad yet (x[i] = y with y requiring grad: set_item calls it).
  virtual void track_view(const Tensor& view, const Tensor& base) = 0;
  /// True when formula `fn` needs the value `self` had before an in-place write.
  virtual bool needs_original_self(GradFn fn, const GradArgs& args) const = 0;
};

/// Installs the recorder (once, by the autograd layer).
void set_grad_recorder(GradRecorder* recorder) noexcept;
/// The installed recorder, or nullptr.
GradRecorder* grad_recorder() noexcept;

/// True when some defined input requires grad and grad mode is on (Note [Recording hook]).
inline bool needs_grad(std::initializer_list<const Tensor*> inputs) noexcept {
  for (const Tensor* t : inputs) {
    if (t->defined() && t->requires_grad()) return GradMode::is_enabled();
  }
  return false;
}

/// needs_grad over a list of tensors (cat, stack).
inline bool needs_grad(const std::vector<Tensor>& inputs) noexcept {
  for (const Tensor& t : inputs) {
    if (t.defined() && t.requires_grad()) return GradMode::is_enabled();
  }
  return false;
}

/// Runs `impl()` with grad mode off, then records its result as produced by `fn` from `inputs`.
template <class Impl, class Args>
[[gnu::noinline]] Tensor recorded(GradFn fn, ArrayRef<const Tensor*> inputs, Impl&& impl, Args&& make_args) {
  Tensor out;
  {
    AutoGradMode below(false);
    out = impl();
  }
  if (GradRecorder* r = grad_recorder()) {
    GradArgs args;
    make_args(args);
    r->record(fn, inputs, out, args);
  }
  return out;
}

/// The in-place form of recorded(): `self` is written by `impl()`; `others` are the other inputs.
template <class Impl, class Args>
[[gnu::noinline]] Tensor& recorded_inplace(GradFn fn, Tensor& self, std::initializer_list<const Tensor*> others,
                                           Impl&& impl, Args&& make_args) {
  GradRecorder* r = grad_recorder();
  GradArgs args;
  make_args(args);
  Tensor original = self;  // its history is the node's first input
  if (r != nullptr) {
    r->check_inplace(self);
    if (r->needs_original_self(fn, args)) original = self.clone();  // recorded: CloneBackward0
  }
  const uint32_t version_before = self._version();
  {
    AutoGradMode below(false);
    impl();
  }
  if (r != nullptr) {
    const Tensor* o[2] = {nullptr, nullptr};
    size_t n = 0;
    for (const Tensor* t : others) o[n++] = t;
    if (n == 0) {
      r->record_inplace(fn, {&original}, self, args, version_before);
    } else if (n == 1) {
      r->record_inplace(fn, {&original, o[0]}, self, args, version_before);
    } else {
      r->record_inplace(fn, {&original, o[0], o[1]}, self, args, version_before);
    }
  }
  return self;
}

}  // namespace ctorch::api::ops
