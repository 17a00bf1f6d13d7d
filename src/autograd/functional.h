// Small tensor helpers the backward formulas share (sum_to, expandability).
#pragma once

#include "ctorch/tensor.h"

namespace ctorch::autograd {

/// True when a tensor of `shape` broadcasts to `desired` (at::is_expandable_to).
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);

/// Sums `t` down to `shape` over the dims that broadcasting expanded (at::sum_to).
Tensor sum_to(const Tensor& t, IntArrayRef shape);

}  // namespace ctorch::autograd
