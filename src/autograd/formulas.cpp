// Backward formulas (PyTorch's tools/autograd/derivatives.yaml, for the ops ctorch records).
// Gradients are computed with ordinary ops, so with create_graph they are recorded in turn.
#include "autograd/formulas.h"

#include <algorithm>
#include <cmath>

#include "autograd/functional.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"

namespace ctorch::autograd {

using kernels::BinaryOp;
using kernels::UnaryOp;
using ops::GradFn;
using ops::ScalarOperand;

namespace {

bool needs_grad_input(const Tensor* t) { return t != nullptr && t->defined() && t->requires_grad(); }

Scalar negated(const Scalar& s) { return s.is_floating_point() ? Scalar(-s.to_double()) : Scalar(-s.to_long()); }

bool is_one(const Scalar& s) { return s.to_double() == 1.0; }

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

Tensor zeros_for(const Tensor& g) { return zeros_like(g); }

}  // namespace

const char* formula_name(GradFn fn, const ops::GradArgs& a, ArrayRef<const Tensor*> inputs) {
  switch (fn) {
    case GradFn::Unary:
      switch (a.unary) {
        case UnaryOp::Neg: return "NegBackward0";
        case UnaryOp::Abs: return "AbsBackward0";
        case UnaryOp::Exp: return "ExpBackward0";
        case UnaryOp::Log: return "LogBackward0";
        case UnaryOp::Sqrt: return "SqrtBackward0";
        case UnaryOp::Rsqrt: return "RsqrtBackward0";
        case UnaryOp::Sin: return "SinBackward0";
        case UnaryOp::Cos: return "CosBackward0";
        case UnaryOp::Tanh: return "TanhBackward0";
        case UnaryOp::Sigmoid: return "SigmoidBackward0";
        case UnaryOp::Relu: return "ReluBackward0";
        case UnaryOp::Floor: return "FloorBackward0";
        case UnaryOp::Ceil: return "CeilBackward0";
        case UnaryOp::Round: return "RoundBackward0";
        case UnaryOp::Sign: return "SignBackward0";
        case UnaryOp::Clamp: return "ClampBackward1";
        case UnaryOp::LogicalNot: return "LogicalNotBackward0";
        case UnaryOp::Identity: return "AliasBackward0";
        case UnaryOp::Erf: return "ErfBackward0";
      }
      return "UnaryBackward0";
    case GradFn::Binary:
      switch (a.binary) {
        case BinaryOp::Add: return "AddBackward0";
        case BinaryOp::Sub: return a.side == ScalarOperand::Lhs ? "RsubBackward1" : "SubBackward0";
        case BinaryOp::Mul: return "MulBackward0";
        case BinaryOp::Div: return "DivBackward0";
        case BinaryOp::DivTrunc:
        case BinaryOp::DivFloor: return "DivBackward1";
        case BinaryOp::Remainder: return "RemainderBackward0";
        case BinaryOp::Pow:
          return a.side == ScalarOperand::Rhs ? "PowBackward0" : a.side == ScalarOperand::Lhs ? "PowBackward2" : "PowBackward1";
        case BinaryOp::Maximum: return "MaximumBackward0";
        case BinaryOp::Minimum: return "MinimumBackward0";
        default: return "NotDifferentiable";
      }
    case GradFn::Sum: return a.dims.empty() ? "SumBackward0" : "SumBackward1";
    case GradFn::Mean: return a.dims.empty() ? "MeanBackward0" : "MeanBackward1";
    case GradFn::Prod: return a.dims.empty() ? "ProdBackward0" : "ProdBackward1";
    case GradFn::Norm: return a.dims.empty() ? "NormBackward0" : "NormBackward1";
    case GradFn::Var: return "VarBackward0";
    case GradFn::Std: return "StdBackward0";
    case GradFn::MaxAll: return "MaxBackward1";
    case GradFn::MinAll: return "MinBackward1";
    case GradFn::MaxDim: return "MaxBackward0";
    case GradFn::MinDim: return "MinBackward0";
    case GradFn::Softmax: return "SoftmaxBackward0";
    case GradFn::LogSoftmax: return "LogSoftmaxBackward0";
    case GradFn::Mm: return "MmBackward0";
    case GradFn::Bmm: return "BmmBackward0";
    case GradFn::Addmm: return "AddmmBackward0";
    case GradFn::Matmul: {
      const int64_t d1 = inputs[0]->dim(), d2 = inputs[1]->dim();
      if (d1 == 1 && d2 == 1) return "DotBackward0";
      if (d1 == 2 && d2 == 1) return "MvBackward0";
      if (d1 == 1 && d2 == 2) return "SqueezeBackward1";
      return "UnsafeViewBackward0";
    }
    case GradFn::View: return "ViewBackward0";
    case GradFn::Squeeze: return "SqueezeBackward0";
    case GradFn::SqueezeDim: return "SqueezeBackward1";
    case GradFn::Unsqueeze: return "UnsqueezeBackward0";
    case GradFn::Permute: return "PermuteBackward0";
    case GradFn::Transpose: return "TransposeBackward0";
    case GradFn::T: return "TBackward0";
    case GradFn::Expand: return "ExpandBackward0";
    case GradFn::Select: return "SelectBackward0";
    case GradFn::Slice: return "SliceBackward0";
    case GradFn::Alias: return "AliasBackward0";
    case GradFn::AsStrided: return "AsStridedBackward0";
    case GradFn::ToCopy: return "ToCopyBackward0";
    case GradFn::Clone: return "CloneBackward0";
    case GradFn::Copy: return "CopyBackwards";
    case GradFn::Fill: return "FillBackward0";
    case GradFn::Zero: return "ZeroBackward0";
    case GradFn::Cat: return "CatBackward0";
    case GradFn::Stack: return "StackBackward0";
    case GradFn::Where: return "WhereBackward0";
    case GradFn::Index: return "IndexBackward0";
    case GradFn::IndexPut: return "IndexPutBackward0";
    case GradFn::IndexSelect: return "IndexSelectBackward0";
    case GradFn::Gather: return "GatherBackward0";
    case GradFn::Scatter: return "ScatterBackward0";
    case GradFn::ScatterAdd: return "ScatterAddBackward0";
    case GradFn::IndexAdd: return "IndexAddBackward0";
  }
  return "UnknownBackward";
}

bool formula_needs_original_self(GradFn fn, const ops::GradArgs& a) {
  if (fn == GradFn::Unary) {
    switch (a.unary) {
      case UnaryOp::Abs:
      case UnaryOp::Log:
      case UnaryOp::Sin:
      case UnaryOp::Cos:
      case UnaryOp::Erf:
      case UnaryOp::Clamp: return true;
      default: return false;
    }
  }
  if (fn == GradFn::Binary) {
    switch (a.binary) {
      case BinaryOp::Mul:
      case BinaryOp::Div:
      case BinaryOp::Remainder:
      case BinaryOp::Pow:
      case BinaryOp::Maximum:
      case BinaryOp::Minimum: return true;
      default: return false;
    }
  }
  return false;
}

void FormulaNode::save(ArrayRef<const Tensor*> in, const Tensor& out) {
  auto save_in = [&](size_t i, SavedVariable& slot) {
    if (i < in.size()) slot = SavedVariable(*in[i], false);
  };
  auto save_result = [&] { result_ = SavedVariable(out, true); };
  const bool need0 = !in.empty() && needs_grad_input(in[0]);
  const bool need1 = in.size() > 1 && needs_grad_input(in[1]);
  switch (fn_) {
    case GradFn::Unary:
      switch (args_.unary) {
        case UnaryOp::Abs:
        case UnaryOp::Log:
        case UnaryOp::Sin:
        case UnaryOp::Cos:
        case UnaryOp::Erf:
        case UnaryOp::Clamp: save_in(0, in0_); break;
        case UnaryOp::Exp:
        case UnaryOp::Sqrt:
        case UnaryOp::Rsqrt:
        case UnaryOp::Tanh:
        case UnaryOp::Sigmoid:
        case UnaryOp::Relu: save_result(); break;
        default: break;
      }
      break;
    case GradFn::Binary:
      if (args_.side == ScalarOperand::None) {
        switch (args_.binary) {
          case BinaryOp::Mul:
          case BinaryOp::Div:
            if (need1) save_in(0, in0_);
            save_in(1, in1_);
            break;
          case BinaryOp::Pow: save_result(); [[fallthrough]];
          case BinaryOp::Remainder:
          case BinaryOp::Maximum:
          case BinaryOp::Minimum:
            save_in(0, in0_);
            save_in(1, in1_);
            break;
          default: break;
        }
      } else if (args_.side == ScalarOperand::Rhs) {
        if (args_.binary == BinaryOp::Pow) save_in(0, in0_);
      } else {
        if (args_.binary == BinaryOp::Div || args_.binary == BinaryOp::Remainder) save_in(0, in0_);
        if (args_.binary == BinaryOp::Pow) {
          save_in(0, in0_);
          save_result();
        }
      }
      break;
    case GradFn::Norm:
    case GradFn::Std:
    case GradFn::MaxAll:
    case GradFn::MinAll:
      save_in(0, in0_);
      save_result();
      break;
    case GradFn::Var: save_in(0, in0_); break;
    case GradFn::Prod:
      save_in(0, in0_);
      save_result();
      break;
    case GradFn::Softmax:
    case GradFn::LogSoftmax: save_result(); break;
    case GradFn::Mm:
    case GradFn::Bmm:
    case GradFn::Matmul:
      if (need1) save_in(0, in0_);
      if (need0) save_in(1, in1_);
      break;
    case GradFn::Addmm:
      if (in.size() > 2 && needs_grad_input(in[2])) save_in(1, in1_);
      if (need1) save_in(2, in2_);
      break;
    case GradFn::Where: save_in(0, in0_); break;
    default: break;
  }
}

void FormulaNode::release_variables() {
  std::lock_guard<std::mutex> lock(mutex_);
  in0_.reset();
  in1_.reset();
  in2_.reset();
  result_.reset();
  args_.indices = Tensor();
  args_.index_list.clear();
  released_ = true;
}

Tensor FormulaNode::saved(const SavedVariable& v) { return v.unpack(shared_from_this(), name_); }

variable_list FormulaNode::apply(variable_list&& grads) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Tensor g = grads.empty() ? Tensor() : grads[0];
  variable_list out;
  if (g.defined()) {
    switch (fn_) {
      case GradFn::Unary: out = unary(g); break;
      case GradFn::Binary: out = binary(g); break;
      case GradFn::Sum:
      case GradFn::Mean:
      case GradFn::Prod:
      case GradFn::Norm:
      case GradFn::Var:
      case GradFn::Std:
      case GradFn::MaxAll:
      case GradFn::MinAll:
      case GradFn::MaxDim:
      case GradFn::MinDim:
      case GradFn::Softmax:
      case GradFn::LogSoftmax: out = reduction(g); break;
      case GradFn::Mm:
      case GradFn::Bmm:
      case GradFn::Addmm:
      case GradFn::Matmul: out = gemm(g); break;
      default: out = shape(g); break;
    }
  }
  out.resize(num_outputs());
  for (size_t i = 0; i < out.size(); ++i) {
    if (!next_edges_[i].is_valid()) {
      out[i] = Tensor();
    } else {
      out[i] = fit(out[i], i);
    }
  }
  return out;
}

