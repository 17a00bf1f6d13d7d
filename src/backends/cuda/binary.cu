// KernelTable::binary on CUDA: the single-source kernels::Binary functors run by launch_elementwise,
// for every op and dtype the cpu backend instantiates. Two kernels per (op, dtype): tensor-tensor,
// and tensor-scalar, where one kernel serves both scalar sides (a uniform run-time branch).
#include <type_traits>

#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"
#include "kernels/dispatch.h"
#include "kernels/functors.h"

namespace ctorch::backends::cuda {

using kernels::BinaryOp;
using kernels::ElementwisePlan;
using kernels::opmath_t;
using ops::OpArgs;
using ops::ScalarOperand;

namespace {

template <BinaryOp Op, class A>
struct BinaryFn {
  A alpha;
  CTORCH_HD auto operator()(A x, A y) const { return kernels::Binary<Op>{}(x, y, alpha); }
};

// The tensor operand is x; the scalar goes on the right (scalar_rhs) or on the left.
template <BinaryOp Op, class A>
struct ScalarBinaryFn {
  A alpha;
  A scalar;
  bool scalar_rhs;
  CTORCH_HD auto operator()(A x) const {
    return scalar_rhs ? kernels::Binary<Op>{}(x, scalar, alpha) : kernels::Binary<Op>{}(scalar, x, alpha);
  }
};

template <BinaryOp Op>
void run_binary(ScalarType dtype, ScalarOperand side, const ElementwisePlan& plan, char* const* data,
                const OpArgs& args, cudaStream_t stream) {
  kernels::dispatch_all(dtype, "binary", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    using Out = std::conditional_t<kernels::produces_bool(Op), bool, T>;
    const A alpha = args.alpha.to<A>();
    if (side == ScalarOperand::None) {
      launch_elementwise<Out, T, T>(plan, data, BinaryFn<Op, A>{alpha}, stream);
    } else {
      // The scalar is converted to the storage type first, as PyTorch does for wrapped numbers.
      const A s = static_cast<A>(static_cast<T>(args.scalar.to<A>()));
      launch_elementwise<Out, T>(plan, data, ScalarBinaryFn<Op, A>{alpha, s, side == ScalarOperand::Rhs}, stream);
    }
  });
}

}  // namespace

void binary(BinaryOp op, ScalarType dtype, ScalarOperand side, const ElementwisePlan& plan, char* const* data,
            const OpArgs& args, Stream s) {
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  switch (op) {
#define CTORCH_BINARY_CASE_(NAME) \
  case BinaryOp::NAME: return run_binary<BinaryOp::NAME>(dtype, side, plan, data, args, stream);
    CTORCH_BINARY_CASE_(Add) CTORCH_BINARY_CASE_(Sub) CTORCH_BINARY_CASE_(Mul) CTORCH_BINARY_CASE_(Div)
    CTORCH_BINARY_CASE_(DivTrunc) CTORCH_BINARY_CASE_(DivFloor) CTORCH_BINARY_CASE_(Remainder)
    CTORCH_BINARY_CASE_(Pow) CTORCH_BINARY_CASE_(Maximum) CTORCH_BINARY_CASE_(Minimum)
    CTORCH_BINARY_CASE_(Eq) CTORCH_BINARY_CASE_(Ne) CTORCH_BINARY_CASE_(Lt) CTORCH_BINARY_CASE_(Le)
    CTORCH_BINARY_CASE_(Gt) CTORCH_BINARY_CASE_(Ge) CTORCH_BINARY_CASE_(LogicalAnd)
    CTORCH_BINARY_CASE_(LogicalOr) CTORCH_BINARY_CASE_(LogicalXor)
#undef CTORCH_BINARY_CASE_
  }
}

}  // namespace ctorch::backends::cuda
