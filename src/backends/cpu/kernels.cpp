// The cpu backend's kernel table: the shared table (backends/kernel_table.h) over CpuLauncher.
#include "backends/cpu/launch.h"
#include "backends/cpu/reduce.h"
#include "backends/kernel_table.h"

namespace ctorch::ops {

const KernelTable& cpu_kernels() { return backends::make_kernel_table<backends::cpu::CpuLauncher>(); }

}  // namespace ctorch::ops
