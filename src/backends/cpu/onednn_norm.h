// The cpu backend's batch normalization through oneDNN (Debian's libdnnl, PyTorch's "mkldnn").
#pragma once

#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::cpu {

/// Runs `args` with oneDNN (float32, plain [N, C, L]); false when oneDNN cannot build the primitive.
bool onednn_batch_norm(const ops::BatchNormKernelArgs& args, Stream stream);

}  // namespace ctorch::api::backends::cpu
