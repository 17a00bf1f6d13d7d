// The cpu backend's kernel table: the shared table (backends/kernel_table.h) over CpuLauncher.
// The slots are instantiated in three files (kernels.cpp: elementwise, kernels_reduce.cpp,
// kernels_random.cpp), so that each translation unit stays small enough for the compiler to inline
// a launch into its slot, and the three build in parallel.
#include "backends/cpu/kernels.h"

namespace ctorch::ops {

const KernelTable& cpu_kernels() { return backends::make_kernel_table<backends::cpu::CpuLauncher>(); }

}  // namespace ctorch::ops
