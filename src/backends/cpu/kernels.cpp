// The cpu backend's kernel table: the shared table (backends/kernel_table.h) over CpuLauncher,
// plus oneDNN's convolution (onednn_conv.cpp), batch and layer normalization (onednn_norm.cpp) and max
// pooling loops (pool.cpp). The shared slots are instantiated in three files
// (kernels.cpp: elementwise, kernels_reduce.cpp, kernels_random.cpp), so that each translation
// unit stays small enough for the compiler to inline a launch into its slot, and the three build
// in parallel.
#include "backends/cpu/kernels.h"

#include "backends/cpu/onednn_conv.h"
#include "backends/cpu/onednn_norm.h"
#include "backends/cpu/pool.h"

namespace ctorch::inline api::ops {

const KernelTable& cpu_kernels() {
  static const KernelTable table = [] {
    KernelTable t = backends::make_kernel_table<backends::cpu::CpuLauncher>();
    t.conv2d = backends::cpu::onednn_conv2d;
    t.max_pool2d = backends::cpu::max_pool2d;
    t.batch_norm = backends::cpu::onednn_batch_norm;
    t.layer_norm = backends::cpu::onednn_layer_norm;
    return t;
  }();
  return table;
}

}  // namespace ctorch::api::ops
