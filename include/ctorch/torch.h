// libtorch spellings over ctorch: a program written against libtorch's C++ frontend
// (torch::, at::, c10::) compiles with `#include <torch/torch.h>` replaced by this header.
#pragma once

#include "ctorch/ctorch.h"

namespace torch {
using namespace ::ctorch;  // NOLINT: torch:: is an alias namespace by design
using ::ctorch::Device;
using ::ctorch::DeviceType;
using ::ctorch::Tensor;
using ::ctorch::TensorOptions;
using ::ctorch::Scalar;
using ::ctorch::ScalarType;
using ::ctorch::Generator;
using ::ctorch::IntArrayRef;
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;
namespace indexing {
using ::ctorch::Ellipsis;
using ::ctorch::None;
using ::ctorch::Slice;
using ::ctorch::TensorIndex;
}  // namespace indexing
namespace cuda {
using ::ctorch::cuda::device_count;
using ::ctorch::cuda::is_available;
}  // namespace cuda
}  // namespace torch

namespace at {
using namespace ::ctorch;  // NOLINT
inline constexpr ::ctorch::DeviceType kCPU = ::ctorch::DeviceType::CPU;
inline constexpr ::ctorch::DeviceType kCUDA = ::ctorch::DeviceType::CUDA;
}  // namespace at

namespace c10 {
using ::ctorch::Device;
using ::ctorch::DeviceIndex;
using ::ctorch::DeviceType;
using ::ctorch::Half;
using ::ctorch::BFloat16;
using ::ctorch::IntArrayRef;
using ::ctorch::Scalar;
using ::ctorch::ScalarType;
using ::ctorch::Stream;
using Error = ::ctorch::Error;
using OutOfMemoryError = ::ctorch::OutOfMemoryError;
}  // namespace c10