variable_list FormulaNode::unary(const Tensor& g) {
  switch (args_.unary) {
    case UnaryOp::Neg: return {g.neg()};
    case UnaryOp::Abs: return {g * saved(in0_).sign()};
    case UnaryOp::Exp: return {g * saved(result_)};
    case UnaryOp::Log: return {g / saved(in0_)};
    case UnaryOp::Sqrt: return {g / (saved(result_) * 2)};
    case UnaryOp::Rsqrt: return {g * saved(result_).pow(3) * -0.5};
    case UnaryOp::Sin: return {g * saved(in0_).cos()};
    case UnaryOp::Cos: return {g * saved(in0_).sin().neg()};
    case UnaryOp::Tanh: {
      const Tensor y = saved(result_);
      return {g * (1 - y * y)};
    }
    case UnaryOp::Sigmoid: {
      const Tensor y = saved(result_);
      return {g * y * (1 - y)};
    }
    case UnaryOp::Relu: return {where(saved(result_).gt(0), g, 0)};
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Sign: return {zeros_for(g)};
    case UnaryOp::Clamp: {
      const Tensor self = saved(in0_);
      return {where(self.ge(*args_.lo).logical_and(self.le(*args_.hi)), g, 0)};
    }
    case UnaryOp::LogicalNot:
    case UnaryOp::Identity: return {g};
    case UnaryOp::Erf: {
      const Tensor x = saved(in0_);
      return {g * (x * x).neg().exp() * 1.1283791670955126};  // 2 / sqrt(pi)
    }
  }
  return {Tensor()};
}

