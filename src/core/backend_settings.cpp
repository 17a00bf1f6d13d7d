// The process-wide backend math flags (at::Context's allow_tf32_cublas, float32_matmul_precision,
// allow_fp16_reduction_cublas, allow_tf32_cudnn and the cudnn switches). Atomics: launchers read
// them on whichever thread issues an op. backends::cudnn::is_available/version: src/cuda/cudnn.cpp.
#include <algorithm>
#include <atomic>
#include <cctype>

#include "ctorch/backends.h"
#include "ctorch/warning.h"
#include "core/math_settings.h"

namespace ctorch::inline api {
namespace {

enum class Precision : int { Highest, High, Medium };

std::atomic<Precision> g_precision{Precision::Highest};
std::atomic<bool> g_fp16_reduction{true};
std::atomic<bool> g_bf16_reduction{true};
std::atomic<bool> g_cudnn_tf32{true};
std::atomic<bool> g_cudnn_enabled{true};
std::atomic<bool> g_cudnn_benchmark{false};
std::atomic<bool> g_cudnn_deterministic{false};

bool parse(const std::string& s, Precision* out) {
  if (s == "highest") *out = Precision::Highest;
  else if (s == "high") *out = Precision::High;
  else if (s == "medium") *out = Precision::Medium;
  else return false;
  return true;
}

}  // namespace

std::string get_float32_matmul_precision() {
  switch (g_precision.load()) {
    case Precision::High: return "high";
    case Precision::Medium: return "medium";
    default: return "highest";
  }
}

// at::Context::setFloat32MatmulPrecision(const std::string&): exact spellings, then lower case
// with a warning, else a warning and no change.
void set_float32_matmul_precision(const std::string& precision) {
  Precision p{};
  if (parse(precision, &p)) {
    g_precision = p;
    return;
  }
  std::string lower = precision;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (parse(lower, &p)) {
    warn(precision + " is not one of 'highest', 'high', or 'medium'; the given input is interpreted as " + lower);
    g_precision = p;
    return;
  }
  warn(precision + " is not one of 'highest', 'high', or 'medium'; the current"
                   "setFloat32MatmulPrecision call has no effect.");
}

namespace backends::cuda::matmul {
bool allow_tf32() { return g_precision.load() != Precision::Highest; }
void set_allow_tf32(bool allow) { g_precision = allow ? Precision::High : Precision::Highest; }
bool allow_fp16_reduced_precision_reduction() { return g_fp16_reduction; }
void set_allow_fp16_reduced_precision_reduction(bool allow) { g_fp16_reduction = allow; }
bool allow_bf16_reduced_precision_reduction() { return g_bf16_reduction; }
void set_allow_bf16_reduced_precision_reduction(bool allow) { g_bf16_reduction = allow; }
}  // namespace backends::cuda::matmul

namespace backends::cudnn {
bool allow_tf32() { return g_cudnn_tf32; }
void set_allow_tf32(bool allow) { g_cudnn_tf32 = allow; }
bool enabled() { return g_cudnn_enabled; }
void set_enabled(bool enabled) { g_cudnn_enabled = enabled; }
bool benchmark() { return g_cudnn_benchmark; }
void set_benchmark(bool benchmark) { g_cudnn_benchmark = benchmark; }
bool deterministic() { return g_cudnn_deterministic; }
void set_deterministic(bool deterministic) { g_cudnn_deterministic = deterministic; }
}  // namespace backends::cudnn

namespace impl {
bool matmul_allow_tf32() { return backends::cuda::matmul::allow_tf32(); }
bool matmul_allow_fp16_reduction() { return g_fp16_reduction; }
bool matmul_allow_bf16_reduction() { return g_bf16_reduction; }
bool cudnn_enabled() { return g_cudnn_enabled; }
bool cudnn_allow_tf32() { return g_cudnn_tf32; }
bool cudnn_benchmark() { return g_cudnn_benchmark; }
bool cudnn_deterministic() { return g_cudnn_deterministic; }
}  // namespace impl

}  // namespace ctorch::api
