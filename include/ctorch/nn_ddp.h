// nn::parallel::DistributedDataParallel: data parallelism across the ranks of a process group
// (torch.nn.parallel.DistributedDataParallel). Gradients are averaged in buckets while backward runs.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "ctorch/distributed.h"
#include "ctorch/nn_layers.h"
#include "ctorch/nn_reducer.h"

namespace ctorch::nn::parallel {

/// Wraps a module replicated on every rank: the constructor broadcasts rank 0's parameters and
/// buffers; backward all-reduces (averages) the gradients in buckets of about bucket_cap_mb,
/// filled in reverse parameter order, each launched as soon as all its gradients are ready.
/// A backward that leaves a parameter without a gradient leaves the reduction unfinished and the
/// next forward raises c10d's "Expected to have finished reduction in the prior iteration" error,
/// unless find_unused_parameters marks such parameters ready at the end of the backward.
class DistributedDataParallel : public UnaryModule {
 public:
  /// Wraps `module` (registered as child "module"); `process_group` null means the default group.
  /// find_unused_parameters: parameters without a gradient in a backward are reduced as zeros (or
  /// their .grad), and ones no rank used keep their .grad untouched. gradient_as_bucket_view: each
  /// .grad becomes a view into its flat reduction bucket, so gradients are not copied in and out.
  explicit DistributedDataParallel(std::shared_ptr<UnaryModule> module,
                                   std::shared_ptr<distributed::ProcessGroup> process_group = nullptr,
                                   double bucket_cap_mb = 25.0, bool broadcast_buffers = true,
                                   bool find_unused_parameters = false, bool gradient_as_bucket_view = false);

  /// Broadcasts rank 0's buffers (broadcast_buffers), then runs the wrapped module.
  Tensor forward(const Tensor& input) override;
  /// The wrapped module (DDP.module).
  const std::shared_ptr<UnaryModule>& module() const { return module_; }
  /// The process group.
  const std::shared_ptr<distributed::ProcessGroup>& process_group() const { return group_; }
  /// Parameter indices (registration order) per bucket, in the order buckets are reduced.
  std::vector<std::vector<size_t>> bucket_indices() const;

  /// Turns gradient synchronization off for its lifetime (DDP.no_sync()): backward accumulates
  /// locally; the first backward after it averages the accumulated gradients.
  class NoSyncGuard {
   public:
    /// Disables synchronization on `ddp` until destruction.
    explicit NoSyncGuard(DistributedDataParallel& ddp);
    ~NoSyncGuard();
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool previous_;
  };
  /// `auto guard = ddp.no_sync();`
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }

 private:
  std::shared_ptr<UnaryModule> module_;
  std::shared_ptr<distributed::ProcessGroup> group_;
  bool broadcast_buffers_;
  bool require_backward_grad_sync_ = true;
  std::unique_ptr<Reducer> reducer_;  // the bucketing and gradient averaging (ctorch/nn_reducer.h)
};

}  // namespace ctorch::nn::parallel
