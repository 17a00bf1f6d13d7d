// The gradient table (Note [Gradient table]): PyTorch's derivatives.yaml for the ops ctorch
// records, one entry per op. A new differentiable op adds its entry here and a gradcheck case in
// tests/device/autograd_device_test.cpp; the enumeration test fails until both exist.
#include "autograd/derivatives.h"

#include <algorithm>
#include <cmath>

#include "autograd/functional.h"
#include "ctorch/dropout.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ops/conv.h"
#include "ops/norm.h"
#include "ops/pool.h"

namespace ctorch::autograd {

using kernels::BinaryOp;
using kernels::UnaryOp;
using ops::GradFn;
using ops::ScalarOperand;

namespace {

// ---- keys and helpers -------------------------------------------------------------------------

constexpr DerivativeKey on(GradFn fn) { return {fn, -1, ScalarOperand::None}; }
constexpr DerivativeKey unary(UnaryOp op) { return {GradFn::Unary, static_cast<int8_t>(op), ScalarOperand::None}; }
/// A binary op; `side` says where a scalar operand is (Rhs: self op scalar, Lhs: scalar op self).
constexpr DerivativeKey binary(BinaryOp op, ScalarOperand side = ScalarOperand::None) {
  return {GradFn::Binary, static_cast<int8_t>(op), side};
}

constexpr uint8_t kSelf = grad_of(0), kOther = grad_of(1), kBoth = grad_of(0) | grad_of(1);

Scalar negated(const Scalar& s) { return s.is_floating_point() ? Scalar(-s.to_double()) : Scalar(-s.to_long()); }
bool is_one(const Scalar& s) { return s.to_double() == 1.0; }
Tensor scaled(const Tensor& g, const Scalar& s) { return is_one(s) ? g : g * s; }

// The gradient of a reduction, broadcast back over the reduced dims of `sizes`.
Tensor unreduce(const Tensor& g, IntArrayRef sizes, const DimVector& dims, bool keepdim) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  Tensor r = g;
  if (!keepdim && nd > 0) {
    if (dims.empty()) {
      r = g.reshape(DimVector(static_cast<size_t>(nd), 1));
    } else {
      std::vector<int64_t> sorted(dims.begin(), dims.end());
      std::sort(sorted.begin(), sorted.end());
      for (int64_t d : sorted) r = r.unsqueeze(d);
    }
  }
  return r.expand(sizes);
}

Tensor unreduce(const FormulaContext& c, const Tensor& g) {
  return unreduce(g, c.sizes(0), c.args().dims, c.args().keepdim);
}

// Number of elements a reduction over `dims` (empty: all) of `sizes` folds.
int64_t reduced_count(IntArrayRef sizes, const DimVector& dims) {
  int64_t n = 1;
  if (dims.empty()) {
    for (int64_t s : sizes) n *= s;
  } else {
    for (int64_t d : dims) n *= sizes.empty() ? 1 : sizes[d];
  }
  return n;
}

// d self^e / d self for a scalar exponent (0 where e == 0).
Tensor pow_scalar_grad(const Tensor& g, const Tensor& self, const Scalar& e) {
  if (e.to_double() == 0.0) return zeros_like(g);
  const Scalar less = e.is_floating_point() ? Scalar(e.to_double() - 1) : Scalar(e.to_long() - 1);
  return g * self.pow(less) * e;
}

// Gradients of maximum / minimum: ties split the gradient evenly.
variable_list max_min_grad(const FormulaContext& c, const Tensor& g, bool is_max) {
  const Tensor self = c.self(), other = c.other();
  const Tensor shared = where(self.eq(other), g / 2, g);
  return {where(is_max ? self.lt(other) : self.gt(other), 0, shared),
          where(is_max ? self.gt(other) : self.lt(other), 0, shared)};
}

// The gradient of max(dim) / min(dim): g at the chosen positions.
variable_list max_min_dim_grad(const FormulaContext& c, const Tensor& g) {
  const IntArrayRef sizes = c.sizes(0);
  const ops::GradArgs& a = c.args();
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if (nd == 0) return {g};
  const Tensor idx = a.keepdim ? a.indices : a.indices.unsqueeze(a.dim);
  const Tensor gk = a.keepdim ? g : g.unsqueeze(a.dim);
  DimVector shape(static_cast<size_t>(nd), 1);
  shape[a.dim] = sizes[a.dim];
  const Tensor positions = arange(sizes[a.dim], TensorOptions().dtype(kLong).device(g.device())).view(shape);
  return {where(positions.eq(idx), gk, 0)};
}

// The gradient of var / std over args.dims.
variable_list var_std_grad(const FormulaContext& c, const Tensor& g, bool is_std) {
  const Tensor self = c.self();
  const ops::GradArgs& a = c.args();
  const int64_t n = reduced_count(c.sizes(0), a.dims);
  const double denom = static_cast<double>(std::max<int64_t>(n - a.correction, 0));
  const Tensor centered = self - self.mean(IntArrayRef(a.dims), /*keepdim=*/true);
  if (!is_std) return {unreduce(c, g) * centered * (2.0 / denom)};
  return {unreduce(c, g) * centered / (unreduce(c, c.result()) * denom)};
}

// The gradient of a p-norm over args.dims.
variable_list norm_grad(const FormulaContext& c, const Tensor& g) {
  const Tensor self = c.self();
  const ops::GradArgs& a = c.args();
  const Tensor norm = unreduce(c, c.result());
  const Tensor grad = unreduce(c, g);
  const double p = a.p;
  if (p == 0.0) return {zeros_like(self)};
  if (p == 1.0) return {self.sign() * grad};
  if (std::isinf(p)) {
    const Tensor mask = self.abs().eq(norm).to(self.dtype());
    const Tensor count = unreduce(c, mask.sum(IntArrayRef(a.dims), a.keepdim));
    return {self.sign() * mask * grad / count};
  }
  const Tensor s = p == 2.0 ? self * (grad / norm) : self * self.abs().pow(p - 2) * grad / norm.pow(p - 1);
  return {where(norm.eq(0), zeros_like(s), s)};
}

// matmul's gradients over the broadcast batch (the dot, mv and vector-matrix cases included).
variable_list matmul_grad(const FormulaContext& c, const Tensor& g) {
  const IntArrayRef sa = c.sizes(0), sb = c.sizes(1);
  const bool a1 = sa.size() == 1, b1 = sb.size() == 1;
  Tensor gg = g;
  if (a1 && b1) {
    gg = g.reshape({1, 1});
  } else if (a1) {
    gg = g.unsqueeze(-2);
  } else if (b1) {
    gg = g.unsqueeze(-1);
  }
  Tensor ga, gb;
  if (c.needs(0)) {
    Tensor b = c.other();
    if (b1) b = b.unsqueeze(1);
    const DimVector a_shape = a1 ? DimVector({1, sa[0]}) : DimVector(sa);
    ga = sum_to(gg.matmul(b.transpose(-1, -2)), a_shape).reshape(sa);
  }
  if (c.needs(1)) {
    Tensor a = c.self();
    if (a1) a = a.unsqueeze(0);
    const DimVector b_shape = b1 ? DimVector({sb[0], 1}) : DimVector(sb);
    gb = sum_to(a.transpose(-1, -2).matmul(gg), b_shape).reshape(sb);
  }
  return {ga, gb};
}

// cat's and stack's gradients: the slices of g that each input became.
variable_list cat_stack_grad(const FormulaContext& c, const Tensor& g, bool is_stack) {
  const int64_t nd = g.dim();
  const int64_t dim = c.args().dim < 0 ? c.args().dim + nd : c.args().dim;
  variable_list out;
  int64_t offset = 0;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    const IntArrayRef s = c.sizes(i);
    if (is_stack) {
      out.push_back(g.select(dim, static_cast<int64_t>(i)));
    } else if (s.size() == 1 && s[0] == 0 && nd != 1) {  // skipped by cat (legacy empty tensor)
      out.push_back(Tensor());
    } else {
      out.push_back(g.narrow(dim, offset, s[dim]));
      offset += s[dim];
    }
  }
  return out;
}

