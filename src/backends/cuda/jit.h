// Jiterator kernels on real CUDA devices: the user's code string in a generated __global__
// grid-stride kernel, compiled to PTX by NVRTC, loaded with the driver API (cuModuleLoadData,
// resolved through cudart: no link to libcuda) and launched with cuLaunchKernel.
#pragma once

#include <string>

#include "ctorch/device.h"
#include "kernels/elementwise_plan.h"
#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::cuda {

/// The CUDA translation unit of `spec` (entry point `ctorch_jit_kernel`).
std::string jit_source(const ops::JitSpec& spec);
/// PTX of `spec` compiled by NVRTC for compute capability major.minor; throws JitCompileError
/// carrying NVRTC's log (lines of the code string appear as `jiterator(LINE)`).
std::string nvrtc_compile(const ops::JitSpec& spec, int major, int minor);
/// KernelTable::jit_compile: NVRTC for `device`'s compute capability, loaded once per device.
const ops::JitKernel* jit_compile(const ops::JitSpec& spec, Device device);
/// KernelTable::jit: launches the kernel on the stream's cudaStream_t.
void jit(const ops::JitKernel& kernel, const kernels::JitPlan& plan, char* const* data, const ops::JitValue* extra,
         int nextra, Stream stream);

}  // namespace ctorch::api::backends::cuda
