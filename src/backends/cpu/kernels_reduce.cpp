// The cpu table's reduce and softmax slots (see kernels.cpp).
#include "backends/cpu/kernels.h"
#include "backends/cpu/reduce.h"

namespace ctorch::inline api::backends {

template void KernelTableOf<cpu::CpuLauncher>::reduce(kernels::ReduceOp, ScalarType, ScalarType,
                                                      const kernels::ReducePlan&, char* const*,
                                                      const kernels::ReduceArgs&, Stream);
template void KernelTableOf<cpu::CpuLauncher>::softmax(ScalarType, bool, const kernels::SoftmaxPlan&, char* const*,
                                                       Stream);

}  // namespace ctorch::api::backends
