// libtorch's at::globalContext() math switches (ATen/Context.h), over ctorch/backends.h.
#pragma once

#include <string>

#include "ctorch/backends.h"

namespace at {

/// at::Float32MatmulPrecision.
enum class Float32MatmulPrecision { HIGHEST, HIGH, MEDIUM };

/// The subset of at::Context that holds backend math settings.
class Context {
 public:
  /// torch.backends.cuda.matmul.allow_tf32.
  bool allowTF32CuBLAS() const { return ctorch::backends::cuda::matmul::allow_tf32(); }
  /// Sets allow_tf32 for cuBLAS.
  void setAllowTF32CuBLAS(bool b) { ctorch::backends::cuda::matmul::set_allow_tf32(b); }
  /// torch.backends.cudnn.allow_tf32.
  bool allowTF32CuDNN() const { return ctorch::backends::cudnn::allow_tf32(); }
  /// Sets cudnn.allow_tf32.
  void setAllowTF32CuDNN(bool b) { ctorch::backends::cudnn::set_allow_tf32(b); }
  /// allow_fp16_reduced_precision_reduction.
  bool allowFP16ReductionCuBLAS() const {
    return ctorch::backends::cuda::matmul::allow_fp16_reduced_precision_reduction();
  }
  /// Sets allow_fp16_reduced_precision_reduction.
  void setAllowFP16ReductionCuBLAS(bool b) {
    ctorch::backends::cuda::matmul::set_allow_fp16_reduced_precision_reduction(b);
  }
  /// allow_bf16_reduced_precision_reduction.
  bool allowBF16ReductionCuBLAS() const {
    return ctorch::backends::cuda::matmul::allow_bf16_reduced_precision_reduction();
  }
  /// Sets allow_bf16_reduced_precision_reduction.
  void setAllowBF16ReductionCuBLAS(bool b) {
    ctorch::backends::cuda::matmul::set_allow_bf16_reduced_precision_reduction(b);
  }
  /// The float32 matmul precision.
  Float32MatmulPrecision float32MatmulPrecision() const {
    const std::string p = ctorch::get_float32_matmul_precision();
    return p == "high" ? Float32MatmulPrecision::HIGH
                       : p == "medium" ? Float32MatmulPrecision::MEDIUM : Float32MatmulPrecision::HIGHEST;
  }
  /// Sets it from its name ("highest", "high", "medium"), warning as PyTorch for others.
  void setFloat32MatmulPrecision(const std::string& s) { ctorch::set_float32_matmul_precision(s); }
  /// Sets it from the enum.
  void setFloat32MatmulPrecision(Float32MatmulPrecision p) {
    setFloat32MatmulPrecision(p == Float32MatmulPrecision::HIGH ? "high"
                              : p == Float32MatmulPrecision::MEDIUM ? "medium" : "highest");
  }
  /// torch.backends.cudnn.enabled.
  bool userEnabledCuDNN() const { return ctorch::backends::cudnn::enabled(); }
  /// Sets cudnn.enabled.
  void setUserEnabledCuDNN(bool e) { ctorch::backends::cudnn::set_enabled(e); }
  /// torch.backends.cudnn.benchmark.
  bool benchmarkCuDNN() const { return ctorch::backends::cudnn::benchmark(); }
  /// Sets cudnn.benchmark.
  void setBenchmarkCuDNN(bool b) { ctorch::backends::cudnn::set_benchmark(b); }
  /// torch.backends.cudnn.deterministic.
  bool deterministicCuDNN() const { return ctorch::backends::cudnn::deterministic(); }
  /// Sets cudnn.deterministic.
  void setDeterministicCuDNN(bool b) { ctorch::backends::cudnn::set_deterministic(b); }
  /// backends::cudnn::is_available() (ATen's says whether it was built with cuDNN; ctorch loads it at run time).
  static bool hasCuDNN() { return ctorch::backends::cudnn::is_available(); }
};

/// The process's context (stateless: the settings live in ctorch).
inline Context& globalContext() {
  static Context context;
  return context;
}

}  // namespace at