variable_list FormulaNode::binary(const Tensor& g) {
  const bool need0 = next_edges_.size() > 0 && next_edges_[0].is_valid();
  const bool need1 = next_edges_.size() > 1 && next_edges_[1].is_valid();
  const Scalar& alpha = args_.alpha;
  if (args_.side == ScalarOperand::Rhs) {  // self op scalar
    const Scalar& s = args_.scalar;
    switch (args_.binary) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Remainder: return {g};
      case BinaryOp::Mul: return {g * s};
      case BinaryOp::Div: return {g / s};
      case BinaryOp::Pow: {
        if (s.to_double() == 0.0) return {zeros_for(g)};
        const double e = s.to_double();
        return {g * saved(in0_).pow(s.is_floating_point() ? Scalar(e - 1) : Scalar(s.to_long() - 1)) * s};
      }
      case BinaryOp::DivTrunc:
      case BinaryOp::DivFloor: return {zeros_for(g)};
      default: CTORCH_CHECK_NOT_IMPLEMENTED(false, "the derivative for '", kernels::name_of(args_.binary),
                                            "' with a scalar operand is not implemented");
    }
  }
  if (args_.side == ScalarOperand::Lhs) {  // scalar op self
    const Scalar& s = args_.scalar;
    switch (args_.binary) {
      case BinaryOp::Add: return {is_one(alpha) ? g : g * alpha};
      case BinaryOp::Sub: return {g * negated(alpha)};
      case BinaryOp::Mul: return {g * s};
      case BinaryOp::Div: {
        const Tensor t = saved(in0_);
        return {g.neg() * s / (t * t)};
      }
      case BinaryOp::Remainder: return {g.neg() * (s / saved(in0_)).floor()};
      case BinaryOp::Pow: {
        const Tensor t = saved(in0_);
        const double base = s.to_double();
        if (base == 0.0) return {where(t.ge(0), zeros_for(g), g * saved(result_) * std::log(base))};
        return {g * saved(result_) * std::log(base)};
      }
      case BinaryOp::DivTrunc:
      case BinaryOp::DivFloor: return {zeros_for(g)};
      default: CTORCH_CHECK_NOT_IMPLEMENTED(false, "the derivative for '", kernels::name_of(args_.binary),
                                            "' with a scalar operand is not implemented");
    }
  }
  switch (args_.binary) {
    case BinaryOp::Add: return {g, need1 ? (is_one(alpha) ? g : g * alpha) : Tensor()};
    case BinaryOp::Sub: return {g, need1 ? g * negated(alpha) : Tensor()};
    case BinaryOp::Mul: return {need0 ? g * saved(in1_) : Tensor(), need1 ? g * saved(in0_) : Tensor()};
    case BinaryOp::Div: {
      const Tensor other = saved(in1_);
      return {need0 ? g / other : Tensor(), need1 ? g.neg() * saved(in0_) / (other * other) : Tensor()};
    }
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor: return {zeros_for(g), zeros_for(g)};
    case BinaryOp::Remainder:
      return {g, need1 ? g.neg() * saved(in0_).div(saved(in1_), std::string("floor")) : Tensor()};
    case BinaryOp::Pow: {
      const Tensor self = saved(in0_), exponent = saved(in1_);
      Tensor gs, ge;
      if (need0) gs = where(exponent.eq(0), zeros_for(g), g * exponent * self.pow(exponent - 1));
      if (need1) ge = where(self.eq(0).logical_and(exponent.ge(0)), zeros_for(g), g * saved(result_) * self.log());
      return {gs, ge};
    }
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      const Tensor self = saved(in0_), other = saved(in1_);
      const bool is_max = args_.binary == BinaryOp::Maximum;
      const Tensor shared = where(self.eq(other), g / 2, g);
      const Tensor gs = where(is_max ? self.lt(other) : self.gt(other), 0, shared);
      const Tensor go = where(is_max ? self.gt(other) : self.lt(other), 0, shared);
      return {gs, go};
    }
    default: return {Tensor(), Tensor()};
  }
}

