#include "ops/elementwise.h"

#include <algorithm>
#include <span>

#include "core/scalar_convert.h"
#include "core/wrap_dim.h"
#include "ctorch/complex.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "kernels/dispatch.h"
#include "ops/complex_ops.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"

namespace ctorch::inline api::ops {

using kernels::BinaryOp;
using kernels::ElementwisePlan;
using kernels::UnaryOp;

int64_t wrap_dim(int64_t dim, int64_t ndim) { return detail::wrap_dim(dim, ndim); }

Device common_device(std::initializer_list<const Tensor*> tensors) {
  return common_device(std::span<const Tensor* const>(tensors.begin(), tensors.size()));
}

Device common_device(std::span<const Tensor* const> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!first) {
      first = t;
    } else if (t->device() != first->device()) {
      // PyTorch names the first non-cpu device first.
      Device a = first->device(), b = t->device();
      if (a.is_cpu()) std::swap(a, b);
      CTORCH_CHECK(false, "Expected all tensors to be on the same device, but found at least two devices, ", a,
                   " and ", b, "!");
    }
  }
  return first ? first->device() : Device(DeviceType::CPU);
}

namespace {

Tensor empty_output_reordered(IntArrayRef shape, const TensorOptions& options,
                              std::span<const Tensor* const> inputs);

// empty_output for operands that are not all contiguous with the output's shape.
[[gnu::noinline]] Tensor empty_output_strided(IntArrayRef shape, const TensorOptions& options,
                                              std::span<const Tensor* const> inputs) {
  // TensorIterator's second fast setup: operands all of the output's shape with the same dense
  // strides give an output with those strides.
  bool same = true;
  const Tensor* first = nullptr;
  for (const Tensor* t : inputs) {
    if (!first) first = t;
    same = same && t->sizes() == shape && t->strides() == first->strides();
  }
  if (same && first && is_non_overlapping_and_dense(*first)) return empty_strided(shape, first->strides(), options);
  return empty_output_reordered(shape, options, inputs);
}

}  // namespace

