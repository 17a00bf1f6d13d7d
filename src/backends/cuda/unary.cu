// KernelTable::unary on CUDA: the single-source kernels::Unary functors run by launch_elementwise.
// Same instantiations as backends/cpu/elementwise.cpp, except that the transcendental ops (exp,
// log, sqrt, rsqrt, sin, cos, tanh, sigmoid) exist only for floating dtypes: the op layer
// promotes integer inputs to the default float dtype before they reach a kernel, and std:: math
// on integers has no device overload.
#include <limits>
#include <type_traits>

#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"
#include "ops/elementwise.h"
#include "kernels/dispatch.h"
#include "kernels/functors.h"

namespace ctorch::backends::cuda {

using kernels::ElementwisePlan;
using kernels::opmath_t;
using kernels::UnaryOp;
using ops::OpArgs;

namespace {

template <UnaryOp Op, class A>
struct UnaryFn {
  CTORCH_HD A operator()(A x) const { return kernels::Unary<Op>{}(x); }
};

template <class A>
struct ClampFn {
  A lo, hi;
  CTORCH_HD A operator()(A x) const { return kernels::Unary<UnaryOp::Clamp>{}(x, lo, hi); }
};

// A clamp bound converted to A; integer bounds beyond A's range saturate (as the cpu backend).
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
         op == UnaryOp::Sin || op == UnaryOp::Cos || op == UnaryOp::Tanh || op == UnaryOp::Sigmoid;
}

template <UnaryOp Op>
void run_unary(ScalarType dtype, const ElementwisePlan& plan, char* const* data, const OpArgs& args,
               cudaStream_t stream) {
  auto body = [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    if constexpr (Op == UnaryOp::Clamp) {
      launch_elementwise<T, T>(plan, data, ClampFn<A>{bound<A>(args.lo), bound<A>(args.hi)}, stream);
    } else {
      launch_elementwise<T, T>(plan, data, UnaryFn<Op, A>{}, stream);
    }
  };
  if constexpr (is_transcendental(Op)) {
    kernels::dispatch_floating(dtype, ops::op_name(Op), body);
  } else {
    kernels::dispatch_all(dtype, "unary", body);
  }
}

}  // namespace

void unary(UnaryOp op, ScalarType dtype, const ElementwisePlan& plan, char* const* data, const OpArgs& args,
           Stream s) {
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  switch (op) {
#define CTORCH_UNARY_CASE_(NAME) \
  case UnaryOp::NAME: return run_unary<UnaryOp::NAME>(dtype, plan, data, args, stream);
    CTORCH_UNARY_CASE_(Neg) CTORCH_UNARY_CASE_(Abs) CTORCH_UNARY_CASE_(Exp) CTORCH_UNARY_CASE_(Log)
    CTORCH_UNARY_CASE_(Sqrt) CTORCH_UNARY_CASE_(Rsqrt) CTORCH_UNARY_CASE_(Sin) CTORCH_UNARY_CASE_(Cos)
    CTORCH_UNARY_CASE_(Tanh) CTORCH_UNARY_CASE_(Sigmoid) CTORCH_UNARY_CASE_(Relu) CTORCH_UNARY_CASE_(Floor)
    CTORCH_UNARY_CASE_(Ceil) CTORCH_UNARY_CASE_(Round) CTORCH_UNARY_CASE_(Sign)
    CTORCH_UNARY_CASE_(LogicalNot) CTORCH_UNARY_CASE_(Clamp) CTORCH_UNARY_CASE_(Identity)
#undef CTORCH_UNARY_CASE_
  }
}

}  // namespace ctorch::backends::cuda