variable_list FormulaNode::reduction(const Tensor& g) {
  const IntArrayRef sizes(input_metadata_[0].sizes);
  const DimVector& dims = args_.dims;
  switch (fn_) {
    case GradFn::Sum: return {unreduce(g, sizes, dims, args_.keepdim)};
    case GradFn::Mean: {
      const int64_t n = reduced_count(sizes, dims);
      return {unreduce(g, sizes, dims, args_.keepdim) / static_cast<double>(n)};
    }
    case GradFn::Prod: {
      // d prod / d x_i = prod / x_i while no factor is zero; PyTorch's zero-aware formula (products
      // of the other factors) is not here yet, and a zero factor raises rather than giving NaN.
      const Tensor self = saved(in0_);
      CTORCH_CHECK_NOT_IMPLEMENTED(!self.eq(0).any().item<bool>(),
                                   "ctorch: the gradient of prod over a zero factor is not implemented yet");
      return {unreduce(g * saved(result_), sizes, dims, args_.keepdim) / self};
    }
    case GradFn::Var:
    case GradFn::Std: {
      const Tensor self = saved(in0_);
      const int64_t n = reduced_count(sizes, dims);
      const double denom = static_cast<double>(std::max<int64_t>(n - args_.correction, 0));
      const Tensor centered = self - self.mean(IntArrayRef(dims), /*keepdim=*/true);
      if (fn_ == GradFn::Var) return {unreduce(g, sizes, dims, args_.keepdim) * centered * (2.0 / denom)};
      const Tensor result = unreduce(saved(result_), sizes, dims, args_.keepdim);
      return {unreduce(g, sizes, dims, args_.keepdim) * centered / (result * denom)};
    }
    case GradFn::Norm: {
      const Tensor self = saved(in0_);
      const Tensor norm = unreduce(saved(result_), sizes, dims, args_.keepdim);
      const Tensor grad = unreduce(g, sizes, dims, args_.keepdim);
      const double p = args_.p;
      if (p == 0.0) return {zeros_like(self)};
      if (p == 1.0) return {self.sign() * grad};
      if (std::isinf(p)) {
        const Tensor mask = self.abs().eq(norm).to(self.dtype());
        const Tensor count = unreduce(mask.sum(IntArrayRef(dims), args_.keepdim), sizes, dims, args_.keepdim);
        return {self.sign() * mask * grad / count};
      }
      Tensor scaled = p == 2.0 ? self * (grad / norm) : self * self.abs().pow(p - 2) * grad / norm.pow(p - 1);
      return {where(norm.eq(0), zeros_like(scaled), scaled)};
    }
    case GradFn::MaxAll:
    case GradFn::MinAll: {
      const Tensor self = saved(in0_);
      const Tensor mask = self.eq(saved(result_)).to(g.dtype());
      return {mask * (g / mask.sum())};
    }
    case GradFn::MaxDim:
    case GradFn::MinDim: {
      const int64_t dim = args_.dim;
      const int64_t nd = static_cast<int64_t>(sizes.size());
      if (nd == 0) return {g};
      const Tensor idx = args_.keepdim ? args_.indices : args_.indices.unsqueeze(dim);
      const Tensor gk = args_.keepdim ? g : g.unsqueeze(dim);
      DimVector shape(static_cast<size_t>(nd), 1);
      shape[dim] = sizes[dim];
      const Tensor positions = arange(sizes[dim], TensorOptions().dtype(kLong).device(g.device())).view(shape);
      return {where(positions.eq(idx), gk, 0)};
    }
    case GradFn::Softmax: {
      const Tensor y = saved(result_);
      const Tensor gy = g * y;
      return {gy - y * gy.sum(IntArrayRef(args_.dim), /*keepdim=*/true)};
    }
    case GradFn::LogSoftmax: {
      const Tensor y = saved(result_);
      return {g - y.exp() * g.sum(IntArrayRef(args_.dim), /*keepdim=*/true)};
    }
    default: return {Tensor()};
  }
}

