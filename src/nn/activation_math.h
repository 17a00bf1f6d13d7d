// Shared pieces of the composed activations and losses (src/nn/activation.cpp, loss.cpp).
#pragma once

#include "ctorch/ops.h"
#include "ctorch/tensor.h"

namespace ctorch::nn::functional::detail {

/// log(1 + exp(z)) (softplus with beta 1): log1p(exp(z)) for z <= 0 and z + log1p(exp(-z)) above,
/// so neither branch overflows and the gradient is sigmoid(z) everywhere, 0.5 at 0 included.
inline Tensor log1p_exp(const Tensor& z) {
  const Tensor pos = z.clamp_min(0);
  const Tensor neg = z.clamp_max(0);
  return where(z > 0, pos + pos.neg().exp().log1p(), neg.exp().log1p());
}

/// fn(input), computed in float for half and bfloat16 inputs and rounded once at the end (as
/// PyTorch's kernels compute in their opmath type); other dtypes as they are.
template <class Fn>
Tensor in_opmath(const Tensor& input, Fn&& fn) {
  const ScalarType dtype = input.dtype();
  if (dtype == kHalf || dtype == kBFloat16) return fn(input.to(kFloat)).to(dtype);
  return fn(input);
}

}  // namespace ctorch::nn::functional::detail
