// torch.optim's per-tensor update rules (torch/optim/{sgd,adam,adamw,adagrad,rmsprop}.py,
// _single_tensor_*), as free functions over one parameter, its gradient and its state tensors.
// ctorch's optimizers (ctorch/optim.h) and libtorch's spellings (ctorch/libtorch/optim.h) both
// step through these, so the arithmetic is written once. Each runs without recording history
// and creates a state tensor that is undefined when first needed (zeros like the parameter).
#pragma once

#include <cstdint>

#include "ctorch/optim.h"
#include "ctorch/tensor.h"

namespace ctorch::optim {

namespace functional {

/// One SGD step of `param` (momentum_buffer is created from the first update, as PyTorch's).
void sgd(Tensor& param, const Tensor& grad, Tensor& momentum_buffer, const SGDOptions& o);
/// One Adam step; `step` is the step count after this update (1 for the first).
void adam(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor& max_exp_avg_sq,
          int64_t step, const AdamOptions& o);
/// One AdamW step (decoupled weight decay: param *= 1 - lr * weight_decay first).
void adamw(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor& max_exp_avg_sq,
           int64_t step, const AdamOptions& o);
/// One Adagrad step; `state_sum` starts at initial_accumulator_value; `step` counts this update.
void adagrad(Tensor& param, const Tensor& grad, Tensor& state_sum, int64_t step, const AdagradOptions& o);
/// One RMSprop step (grad_avg used when centered, momentum_buffer when momentum > 0).
void rmsprop(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg, Tensor& momentum_buffer,
             const RMSpropOptions& o);

}  // namespace functional

}  // namespace ctorch::optim
