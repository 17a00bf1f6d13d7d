// The cpu backend's 2-d convolution through oneDNN (Debian's libdnnl, PyTorch's "mkldnn").
#pragma once

#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::cpu {

/// Runs `args` with oneDNN (float32); false for cases oneDNN is not asked to cover here.
bool onednn_conv2d(const ops::ConvKernelArgs& args, Stream stream);

}  // namespace ctorch::api::backends::cpu
