// Backend math settings (torch.backends.cuda.matmul, torch.backends.cudnn and
// torch.set_float32_matmul_precision): process-wide flags read by the GEMM launchers when an op is
// issued. Defaults are PyTorch 1.13's: no TF32 for float32 matmul, TF32 allowed for cuDNN,
// reduced-precision float16/bfloat16 reductions allowed, precision "highest".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ctorch/cuda.h"

namespace ctorch::inline api {

/// "highest", "high" or "medium" (torch.get_float32_matmul_precision).
std::string get_float32_matmul_precision();
/// Sets the float32 matmul precision; other spellings warn as PyTorch does (case is folded with a
/// warning; an unknown value warns and changes nothing). "high" and "medium" allow TF32.
void set_float32_matmul_precision(const std::string& precision);

namespace backends::cuda::matmul {
/// torch.backends.cuda.matmul.allow_tf32: float32 GEMMs may round their inputs to TF32.
bool allow_tf32();
/// Sets allow_tf32 (true sets the float32 matmul precision to "high", false to "highest").
void set_allow_tf32(bool allow);
/// torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction (default true).
bool allow_fp16_reduced_precision_reduction();
/// Sets allow_fp16_reduced_precision_reduction.
void set_allow_fp16_reduced_precision_reduction(bool allow);
/// torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction (default true).
bool allow_bf16_reduced_precision_reduction();
/// Sets allow_bf16_reduced_precision_reduction.
void set_allow_bf16_reduced_precision_reduction(bool allow);
}  // namespace backends::cuda::matmul

namespace backends::cuda {
/// One device's cuFFT plan cache (torch.backends.cuda.cufft_plan_cache[i]): an LRU of the plans of the
/// torch.fft transforms run on the device (cuFFT plans; FFTW plans on emulated devices).
class CuFFTPlanCache {
 public:
  /// The cache of CUDA device `index` (use cufft_plan_cache[index], which checks it).
  explicit CuFFTPlanCache(DeviceIndex index) : index_(index) {}
  /// Number of cached plans.
  int64_t size() const;
  /// Capacity (default 4096, CUFFT_MAX_PLAN_NUM).
  int64_t max_size() const;
  /// Sets the capacity; must be in [0, 4096]; evicts least recently used plans beyond it.
  void set_max_size(int64_t size);
  /// Drops every cached plan.
  void clear();

 private:
  DeviceIndex index_;
};

/// Indexable by device like torch.backends.cuda.cufft_plan_cache.
struct CuFFTPlanCacheManager {
  /// The plan cache of `device` (an index, a cuda device or its string); throws RuntimeError
  /// "cufft_plan_cache: expected 0 <= device index < N, but got device with index i".
  CuFFTPlanCache operator[](ctorch::cuda::DeviceArg device) const;
  /// The current device's plan cache's size (cufft_plan_cache.size).
  int64_t size() const;
  /// The current device's capacity.
  int64_t max_size() const;
  /// Sets the current device's capacity.
  void set_max_size(int64_t size) const;
  /// Clears the current device's cache.
  void clear() const;
};
/// torch.backends.cuda.cufft_plan_cache.
inline constexpr CuFFTPlanCacheManager cufft_plan_cache{};
}  // namespace backends::cuda

// cuDNN is used by the real CUDA backend for conv2d (forward and both backward passes, float32/64/16);
// emulated devices and the cpu never use it: there convolutions run im2col + GEMM (or oneDNN on the
// cpu) and follow backends::cuda::matmul::allow_tf32. The flags are read at each convolution.
namespace backends::cudnn {
/// torch.backends.cudnn.allow_tf32 (default true): float32 convolutions through cuDNN may use TF32.
bool allow_tf32();
/// Sets cudnn.allow_tf32.
void set_allow_tf32(bool allow);
/// torch.backends.cudnn.is_available(): true when the cuda devices are real (CUDA backend built, a GPU
/// present, not emulated) and libcudnn loads.
bool is_available();
/// torch.backends.cudnn.version(): cudnnGetVersion() (e.g. 91900), or nullopt (None) when not available.
std::optional<int64_t> version();
/// torch.backends.cudnn.enabled (default true): false makes convolutions skip cuDNN (im2col + GEMM).
bool enabled();
/// Sets cudnn.enabled.
void set_enabled(bool enabled);
/// torch.backends.cudnn.benchmark (default false): cuDNN tries the heuristic's algorithms in order
/// until one's workspace can be allocated (no timing runs, unlike PyTorch's cudnnFind).
bool benchmark();
/// Sets cudnn.benchmark.
void set_benchmark(bool benchmark);
/// torch.backends.cudnn.deterministic (default false): cuDNN picks deterministic algorithms only.
bool deterministic();
/// Sets cudnn.deterministic.
void set_deterministic(bool deterministic);
}  // namespace backends::cudnn

}  // namespace ctorch::api
