// Raw-buffer samplers of the CPU generator, bit-exact with PyTorch 1.13's CPU kernels
// (aten/src/ATen/native/cpu/DistributionTemplates.h, aten/src/ATen/core/DistributionsHelper.h,
// TransformationHelper.h, as built by Debian's python3-torch 1.13.1 with CPU capability AVX2).
//
// Each sampler writes `n` values of `dtype` to `out` in element order (the caller maps that
// order onto a tensor's memory order), takes gen.mutex() for its whole run, and validates its
// arguments before the first draw, so a failed call leaves the generator unchanged. The
// check_* / *_args helpers hold PyTorch's argument checks and error texts for the tensor layer.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "ctorch/dtype.h"
#include "random/cpu_generator.h"

namespace ctorch::inline api::impl {

// ---- argument checks (no drawing) ---------------------------------------------------------------

/// uniform_'s checks for `dtype`; returns (from, to) clamped to the dtype's finite range.
std::pair<double, double> check_uniform_args(ScalarType dtype, double from, double to);
/// normal's check: std >= 0 ("normal expects std >= 0.0, but found std -1").
void check_normal_std(double std);
/// Throws the dispatch error of normal_ unless `dtype` is floating (kernel named for cpu or cuda).
void check_normal_dtype(ScalarType dtype, bool cuda = false);

/// What random_(from, to) draws: `(val % range) + base`, or every int64 when full_64_bits.
struct RandomRange {
  uint64_t range = 0;
  int64_t base = 0;
  bool full_64_bits = false;
};
/// random_'s checks and range for `dtype` (to absent: up to the dtype's maximum); `cuda` names
/// the cuda kernel in dispatch errors.
RandomRange random_from_to_args(ScalarType dtype, int64_t from, std::optional<int64_t> to, bool cuda = false);

/// bernoulli_(p)'s checks: 0 <= p <= 1 and an output dtype the kernel handles (cuda: all).
void check_bernoulli_scalar_args(ScalarType dtype, double p, bool cuda = false);
/// bernoulli(p tensor)'s checks: dtypes handled and every p in [0, 1] (all before any draw).
void check_bernoulli_tensor_args(ScalarType dtype, ScalarType p_dtype, const void* p, int64_t n);
/// randperm's checks: n >= 0, dtype supported, n - 1 representable exactly in dtype.
void check_randperm_args(int64_t n, ScalarType dtype);

// ---- samplers ---------------------------------------------------------------------------------

/// uniform_(from, to): float 24 bits of one draw, double 53 bits of random64, half 11 bits and
/// bfloat16 8 bits of one draw; `x * (to - from) + from` fused (fma) in the dtype's acc type.
void uniform_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n, double from,
                  double to);

/// normal_(mean, std). contiguous && n >= 16: normal_fill (float via the AVX2 avx_mathfun
/// algorithm, emulated in scalar code); otherwise per-element Box-Muller in double with the
/// generator's cached sine value.
void normal_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n, double mean,
                 double std, bool contiguous);

/// random_(from, to) with a range from random_from_to_args.
void random_from_to_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n,
                         const RandomRange& range);

/// bernoulli_(p): 1 where a 53-bit double uniform is below p.
void bernoulli_scalar_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n, double p);

/// Dropout over `n` floating values in element order with bernoulli_(keep)'s draws: mask[i] = draw,
/// out[i] = in[i] * (1 / keep in the dtype) where kept, else 0 (PyTorch's CPU dropout:
/// empty_like(in).bernoulli_(keep).div_(keep), then in * noise).
void dropout_fill(CPUGeneratorImpl& gen, ScalarType dtype, const void* in, void* out, bool* mask, int64_t n,
                  double keep);
/// bernoulli(p): element i is 1 where a uniform is below p[i]; float/bfloat16 p use 24-bit float
/// uniforms, double p 53-bit double uniforms. `p` holds n values of p_dtype in element order.
void bernoulli_tensor_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n,
                           ScalarType p_dtype, const void* p);

/// randperm(n): identity, then for i < n-1 swap i with i + random() % (n - i).
void randperm_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n);

}  // namespace ctorch::api::impl
