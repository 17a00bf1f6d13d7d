// data::DistributedSampler: each rank's share of a dataset (torch.utils.data.distributed.DistributedSampler).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ctorch/data.h"

namespace ctorch::data {

/// Splits a dataset of `dataset_size` samples among `num_replicas` ranks, PyTorch's order exactly:
/// randperm(dataset_size) from a Generator seeded seed + epoch (or 0..n-1 without shuffle), padded by
/// repeating its head to a multiple of num_replicas (or cut, with drop_last), then every
/// num_replicas-th index from `rank`.
class DistributedSampler : public Sampler {
 public:
  /// num_replicas and rank of -1 come from the default process group.
  DistributedSampler(size_t dataset_size, int64_t num_replicas = -1, int64_t rank = -1, bool shuffle = true,
                     uint64_t seed = 0, bool drop_last = false);
  /// The sampler of `dataset` (its size()).
  DistributedSampler(const Dataset& dataset, int64_t num_replicas = -1, int64_t rank = -1, bool shuffle = true,
                     uint64_t seed = 0, bool drop_last = false);
  /// This rank's indices for the current epoch.
  std::vector<int64_t> indices() override;
  /// Samples per rank per epoch (num_samples).
  size_t size() const override { return num_samples_; }
  /// Sets the epoch: with shuffle, each epoch has its own order (call before each epoch).
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  /// The epoch set last (0 at first).
  int64_t epoch() const { return epoch_; }
  /// Samples over all ranks per epoch (total_size).
  size_t total_size() const { return num_samples_ * static_cast<size_t>(num_replicas_); }

 private:
  size_t dataset_size_;
  int64_t num_replicas_;
  int64_t rank_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
  int64_t epoch_ = 0;
  size_t num_samples_ = 0;
};

}  // namespace ctorch::data