// The gradient of select / slice: g added into zeros of the input's shape (index_add_, not a copy
// into a view, so it differentiates under create_graph).
variable_list select_slice_grad(const FormulaContext& c, const Tensor& g, bool is_select) {
  const ops::GradArgs& a = c.args();
  Tensor z = zeros(c.sizes(0), g.options());
  const TensorOptions longs = TensorOptions().dtype(kLong).device(g.device());
  if (is_select) return {z.index_add_(a.dim, full({1}, a.start, longs), g.unsqueeze(a.dim))};
  return {z.index_add_(a.dim, arange(a.start, a.end, a.step, longs), g)};
}

// as_strided's gradient: g scattered (added) into the input's storage positions, read back with
// the input's geometry (PyTorch's as_strided_backward for an input that does not overlap itself).
// The node keeps the input's geometry, not the input: a later write into it does not invalidate the node.
variable_list as_strided_grad(const FormulaContext& c, const Tensor& g) {
  const ops::GradArgs& a = c.args();
  const Tensor positions =
      arange(a.self_storage, TensorOptions().dtype(kLong).device(g.device())).as_strided(a.dims, a.strides, a.start);
  Tensor storage = zeros({a.self_storage}, g.options());
  storage.index_add_(0, positions.reshape({-1}), g.reshape({-1}));
  return {storage.as_strided(c.sizes(0), a.self_strides, a.self_offset)};
}

