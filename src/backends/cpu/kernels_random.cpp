// The cpu table's random slot: the CUDA random kernels' threads walked on the host (see kernels.cpp).
#include "backends/cpu/kernels.h"

namespace ctorch::backends {

template void KernelTableOf<cpu::CpuLauncher>::random(kernels::RandomOp, ScalarType, const kernels::ElementwisePlan&,
                                                      char* const*, const kernels::PhiloxArgs&, const kernels::RandomArgs&,
                                                      int, int, Stream);

}  // namespace ctorch::backends
