// The cpu backend's KernelTable::random: walks the CUDA grid of a random op on the host.
#pragma once

#include "ops/kernel_table.h"

namespace ctorch::backends::cpu {

/// KernelTable::random on the host: every CUDA thread's work (kernels/random_functors.h) run by
/// the intra-op pool, so the values equal those of the CUDA kernel for the same arguments.
void random(kernels::RandomOp op, ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data,
            uint64_t seed, uint64_t offset, const kernels::RandomArgs& args, int sm_count, int max_threads_per_sm,
            Stream stream);

}  // namespace ctorch::backends::cpu