// prod's gradient: d/dx_j is the product of the other factors, result / x_j while no factor is
// zero (PyTorch's prod_backward). With zeros it is the product of the nonzero factors besides x_j
// times that of the zero ones besides x_j, the latter written as 1, the one other zero's value, or
// 0, so that second derivatives hold too (PyTorch's cumprod formula, without a cumprod).
variable_list prod_grad(const FormulaContext& c, const Tensor& g) {
  const Tensor self = c.self();
  const Tensor up = unreduce(c, g);
  const Tensor is_zero = self.eq(0);
  if (!is_zero.any().item<bool>()) return {up * unreduce(c, c.result()) / self};
  const ops::GradArgs& a = c.args();
  auto reduce = [&](const Tensor& t, bool product) {
    if (a.dims.empty()) return product ? t.prod() : t.sum();
    return product ? t.prod(a.dims[0], a.keepdim) : t.sum(a.dims, a.keepdim);
  };
  const Tensor zero_f = is_zero.to(self.dtype());
  const Tensor nonzero = where(is_zero, ones_like(self), self);
  const Tensor zero_values = self * zero_f;                                     // 0, with gradient 1 at the zeros
  const Tensor other_zeros = unreduce(c, reduce(zero_f, false)) - zero_f;         // zero factors besides x_j
  const Tensor other_zero_value = unreduce(c, reduce(zero_values, false)) - zero_values;
  const Tensor zero_part =
      where(other_zeros.eq(0), ones_like(self), where(other_zeros.eq(1), other_zero_value, zeros_like(self)));
  return {up * unreduce(c, reduce(nonzero, true)) / nonzero * zero_part};
}

const char* reduction_name(const ops::GradArgs& a, const char* all, const char* dims) {
  return a.dims.empty() ? all : dims;
}

// ---- the table --------------------------------------------------------------------------------

using C = const FormulaContext&;
using G = const Tensor&;

