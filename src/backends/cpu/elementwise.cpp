// The cpu backend's elementwise kernels: the single-source functors run by the cpu launcher.
#include <cmath>
#include <limits>

#include "backends/cpu/blas.h"
#include "backends/cpu/launch.h"
#include "kernels/dispatch.h"
#include "kernels/functors.h"
#include "ops/kernel_table.h"

namespace ctorch::backends::cpu {

using kernels::BinaryOp;
using kernels::ElementwisePlan;
using kernels::opmath_t;
using kernels::UnaryOp;
using ops::OpArgs;
using ops::ScalarOperand;

namespace {

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

template <UnaryOp Op>
void run_unary(ScalarType dtype, const ElementwisePlan& plan, char* const* data, const OpArgs& args) {
  kernels::dispatch_all(dtype, "unary", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    if constexpr (Op == UnaryOp::Clamp) {
      const A lo = bound<A>(args.lo), hi = bound<A>(args.hi);
      launch_elementwise<T, T>(plan, data, [lo, hi](A x) { return kernels::Unary<Op>{}(x, lo, hi); });
    } else {
      launch_elementwise<T, T>(plan, data, [](A x) { return kernels::Unary<Op>{}(x); });
    }
  });
}

void unary(UnaryOp op, ScalarType dtype, const ElementwisePlan& plan, char* const* data, const OpArgs& args,
           Stream) {
  switch (op) {
#define CTORCH_UNARY_CASE_(NAME) \
  case UnaryOp::NAME: return run_unary<UnaryOp::NAME>(dtype, plan, data, args);
    CTORCH_UNARY_CASE_(Neg) CTORCH_UNARY_CASE_(Abs) CTORCH_UNARY_CASE_(Exp) CTORCH_UNARY_CASE_(Log)
    CTORCH_UNARY_CASE_(Sqrt) CTORCH_UNARY_CASE_(Rsqrt) CTORCH_UNARY_CASE_(Sin) CTORCH_UNARY_CASE_(Cos)
    CTORCH_UNARY_CASE_(Tanh) CTORCH_UNARY_CASE_(Sigmoid) CTORCH_UNARY_CASE_(Relu) CTORCH_UNARY_CASE_(Floor)
    CTORCH_UNARY_CASE_(Ceil) CTORCH_UNARY_CASE_(Round) CTORCH_UNARY_CASE_(Sign)
    CTORCH_UNARY_CASE_(LogicalNot) CTORCH_UNARY_CASE_(Clamp) CTORCH_UNARY_CASE_(Identity)
#undef CTORCH_UNARY_CASE_
  }
}

// Runs g(x, y) over the plan with either operand possibly a host scalar.
template <class Out, class T, class G>
void launch_binary(ScalarOperand side, const ElementwisePlan& plan, char* const* data, const Scalar& scalar,
                   const G& g) {
  using A = opmath_t<T>;
  if (side == ScalarOperand::None) {
    launch_elementwise<Out, T, T>(plan, data, [g](A x, A y) { return g(x, y); });
    return;
  }
  // The scalar is converted to the storage type first, as PyTorch does for wrapped numbers.
  const A s = static_cast<A>(scalar.to<T>());
  if (side == ScalarOperand::Rhs) {
    launch_elementwise<Out, T>(plan, data, [g, s](A x) { return g(x, s); });
  } else {
    launch_elementwise<Out, T>(plan, data, [g, s](A y) { return g(s, y); });
  }
}

// x + alpha * y (Sub: x - alpha * y) for floating types with alpha != 1, rounded as PyTorch's cpu
// kernels round: one fused multiply-add for float, double and bfloat16 (vec::fmadd), and a
// rounding of alpha * y to half before the addition for float16.
template <BinaryOp Op, class T>
void run_scaled_add(ScalarOperand side, const ElementwisePlan& plan, char* const* data, const Scalar& scalar,
                    opmath_t<T> alpha) {
  using A = opmath_t<T>;
  if (Op == BinaryOp::Sub) alpha = -alpha;
  if constexpr (std::is_same_v<T, Half>) {
    launch_binary<T, T>(side, plan, data, scalar,
                        [alpha](A x, A y) { return x + static_cast<A>(static_cast<T>(alpha * y)); });
  } else {
    launch_binary<T, T>(side, plan, data, scalar, [alpha](A x, A y) { return std::fma(alpha, y, x); });
  }
}

// pow(tensor, scalar) for float and double: PyTorch's special cases (squares, cubes, square
// roots, reciprocals computed with plain arithmetic) and otherwise pow in double.
template <class T>
void run_pow_scalar(const ElementwisePlan& plan, char* const* data, double e) {
  auto run = [&](auto g) { launch_elementwise<T, T>(plan, data, g); };
  if (e == 2.0) {
    run([](T x) { return x * x; });
  } else if (e == 3.0) {
    run([](T x) { return x * x * x; });
  } else if (e == -2.0) {
    run([](T x) { return T(1) / (x * x); });
  } else if (e == 0.5) {
    run([](T x) { return std::sqrt(x); });
  } else if (e == -0.5) {
    run([](T x) { return T(1) / std::sqrt(x); });
  } else if (e == -1.0) {
    run([](T x) { return T(1) / x; });
  } else {
    run([e](T x) { return static_cast<T>(std::pow(static_cast<double>(x), e)); });
  }
}

template <BinaryOp Op>
void run_binary(ScalarType dtype, ScalarOperand side, const ElementwisePlan& plan, char* const* data,
                const OpArgs& args) {
  kernels::dispatch_all(dtype, "binary", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    using Out = std::conditional_t<kernels::produces_bool(Op), bool, T>;
    const kernels::Binary<Op> f{};
    if constexpr (Op == BinaryOp::Add || Op == BinaryOp::Sub) {
      // alpha in the storage type (alpha_scalar.to<scalar_t>()), computed in opmath.
      const A alpha = static_cast<A>(args.alpha.to<T>());
      if constexpr (std::is_floating_point_v<A>) {
        if (alpha != A(1)) return run_scaled_add<Op, T>(side, plan, data, args.scalar, alpha);
      }
      launch_binary<Out, T>(side, plan, data, args.scalar, [f, alpha](A x, A y) { return f(x, y, alpha); });
    } else {
      if constexpr (Op == BinaryOp::Pow && std::is_floating_point_v<A>) {
        if (side == ScalarOperand::Rhs) {
          if constexpr (std::is_same_v<T, A>) {
            return run_pow_scalar<T>(plan, data, args.scalar.to_double());
          } else {
            // float16 / bfloat16: the exponent is rounded to the storage type first.
            const A e = static_cast<A>(args.scalar.to<T>());
            return launch_elementwise<T, T>(plan, data, [e](A x) { return std::pow(x, e); });
          }
        }
      }
      launch_binary<Out, T>(side, plan, data, args.scalar, [f](A x, A y) { return f(x, y); });
    }
  });
}

