#include "autograd/accumulate_grad.h"

#include "autograd/meta.h"
#include "ctorch/factories.h"
#include "ops/launch.h"

namespace ctorch::autograd {

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  sequence_nr_ = UINT64_MAX;  // runs as soon as it is ready (PyTorch's priority for accumulators)
  InputMetadata meta;
  meta.sizes = DimVector(variable_.sizes());
  meta.dtype = variable_.dtype();
  meta.device = variable_.device();
  input_metadata_.push_back(meta);
  if (variable_.is_cuda()) stream_ = ops::stream_for(variable_.device());
}

variable_list AccumulateGrad::run_pre_hooks(variable_list grads) {
  AutogradMeta& meta = materialize_meta(variable_);
  std::vector<std::pair<unsigned, GradHook>> hooks;
  {
    std::lock_guard<std::mutex> lock(meta.mutex);
    hooks = meta.hooks;
  }
  for (auto& [key, hook] : hooks) {
    if (grads.empty() || !grads[0].defined()) break;
    if (!hook) continue;  // removed
    Tensor replaced = hook(grads[0]);
    if (replaced.defined()) grads[0] = std::move(replaced);
  }
  return grads;
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (grads.empty() || !grads[0].defined()) return {};
  Tensor incoming = fit(grads[0], 0);
  grads.clear();
  AutogradMeta& meta = materialize_meta(variable_);
  std::lock_guard<std::mutex> lock(meta.mutex);  // the one lock of .grad (Note [Thread safety of autograd state])
  if (!meta.grad.defined()) {
    // Steal a dense gradient nobody else holds; otherwise keep a dense copy of it.
    const bool stealable = !GradMode::is_enabled() && incoming.use_count() == 1 && incoming.is_contiguous() &&
                           incoming.storage_offset() == 0 &&
                           static_cast<size_t>(incoming.nbytes()) == incoming.impl()->storage()->nbytes();
    if (stealable) {
      meta.grad = incoming.detach();
    } else if (GradMode::is_enabled()) {
      meta.grad = incoming.clone();  // create_graph: the gradient keeps its history
    } else {
      const Tensor d = incoming.detach();
      meta.grad = d.is_contiguous() ? d.clone() : d.contiguous();
    }
  } else if (GradMode::is_enabled()) {
    meta.grad = meta.grad + incoming;
  } else {
    meta.grad.add_(incoming.detach());
  }
  return {};
}

}  // namespace ctorch::autograd
