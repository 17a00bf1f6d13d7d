// Complex tensors (complex64, complex128) composed from real ops on their (..., 2) real view.
//
// Note [Complex by composition]
// The kernel table has no complex instantiation: its dispatch raises PyTorch's "\"op\" not
// implemented for 'ComplexFloat'" for every complex dtype. The few complex ops ctorch has are
// composed here from real ops on view_as_real, so they run on every backend (and in stream order
// on cuda devices) without a kernel of their own: copies and conversions, fill, + - * /, ==, !=,
// neg, abs, conj. Complex tensors cannot require grad (no complex autograd).
#include <cmath>
#include <limits>

#include "ctorch/complex.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ctorch/warning.h"
#include "ops/complex_ops.h"
#include "ops/elementwise.h"
#include "ops/launch.h"

namespace ctorch::inline api {
namespace {

// A new impl over self's storage with another dtype (the View funnel, as ops/views.cpp's make_view).
Tensor make_dtype_view(const char* name, const Tensor& self, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t offset) {
  Tensor view(IntrusivePtr<TensorImpl>::make(self.impl()->storage(), dtype, sizes, strides, offset));
  if (ops::observed()) ops::observe_view(name, self, view);
  return view;
}

// view_as_complex of a fresh (..., 2) result, made contiguous first when its layout does not allow it.
Tensor as_complex(const Tensor& r) {
  const int64_t n = r.dim();
  bool viewable = r.strides()[n - 1] == 1 && r.storage_offset() % 2 == 0;
  for (int64_t d = 0; d + 1 < n; ++d) viewable = viewable && r.strides()[d] % 2 == 0;
  return view_as_complex(viewable ? r : r.contiguous());
}

void check_no_grad(const char* op, std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors) {
    CTORCH_CHECK_NOT_IMPLEMENTED(!(t->defined() && t->requires_grad() && GradMode::is_enabled()), op,
                                 ": autograd through complex tensors is not supported by ctorch");
  }
}

// |re + i im| as C's hypot (PyTorch's complex abs is std::abs, a hypot): no overflow or underflow in the
// squares, +inf when either part is infinite (even beside a NaN), NaN otherwise when either part is NaN.
// float32 parts are squared in float64, as glibc's hypotf does (exact squares, one rounding at the end);
// float64 parts are scaled by the larger magnitude m: m * sqrt(1 + (n / m)^2).
Tensor hypot_of_parts(const Tensor& re, const Tensor& im) {
  const Tensor a = re.abs(), b = im.abs();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor any_inf = a.eq(inf).logical_or(b.eq(inf));
  Tensor h;
  if (re.dtype() == kFloat) {
    const Tensor ad = a.to(kDouble), bd = b.to(kDouble);
    h = ad.mul(ad).add(bd.mul(bd)).sqrt().to(kFloat);
  } else {
    const Tensor m = a.maximum(b), n = a.minimum(b);
    const Tensor q = where(m.eq(0), 0.0, n.div(m));  // 0 / 0 when both parts are 0
    h = m.mul(q.mul(q).add(1).sqrt());
  }
  return where(any_inf, inf, h);
}

}  // namespace

