// The cpu backend's max pooling: a loop per plane, as PyTorch's cpu kernel.
#pragma once

#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::cpu {

/// Runs `args` (float32 / float64); false for other dtypes.
bool max_pool2d(const ops::MaxPoolKernelArgs& args, Stream stream);

}  // namespace ctorch::api::backends::cpu