const Derivative kTable[] = {
    // Unary elementwise (self: the input; result: the output).
    {unary(UnaryOp::Neg), "neg", "NegBackward0", {}, [](C, G g) -> variable_list { return {g.neg()}; }},
    {unary(UnaryOp::Abs), "abs", "AbsBackward0", {{kSelf}},
     [](C c, G g) -> variable_list { return {g * c.self().sign()}; }},
    {unary(UnaryOp::Exp), "exp", "ExpBackward0", {{}, kSelf},
     [](C c, G g) -> variable_list { return {g * c.result()}; }},
    {unary(UnaryOp::Log), "log", "LogBackward0", {{kSelf}},
     [](C c, G g) -> variable_list { return {g / c.self()}; }},
    {unary(UnaryOp::Sqrt), "sqrt", "SqrtBackward0", {{}, kSelf},
     [](C c, G g) -> variable_list { return {g / (c.result() * 2)}; }},
    {unary(UnaryOp::Rsqrt), "rsqrt", "RsqrtBackward0", {{}, kSelf},
     [](C c, G g) -> variable_list { return {g * c.result().pow(3) * -0.5}; }},
    {unary(UnaryOp::Sin), "sin", "SinBackward0", {{kSelf}},
     [](C c, G g) -> variable_list { return {g * c.self().cos()}; }},
    {unary(UnaryOp::Cos), "cos", "CosBackward0", {{kSelf}},
     [](C c, G g) -> variable_list { return {g * c.self().sin().neg()}; }},
    {unary(UnaryOp::Tanh), "tanh", "TanhBackward0", {{}, kSelf},
     [](C c, G g) -> variable_list {
       const Tensor y = c.result();
       return {g * (1 - y * y)};
     }},
    {unary(UnaryOp::Sigmoid), "sigmoid", "SigmoidBackward0", {{}, kSelf},
     [](C c, G g) -> variable_list {
       const Tensor y = c.result();
       return {g * y * (1 - y)};
     }},
    {unary(UnaryOp::Relu), "relu", "ReluBackward0", {{}, kSelf},
     [](C c, G g) -> variable_list { return {where(c.result().gt(0), g, 0)}; }},
    {unary(UnaryOp::Floor), "floor", "FloorBackward0", {}, [](C, G g) -> variable_list { return {zeros_like(g)}; }},
    {unary(UnaryOp::Ceil), "ceil", "CeilBackward0", {}, [](C, G g) -> variable_list { return {zeros_like(g)}; }},
    {unary(UnaryOp::Round), "round", "RoundBackward0", {}, [](C, G g) -> variable_list { return {zeros_like(g)}; }},
    {unary(UnaryOp::Sign), "sign", "SignBackward0", {}, [](C, G g) -> variable_list { return {zeros_like(g)}; }},
    {unary(UnaryOp::Clamp), "clamp", "ClampBackward1", {{kSelf}},
     [](C c, G g) -> variable_list {
       const Tensor self = c.self();
       return {where(self.ge(*c.args().lo).logical_and(self.le(*c.args().hi)), g, 0)};
     }},
    {unary(UnaryOp::Erf), "erf", "ErfBackward0", {{kSelf}},
     [](C c, G g) -> variable_list {
       const Tensor x = c.self();
       return {g * (x * x).neg().exp() * 1.1283791670955126};  // 2 / sqrt(pi)
     }},
    {unary(UnaryOp::Log1p), "log1p", "Log1PBackward0", {{kSelf}},
     [](C c, G g) -> variable_list { return {g / (c.self() + 1)}; }},

    // Binary elementwise, two tensors (broadcast gradients are summed back by the node).
    {binary(BinaryOp::Add), "add", "AddBackward0", {},
     [](C c, G g) -> variable_list { return {g, c.needs(1) ? scaled(g, c.args().alpha) : Tensor()}; }},
    {binary(BinaryOp::Sub), "sub", "SubBackward0", {},
     [](C c, G g) -> variable_list { return {g, c.needs(1) ? g * negated(c.args().alpha) : Tensor()}; }},
    {binary(BinaryOp::Mul), "mul", "MulBackward0", {{kOther, kSelf}},
     [](C c, G g) -> variable_list {
       return {c.needs(0) ? g * c.other() : Tensor(), c.needs(1) ? g * c.self() : Tensor()};
     }},
    {binary(BinaryOp::Div), "div", "DivBackward0", {{kOther, kBoth}},
     [](C c, G g) -> variable_list {
       const Tensor other = c.other();
       return {c.needs(0) ? g / other : Tensor(), c.needs(1) ? g.neg() * c.self() / (other * other) : Tensor()};
     }},
    {binary(BinaryOp::DivTrunc), "div.trunc", "DivBackward2", {},
     [](C, G g) -> variable_list { return {zeros_like(g), zeros_like(g)}; }},
    {binary(BinaryOp::DivFloor), "div.floor", "DivBackward2", {},
     [](C, G g) -> variable_list { return {zeros_like(g), zeros_like(g)}; }},
    {binary(BinaryOp::Remainder), "remainder", "RemainderBackward1", {{kOther, kOther}},
     [](C c, G g) -> variable_list {
       return {g, c.needs(1) ? g.neg() * c.self().div(c.other(), std::string("floor")) : Tensor()};
     }},
    {binary(BinaryOp::Pow), "pow", "PowBackward1", {{kBoth, kBoth}, kOther},
     [](C c, G g) -> variable_list {
       const Tensor self = c.self(), exponent = c.other();
       Tensor gs, ge;
       if (c.needs(0)) gs = where(exponent.eq(0), zeros_like(g), g * exponent * self.pow(exponent - 1));
       if (c.needs(1)) ge = where(self.eq(0).logical_and(exponent.ge(0)), zeros_like(g), g * c.result() * self.log());
       return {gs, ge};
     }},
    {binary(BinaryOp::Maximum), "maximum", "MaximumBackward0", {{kBoth, kBoth}},
     [](C c, G g) -> variable_list { return max_min_grad(c, g, true); }},
    {binary(BinaryOp::Minimum), "minimum", "MinimumBackward0", {{kBoth, kBoth}},
     [](C c, G g) -> variable_list { return max_min_grad(c, g, false); }},

    // Binary with a scalar operand on the right: self op scalar (args.scalar).
    {binary(BinaryOp::Add, ScalarOperand::Rhs), "add.Scalar", "AddBackward0", {},
     [](C, G g) -> variable_list { return {g}; }},
    {binary(BinaryOp::Sub, ScalarOperand::Rhs), "sub.Scalar", "SubBackward0", {},
     [](C, G g) -> variable_list { return {g}; }},
    {binary(BinaryOp::Mul, ScalarOperand::Rhs), "mul.Scalar", "MulBackward0", {},
     [](C c, G g) -> variable_list { return {g * c.args().scalar}; }},
    {binary(BinaryOp::Div, ScalarOperand::Rhs), "div.Scalar", "DivBackward0", {},
     [](C c, G g) -> variable_list { return {g / c.args().scalar}; }},
    {binary(BinaryOp::DivTrunc, ScalarOperand::Rhs), "div.Scalar_trunc", "DivBackward2", {},
     [](C, G g) -> variable_list { return {zeros_like(g)}; }},
    {binary(BinaryOp::DivFloor, ScalarOperand::Rhs), "div.Scalar_floor", "DivBackward2", {},
     [](C, G g) -> variable_list { return {zeros_like(g)}; }},
    {binary(BinaryOp::Remainder, ScalarOperand::Rhs), "remainder.Scalar", "RemainderBackward0", {},
     [](C, G g) -> variable_list { return {g}; }},
    {binary(BinaryOp::Pow, ScalarOperand::Rhs), "pow.Tensor_Scalar", "PowBackward0", {{kSelf}},
     [](C c, G g) -> variable_list { return {pow_scalar_grad(g, c.self(), c.args().scalar)}; }},

    // Binary with a scalar operand on the left: scalar op self (args.scalar; alpha scales self).
    {binary(BinaryOp::Sub, ScalarOperand::Lhs), "rsub", "RsubBackward1", {},
     [](C c, G g) -> variable_list { return {g * negated(c.args().alpha)}; }},
    {binary(BinaryOp::Div, ScalarOperand::Lhs), "rdiv", "DivBackward0", {{kSelf}},
     [](C c, G g) -> variable_list {
       const Tensor t = c.self();
       return {g.neg() * c.args().scalar / (t * t)};
     }},
    {binary(BinaryOp::Pow, ScalarOperand::Lhs), "pow.Scalar", "PowBackward2", {{kSelf}, kSelf},
     [](C c, G g) -> variable_list {
       const double base = c.args().scalar.to_double();
       const Tensor grad = g * c.result() * std::log(base);
       if (base == 0.0) return {where(c.self().ge(0), zeros_like(g), grad)};
       return {grad};
     }},

    // Reductions (args.dims: the reduced dims, empty for all; args.keepdim).
    {on(GradFn::Sum), "sum", "SumBackward0", {}, [](C c, G g) -> variable_list { return {unreduce(c, g)}; }, false,
     [](const ops::GradArgs& a, auto) { return reduction_name(a, "SumBackward0", "SumBackward1"); }},
    {on(GradFn::Mean), "mean", "MeanBackward0", {},
     [](C c, G g) -> variable_list {
       return {unreduce(c, g) / static_cast<double>(reduced_count(c.sizes(0), c.args().dims))};
     },
     false, [](const ops::GradArgs& a, auto) { return reduction_name(a, "MeanBackward0", "MeanBackward1"); }},
    {on(GradFn::Prod), "prod", "ProdBackward0", {{kSelf}, kSelf}, prod_grad, false,
     [](const ops::GradArgs& a, auto) { return reduction_name(a, "ProdBackward0", "ProdBackward1"); }},
    {on(GradFn::Norm), "norm", "NormBackward0", {{kSelf}, kSelf}, norm_grad, false,
     [](const ops::GradArgs& a, auto) { return reduction_name(a, "NormBackward0", "NormBackward1"); }},
    {on(GradFn::Var), "var", "VarBackward0", {{kSelf}},
     [](C c, G g) -> variable_list { return var_std_grad(c, g, false); }},
    {on(GradFn::Std), "std", "StdBackward0", {{kSelf}, kSelf},
     [](C c, G g) -> variable_list { return var_std_grad(c, g, true); }},
    {on(GradFn::MaxAll), "max", "MaxBackward1", {{kSelf}, kSelf},
     [](C c, G g) -> variable_list {
       const Tensor mask = c.self().eq(c.result()).to(g.dtype());
       return {mask * (g / mask.sum())};
     }},
    {on(GradFn::MinAll), "min", "MinBackward1", {{kSelf}, kSelf},
     [](C c, G g) -> variable_list {
       const Tensor mask = c.self().eq(c.result()).to(g.dtype());
       return {mask * (g / mask.sum())};
     }},
    {on(GradFn::MaxDim), "max.dim", "MaxBackward0", {}, max_min_dim_grad},
    {on(GradFn::MinDim), "min.dim", "MinBackward0", {}, max_min_dim_grad},
    {on(GradFn::Softmax), "softmax", "SoftmaxBackward0", {{}, kSelf},
     [](C c, G g) -> variable_list {
       const Tensor y = c.result();
       const Tensor gy = g * y;
       return {gy - y * gy.sum(IntArrayRef(c.args().dim), /*keepdim=*/true)};
     }},
    {on(GradFn::LogSoftmax), "log_softmax", "LogSoftmaxBackward0", {{}, kSelf},
     [](C c, G g) -> variable_list {
       return {g - c.result().exp() * g.sum(IntArrayRef(c.args().dim), /*keepdim=*/true)};
     }},

    // Matrix products.
    {on(GradFn::Mm), "mm", "MmBackward0", {{kOther, kSelf}},
     [](C c, G g) -> variable_list {
       return {c.needs(0) ? g.mm(c.other().t()) : Tensor(), c.needs(1) ? c.self().t().mm(g) : Tensor()};
     }},
    {on(GradFn::Bmm), "bmm", "BmmBackward0", {{kOther, kSelf}},
     [](C c, G g) -> variable_list {
       return {c.needs(0) ? g.bmm(c.other().transpose(1, 2)) : Tensor(),
               c.needs(1) ? c.self().transpose(1, 2).bmm(g) : Tensor()};
     }},
    {on(GradFn::Addmm), "addmm", "AddmmBackward0", {{0, grad_of(2), grad_of(1)}},
     [](C c, G g) -> variable_list {
       const Scalar& alpha = c.args().alpha;
       return {c.needs(0) ? scaled(g, c.args().scalar) : Tensor(),
               c.needs(1) ? scaled(g.mm(c.input(2).t()), alpha) : Tensor(),
               c.needs(2) ? scaled(c.input(1).t().mm(g), alpha) : Tensor()};
     }},
    {on(GradFn::Matmul), "matmul", "UnsafeViewBackward0", {{kOther, kSelf}}, matmul_grad, false,
     [](const ops::GradArgs&, ArrayRef<const Tensor*> in) {
       const int64_t d1 = in[0]->dim(), d2 = in[1]->dim();
       if (d1 == 1 && d2 == 1) return "DotBackward0";
       if (d1 == 2 && d2 == 1) return "MvBackward0";
       if (d1 == 1 && d2 == 2) return "SqueezeBackward1";
       return "UnsafeViewBackward0";
     }},

    // Convolution (ops/conv.cpp, Note [Convolution]): inputs input, weight, bias (may be undefined).
    {on(GradFn::Conv2d), "conv2d", "ConvolutionBackward0", {{grad_of(1), grad_of(0)}},
     [](C c, G g) -> variable_list {
       auto [gi, gw, gb] = ops::conv2d_backward(g, c.needs(1) ? c.self() : Tensor(), c.sizes(0),
                                                c.needs(0) ? c.other() : Tensor(), c.sizes(1), c.args().conv,
                                                {c.needs(0), c.needs(1), c.needs(2)});
       return {gi, gw, gb};
     }},
    {on(GradFn::ConvTranspose2d), "conv_transpose2d", "ConvolutionBackward0", {{grad_of(1), grad_of(0)}},
     [](C c, G g) -> variable_list {
       auto [gi, gw, gb] = ops::conv_transpose2d_backward(g, c.needs(1) ? c.self() : Tensor(), c.sizes(0),
                                                          c.needs(0) ? c.other() : Tensor(), c.sizes(1),
                                                          c.args().conv, {c.needs(0), c.needs(1), c.needs(2)});
       return {gi, gw, gb};
     }},

    // Batch normalization (ops/norm.cpp, Note [Batch normalization]): inputs input, weight, bias.
    {on(GradFn::BatchNorm), "batch_norm", "NativeBatchNormBackward0",
     {{static_cast<uint8_t>(grad_of(0) | grad_of(1)), grad_of(0)}},
     [](C c, G g) -> variable_list {
       const ops::GradArgs& a = c.args();
       auto [gi, gw, gb] = ops::batch_norm_backward(g, c.self(), c.needs(0) && a.has_weight ? c.other() : Tensor(), a.stats[0],
                                                    a.stats[1], a.p, a.keepdim, {c.needs(0), c.needs(1), c.needs(2)});
       return {gi, gw, gb};
     }},

    // Layer normalization (ops/layer_norm.cpp, Note [Layer normalization]): inputs input, weight, bias.
    {on(GradFn::LayerNorm), "layer_norm", "NativeLayerNormBackward0",
     {{static_cast<uint8_t>(grad_of(0) | grad_of(1)), grad_of(0)}},
     [](C c, G g) -> variable_list {
       const ops::GradArgs& a = c.args();
       auto [gi, gw, gb] = ops::layer_norm_backward(g, c.self(), c.needs(0) && a.has_weight ? c.other() : Tensor(),
                                                    a.stats[0], a.stats[1], a.p, a.dim,
                                                    {c.needs(0), c.needs(1), c.needs(2)});
       return {gi, gw, gb};
     }},

    // Max pooling (ops/pool.cpp, Note [Max pooling]): the gradient goes where the maxima were.
    {on(GradFn::MaxPool2d), "max_pool2d", "MaxPool2DWithIndicesBackward0", {},
     [](C c, G g) -> variable_list { return {ops::max_pool2d_backward(g, c.sizes(0), c.args().indices, c.args().pool)}; }},
    // Average pooling (ops/avg_pool.cpp, Note [Average pooling]): the gradient over each window, divided.
    {on(GradFn::AvgPool2d), "avg_pool2d", "AvgPool2DBackward0", {},
     [](C c, G g) -> variable_list { return {ops::avg_pool2d_backward(g, c.sizes(0), c.args().pool)}; }},
    {on(GradFn::AdaptiveAvgPool2d), "adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", {},
     [](C c, G g) -> variable_list { return {ops::avg_pool2d_backward(g, c.sizes(0), c.args().pool)}; }},

    // Dropout (random/dropout.cpp, Note [Fused dropout]): the gradient where the mask kept, scaled.
    {on(GradFn::NativeDropout), "native_dropout", "NativeDropoutBackward0", {},
     [](C c, G g) -> variable_list { return {native_dropout_backward(g, c.args().indices, c.args().p)}; }},

    // Views of input 0 (the output shares its storage).
    {on(GradFn::View), "view", "ViewBackward0", {},
     [](C c, G g) -> variable_list { return {g.reshape(c.sizes(0))}; }, true},
    {on(GradFn::Squeeze), "squeeze", "SqueezeBackward0", {},
     [](C c, G g) -> variable_list { return {g.reshape(c.sizes(0))}; }, true},
    {on(GradFn::SqueezeDim), "squeeze.dim", "SqueezeBackward1", {},
     [](C c, G g) -> variable_list { return {g.reshape(c.sizes(0))}; }, true},
    {on(GradFn::Unsqueeze), "unsqueeze", "UnsqueezeBackward0", {},
     [](C c, G g) -> variable_list { return {g.reshape(c.sizes(0))}; }, true},
    {on(GradFn::Permute), "permute", "PermuteBackward0", {},
     [](C c, G g) -> variable_list {
       const DimVector& dims = c.args().dims;
       DimVector inverse(dims.size());
       for (size_t i = 0; i < dims.size(); ++i) inverse[dims[i]] = static_cast<int64_t>(i);
       return {g.permute(inverse)};
     },
     true},
    {on(GradFn::Transpose), "transpose", "TransposeBackward0", {},
     [](C c, G g) -> variable_list { return {g.transpose(c.args().dim, c.args().dim1)}; }, true},
    {on(GradFn::T), "t", "TBackward0", {}, [](C, G g) -> variable_list { return {g.t()}; }, true},
    {on(GradFn::Expand), "expand", "ExpandBackward0", {}, [](C, G g) -> variable_list { return {g}; }, true},
    {on(GradFn::Select), "select", "SelectBackward0", {},
     [](C c, G g) -> variable_list { return select_slice_grad(c, g, true); }, true},
    {on(GradFn::Slice), "slice", "SliceBackward0", {},
     [](C c, G g) -> variable_list { return select_slice_grad(c, g, false); }, true},
    {on(GradFn::Alias), "alias", "AliasBackward0", {}, [](C, G g) -> variable_list { return {g}; }, true},
    {on(GradFn::AsStrided), "as_strided", "AsStridedBackward0", {}, as_strided_grad, true},

    // Copies and in-place fills (self's old value is overwritten: its gradient is zero).
    {on(GradFn::ToCopy), "to", "ToCopyBackward0", {}, [](C, G g) -> variable_list { return {g}; }},
    {on(GradFn::Clone), "clone", "CloneBackward0", {}, [](C, G g) -> variable_list { return {g}; }},
    {on(GradFn::Copy), "copy_", "CopyBackwards", {}, [](C, G g) -> variable_list { return {zeros_like(g), g}; }},
    {on(GradFn::Fill), "fill_", "FillBackward0", {}, [](C, G g) -> variable_list { return {zeros_like(g)}; }},
    {on(GradFn::Zero), "zero_", "ZeroBackward0", {}, [](C, G g) -> variable_list { return {zeros_like(g)}; }},

    // Joining, selecting and indexing.
    {on(GradFn::Cat), "cat", "CatBackward0", {}, [](C c, G g) -> variable_list { return cat_stack_grad(c, g, false); }},
    {on(GradFn::Stack), "stack", "StackBackward0", {},
     [](C c, G g) -> variable_list { return cat_stack_grad(c, g, true); }},
    {on(GradFn::Where), "where", "WhereBackward0", {{grad_of(1) | grad_of(2)}},
     [](C c, G g) -> variable_list {
       const Tensor cond = c.self();
       return {Tensor(), where(cond, g, 0), where(cond, 0, g)};
     }},
    {on(GradFn::Index), "index", "IndexBackward0", {},
     [](C c, G g) -> variable_list {
       Tensor z = zeros(c.sizes(0), g.options());
       z.index_put_(c.args().index_list, g, /*accumulate=*/true);
       return {z};
     }},
    {on(GradFn::IndexPut), "index_put_", "IndexPutBackward0", {},
     [](C c, G g) -> variable_list {
       const auto& idx = c.args().index_list;
       const Tensor gself =
           c.args().accumulate ? g : ctorch::index_put(g, idx, zeros({}, g.options()), /*accumulate=*/false);
       return {gself, ctorch::index(g, idx)};
     }},
    {on(GradFn::IndexSelect), "index_select", "IndexSelectBackward0", {},
     [](C c, G g) -> variable_list {
       Tensor z = zeros(c.sizes(0), g.options());
       if (z.dim() == 0) return {g.reshape({})};
       z.index_add_(c.args().dim, c.args().indices, g);
       return {z};
     }},
    {on(GradFn::Gather), "gather", "GatherBackward0", {},
     [](C c, G g) -> variable_list {
       Tensor z = zeros(c.sizes(0), g.options());
       z.scatter_add_(c.args().dim, c.args().indices, g);
       return {z};
     }},
    {on(GradFn::Scatter), "scatter_", "ScatterBackward0", {},
     [](C c, G g) -> variable_list {
       const ops::GradArgs& a = c.args();
       return {g.scatter(a.dim, a.indices, zeros(a.indices.sizes(), g.options())), g.gather(a.dim, a.indices)};
     }},
    {on(GradFn::ScatterAdd), "scatter_add_", "ScatterAddBackward0", {},
     [](C c, G g) -> variable_list { return {g, g.gather(c.args().dim, c.args().indices)}; }},
    {on(GradFn::IndexAdd), "index_add_", "IndexAddBackward0", {},
     [](C c, G g) -> variable_list {
       const ops::GradArgs& a = c.args();
       return {g, scaled(g.index_select(a.dim, a.indices.reshape({-1})), a.alpha)};
     }},
};

