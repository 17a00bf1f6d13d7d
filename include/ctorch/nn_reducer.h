// nn::parallel::Reducer: DistributedDataParallel's gradient reducer (c10d's Reducer), for any list of
// parameters, so that both the C++ DistributedDataParallel and Python's drive the same code.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ctorch/distributed.h"
#include "ctorch/tensor.h"

namespace ctorch::nn::parallel {

/// Averages the gradients of `params` across the ranks of a process group in buckets while backward
/// runs (Note [DDP reducer] in src/distributed/reducer.cpp). One iteration: ensure_prior_reduction_finished()
/// before the forward, prepare_for_backward(outputs) after it, then a backward.
class Reducer {
 public:
  /// Checks every rank holds as many parameters with as many elements (PyTorch's
  /// _verify_param_shape_across_processes), buckets `params` and hooks them; `names` name them in errors.
  /// find_unused_parameters and gradient_as_bucket_view as in DistributedDataParallel.
  Reducer(std::vector<Tensor> params, std::vector<std::string> names,
          std::shared_ptr<distributed::ProcessGroup> group, double bucket_cap_mb = 25.0,
          bool find_unused_parameters = false, bool gradient_as_bucket_view = false);
  /// Removes the hooks.
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  /// Raises c10d's "Expected to have finished reduction in the prior iteration" error when the last
  /// armed backward left a parameter without a gradient (Note [Unfinished reduction]).
  void ensure_prior_reduction_finished() const;
  /// Expects this iteration's gradients (call after a forward with grad mode on and sync enabled);
  /// with find_unused_parameters, a backward reaching any of `outputs` ends the iteration.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  /// The parameters, in the order given.
  const std::vector<Tensor>& parameters() const;
  /// Parameter indices per bucket, in the order buckets are reduced.
  std::vector<std::vector<size_t>> bucket_indices() const;
  /// Whether unused parameters are detected (Note [Unused parameters]).
  bool find_unused_parameters() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;  // shared: hooks on an iteration's outputs hold it weakly
};

}  // namespace ctorch::nn::parallel
