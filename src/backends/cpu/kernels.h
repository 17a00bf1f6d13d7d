// The cpu instantiation of the shared kernel table, split over kernels*.cpp (see kernels.cpp).
#pragma once

#include "backends/cpu/launch.h"
#include "backends/kernel_table.h"

namespace ctorch::inline api::backends {

// Defined in kernels_reduce.cpp.
extern template void KernelTableOf<cpu::CpuLauncher>::reduce(kernels::ReduceOp, ScalarType, ScalarType,
                                                             const kernels::ReducePlan&, char* const*,
                                                             const kernels::ReduceArgs&, Stream);
extern template void KernelTableOf<cpu::CpuLauncher>::softmax(ScalarType, bool, const kernels::SoftmaxPlan&,
                                                              char* const*, Stream);
// Defined in kernels_random.cpp.
extern template void KernelTableOf<cpu::CpuLauncher>::random(kernels::RandomOp, ScalarType,
                                                             const kernels::ElementwisePlan&, char* const*,
                                                             const kernels::PhiloxArgs&, const kernels::RandomArgs&, int,
                                                             int, Stream);

}  // namespace ctorch::api::backends