// A recorded call with no entry: the node exists (PyTorch's NotImplemented node), backward raises.
[[noreturn]] void not_implemented(const char* op, const char* what) {
  detail::throw_error(detail::ErrorKind::kNotImplemented, __FILE__, __LINE__, __func__,
                      detail::str_cat("the derivative for '", op, "'", what, " is not implemented"));
}
const Derivative kUnaryNotImplemented{{}, "not_implemented", "NotImplemented", {}, [](C c, G) -> variable_list {
  not_implemented(kernels::name_of(c.args().unary), "");
}};
const Derivative kBinaryNotImplemented{{}, "not_implemented", "NotImplemented", {}, [](C c, G) -> variable_list {
  not_implemented(kernels::name_of(c.args().binary), c.args().side == ScalarOperand::None ? "" : " with a scalar operand");
}};
const Derivative kNotImplemented{{}, "not_implemented", "NotImplemented", {}, [](C, G) -> variable_list {
  not_implemented("this op", "");
}};

// Entries by key, built once: GradFn, then UnaryOp, then BinaryOp x scalar side.
struct Index {
  static constexpr size_t kSlots = 64;
  const Derivative* by_fn[kSlots] = {};
  const Derivative* by_unary[kSlots] = {};
  const Derivative* by_binary[3][kSlots] = {};

