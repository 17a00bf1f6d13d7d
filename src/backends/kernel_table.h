// The kernel table, written once: make_kernel_table<Launcher>() holds everything between the op
// layer's KernelTable slots and a backend's launchers (the op switches, the dtype dispatch, clamp
// bounds, scalar operands, the reduce and random dispatch, the loop GEMM's scalars). Each backend
// supplies only a Launcher (backends/<backend>/launch.h): cpu a parallel loop, cuda grid-stride
// kernels, emulated a walker of the CUDA grid enqueued on the emulated stream.
//
// A Launcher L provides (all asynchronous where the backend is):
//   kArithmetic                                  Arithmetic::Cpu or Arithmetic::Gpu (below)
//   elementwise<Out, In...>(plan, data, f, name, stream)   out = f(in...) over the plan
//   copy_bytes(dst, src, bytes, stream)          a same-dtype contiguous copy
//   reduce<T, Out>(plan, data, op, stream)       a reduction functor over a ReducePlan
//   softmax<T, Log>(plan, data, stream)          (log_)softmax over a SoftmaxPlan
//   gemm(dtype, geometry, alpha, a, b, beta, c, stream)    the whole GEMM slot
//   distribution(launch, plan, data, seed, offset, sampler, stream)   Note [Distribution grid]
//   bernoulli_tensor<T, P>(plan, data, seed, offset, stream)
//   index_elementwise(plan, data, f, sequential, name, stream)   f(indexed, dense) per element of an
//                                                IndexPlan; sequential: one thread in plan order
//   jit_compile(spec, device), jit(kernel, plan, data, extra, nextra, stream)   the two jiterator slots
//   fft(plan, in, out, stream)                   the whole FFT slot (backends/<backend>/fft.cpp)
//   threads(f, name, stream), blocks(f, name, stream)   a thread or block functor (Note [Thread
//                                                functors]): pooling, normalization, conv columns
//
// Note [cpu and gpu arithmetic]
// Where PyTorch's cpu and CUDA kernels round differently, the table follows the launcher's device:
// - add/sub with alpha != 1 on float16: the cpu rounds alpha * y to half before adding; the GPU
//   computes fma(alpha, y, x) in float (nvcc contracts x + alpha * y) and rounds once.
// - pow(tensor, scalar): the cpu specializes 2, 3, -2, 0.5, -0.5 and -1 for float and double and
//   otherwise calls pow in double; the GPU specializes the same exponents for every floating dtype
//   in opmath (PowKernel.cu) and otherwise calls pow in opmath with the exponent in the storage type.
// Other differences come from the launchers: reduction order (Note [Reduction grid]), and the
// host libm standing in for CUDA's device math on emulated devices (a few ulps in exp, log, ...).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/conv_functors.h"
#include "kernels/convert.h"
#include "kernels/dispatch.h"
#include "kernels/functors.h"
#include "kernels/gemm_math.h"
#include "kernels/index_plan.h"
#include "kernels/dropout_functors.h"
#include "kernels/norm_functors.h"
#include "kernels/pool_functors.h"
#include "kernels/random_functors.h"
#include "kernels/reduce_functors.h"
#include "ops/kernel_table.h"

// Hidden in libctorch: these templates are instantiated per op and dtype, and exporting each
// instantiation would add thousands of dynamic symbols for the loader to resolve at startup.
#ifndef __CUDACC__
#pragma GCC visibility push(hidden)
#endif

