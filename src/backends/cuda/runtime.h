// The real CUDA runtime (DeviceRuntime over the CUDA runtime API). Plain C++: no CUDA headers.
#pragma once

#include <string>

#include "runtime/device_runtime.h"

namespace ctorch::inline api::backends::cuda {

/// Devices cudaGetDeviceCount reports, computed once; 0 on any error (no driver, no device), never throws.
int device_count() noexcept;
/// Why device_count() is 0: the cudaGetDeviceCount error name and text, empty when it succeeded.
std::string device_count_error();
/// The CUDA runtime once its factory has created it (device_count() > 0), else null.
impl::DeviceRuntime* active_runtime() noexcept;

}  // namespace ctorch::api::backends::cuda
