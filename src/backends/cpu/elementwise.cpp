// The cpu backend's elementwise kernels: the single-source functors run by the cpu launcher.
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

template <BinaryOp Op>
void run_binary(ScalarType dtype, ScalarOperand side, const ElementwisePlan& plan, char* const* data,
                const OpArgs& args) {
  kernels::dispatch_all(dtype, "binary", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    using Out = std::conditional_t<kernels::produces_bool(Op), bool, T>;
    const A alpha = args.alpha.to<A>();
    const kernels::Binary<Op> f{};
    if (side == ScalarOperand::None) {
      launch_elementwise<Out, T, T>(plan, data, [f, alpha](A x, A y) { return f(x, y, alpha); });
    } else {
      // The scalar is converted to the storage type first, as PyTorch does for wrapped numbers.
      const A s = static_cast<A>(static_cast<T>(args.scalar.to<A>()));
      if (side == ScalarOperand::Rhs) {
        launch_elementwise<Out, T>(plan, data, [f, alpha, s](A x) { return f(x, s, alpha); });
      } else {
        launch_elementwise<Out, T>(plan, data, [f, alpha, s](A y) { return f(s, y, alpha); });
      }
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
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<float>(v) != 0.0f || static_cast<double>(v) != 0.0;
  } else if constexpr ((std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>)) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
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
  };
  return table;
}

}  // namespace ctorch::ops