namespace ctorch::inline api::backends {

/// Whose rounding a launcher reproduces where PyTorch's cpu and CUDA kernels differ.
enum class Arithmetic { Cpu, Gpu };

namespace table_detail {

using kernels::BinaryOp;
using kernels::opmath_t;
using kernels::UnaryOp;

// A clamp bound converted to A; integer bounds beyond A's range saturate.
template <class A>
A bound(const Scalar& s) {
  if constexpr (std::is_integral_v<A>) {
    const double d = s.to_double();
    if (d <= static_cast<double>(std::numeric_limits<A>::lowest())) return std::numeric_limits<A>::lowest();
    if (d >= static_cast<double>(std::numeric_limits<A>::max())) return std::numeric_limits<A>::max();
  }
  return s.to<A>();
}

constexpr bool is_transcendental(UnaryOp op) {
  return op == UnaryOp::Exp || op == UnaryOp::Log || op == UnaryOp::Sqrt || op == UnaryOp::Rsqrt ||
         op == UnaryOp::Sin || op == UnaryOp::Cos || op == UnaryOp::Tanh || op == UnaryOp::Sigmoid ||
         op == UnaryOp::Erf || op == UnaryOp::Log1p;
}

template <UnaryOp Op, class A>
struct UnaryFn {
  CTORCH_HD A operator()(A x) const { return kernels::Unary<Op>{}(x); }
};

template <class A>
struct ClampFn {
  A lo, hi;
  CTORCH_HD A operator()(A x) const { return kernels::Unary<UnaryOp::Clamp>{}(x, lo, hi); }
};

template <BinaryOp Op, class A>
struct BinaryFn {
  A alpha;
  CTORCH_HD auto operator()(A x, A y) const { return kernels::Binary<Op>{}(x, y, alpha); }
};

// Which side of a binary op the scalar operand takes: fixed (one loop per side, which vectorizes on
// the cpu) or chosen per call (one GPU kernel for both sides: a uniform branch, half the kernels).
enum class ScalarSide : int8_t { Lhs, Rhs, Runtime };

// The tensor operand is x; the scalar goes on the right (scalar_rhs) or on the left.
template <class G, class A, ScalarSide Side>
struct ScalarOperandFn {
  G g;
  A scalar;
  bool scalar_rhs;
  CTORCH_HD auto operator()(A x) const {
    if constexpr (Side == ScalarSide::Rhs) return g(x, scalar);
    else if constexpr (Side == ScalarSide::Lhs) return g(scalar, x);
    else return scalar_rhs ? g(x, scalar) : g(scalar, x);
  }
};

// x + alpha * y in one rounding (Sub passes -alpha).
template <class A>
struct FusedScaledAddFn {
  A alpha;
  CTORCH_HD A operator()(A x, A y) const { return std::fma(alpha, y, x); }
};

// x + alpha * y with the product rounded to storage type T first (PyTorch's cpu float16 kernel).
template <class T, class A>
struct RoundedScaledAddFn {
  A alpha;
  CTORCH_HD A operator()(A x, A y) const { return x + static_cast<A>(static_cast<T>(alpha * y)); }
};

// The exponents both PyTorch kernels specialize; General is pow itself, Runtime picks per call.
enum class PowKind : int8_t { Runtime, Square, Cube, InvSquare, Sqrt, Rsqrt, Reciprocal, General };

template <class W>
CTORCH_HD constexpr PowKind pow_kind(W e) {
  return e == W(2)      ? PowKind::Square
         : e == W(3)    ? PowKind::Cube
         : e == W(-2)   ? PowKind::InvSquare
         : e == W(0.5)  ? PowKind::Sqrt
         : e == W(-0.5) ? PowKind::Rsqrt
         : e == W(-1)   ? PowKind::Reciprocal
                        : PowKind::General;
}

// pow(x, e) with the special exponents computed by plain arithmetic, else pow in W (double or opmath).
// A fixed K lets the cpu loop vectorize; the GPU takes the uniform branch (K = Runtime).
template <class A, class W, PowKind K>
struct PowScalarFn {
  W e;
  CTORCH_HD static A apply(A x, W e, PowKind k) {
    switch (k) {
      case PowKind::Square: return x * x;
      case PowKind::Cube: return x * x * x;
      case PowKind::InvSquare: return A(1) / (x * x);
      case PowKind::Sqrt: return std::sqrt(x);
      case PowKind::Rsqrt: return A(1) / std::sqrt(x);
      case PowKind::Reciprocal: return A(1) / x;
      default: return static_cast<A>(std::pow(static_cast<W>(x), e));
    }
  }
  CTORCH_HD A operator()(A x) const { return apply(x, e, K == PowKind::Runtime ? pow_kind(e) : K); }
};

template <class D, class S>
struct ConvertFn {
  // Sees the source as opmath (exact for every storage type), so convert<D> gets the stored value.
  CTORCH_HD D operator()(opmath_t<S> v) const { return kernels::convert<D>(static_cast<S>(v)); }
};

template <class T>
struct FillFn {
  T value;
  CTORCH_HD T operator()() const { return value; }
};

template <class A>
struct WhereFn {
  CTORCH_HD A operator()(bool c, A x, A y) const { return c ? x : y; }
};

}  // namespace table_detail

/// The KernelTable slots for launcher L (see the file comment); make_kernel_table<L>() collects them.
template <class L>
struct KernelTableOf {
  template <class T>
  using opmath_t = kernels::opmath_t<T>;
  using ElementwisePlan = kernels::ElementwisePlan;
  using OpArgs = ops::OpArgs;
  using ScalarOperand = ops::ScalarOperand;

