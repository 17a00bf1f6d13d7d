// The cpu table's random slot: the CUDA random kernels' threads walked on the host (see kernels.cpp).
#include "backends/cpu/kernels.h"

namespace ctorch::inline api::backends {

template void KernelTableOf<cpu::CpuLauncher>::random(kernels::RandomOp, ScalarType, const kernels::ElementwisePlan&,
                                                      char* const*, const kernels::PhiloxArgs&, const kernels::RandomArgs&,
                                                      int, int, Stream);

}  // namespace ctorch::api::backends