variable_list FormulaNode::gemm(const Tensor& g) {
  const bool need0 = next_edges_[0].is_valid();
  const bool need1 = next_edges_.size() > 1 && next_edges_[1].is_valid();
  switch (fn_) {
    case GradFn::Mm:
      return {need0 ? g.mm(saved(in1_).t()) : Tensor(), need1 ? saved(in0_).t().mm(g) : Tensor()};
    case GradFn::Bmm:
      return {need0 ? g.bmm(saved(in1_).transpose(1, 2)) : Tensor(),
              need1 ? saved(in0_).transpose(1, 2).bmm(g) : Tensor()};
    case GradFn::Addmm: {
      const bool need2 = next_edges_[2].is_valid();
      const Scalar& beta = args_.scalar;
      const Scalar& alpha = args_.alpha;
      Tensor gself, g1, g2;
      if (need0) gself = is_one(beta) ? g : g * beta;
      if (need1) g1 = g.mm(saved(in2_).t());
      if (need2) g2 = saved(in1_).t().mm(g);
      if (!is_one(alpha)) {
        if (g1.defined()) g1 = g1 * alpha;
        if (g2.defined()) g2 = g2 * alpha;
      }
      return {gself, g1, g2};
    }
    case GradFn::Matmul: {
      const IntArrayRef sa(input_metadata_[0].sizes), sb(input_metadata_[1].sizes);
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
      if (need0) {
        Tensor b = saved(in1_);
        if (b1) b = b.unsqueeze(1);
        DimVector a_shape(sa);
        if (a1) a_shape = DimVector({1, sa[0]});
        ga = sum_to(gg.matmul(b.transpose(-1, -2)), a_shape).reshape(sa);
      }
      if (need1) {
        Tensor a = saved(in0_);
        if (a1) a = a.unsqueeze(0);
        DimVector b_shape(sb);
        if (b1) b_shape = DimVector({sb[0], 1});
        gb = sum_to(a.transpose(-1, -2).matmul(gg), b_shape).reshape(sb);
      }
      return {ga, gb};
    }
    default: return {Tensor(), Tensor()};
  }
}

