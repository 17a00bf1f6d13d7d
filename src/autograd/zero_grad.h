// The one zero_grad of modules and optimizers (Module::zero_grad, Optimizer::zero_grad).
#pragma once

#include "ctorch/tensor.h"

namespace ctorch::autograd {

/// Resets the .grad of each tensor that has one: undefined (set_to_none, PyTorch 1.13's default
/// for optimizers) or zeroed in place without recording.
void zero_grad(ArrayRef<Tensor> tensors, bool set_to_none);

}  // namespace ctorch::autograd