  static void unary(kernels::UnaryOp op, ScalarType dtype, const ElementwisePlan& plan, char* const* data,
                    const OpArgs& args, Stream s) {
    switch (op) {
#define CTORCH_UNARY_CASE_(NAME) \
  case kernels::UnaryOp::NAME: return run_unary<kernels::UnaryOp::NAME>(dtype, plan, data, args, s);
      CTORCH_UNARY_CASE_(Neg) CTORCH_UNARY_CASE_(Abs) CTORCH_UNARY_CASE_(Exp) CTORCH_UNARY_CASE_(Log)
      CTORCH_UNARY_CASE_(Sqrt) CTORCH_UNARY_CASE_(Rsqrt) CTORCH_UNARY_CASE_(Sin) CTORCH_UNARY_CASE_(Cos)
      CTORCH_UNARY_CASE_(Tanh) CTORCH_UNARY_CASE_(Sigmoid) CTORCH_UNARY_CASE_(Relu) CTORCH_UNARY_CASE_(Floor)
      CTORCH_UNARY_CASE_(Ceil) CTORCH_UNARY_CASE_(Round) CTORCH_UNARY_CASE_(Sign)
      CTORCH_UNARY_CASE_(LogicalNot) CTORCH_UNARY_CASE_(Clamp) CTORCH_UNARY_CASE_(Identity)
      CTORCH_UNARY_CASE_(Erf) CTORCH_UNARY_CASE_(Log1p)
#undef CTORCH_UNARY_CASE_
    }
  }

  static void binary(kernels::BinaryOp op, ScalarType dtype, ScalarOperand side, const ElementwisePlan& plan,
                     char* const* data, const OpArgs& args, Stream s) {
    switch (op) {
#define CTORCH_BINARY_CASE_(NAME) \
  case kernels::BinaryOp::NAME: return run_binary<kernels::BinaryOp::NAME>(dtype, side, plan, data, args, s);
      CTORCH_BINARY_CASE_(Add) CTORCH_BINARY_CASE_(Sub) CTORCH_BINARY_CASE_(Mul) CTORCH_BINARY_CASE_(Div)
      CTORCH_BINARY_CASE_(DivTrunc) CTORCH_BINARY_CASE_(DivFloor) CTORCH_BINARY_CASE_(Remainder)
      CTORCH_BINARY_CASE_(Pow) CTORCH_BINARY_CASE_(Maximum) CTORCH_BINARY_CASE_(Minimum)
      CTORCH_BINARY_CASE_(Eq) CTORCH_BINARY_CASE_(Ne) CTORCH_BINARY_CASE_(Lt) CTORCH_BINARY_CASE_(Le)
      CTORCH_BINARY_CASE_(Gt) CTORCH_BINARY_CASE_(Ge) CTORCH_BINARY_CASE_(LogicalAnd)
      CTORCH_BINARY_CASE_(LogicalOr) CTORCH_BINARY_CASE_(LogicalXor)
#undef CTORCH_BINARY_CASE_
    }
  }

  static void cast_copy(ScalarType dst, ScalarType src, const ElementwisePlan& plan, char* const* data, Stream s) {
    if (dst == src && plan.is_contiguous()) {
      if (plan.numel > 0) L::copy_bytes(data[0], data[1], plan.numel * element_size(dst), s);
      return;
    }
    kernels::dispatch_all(dst, "copy_", [&](auto dtag) {
      using D = typename decltype(dtag)::type;
      kernels::dispatch_all(src, "copy_", [&](auto stag) {
        using S = typename decltype(stag)::type;
        L::template elementwise<D, S>(plan, data, table_detail::ConvertFn<D, S>{}, "copy_", s);
      });
    });
  }

  static void fill(ScalarType dtype, const ElementwisePlan& plan, char* const* data, const Scalar& value,
                   Stream s) {
    kernels::dispatch_all(dtype, "fill_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T v =
          value.is_floating_point() ? kernels::convert<T>(value.to_double()) : kernels::convert<T>(value.to_long());
      L::template elementwise<T>(plan, data, table_detail::FillFn<T>{v}, "fill_", s);
    });
  }

  static void where(ScalarType dtype, const ElementwisePlan& plan, char* const* data, Stream s) {
    kernels::dispatch_all(dtype, "where", [&](auto tag) {
      using T = typename decltype(tag)::type;
      L::template elementwise<T, bool, T, T>(plan, data, table_detail::WhereFn<opmath_t<T>>{}, "where", s);
    });
  }

