// DistributedSampler (ctorch/data_distributed.h), following torch/utils/data/distributed.py.
#include "ctorch/data_distributed.h"
#include "ctorch/distributed.h"
#include "ctorch/random.h"

namespace ctorch::data {
namespace {

size_t size_of(const Dataset& dataset) {
  const std::optional<size_t> n = dataset.size();
  CTORCH_CHECK_TYPE(n.has_value(), "DistributedSampler needs a dataset with a size (Dataset::size() returned nullopt)");
  return *n;
}

}  // namespace

DistributedSampler::DistributedSampler(const Dataset& dataset, int64_t num_replicas, int64_t rank, bool shuffle,
                                       uint64_t seed, bool drop_last)
    : DistributedSampler(size_of(dataset), num_replicas, rank, shuffle, seed, drop_last) {}

DistributedSampler::DistributedSampler(size_t dataset_size, int64_t num_replicas, int64_t rank, bool shuffle,
                                       uint64_t seed, bool drop_last)
    : dataset_size_(dataset_size), num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), seed_(seed),
      drop_last_(drop_last) {
  // From the default group, as PyTorch (ValueError when it is not initialized).
  if (num_replicas_ == -1) num_replicas_ = distributed::get_world_size();
  if (rank_ == -1) rank_ = distributed::get_rank();
  CTORCH_CHECK_VALUE(num_replicas_ > 0, "DistributedSampler: num_replicas must be positive, got ", num_replicas_);
  CTORCH_CHECK_VALUE(rank_ >= 0 && rank_ < num_replicas_, "Invalid rank ", rank_,
                     ", rank should be in the interval [0, ", num_replicas_ - 1, "]");
  const auto n = static_cast<int64_t>(dataset_size_);
  if (drop_last_ && n % num_replicas_ != 0) {
    // ceil((n - num_replicas) / num_replicas): an equal split with the tail dropped.
    const int64_t d = n - num_replicas_;
    num_samples_ = d <= 0 ? 0 : static_cast<size_t>((d + num_replicas_ - 1) / num_replicas_);
  } else {
    num_samples_ = static_cast<size_t>((n + num_replicas_ - 1) / num_replicas_);
  }
}

std::vector<int64_t> DistributedSampler::indices() {
  const auto n = static_cast<int64_t>(dataset_size_);
  std::vector<int64_t> all;
  if (shuffle_) {
    Generator g;
    g.manual_seed(seed_ + static_cast<uint64_t>(epoch_));
    const Tensor perm = randperm(n, TensorOptions().dtype(kLong), g);
    const int64_t* p = perm.data_ptr<int64_t>();
    all.assign(p, p + n);
  } else {
    all.resize(dataset_size_);
    for (int64_t i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
  }
  const size_t total = total_size();
  if (!drop_last_) {
    // Pad by repeating the list from its start (several times when it is shorter than the padding).
    const size_t base = all.size();
    for (size_t i = 0; all.size() < total && base > 0; ++i) all.push_back(all[i % base]);
  } else {
    all.resize(total);
  }
  std::vector<int64_t> mine;
  mine.reserve(num_samples_);
  for (size_t i = static_cast<size_t>(rank_); i < total; i += static_cast<size_t>(num_replicas_)) mine.push_back(all[i]);
  return mine;
}

}  // namespace ctorch::data