variable_list FormulaNode::shape(const Tensor& g) {
  const IntArrayRef sizes = input_metadata_.empty() ? IntArrayRef() : IntArrayRef(input_metadata_[0].sizes);
  switch (fn_) {
    case GradFn::View:
    case GradFn::Squeeze:
    case GradFn::SqueezeDim:
    case GradFn::Unsqueeze: return {g.reshape(sizes)};
    case GradFn::Permute: {
      DimVector inverse(args_.dims.size());
      for (size_t i = 0; i < args_.dims.size(); ++i) inverse[args_.dims[i]] = static_cast<int64_t>(i);
      return {g.permute(inverse)};
    }
    case GradFn::Transpose: return {g.transpose(args_.dim, args_.dim1)};
    case GradFn::T: return {g.t()};
    case GradFn::Expand:
    case GradFn::Alias:
    case GradFn::ToCopy:
    case GradFn::Clone: return {g};
    case GradFn::Select:
    case GradFn::Slice: {
      // index_add_ into zeros (not a copy into a view of them): differentiable under create_graph.
      Tensor z = zeros(sizes, g.options());
      const TensorOptions longs = TensorOptions().dtype(kLong).device(g.device());
      if (fn_ == GradFn::Select) return {z.index_add_(args_.dim, full({1}, args_.start, longs), g.unsqueeze(args_.dim))};
      return {z.index_add_(args_.dim, arange(args_.start, args_.end, args_.step, longs), g)};
    }
    case GradFn::AsStrided:
      CTORCH_CHECK_NOT_IMPLEMENTED(false, "the derivative for 'as_strided' is not implemented in ctorch");
    case GradFn::Copy: return {zeros_like(g), g};  // self's old value is overwritten: zero gradient
    case GradFn::Fill:
    case GradFn::Zero: return {zeros_like(g)};
    case GradFn::Cat:
    case GradFn::Stack: {
      const int64_t nd = g.dim();
      const int64_t dim = args_.dim < 0 ? args_.dim + nd : args_.dim;
      variable_list out;
      int64_t offset = 0;
      for (size_t i = 0; i < input_metadata_.size(); ++i) {
        const DimVector& s = input_metadata_[i].sizes;
        if (fn_ == GradFn::Stack) {
          out.push_back(g.select(dim, static_cast<int64_t>(i)));
          continue;
        }
        if (s.size() == 1 && s[0] == 0 && nd != 1) {  // skipped by cat (legacy empty tensor)
          out.push_back(Tensor());
          continue;
        }
        out.push_back(g.narrow(dim, offset, s[dim]));
        offset += s[dim];
      }
      return out;
    }
    case GradFn::Where: {
      const Tensor cond = saved(in0_);
      return {Tensor(), where(cond, g, 0), where(cond, 0, g)};
    }
    case GradFn::Index: {
      Tensor z = zeros(sizes, g.options());
      z.index_put_(args_.index_list, g, /*accumulate=*/true);
      return {z};
    }
    case GradFn::IndexPut: {
      const Tensor gself =
          args_.accumulate ? g : ctorch::index_put(g, args_.index_list, zeros({}, g.options()), /*accumulate=*/false);
      return {gself, ctorch::index(g, args_.index_list)};
    }
    case GradFn::IndexSelect: {
      Tensor z = zeros(sizes, g.options());
      if (z.dim() == 0) return {g.reshape({})};
      z.index_add_(args_.dim, args_.indices, g);
      return {z};
    }
    case GradFn::Gather: {
      Tensor z = zeros(sizes, g.options());
      z.scatter_add_(args_.dim, args_.indices, g);
      return {z};
    }
    case GradFn::Scatter:
      return {g.scatter(args_.dim, args_.indices, zeros(args_.indices.sizes(), g.options())),
              g.gather(args_.dim, args_.indices)};
    case GradFn::ScatterAdd: return {g, g.gather(args_.dim, args_.indices)};
    case GradFn::IndexAdd: {
      Tensor gs = g.index_select(args_.dim, args_.indices.reshape({-1}));
      if (!is_one(args_.alpha)) gs = gs * args_.alpha;
      return {g, gs};
    }
    default: return {Tensor()};
  }
}

}  // namespace ctorch::autograd
