// The cpu backend's kernel table: the shared table (backends/kernel_table.h) over CpuLauncher,
// plus oneDNN's convolution (onednn_conv.cpp), batch and layer normalization (onednn_norm.cpp) and max
// pooling loops (pool.cpp), tried before the shared pooling and normalization kernels. The shared
// slots are instantiated in three files (kernels.cpp: elementwise and the rest, kernels_reduce.cpp,
// kernels_random.cpp), so that each translation
// unit stays small enough for the compiler to inline a launch into its slot, and the three build
// in parallel.
#include "backends/cpu/kernels.h"

#include "backends/cpu/onednn_conv.h"
#include "backends/cpu/onednn_norm.h"
#include "backends/cpu/pool.h"

namespace ctorch::inline api::ops {

const KernelTable& cpu_kernels() {
  static const KernelTable table = [] {
    using Shared = backends::KernelTableOf<backends::cpu::CpuLauncher>;
    KernelTable t = backends::make_kernel_table<backends::cpu::CpuLauncher>();
    t.conv2d = backends::cpu::onednn_conv2d;
    // The cpu's own kernels first, then the shared ones (Note [Pooling kernels], Note [Normalization kernels]).
    t.max_pool2d = [](const MaxPoolKernelArgs& a, Stream s) {
      return backends::cpu::max_pool2d(a, s) || Shared::max_pool2d(a, s);
    };
    t.batch_norm = [](const BatchNormKernelArgs& a, Stream s) {
      return backends::cpu::onednn_batch_norm(a, s) || Shared::batch_norm(a, s);
    };
    t.layer_norm = [](const LayerNormKernelArgs& a, Stream s) {
      return backends::cpu::onednn_layer_norm(a, s) || Shared::layer_norm(a, s);
    };
    return t;
  }();
  return table;
}

}  // namespace ctorch::api::ops