  Index() {
    for (const Derivative& d : kTable) {
      const DerivativeKey& k = d.key;
      if (k.fn == GradFn::Unary) {
        by_unary[static_cast<size_t>(k.op)] = &d;
      } else if (k.fn == GradFn::Binary) {
        by_binary[static_cast<size_t>(k.side)][static_cast<size_t>(k.op)] = &d;
      } else {
        by_fn[static_cast<size_t>(k.fn)] = &d;
      }
    }
  }
};

}  // namespace

const Derivative* derivative_of(GradFn fn, const ops::GradArgs& args) {
  static const Index index;
  const Derivative* d = nullptr;
  if (fn == GradFn::Unary) {
    d = index.by_unary[static_cast<size_t>(args.unary)];
  } else if (fn == GradFn::Binary) {
    d = index.by_binary[static_cast<size_t>(args.side)][static_cast<size_t>(args.binary)];
  } else {
    d = index.by_fn[static_cast<size_t>(fn)];
  }
  if (d != nullptr) return d;
  return fn == GradFn::Unary ? &kUnaryNotImplemented : fn == GradFn::Binary ? &kBinaryNotImplemented : &kNotImplemented;
}

ArrayRef<Derivative> all_derivatives() { return ArrayRef<Derivative>(kTable, std::size(kTable)); }

}  // namespace ctorch::autograd
