// The backend math flags of ctorch/backends.h as the launchers read them. Backends include this
// instead of the public header: its namespace ctorch::backends::cuda would shadow ctorch::cuda
// inside ctorch::backends.
#pragma once

namespace ctorch::inline api::impl {
/// backends::cuda::matmul::allow_tf32().
bool matmul_allow_tf32();
/// backends::cuda::matmul::allow_fp16_reduced_precision_reduction().
bool matmul_allow_fp16_reduction();
/// backends::cuda::matmul::allow_bf16_reduced_precision_reduction().
bool matmul_allow_bf16_reduction();
/// backends::cudnn::enabled().
bool cudnn_enabled();
/// backends::cudnn::allow_tf32().
bool cudnn_allow_tf32();
/// backends::cudnn::benchmark().
bool cudnn_benchmark();
/// backends::cudnn::deterministic().
bool cudnn_deterministic();
}  // namespace ctorch::api::impl
