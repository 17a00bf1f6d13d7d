// The cpu backend's batch and layer normalization through oneDNN (Debian's libdnnl, PyTorch's "mkldnn").
#pragma once

#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::cpu {

/// Runs `args` with oneDNN (float32, plain [N, C, L]); false when oneDNN cannot build the primitive.
bool onednn_batch_norm(const ops::BatchNormKernelArgs& args, Stream stream);
/// Runs `args` with oneDNN (float32, [M, N] rows); false when oneDNN cannot build the primitive.
bool onednn_layer_norm(const ops::LayerNormKernelArgs& args, Stream stream);

}  // namespace ctorch::api::backends::cpu