Tensor view_as_real(const Tensor& self) {
  CTORCH_CHECK(self.is_complex(), "view_as_real is only supported for complex tensors");
  DimVector sizes(self.sizes()), strides;
  for (int64_t s : self.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  return make_dtype_view("view_as_real", self, to_real_value_type(self.dtype()), sizes, strides,
                         2 * self.storage_offset());
}

Tensor view_as_complex(const Tensor& self) {
  CTORCH_CHECK(self.dtype() == kFloat || self.dtype() == kDouble || self.dtype() == kHalf,
               "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: ",
               scalar_type_cpp_name(self.dtype()));
  CTORCH_CHECK_NOT_IMPLEMENTED(self.dtype() != kHalf, "view_as_complex: ComplexHalf is not supported by ctorch");
  const int64_t n = self.dim();
  CTORCH_CHECK(n != 0, "Input tensor must have one or more dimensions");
  CTORCH_CHECK(self.sizes()[n - 1] == 2, "Tensor must have a last dimension of size 2");
  CTORCH_CHECK(self.strides()[n - 1] == 1, "Tensor must have a last dimension with stride 1");
  DimVector sizes, strides;
  for (int64_t d = 0; d + 1 < n; ++d) sizes.push_back(self.sizes()[d]);
  for (int64_t d = 0; d + 1 < n; ++d) {
    CTORCH_CHECK(self.strides()[d] % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
    strides.push_back(self.strides()[d] / 2);
  }
  CTORCH_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  return make_dtype_view("view_as_complex", self, to_complex_type(self.dtype()), sizes, strides,
                         self.storage_offset() / 2);
}

Tensor Tensor::real() const {
  if (!is_complex()) return *this;
  return view_as_real(*this).select(-1, 0);
}

Tensor Tensor::imag() const {
  CTORCH_CHECK(is_complex(), "imag is not implemented for tensors with non-complex dtypes.");
  return view_as_real(*this).select(-1, 1);
}

Tensor Tensor::conj() const {
  if (!is_complex()) return *this;
  check_no_grad("conj", {this});
  const Tensor r = view_as_real(*this);
  return as_complex(stack({r.select(-1, 0), r.select(-1, 1).neg()}, -1));
}

Tensor complex(const Tensor& real, const Tensor& imag) {
  CTORCH_CHECK(real.dtype() == kFloat || real.dtype() == kDouble,
               "Expected both inputs to be Half, Float or Double tensors but got ", scalar_type_cpp_name(real.dtype()),
               " and ", scalar_type_cpp_name(imag.dtype()));
  CTORCH_CHECK(real.dtype() == imag.dtype(), "Expected object of scalar type ", scalar_type_cpp_name(real.dtype()),
               " but got scalar type ", scalar_type_cpp_name(imag.dtype()), " for second argument");
  check_no_grad("complex", {&real, &imag});
  const DimVector shape = broadcast_shapes(real.sizes(), imag.sizes());
  return as_complex(stack({real.expand(shape), imag.expand(shape)}, -1));
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  return complex(abs.mul(angle.cos()), abs.mul(angle.sin()));
}

namespace ops {

void complex_copy(Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.is_complex() && src.is_complex()) {
    Tensor d = view_as_real(dst);
    copy_into(d, view_as_real(src), non_blocking);
    return;
  }
  if (dst.is_complex()) {  // real -> complex: the value goes to the real parts, the imaginary parts are 0
    const Tensor d = view_as_real(dst);
    Tensor re = d.select(-1, 0), im = d.select(-1, 1);
    copy_into(re, src, non_blocking);
    fill_into(im, 0);
    return;
  }
  warn("UserWarning: Casting complex values to real discards the imaginary part");
  copy_into(dst, view_as_real(src).select(-1, 0), non_blocking);
}

void complex_fill(Tensor& t, const Scalar& value) {
  const Tensor r = view_as_real(t);
  Tensor re = r.select(-1, 0), im = r.select(-1, 1);
  fill_into(re, value);
  fill_into(im, 0);
}

Tensor complex_binary(kernels::BinaryOp op, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_no_grad(op_name(op), {&a, &b});
  const ScalarType common = result_type(a, b);
  // A 0-dim cpu operand beside a cuda tensor is allowed, as for real ops: it moves to the device.
  const bool a_scalar = a.dim() == 0 && a.is_cpu() && b.is_cuda();
  const bool b_scalar = b.dim() == 0 && b.is_cpu() && a.is_cuda();
  const Device device = a_scalar ? b.device() : b_scalar ? a.device() : common_device({&a, &b});
  using kernels::BinaryOp;
  const bool supported = op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div ||
                         op == BinaryOp::Eq || op == BinaryOp::Ne;
  CTORCH_CHECK_NOT_IMPLEMENTED(supported, "\"", op_name(op), "\" not implemented for '", scalar_type_cpp_name(common),
                               "'");
  CTORCH_CHECK(!alpha.is_bool() || op == BinaryOp::Add || op == BinaryOp::Sub, "alpha must not be boolean");
  (void)broadcast_shapes(a.sizes(), b.sizes());
  const Tensor ar = view_as_real(a.to(device, common)), br = view_as_real(b.to(device, common));
  switch (op) {
    case BinaryOp::Add: return as_complex(ar.add(br, alpha));
    case BinaryOp::Sub: return as_complex(ar.sub(br, alpha));
    default: break;
  }
  const Tensor are = ar.select(-1, 0), aim = ar.select(-1, 1), bre = br.select(-1, 0), bim = br.select(-1, 1);
  switch (op) {
    case BinaryOp::Mul:
      return as_complex(stack({are.mul(bre).sub(aim.mul(bim)), are.mul(bim).add(aim.mul(bre))}, -1));
    case BinaryOp::Div: {
      const Tensor denom = bre.mul(bre).add(bim.mul(bim));
      return as_complex(stack({are.mul(bre).add(aim.mul(bim)).div(denom), aim.mul(bre).sub(are.mul(bim)).div(denom)},
                              -1));
    }
    case BinaryOp::Eq: return are.eq(bre).logical_and(aim.eq(bim));
    case BinaryOp::Ne: return are.ne(bre).logical_or(aim.ne(bim));
    default: break;
  }
  CTORCH_INTERNAL_ASSERT(false, "complex_binary: unhandled op");
  return Tensor();
}

Tensor complex_binary(kernels::BinaryOp op, const Tensor& t, const Scalar& s, ScalarOperand side, const Scalar& alpha) {
  const Tensor st = full({}, s, TensorOptions().dtype(result_type(t, s)).device(t.device()));
  return side == ScalarOperand::Lhs ? complex_binary(op, st, t, alpha) : complex_binary(op, t, st, alpha);
}

Tensor complex_unary(kernels::UnaryOp op, const Tensor& t) {
  check_no_grad(op_name(op), {&t});
  const Tensor r = view_as_real(t);
  switch (op) {
    case kernels::UnaryOp::Neg: return as_complex(r.neg());
    case kernels::UnaryOp::Abs: return hypot_of_parts(r.select(-1, 0), r.select(-1, 1));
    case kernels::UnaryOp::Identity: return t.clone();
    default: break;
  }
  CTORCH_CHECK_NOT_IMPLEMENTED(false, "\"", op_name(op), "\" not implemented for '", scalar_type_cpp_name(t.dtype()),
                               "'");
  return Tensor();
}

}  // namespace ops
}  // namespace ctorch::api