  static void gemm(ScalarType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                   const Scalar& alpha, const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb,
                   int64_t stride_b, const Scalar& beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch,
                   Stream s) {
    if (m <= 0 || n <= 0 || batch <= 0) return;
    const kernels::GemmGeometry g{trans_a, trans_b, m, n, k, lda, stride_a, ldb, stride_b, ldc, stride_c, batch};
    L::gemm(dtype, g, alpha, a, b, beta, c, s);
  }

  /// The loop GEMM (kernels/gemm_math.h) through L::gemm_loop<T, A>(geometry, a, b, c, alpha, beta, stream),
  /// with k == 0 or alpha == 0 turned into C = beta * C.
  static void gemm_loop(ScalarType dtype, kernels::GemmGeometry g, const Scalar& alpha, const void* a,
                        const void* b, const Scalar& beta, void* c, Stream s) {
    kernels::dispatch_all(dtype, "mm", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = kernels::accum_t<T>;
      A alpha_v = kernels::gemm_scalar<T, A>(alpha);
      const A beta_v = kernels::gemm_scalar<T, A>(beta);
      if (g.k <= 0 || alpha_v == A(0)) {
        g.k = 0;
        alpha_v = A(0);
      }
      L::template gemm_loop<T, A>(g, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c),
                                  alpha_v, beta_v, s);
    });
  }

  static void reduce(kernels::ReduceOp op, ScalarType in, ScalarType out, const kernels::ReducePlan& plan,
                     char* const* data, const kernels::ReduceArgs& args, Stream s) {
    using kernels::ReduceOp;
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Prod:
        // Integers and bool accumulate in int64 (the op layer narrows when asked for a smaller type).
        CTORCH_INTERNAL_ASSERT(out == (is_integral(in, true) ? kLong : in), "[sum] unsupported dtypes");
        return kernels::dispatch_all(in, "sum", [&](auto tag) {
          using T = typename decltype(tag)::type;
          using O = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
          using A = opmath_t<O>;
          if (op == ReduceOp::Sum) {
            L::template reduce<T, O>(plan, data, kernels::SumOp<A>{}, s);
          } else {
            L::template reduce<T, O>(plan, data, kernels::ProdOp<A>{}, s);
          }
        });
      case ReduceOp::Mean:
        return kernels::dispatch_floating(in, "mean", [&](auto tag) {
          using T = typename decltype(tag)::type;
          kernels::MeanOp<opmath_t<T>> m;
          m.count = static_cast<opmath_t<T>>(plan.numel_reduce);
          L::template reduce<T, T>(plan, data, m, s);
        });
      case ReduceOp::Max:
      case ReduceOp::Min:
        return kernels::dispatch_all(in, "max", [&](auto tag) {
          using T = typename decltype(tag)::type;
          if (op == ReduceOp::Max) {
            L::template reduce<T, T>(plan, data, kernels::MaxOp<opmath_t<T>>{}, s);
          } else {
            L::template reduce<T, T>(plan, data, kernels::MinOp<opmath_t<T>>{}, s);
          }
        });
      case ReduceOp::ArgMax:
      case ReduceOp::ArgMin:
        return kernels::dispatch_all(in, "argmax", [&](auto tag) {
          using T = typename decltype(tag)::type;
          if (op == ReduceOp::ArgMax) {
            L::template reduce<T, T>(plan, data, kernels::ArgExtremeOp<opmath_t<T>, true>{}, s);
          } else {
            L::template reduce<T, T>(plan, data, kernels::ArgExtremeOp<opmath_t<T>, false>{}, s);
          }
        });
      case ReduceOp::All:
      case ReduceOp::Any:
        // The op layer passes bool input; the output is bool or uint8 (one byte, 0 or 1).
        CTORCH_INTERNAL_ASSERT(in == kBool, "[all] expects bool input");
        if (op == ReduceOp::All) return L::template reduce<bool, uint8_t>(plan, data, kernels::AllOp{}, s);
        return L::template reduce<bool, uint8_t>(plan, data, kernels::AnyOp{}, s);
      case ReduceOp::Norm1: return run_norm<ReduceOp::Norm1>(in, plan, data, args, s);
      case ReduceOp::Norm2: return run_norm<ReduceOp::Norm2>(in, plan, data, args, s);
      case ReduceOp::NormP: return run_norm<ReduceOp::NormP>(in, plan, data, args, s);
      case ReduceOp::Var:
        return kernels::dispatch_floating(in, "var", [&](auto tag) {
          using T = typename decltype(tag)::type;
          kernels::VarOp v;
          v.correction = static_cast<double>(args.correction);
          v.take_sqrt = args.take_sqrt;
          L::template reduce<T, T>(plan, data, v, s);
        });
    }
  }

  static void softmax(ScalarType dtype, bool log, const kernels::SoftmaxPlan& plan, char* const* data, Stream s) {
    if (plan.outer * plan.inner == 0 || plan.dim_size == 0) return;
    kernels::dispatch_floating(dtype, log ? "log_softmax" : "softmax", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (log) {
        L::template softmax<T, true>(plan, data, s);
      } else {
        L::template softmax<T, false>(plan, data, s);
      }
    });
  }

  static void random(kernels::RandomOp op, ScalarType dtype, const ElementwisePlan& plan, char* const* data,
                     const kernels::PhiloxArgs& philox, const kernels::RandomArgs& args, int sm_count,
                     int max_threads_per_sm, Stream s) {
    if (plan.numel <= 0) return;
    if (op == kernels::RandomOp::BernoulliTensor) {
      kernels::visit_bernoulli_tensor(dtype, [&](auto out_tag, auto p_tag) {
        using T = typename decltype(out_tag)::type;
        using P = typename decltype(p_tag)::type;
        L::template bernoulli_tensor<T, P>(plan, data, philox, s);
      });
      return;
    }
    const kernels::RandomLaunch launch = kernels::distribution_launch(plan.numel, sm_count, max_threads_per_sm);
    if (op == kernels::RandomOp::FusedDropout) {
      kernels::dispatch_floating(dtype, "fused_dropout", [&](auto tag) {
        using T = typename decltype(tag)::type;
        L::template fused_dropout<T>(launch, plan, data, philox, args, s);
      });
      return;
    }
    kernels::visit_sampler(op, dtype, args, [&](const auto& sampler) {
      L::distribution(launch, plan, data, philox, sampler, s);
    });
  }

  /// The generic convolution's im2col or col2im (kernels/conv_functors.h), floating dtypes.
  static bool conv_columns(const ops::ColumnsKernelArgs& a, Stream s) {
    kernels::ColumnsGeometry g;
    g.n = a.n, g.c = a.c, g.h = a.h, g.w = a.w, g.kh = a.kh, g.kw = a.kw, g.oh = a.oh, g.ow = a.ow;
    for (int i = 0; i < 2; ++i) {
      g.stride[i] = a.params.stride[i], g.padding[i] = a.params.padding[i], g.dilation[i] = a.params.dilation[i];
    }
    return floating(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (a.col2im) {
        L::threads(kernels::Col2ImFn<T>{g, static_cast<const T*>(a.src), static_cast<T*>(a.dst)}, "col2im", s);
      } else {
        L::threads(kernels::Im2ColFn<T>{g, static_cast<const T*>(a.src), static_cast<T*>(a.dst)}, "im2col", s);
      }
    });
  }

  /// Max pooling, forward or backward (Note [Pooling kernels]): float, double, half and bfloat16.
  static bool max_pool2d(const ops::MaxPoolKernelArgs& a, Stream s) {
    const kernels::PoolGeometry g = geometry(a.planes, a.h, a.w, a.oh, a.ow, a.kernel, a.stride, a.padding,
                                             a.dilation);
    return floating(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (a.backward) {
        L::threads(kernels::MaxPoolBackwardFn<T>{g, static_cast<const T*>(a.grad_output), a.indices,
                                                 static_cast<T*>(a.grad_input)},
                   "max_pool2d_with_indices_backward", s);
      } else {
        L::threads(kernels::MaxPoolForwardFn<T>{g, static_cast<const T*>(a.input), static_cast<T*>(a.output),
                                                a.indices},
                   "max_pool2d_with_indices", s);
      }
    });
  }

  /// Average pooling (adaptive or not), forward or backward (Note [Pooling kernels]).
  static bool avg_pool2d(const ops::AvgPoolKernelArgs& a, Stream s) {
    const int64_t dilation[2] = {1, 1};
    const kernels::PoolGeometry g = geometry(a.planes, a.h, a.w, a.oh, a.ow, a.kernel, a.stride, a.padding, dilation);
    const kernels::AvgPoolMode m{a.adaptive, a.count_include_pad, a.divisor_override};
    return floating(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (a.backward) {
        L::threads(kernels::AvgPoolBackwardFn<T>{g, m, static_cast<const T*>(a.grad_output),
                                                 static_cast<T*>(a.grad_input)},
                   a.adaptive ? "adaptive_avg_pool2d_backward" : "avg_pool2d_backward", s);
      } else {
        L::threads(kernels::AvgPoolForwardFn<T>{g, m, static_cast<const T*>(a.input), static_cast<T*>(a.output)},
                   a.adaptive ? "adaptive_avg_pool2d" : "avg_pool2d", s);
      }
    });
  }

  /// Batch normalization, one block per channel (Note [Normalization kernels]): float and double.
  static bool batch_norm(const ops::BatchNormKernelArgs& a, Stream s) {
    if (a.dtype != kFloat && a.dtype != kDouble) return false;
    kernels::dispatch_floating(a.dtype, "batch_norm", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = opmath_t<T>;
      if (a.pass == ops::BatchNormPass::Backward) {
        L::blocks(kernels::BatchNormBackwardFn<T>{a.n, a.c, a.l, static_cast<A>(a.eps), a.use_batch_stats,
                                                  static_cast<const T*>(a.input),
                                                  static_cast<const T*>(a.grad_output),
                                                  static_cast<const T*>(a.weight), static_cast<const T*>(a.mean),
                                                  static_cast<const T*>(a.var), static_cast<T*>(a.grad_input),
                                                  static_cast<T*>(a.grad_weight), static_cast<T*>(a.grad_bias)},
                  "native_batch_norm_backward", s);
      } else {
        L::blocks(kernels::BatchNormForwardFn<T>{a.n, a.c, a.l, static_cast<A>(a.eps),
                                                 a.pass == ops::BatchNormPass::ForwardTraining,
                                                 static_cast<const T*>(a.input), static_cast<const T*>(a.weight),
                                                 static_cast<const T*>(a.bias), static_cast<T*>(a.mean),
                                                 static_cast<T*>(a.var), static_cast<T*>(a.output)},
                  "native_batch_norm", s);
      }
    });
    return true;
  }

  /// Layer normalization, one block per row (Note [Normalization kernels]): float and double.
  static bool layer_norm(const ops::LayerNormKernelArgs& a, Stream s) {
    if (a.dtype != kFloat && a.dtype != kDouble) return false;
    kernels::dispatch_floating(a.dtype, "layer_norm", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = opmath_t<T>;
      const auto* x = static_cast<const T*>(a.input);
      const auto* mean = static_cast<const T*>(a.mean);
      const auto* var = static_cast<const T*>(a.var);
      if (!a.backward) {
        L::blocks(kernels::LayerNormForwardFn<T>{a.m, a.n, static_cast<A>(a.eps), x, static_cast<const T*>(a.weight),
                                                 static_cast<const T*>(a.bias), static_cast<T*>(a.mean),
                                                 static_cast<T*>(a.var), static_cast<T*>(a.output)},
                  "native_layer_norm", s);
        return;
      }
      const auto* gy = static_cast<const T*>(a.grad_output);
      if (a.grad_input != nullptr) {
        L::blocks(kernels::LayerNormBackwardFn<T>{a.m, a.n, static_cast<A>(a.eps), x, gy,
                                                  static_cast<const T*>(a.weight), mean, var,
                                                  static_cast<T*>(a.grad_input)},
                  "native_layer_norm_backward", s);
      }
      if (a.grad_weight != nullptr || a.grad_bias != nullptr) {
        L::blocks(kernels::LayerNormParamGradFn<T>{a.m, a.n, static_cast<A>(a.eps), x, gy, mean, var,
                                                   static_cast<T*>(a.grad_weight), static_cast<T*>(a.grad_bias)},
                  "native_layer_norm_backward", s);
      }
    });
    return true;
  }

  static void index_gather(ScalarType dtype, const kernels::IndexPlan& plan, char* const* data, Stream s) {
    if (plan.numel <= 0) return;
    kernels::dispatch_all(dtype, "index", [&](auto tag) {
      using T = typename decltype(tag)::type;
      L::index_elementwise(plan, data, kernels::GatherFn<T>{}, false, "index", s);
    });
  }

  static void index_scatter(ScalarType dtype, bool accumulate, const Scalar& alpha, const kernels::IndexPlan& plan,
                            char* const* data, Stream s) {
    if (plan.numel <= 0) return;
    kernels::dispatch_all(dtype, "index_put_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (accumulate) {
        const auto a = static_cast<opmath_t<T>>(alpha.to<T>());
        L::index_elementwise(plan, data, kernels::ScatterAddFn<T>{a}, true, "index_put_", s);
      } else {
        L::index_elementwise(plan, data, kernels::ScatterAssignFn<T>{}, false, "index_put_", s);
      }
    });
  }

 private:
  static kernels::PoolGeometry geometry(int64_t planes, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                        const int64_t* kernel, const int64_t* stride, const int64_t* padding,
                                        const int64_t* dilation) {
    kernels::PoolGeometry g;
    g.planes = planes, g.h = h, g.w = w, g.oh = oh, g.ow = ow;
    for (int i = 0; i < 2; ++i) {
      g.kernel[i] = kernel[i], g.stride[i] = stride[i], g.padding[i] = padding[i], g.dilation[i] = dilation[i];
    }
    return g;
  }

  // body(TypeTag<T>) for the floating dtypes; false for the others.
  template <class F>
  static bool floating(ScalarType dtype, const F& body) {
    if (!is_floating_point(dtype)) return false;
    kernels::dispatch_floating(dtype, "pool", body);
    return true;
  }

  template <kernels::UnaryOp Op>
  static void run_unary(ScalarType dtype, const ElementwisePlan& plan, char* const* data, const OpArgs& args,
                        Stream s) {
    auto body = [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = opmath_t<T>;
      if constexpr (Op == kernels::UnaryOp::Clamp) {
        const table_detail::ClampFn<A> f{table_detail::bound<A>(args.lo), table_detail::bound<A>(args.hi)};
        L::template elementwise<T, T>(plan, data, f, kernels::name_of(Op), s);
      } else {
        L::template elementwise<T, T>(plan, data, table_detail::UnaryFn<Op, A>{}, kernels::name_of(Op), s);
      }
    };
    // The op layer promotes integer inputs of these ops to a floating dtype before a kernel runs.
    if constexpr (table_detail::is_transcendental(Op)) {
      kernels::dispatch_floating(dtype, kernels::name_of(Op), body);
    } else {
      kernels::dispatch_all(dtype, "unary", body);
    }
  }

  // Runs g over the plan with either operand possibly the host scalar args.scalar.
  template <class Out, class T, class G>
  static void launch_binary(ScalarOperand side, const ElementwisePlan& plan, char* const* data, const OpArgs& args,
                            const G& g, const char* name, Stream s) {
    using A = opmath_t<T>;
    if (side == ScalarOperand::None) {
      L::template elementwise<Out, T, T>(plan, data, g, name, s);
      return;
    }
    // The scalar is converted to the storage type first, as PyTorch does for wrapped numbers.
    using table_detail::ScalarOperandFn;
    using table_detail::ScalarSide;
    const A scalar = static_cast<A>(args.scalar.to<T>());
    const bool rhs = side == ScalarOperand::Rhs;
    if constexpr (L::kArithmetic == Arithmetic::Gpu) {
      L::template elementwise<Out, T>(plan, data, ScalarOperandFn<G, A, ScalarSide::Runtime>{g, scalar, rhs}, name, s);
    } else if (rhs) {
      L::template elementwise<Out, T>(plan, data, ScalarOperandFn<G, A, ScalarSide::Rhs>{g, scalar, rhs}, name, s);
    } else {
      L::template elementwise<Out, T>(plan, data, ScalarOperandFn<G, A, ScalarSide::Lhs>{g, scalar, rhs}, name, s);
    }
  }

  template <kernels::BinaryOp Op>
  static void run_binary(ScalarType dtype, ScalarOperand side, const ElementwisePlan& plan, char* const* data,
                         const OpArgs& args, Stream s) {
    using kernels::BinaryOp;
    const char* name = kernels::name_of(Op);
    kernels::dispatch_all(dtype, "binary", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = opmath_t<T>;
      using Out = std::conditional_t<kernels::produces_bool(Op), bool, T>;
      if constexpr (Op == BinaryOp::Add || Op == BinaryOp::Sub) {
        // alpha in the storage type (alpha_scalar.to<scalar_t>()), computed in opmath.
        const A alpha = static_cast<A>(args.alpha.to<T>());
        if constexpr (std::is_floating_point_v<A>) {
          if (alpha != A(1)) {
            const A signed_alpha = Op == BinaryOp::Sub ? -alpha : alpha;
            if constexpr (std::is_same_v<T, Half>) {
              if constexpr (L::kArithmetic == Arithmetic::Cpu) {
                return launch_binary<T, T>(side, plan, data, args,
                                           table_detail::RoundedScaledAddFn<T, A>{signed_alpha}, name, s);
              }
            }
            return launch_binary<T, T>(side, plan, data, args, table_detail::FusedScaledAddFn<A>{signed_alpha},
                                       name, s);
          }
        }
        launch_binary<Out, T>(side, plan, data, args, table_detail::BinaryFn<Op, A>{alpha}, name, s);
      } else {
        if constexpr (Op == BinaryOp::Pow && std::is_floating_point_v<A>) {
          if (side == ScalarOperand::Rhs) return run_pow_scalar<T>(plan, data, args.scalar, s);
        }
        launch_binary<Out, T>(side, plan, data, args, table_detail::BinaryFn<Op, A>{A(1)}, name, s);
      }
    });
  }

  // pow(tensor, scalar) for floating T (Note [cpu and gpu arithmetic]).
  template <class T>
  static void run_pow_scalar(const ElementwisePlan& plan, char* const* data, const Scalar& exponent, Stream s) {
    using A = opmath_t<T>;
    using table_detail::PowKind;
    using table_detail::PowScalarFn;
    if constexpr (L::kArithmetic == Arithmetic::Gpu) {
      const double d = exponent.to_double();
      const A e = table_detail::pow_kind(d) != PowKind::General ? static_cast<A>(d) : static_cast<A>(exponent.to<T>());
      L::template elementwise<T, T>(plan, data, PowScalarFn<A, A, PowKind::Runtime>{e}, "pow", s);
    } else if constexpr (!std::is_same_v<T, A>) {
      // float16 / bfloat16 on the cpu: pow in float with the exponent rounded to the storage type.
      const A e = static_cast<A>(exponent.to<T>());
      L::template elementwise<T, T>(plan, data, PowScalarFn<A, A, PowKind::General>{e}, "pow", s);
    } else {
      const double e = exponent.to_double();
      auto run = [&](auto kind) {
        L::template elementwise<T, T>(plan, data, PowScalarFn<A, double, decltype(kind)::value>{e}, "pow", s);
      };
      switch (table_detail::pow_kind(e)) {
        case PowKind::Square: return run(std::integral_constant<PowKind, PowKind::Square>{});
        case PowKind::Cube: return run(std::integral_constant<PowKind, PowKind::Cube>{});
        case PowKind::InvSquare: return run(std::integral_constant<PowKind, PowKind::InvSquare>{});
        case PowKind::Sqrt: return run(std::integral_constant<PowKind, PowKind::Sqrt>{});
        case PowKind::Rsqrt: return run(std::integral_constant<PowKind, PowKind::Rsqrt>{});
        case PowKind::Reciprocal: return run(std::integral_constant<PowKind, PowKind::Reciprocal>{});
        default: return run(std::integral_constant<PowKind, PowKind::General>{});
      }
    }
  }

  template <kernels::ReduceOp Kind>
  static void run_norm(ScalarType in, const kernels::ReducePlan& plan, char* const* data,
                       const kernels::ReduceArgs& args, Stream s) {
    kernels::dispatch_floating(in, "norm", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = opmath_t<T>;
      kernels::NormOp<A, Kind> op;
      op.p = static_cast<A>(args.p);
      L::template reduce<T, T>(plan, data, op, s);
    });
  }
};

/// The KernelTable of launcher L (one instance per launcher type).
template <class L>
const ops::KernelTable& make_kernel_table() {
  using K = KernelTableOf<L>;
  static const ops::KernelTable table{
      .unary = K::unary,
      .binary = K::binary,
      .cast_copy = K::cast_copy,
      .fill = K::fill,
      .where = K::where,
      .gemm = K::gemm,
      .reduce = K::reduce,
      .softmax = K::softmax,
      .random = K::random,
      .index_gather = K::index_gather,
      .index_scatter = K::index_scatter,
      .jit_compile = L::jit_compile,
      .jit = L::jit,
      .fft = L::fft,
      .conv_columns = K::conv_columns,
      .max_pool2d = K::max_pool2d,
      .avg_pool2d = K::avg_pool2d,
      .batch_norm = K::batch_norm,
      .layer_norm = K::layer_norm,
  };
  return table;
}

}  // namespace ctorch::api::backends

#ifndef __CUDACC__
#pragma GCC visibility pop
#endif