void binary(BinaryOp op, ScalarType dtype, ScalarOperand side, const ElementwisePlan& plan, char* const* data,
            const OpArgs& args, Stream) {
  switch (op) {
#define CTORCH_BINARY_CASE_(NAME) \
  case BinaryOp::NAME: return run_binary<BinaryOp::NAME>(dtype, side, plan, data, args);
    CTORCH_BINARY_CASE_(Add) CTORCH_BINARY_CASE_(Sub) CTORCH_BINARY_CASE_(Mul) CTORCH_BINARY_CASE_(Div)
    CTORCH_BINARY_CASE_(DivTrunc) CTORCH_BINARY_CASE_(DivFloor) CTORCH_BINARY_CASE_(Remainder)
    CTORCH_BINARY_CASE_(Pow) CTORCH_BINARY_CASE_(Maximum) CTORCH_BINARY_CASE_(Minimum)
    CTORCH_BINARY_CASE_(Eq) CTORCH_BINARY_CASE_(Ne) CTORCH_BINARY_CASE_(Lt) CTORCH_BINARY_CASE_(Le)
    CTORCH_BINARY_CASE_(Gt) CTORCH_BINARY_CASE_(Ge) CTORCH_BINARY_CASE_(LogicalAnd)
    CTORCH_BINARY_CASE_(LogicalOr) CTORCH_BINARY_CASE_(LogicalXor)
#undef CTORCH_BINARY_CASE_
  }
}

