// zero_grad shared by modules and optimizers.
#include "autograd/zero_grad.h"

#include "ctorch/grad_mode.h"

namespace ctorch::autograd {

void zero_grad(ArrayRef<Tensor> tensors, bool set_to_none) {
  for (const Tensor& p : tensors) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.mutable_grad() = Tensor();
    } else {
      NoGradGuard no_grad;
      p.mutable_grad().zero_();
    }
  }
}

}  // namespace ctorch::autograd