bool has_row_major_strides(const Tensor& t) {
  int64_t expected = 1;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

Tensor empty_output_beside_scalar(IntArrayRef shape, const TensorOptions& options, const Tensor& t) {
  // Row-major strides with elements reorder to themselves: skip the general rule.
  const bool row_major = t.numel() > 0 && t.sizes() == shape && has_row_major_strides(t);
  const Tensor* const inputs[] = {&t};
  return row_major ? empty(shape, options) : empty_output_reordered(shape, options, inputs);
}

namespace {

// General case (TensorIterator::reorder_dimensions): order dims fastest-first by the inputs'
// strides (the first input with a non-broadcast, unequal pair decides), then lay the output out
// densely in that order. Broadcast dims have stride 0 and never decide.
Tensor empty_output_reordered(IntArrayRef shape, const TensorOptions& options,
                              std::span<const Tensor* const> inputs) {
  const int64_t n = static_cast<int64_t>(shape.size());
  CTORCH_CHECK_NOT_IMPLEMENTED(n <= 64, "elementwise ops support at most 64 dims, got ", n);
  auto stride_of = [&](const Tensor* t, int64_t d) -> int64_t {
    const int64_t j = d - (n - t->dim());
    if (j < 0 || (t->sizes()[j] == 1 && shape[d] != 1)) return 0;
    return t->strides()[j];
  };
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const Tensor* t : inputs) {
      const int64_t s0 = stride_of(t, d0), s1 = stride_of(t, d1);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  int64_t perm[64];
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  for (int64_t i = 1; i < n; ++i) {
    int64_t d1 = i;
    for (int64_t j = 1; j <= i; ++j) {
      const int64_t d0 = i - j;
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  bool inverted = true;
  for (int64_t i = 0; i < n && inverted; ++i) inverted = perm[i] == n - 1 - i;
  if (inverted) return empty(shape, options);
  DimVector strides(static_cast<size_t>(n));
  int64_t next = 1;
  for (int64_t i = 0; i < n; ++i) {
    strides[perm[i]] = next;
    next *= shape[perm[i]];
  }
  return empty_strided(shape, strides, options);
}

}  // namespace

Tensor empty_output(IntArrayRef shape, const TensorOptions& options, std::span<const Tensor* const> inputs) {
  // TensorIterator's first fast setup: all operands contiguous with the output's shape.
  for (const Tensor* t : inputs) {
    if (!t->is_contiguous() || t->sizes() != shape) return empty_output_strided(shape, options, inputs);
  }
  return empty(shape, options);
}

Tensor empty_output(IntArrayRef shape, const TensorOptions& options, std::initializer_list<const Tensor*> inputs) {
  return empty_output(shape, options, std::span<const Tensor* const>(inputs.begin(), inputs.size()));
}

namespace {

// The plan of ops[0] (an output) written from ops[1..n), each broadcast to ops[0]'s shape.
template <class Plan>
Plan plan_of(const Tensor* const* ops, int n_ops) {
  const Tensor& out = *ops[0];
  Plan p;
  p.noperands = n_ops;
  p.numel = out.numel();
  // Fast path: every operand contiguous with out's shape is one flat dim.
  bool flat = out.is_contiguous();
  for (int k = 1; k < n_ops; ++k) flat = flat && ops[k]->is_contiguous() && ops[k]->sizes() == out.sizes();
  if (flat) {
    p.ndim = 1;
    p.shape[0] = p.numel;
    for (int k = 0; k < n_ops; ++k) p.strides[k][0] = p.element_size[k] = ops[k]->element_size();
    return p;
  }
  const int64_t n = out.dim();
  int k = 0;
  for (k = 0; k < p.noperands; ++k) p.element_size[k] = ops[k]->element_size();
  // Walk out's dims fastest-first (in the order of out's strides, so a permuted output is written
  // in memory order), skipping size-1 dims and merging a dim into the previous one when every
  // operand steps through both as through one (stride = size * inner stride).
  CTORCH_CHECK_NOT_IMPLEMENTED(n <= 64, "elementwise ops support at most 64 dims, got ", n);
  int64_t order[64];
  int64_t nonunit = 0;
  for (int64_t i = n - 1; i >= 0; --i) {
    if (out.sizes()[i] != 1) order[nonunit++] = i;
  }
  if (!out.is_contiguous()) {
    const IntArrayRef os = out.strides();
    for (int64_t i = 1; i < nonunit; ++i) {  // stable insertion sort by out's stride
      const int64_t d = order[i];
      int64_t j = i;
      for (; j > 0 && os[order[j - 1]] > os[d]; --j) order[j] = order[j - 1];
      order[j] = d;
    }
  }
  int nd = 0;
  int64_t st[Plan::kCapacity];
  for (int64_t o = 0; o < nonunit; ++o) {
    const int64_t i = order[o];
    const int64_t size = out.sizes()[i];
    bool merge = nd > 0;
    for (k = 0; k < p.noperands; ++k) {
      const Tensor& t = *ops[k];
      const int64_t j = i - (n - t.dim());
      st[k] = (j < 0 || t.sizes()[j] == 1) ? 0 : t.strides()[j] * p.element_size[k];
      merge = merge && st[k] == p.shape[nd - 1] * p.strides[k][nd - 1];
    }
    if (merge) {
      p.shape[nd - 1] *= size;
      continue;
    }
    CTORCH_CHECK_NOT_IMPLEMENTED(nd < kernels::kMaxDims, "elementwise ops support at most ", kernels::kMaxDims,
                                 " non-mergeable dims");
    p.shape[nd] = size;
    for (k = 0; k < p.noperands; ++k) p.strides[k][nd] = st[k];
    ++nd;
  }
  p.ndim = nd;
  return p;
}

}  // namespace

ElementwisePlan make_plan(const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  const Tensor* ops[kernels::kMaxOperands];
  ops[0] = &out;
  int k = 1;
  for (const Tensor* t : inputs) ops[k++] = t;
  return plan_of<ElementwisePlan>(ops, k);
}

kernels::JitPlan make_jit_plan(const Tensor* const* operands, int n_operands) {
  CTORCH_INTERNAL_ASSERT(n_operands >= 1 && n_operands <= kernels::kMaxJitOperands);
  return plan_of<kernels::JitPlan>(operands, n_operands);
}

void plan_data(char** data, const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  data[0] = static_cast<char*>(out.data_ptr());
  int k = 1;
  for (const Tensor* t : inputs) data[k++] = static_cast<char*>(t->data_ptr());
}

bool has_nonzero(const Tensor& t) {
  for (uint8_t v : t.to_vector<uint8_t>()) {
    if (v) return true;
  }
  return false;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  const int64_t n = t.dim();
  const IntArrayRef sizes = t.sizes(), strides = t.strides();
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  // c10's TensorImpl::compute_non_overlapping_and_dense: sort dims by stride (size < 2 last).
  int64_t perm[64];
  CTORCH_CHECK_NOT_IMPLEMENTED(n <= 64, "tensors support at most 64 dims, got ", n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  std::sort(perm, perm + n, [&](int64_t a, int64_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t require = 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t size = sizes[perm[i]];
    if (size < 2) return true;
    if (strides[perm[i]] != require) return false;
    require *= size;
  }
  return true;
}

void check_no_internal_overlap(const Tensor& t) {
  if (t.is_contiguous() || is_non_overlapping_and_dense(t)) return;
  for (int64_t d = 0; d < t.dim(); ++d) {
    CTORCH_CHECK(!(t.strides()[d] == 0 && t.sizes()[d] > 1),
                 "unsupported operation: more than one element of the written-to tensor refers to a single "
                 "memory location. Please clone() the tensor before performing the operation.");
  }
}

void check_no_partial_overlap(const Tensor& out, const Tensor& in) {
  if (out.impl() == in.impl() || out.impl()->storage().get() != in.impl()->storage().get()) return;
  if (out.numel() == 0 || in.numel() == 0) return;
  // at::get_overlap_status: only dense layouts are compared; anything else is "too hard".
  if (!is_non_overlapping_and_dense(out) || !is_non_overlapping_and_dense(in)) return;
  const char* a = static_cast<const char*>(out.data_ptr());
  const char* b = static_cast<const char*>(in.data_ptr());
  const char* a_end = a + out.nbytes();
  const char* b_end = b + in.nbytes();
  const bool full = a == b && a_end == b_end && out.strides() == in.strides();
  CTORCH_CHECK(full || !(a < b_end && b < a_end),
               "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
               "single memory location. Please clone() the tensor before performing the operation.");
}

namespace {

bool is_division(BinaryOp op) {
  return op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor || op == BinaryOp::Remainder;
}

// Integer division by zero raises on cpu as in PyTorch ("ZeroDivisionError").
void check_divisor(BinaryOp op, ScalarType dtype, const Tensor& divisor) {
  if (!is_division(op) || !is_integral(dtype, false)) return;
  const Tensor host = divisor.cpu().contiguous();
  const bool zero = kernels::dispatch_all(host.dtype(), "div", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(host.data_ptr());
    for (int64_t i = 0, n = host.numel(); i < n; ++i) {
      if (p[i] == T(0)) return true;
    }
    return false;
  });
  CTORCH_CHECK(!zero, "ZeroDivisionError");
}

// A scalar divisor is converted to the computation dtype first (256 is 0 as uint8).
void check_divisor(BinaryOp op, ScalarType dtype, const Scalar& divisor) {
  if (!is_division(op) || !is_integral(dtype, false)) return;
  const bool zero = kernels::dispatch_all(dtype, "div", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return divisor.to<T>() == T(0);
  });
  CTORCH_CHECK(!zero, "ZeroDivisionError");
}

ScalarType compute_dtype(BinaryOp op, ScalarType common) {
  if (op == BinaryOp::Div && is_integral(common, true)) return get_default_dtype();
  return common;
}

// at::native::sub_check: any bool operand is rejected (a bool scalar counts as a bool tensor).
void check_sub(BinaryOp op, ScalarType a, ScalarType b) {
  if (op != BinaryOp::Sub) return;
  CTORCH_CHECK(a != kBool || b != kBool,
               "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
               "`logical_xor()` operator instead.");
  CTORCH_CHECK(a != kBool && b != kBool,
               "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
               "mask, use the `~` or `logical_not()` operator instead.");
}

void check_op_dtype(BinaryOp op, ScalarType dtype) {
  if (dtype != kBool) return;
  CTORCH_CHECK_TYPE(!is_division(op), "\"", op_name(op), "_cpu\" not implemented for 'Bool'");
}

// at::native::alpha_check against the computation dtype, then the kernel's checked alpha.to<T>().
void check_alpha(BinaryOp op, ScalarType dtype, const Scalar& alpha) {
  if (op != BinaryOp::Add && op != BinaryOp::Sub) return;
  if (alpha.is_integral(false) && alpha.to_long() == 1) return;  // the common case
  CTORCH_CHECK(!alpha.is_bool() || dtype == kBool, "Boolean alpha only supported for Boolean results.");
  CTORCH_CHECK(is_floating_point(dtype) || alpha.is_integral(true),
               "For integral input tensors, argument alpha must not be a floating point number.");
  const Scalar a = op == BinaryOp::Sub && !alpha.is_bool() ? -alpha : alpha;  // sub adds -alpha
  kernels::dispatch_all(dtype, "add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    (void)detail::checked_convert<T>(a);
  });
}

// pow(Tensor, Scalar) converts the exponent to the computation dtype (double for float and double).
void check_exponent(BinaryOp op, ScalarOperand side, ScalarType dtype, const Scalar& e) {
  if (op != BinaryOp::Pow || side != ScalarOperand::Rhs || dtype == kFloat || dtype == kDouble) return;
  kernels::dispatch_all(dtype, "pow", [&](auto tag) {
    using T = typename decltype(tag)::type;
    (void)detail::checked_convert<T>(e);
  });
}

}  // namespace

namespace {

// A 0-dim cpu tensor next to a cuda tensor is read on the host and passed to the kernel as a
// value (TensorIterator's cpu-scalar rule); promotion still treats it as a 0-dim tensor.
bool is_cpu_scalar_beside(const Tensor& scalar, const Tensor& other) {
  return scalar.is_cpu() && scalar.dim() == 0 && other.is_cuda();
}

Tensor binary_op_cpu_scalar(BinaryOp op, const Tensor& t, const Tensor& scalar, ScalarOperand side,
                            const OpArgs& args) {
  const Tensor& a = side == ScalarOperand::Rhs ? t : scalar;
  const Tensor& b = side == ScalarOperand::Rhs ? scalar : t;
  check_sub(op, a.dtype(), b.dtype());
  const ScalarType common = compute_dtype(op, result_type(a, b));
  check_op_dtype(op, common);
  check_alpha(op, common, args.alpha);
  const Scalar value = scalar.item();
  if (side == ScalarOperand::Rhs) check_divisor(op, common, value);
  const Tensor tc = t.to(common);
  if (side == ScalarOperand::Lhs) check_divisor(op, common, tc);
  Tensor out = empty_output_beside_scalar(
      t.sizes(), TensorOptions().dtype(kernels::produces_bool(op) ? kBool : common).device(t.device()), t);
  if (out.numel() == 0) return out;
  ElementwisePlan plan = make_plan(out, {&tc});
  char* data[kernels::kMaxOperands];
  plan_data(data, out, {&tc});
  OpArgs with_value = args;
  with_value.scalar = value;
  launch_binary(op, common, side, plan, data, with_value, t.device(),
                CTORCH_OPERANDS({out, nullptr, true, true}, {tc, "self"}));
  return out;
}

}  // namespace

Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, const OpArgs& args) {
  if (is_complex(a.dtype()) || is_complex(b.dtype())) [[unlikely]] return complex_binary(op, a, b, args.alpha);
  if (needs_grad({&a, &b})) [[unlikely]] {
    return recorded(
        GradFn::Binary, {&a, &b}, [&] { return binary_op(op, a, b, args); },
        [&](GradArgs& g) {
          g.binary = op;
          g.alpha = args.alpha;
        });
  }
  if (is_cpu_scalar_beside(b, a)) return binary_op_cpu_scalar(op, a, b, ScalarOperand::Rhs, args);
  if (is_cpu_scalar_beside(a, b)) return binary_op_cpu_scalar(op, b, a, ScalarOperand::Lhs, args);
  Device device = common_device({&a, &b});
  check_sub(op, a.dtype(), b.dtype());
  const ScalarType common = compute_dtype(op, result_type(a, b));
  check_op_dtype(op, common);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
  check_alpha(op, common, args.alpha);
  const Tensor ac = a.to(common), bc = b.to(common);
  check_divisor(op, common, bc);
  Tensor out = empty_output(shape, TensorOptions().dtype(kernels::produces_bool(op) ? kBool : common).device(device),
                            {&a, &b});
  if (out.numel() == 0) return out;
  ElementwisePlan plan = make_plan(out, {&ac, &bc});
  char* data[kernels::kMaxOperands];
  plan_data(data, out, {&ac, &bc});
  launch_binary(op, common, ScalarOperand::None, plan, data, args, device,
                CTORCH_OPERANDS({out, nullptr, true, true}, {ac, "self"}, {bc, "other"}));
  return out;
}

Tensor binary_op(BinaryOp op, const Tensor& t, const Scalar& s, ScalarOperand side, const OpArgs& args) {
  if (is_complex(t.dtype())) [[unlikely]] return complex_binary(op, t, s, side, args.alpha);
  if (needs_grad({&t})) [[unlikely]] {
    return recorded(
        GradFn::Binary, {&t}, [&] { return binary_op(op, t, s, side, args); },
        [&](GradArgs& g) {
          g.binary = op;
          g.side = side;
          g.scalar = s;
          g.alpha = args.alpha;
        });
  }
  check_sub(op, t.dtype(), s.is_bool() ? kBool : kInt64);
  const ScalarType common = compute_dtype(op, result_type(t, s));
  check_op_dtype(op, common);
  check_alpha(op, common, args.alpha);
  check_exponent(op, side, common, s);
  const Tensor tc = t.to(common);
  if (side == ScalarOperand::Rhs) {
    check_divisor(op, common, s);
  } else {
    check_divisor(op, common, tc);
  }
  Tensor out = empty_output_beside_scalar(
      t.sizes(), TensorOptions().dtype(kernels::produces_bool(op) ? kBool : common).device(t.device()), t);
  if (out.numel() == 0) return out;
  ElementwisePlan plan = make_plan(out, {&tc});
  char* data[kernels::kMaxOperands];
  plan_data(data, out, {&tc});
  OpArgs a = args;
  a.scalar = s;
  launch_binary(op, common, side, plan, data, a, t.device(), CTORCH_OPERANDS({out, nullptr, true, true}, {tc, "self"}));
  return out;
}

namespace {

// TensorIterator's order for an in-place op: broadcast shape, then castability of the result.
void check_inplace(BinaryOp op, const Tensor& self, ScalarType common, IntArrayRef other_shape) {
  const DimVector shape = broadcast_shapes(self.sizes(), other_shape);
  CTORCH_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
  const ScalarType result = kernels::produces_bool(op) ? kBool : common;
  CTORCH_CHECK(can_cast(result, self.dtype()), "result type ", scalar_type_cpp_name(result),
               " can't be cast to the desired output type ", scalar_type_cpp_name(self.dtype()));
}

}  // namespace

Tensor& binary_op_(BinaryOp op, Tensor& self, const Tensor& b, const OpArgs& args) {
  if (needs_grad({&self, &b})) [[unlikely]] {
    return recorded_inplace(
        GradFn::Binary, self, {&b}, [&] { binary_op_(op, self, b, args); },
        [&](GradArgs& g) {
          g.binary = op;
          g.alpha = args.alpha;
        });
  }
  if (is_complex(self.dtype()) || is_complex(b.dtype())) [[unlikely]] {
    check_no_internal_overlap(self);
    check_inplace(op, self, result_type(self, b), b.sizes());
    Tensor result = complex_binary(op, self, b, args.alpha);
    copy_into(self, result);
    self.impl()->storage()->bump_version();
    return self;
  }
  if (is_cpu_scalar_beside(b, self)) return binary_op_(op, self, b.item(), args);
  Device device = common_device({&self, &b});
  check_no_internal_overlap(self);
  check_no_partial_overlap(self, b);
  check_sub(op, self.dtype(), b.dtype());
  const ScalarType common = compute_dtype(op, result_type(self, b));
  check_op_dtype(op, common);
  check_inplace(op, self, common, b.sizes());
  check_alpha(op, common, args.alpha);
  const ScalarType result = kernels::produces_bool(op) ? kBool : common;
  if (result != self.dtype()) {  // compute in the promoted type, then convert into self
    self.copy_(binary_op(op, self, b, args));
    return self;
  }
  const Tensor bc = b.to(common);
  check_divisor(op, common, bc);
  if (self.numel() != 0) {
    const Tensor& ac = self;
    ElementwisePlan plan = make_plan(self, {&ac, &bc});
    char* data[kernels::kMaxOperands];
    plan_data(data, self, {&ac, &bc});
    launch_binary(op, common, ScalarOperand::None, plan, data, args, device,
                  CTORCH_OPERANDS({self, "self", true, true}, {bc, "other"}));
  }
  self.impl()->storage()->bump_version();
  return self;
}

Tensor& binary_op_(BinaryOp op, Tensor& self, const Scalar& s, const OpArgs& args) {
  if (needs_grad({&self})) [[unlikely]] {
    return recorded_inplace(
        GradFn::Binary, self, {}, [&] { binary_op_(op, self, s, args); },
        [&](GradArgs& g) {
          g.binary = op;
          g.side = ScalarOperand::Rhs;
          g.scalar = s;
          g.alpha = args.alpha;
        });
  }
  check_no_internal_overlap(self);
  if (is_complex(self.dtype())) [[unlikely]] {
    Tensor result = complex_binary(op, self, s, ScalarOperand::Rhs, args.alpha);
    check_inplace(op, self, result.dtype(), IntArrayRef());
    copy_into(self, result);
    self.impl()->storage()->bump_version();
    return self;
  }
  check_sub(op, self.dtype(), s.is_bool() ? kBool : kInt64);
  const ScalarType common = compute_dtype(op, result_type(self, s));
  check_op_dtype(op, common);
  check_inplace(op, self, common, IntArrayRef());
  check_alpha(op, common, args.alpha);
  check_exponent(op, ScalarOperand::Rhs, common, s);
  check_divisor(op, common, s);
  const ScalarType result = kernels::produces_bool(op) ? kBool : common;
  if (result != self.dtype()) {
    self.copy_(binary_op(op, self, s, ScalarOperand::Rhs, args));
    return self;
  }
  if (self.numel() != 0) {
    const Tensor& in = self;
    ElementwisePlan plan = make_plan(self, {&in});
    char* data[kernels::kMaxOperands];
    plan_data(data, self, {&in});
    OpArgs a = args;
    a.scalar = s;
    launch_binary(op, common, ScalarOperand::Rhs, plan, data, a, self.device(),
                  CTORCH_OPERANDS({self, "self", true, true}));
  }
  self.impl()->storage()->bump_version();
  return self;
}

Tensor unary_op(UnaryOp op, const Tensor& t, bool to_float, const OpArgs& args) {
  if (is_complex(t.dtype())) [[unlikely]] return complex_unary(op, t);
  if (needs_grad({&t})) [[unlikely]] {
    return recorded(
        GradFn::Unary, {&t}, [&] { return unary_op(op, t, to_float, args); },
        [&](GradArgs& g) {
          g.unary = op;
          g.lo = args.lo;
          g.hi = args.hi;
        });
  }
  ScalarType dtype = t.dtype();
  if (to_float && is_integral(dtype, true)) dtype = get_default_dtype();
  const Tensor in = t.to(dtype);
  Tensor out = empty_output(t.sizes(), TensorOptions().dtype(dtype).device(t.device()), {&t});
  if (out.numel() == 0) return out;
  ElementwisePlan plan = make_plan(out, {&in});
  char* data[kernels::kMaxOperands];
  plan_data(data, out, {&in});
  launch_unary(op, dtype, plan, data, args, t.device(), CTORCH_OPERANDS({out, nullptr, true, true}, {in, "self"}));
  return out;
}

Tensor& unary_op_(UnaryOp op, Tensor& t, bool to_float, const OpArgs& args) {
  if (needs_grad({&t})) [[unlikely]] {
    return recorded_inplace(
        GradFn::Unary, t, {}, [&] { unary_op_(op, t, to_float, args); },
        [&](GradArgs& g) {
          g.unary = op;
          g.lo = args.lo;
          g.hi = args.hi;
        });
  }
  check_no_internal_overlap(t);
  if (is_complex(t.dtype()) && op == UnaryOp::Neg) [[unlikely]] {
    Tensor r = view_as_real(t);
    r.neg_();
    return t;
  }
  if (is_complex(t.dtype())) [[unlikely]] {  // abs_ gives a real result: not castable, as PyTorch
    CTORCH_CHECK_NOT_IMPLEMENTED(false, "\"", op_name(op), "_\" not implemented for '", scalar_type_cpp_name(t.dtype()), "'");
  }
  if (to_float && is_integral(t.dtype(), true)) {
    CTORCH_CHECK(false, "result type ", scalar_type_cpp_name(get_default_dtype()),
                 " can't be cast to the desired output type ", scalar_type_cpp_name(t.dtype()));
  }
  if (t.numel() != 0) {
    const Tensor& in = t;
    ElementwisePlan plan = make_plan(t, {&in});
    char* data[kernels::kMaxOperands];
    plan_data(data, t, {&in});
    launch_unary(op, t.dtype(), plan, data, args, t.device(), CTORCH_OPERANDS({t, "self", true, true}));
  }
  t.impl()->storage()->bump_version();
  return t;
}

const char* op_name(BinaryOp op) { return kernels::name_of(op); }

const char* op_name(UnaryOp op) { return kernels::name_of(op); }

}  // namespace ctorch::api::ops