template <class To, class From>
To convert(From v) {
  constexpr bool from_reduced = std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>;
  constexpr bool from_floating = std::is_floating_point_v<From> || from_reduced;
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (from_reduced) return static_cast<float>(v) != 0.0f; else return v != From(0);
  } else if constexpr ((std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>)) {
    return To(static_cast<float>(v));
  } else if constexpr (from_floating && std::is_same_v<To, uint8_t>) {
    // c10::static_cast_with_inter_type: float to uint8 goes through int64 (-1.5 gives 255).
    return static_cast<uint8_t>(static_cast<int64_t>(static_cast<std::conditional_t<from_reduced, float, From>>(v)));
  } else if constexpr (from_floating && std::is_integral_v<To> && sizeof(To) < 4) {
    // As x86 converts float to int8/int16: through int32, keeping the low bits.
    return static_cast<To>(static_cast<int32_t>(static_cast<std::conditional_t<from_reduced, float, From>>(v)));
  } else if constexpr (from_reduced) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

void cast_copy(ScalarType dst, ScalarType src, const ElementwisePlan& plan, char* const* data, Stream) {
  if (dst == src && plan.is_contiguous()) {
    const int64_t bytes = plan.numel * element_size(dst);
    parallel_for(0, bytes, kElementwiseGrain * 8, [&](int64_t b, int64_t e) {
      std::memcpy(data[0] + b, data[1] + b, static_cast<size_t>(e - b));
    });
    return;
  }
  kernels::dispatch_all(dst, "copy_", [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    kernels::dispatch_all(src, "copy_", [&](auto stag) {
      using S = typename decltype(stag)::type;
      parallel_for(0, plan.numel, kElementwiseGrain, [&](int64_t b, int64_t e) {
        for_each_run(plan, data, b, e, [&](char* const* p, const int64_t* st, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<D*>(p[0] + i * st[0]) = convert<D>(*reinterpret_cast<const S*>(p[1] + i * st[1]));
          }
        });
      });
    });
  });
}

void fill(ScalarType dtype, const ElementwisePlan& plan, char* const* data, const Scalar& value, Stream) {
  kernels::dispatch_all(dtype, "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.is_floating_point() ? convert<T>(value.to_double()) : convert<T>(value.to_long());
    launch_elementwise<T>(plan, data, [v]() { return v; });
  });
}

void where(ScalarType dtype, const ElementwisePlan& plan, char* const* data, Stream) {
  kernels::dispatch_all(dtype, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, bool, T, T>(plan, data, [](bool c, opmath_t<T> x, opmath_t<T> y) { return c ? x : y; });
  });
}

}  // namespace

// Defined in backends/cpu/reduce.cpp.
void reduce_kernel(kernels::ReduceOp op, ScalarType in, ScalarType out, const kernels::ReducePlan& plan,
                   char* const* data, const kernels::ReduceArgs& args, Stream stream);
void softmax_kernel(ScalarType dtype, bool log, const kernels::SoftmaxPlan& plan, char* const* data, Stream stream);

}  // namespace ctorch::backends::cpu

namespace ctorch::ops {

const KernelTable& cpu_kernels() {
  static const KernelTable table{
      .unary = backends::cpu::unary,
      .binary = backends::cpu::binary,
      .cast_copy = backends::cpu::cast_copy,
      .fill = backends::cpu::fill,
      .where = backends::cpu::where,
      .gemm = backends::cpu::gemm,
      .reduce = backends::cpu::reduce_kernel,
      .softmax = backends::cpu::softmax_kernel,
  };
  return table;
}

}  // namespace ctorch::ops
