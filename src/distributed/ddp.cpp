// DistributedDataParallel (ctorch/nn_ddp.h): the module around a Reducer (ctorch/nn_reducer.h), which
// holds the bucketing and the gradient averaging (Note [DDP reducer] in reducer.cpp).
#include "ctorch/grad_mode.h"
#include "ctorch/nn_ddp.h"

namespace ctorch::nn::parallel {

namespace dist = ctorch::distributed;

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<UnaryModule> module,
                                                 std::shared_ptr<dist::ProcessGroup> process_group,
                                                 double bucket_cap_mb, bool broadcast_buffers,
                                                 bool find_unused_parameters, bool gradient_as_bucket_view)
    : UnaryModule("DistributedDataParallel"),
      module_(std::move(module)),
      group_(process_group ? std::move(process_group) : dist::default_group()),
      broadcast_buffers_(broadcast_buffers) {
  CTORCH_CHECK_VALUE(module_ != nullptr, "DistributedDataParallel: the module is null");
  CTORCH_CHECK_VALUE(bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive, got ", bucket_cap_mb);
  register_module("module", module_);
  std::vector<Tensor> params;
  std::vector<std::string> names;
  for (const auto& [name, p] : module_->named_parameters()) {
    if (!p.requires_grad()) continue;
    params.push_back(p);
    names.push_back(name);
  }
  // Checks the ranks hold the same model before any broadcast, then buckets and hooks the parameters.
  reducer_ = std::make_unique<Reducer>(std::move(params), std::move(names), group_, bucket_cap_mb,
                                       find_unused_parameters, gradient_as_bucket_view);
  // Rank 0's parameters and buffers everywhere (_sync_module_states).
  NoGradGuard no_grad;
  for (const Tensor& p : module_->parameters()) group_->broadcast(p, 0)->wait();
  for (const Tensor& b : module_->buffers()) group_->broadcast(b, 0)->wait();
}

Tensor DistributedDataParallel::forward(const Tensor& input) {
  // Before any collective of this forward (PyTorch's _pre_forward checks in _rebuild_buckets first).
  if (GradMode::is_enabled()) reducer_->ensure_prior_reduction_finished();
  if (broadcast_buffers_ && group_->size() > 1) {
    NoGradGuard no_grad;
    for (const Tensor& b : module_->buffers()) group_->broadcast(b, 0)->wait();
  }
  Tensor output = module_->forward(input);
  if (GradMode::is_enabled() && require_backward_grad_sync_) reducer_->prepare_for_backward({output});
  return output;
}

std::vector<std::vector<size_t>> DistributedDataParallel::bucket_indices() const { return reducer_->bucket_indices(); }

DistributedDataParallel::NoSyncGuard::NoSyncGuard(DistributedDataParallel& ddp)
    : ddp_(ddp), previous_(ddp.require_backward_grad_sync_) {
  ddp_.require_backward_grad_sync_ = false;
}

DistributedDataParallel::NoSyncGuard::~NoSyncGuard() { ddp_.require_backward_grad_sync_ = previous_; }

}  // namespace ctorch::nn::parallel
