// The CUDA backend's 2-d convolution through cuDNN's legacy convolution API (Note [cuDNN convolution]
// in cudnn_conv.cpp). Plain C++: no cuDNN header here.
#pragma once

#include <cstdint>

#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::cuda {

/// KernelTable::conv2d through cuDNN (float32, float64, float16); false, with nothing queued, when
/// cuDNN is disabled, cannot be loaded or does not cover the case (the op layer then runs im2col + GEMM).
bool cudnn_conv2d(const ops::ConvKernelArgs& args, Stream stream);
/// cudnnGetVersion() of libcudnn (e.g. 91900), loading it on first use; -1 when it cannot be loaded.
int64_t cudnn_version() noexcept;

}  // namespace ctorch::api::backends::cuda
