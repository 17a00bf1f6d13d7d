// libtorch's torch::data::samplers: a Sampler<BatchRequest> hands out one batch request at a time
// (next(batch_size), nullopt at the end of an epoch; reset(new_size) starts the next one).
// Sequential, Random (a randperm per epoch from ctorch's global generator), Stream (batch sizes
// only), DistributedRandom / DistributedSequential (one replica's share, libtorch's order rules).
// save/load take libtorch's serialize archives, declared here only: ctorch has no archive format
// yet, so sampler serialization (torch::save(sampler, ...)) is not provided.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/random.h"
#include "ctorch/tensor.h"

namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace torch::data::samplers {

/// Hands out batch requests (by default vectors of dataset indices) for one epoch at a time.
template <class BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;  ///< What next() returns.
  virtual ~Sampler() = default;
  /// Starts a new epoch, over `new_size` samples when given.
  virtual void reset(std::optional<size_t> new_size) = 0;
  /// The next request of at most `batch_size` samples; nullopt when the epoch is over.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
  /// Writes the sampler's state.
  virtual void save(serialize::OutputArchive& archive) const = 0;
  /// Reads the sampler's state.
  virtual void load(serialize::InputArchive& archive) = 0;
};

/// Base of batch requests that are not index vectors: they report their number of samples.
struct CustomBatchRequest {
  CustomBatchRequest() = default;
  CustomBatchRequest(const CustomBatchRequest&) = default;
  CustomBatchRequest(CustomBatchRequest&&) noexcept = default;
  CustomBatchRequest& operator=(const CustomBatchRequest&) = default;
  CustomBatchRequest& operator=(CustomBatchRequest&&) noexcept = default;
  virtual ~CustomBatchRequest() = default;
  /// The number of samples requested.
  virtual size_t size() const = 0;
};

/// Indices 0, 1, ..., size - 1 in order.
class SequentialSampler : public Sampler<> {
 public:
  /// An epoch over `size` indices.
  explicit SequentialSampler(size_t size) : size_(size) {}
  /// Back to index 0 (and to `new_size` indices when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    if (new_size) size_ = *new_size;
    index_ = 0;
  }
  /// The next min(batch_size, remaining) indices.
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    const size_t remaining = size_ - index_;
    if (remaining == 0) return std::nullopt;
    std::vector<size_t> batch(std::min(batch_size, remaining));
    std::iota(batch.begin(), batch.end(), index_);
    index_ += batch.size();
    return batch;
  }
  /// Not provided by ctorch (no archive format); throws.
  void save(serialize::OutputArchive&) const override { unsupported(); }
  /// Not provided by ctorch (no archive format); throws.
  void load(serialize::InputArchive&) override { unsupported(); }
  /// The next index handed out.
  size_t index() const noexcept { return index_; }

 private:
  static void unsupported() {
    CTORCH_CHECK_NOT_IMPLEMENTED(false, "ctorch does not serialize torch::data samplers");
  }
  size_t size_;
  size_t index_ = 0;
};

/// A random permutation of 0, ..., size - 1 per epoch (torch::randperm on the global generator).
class RandomSampler : public Sampler<> {
 public:
  /// An epoch over `size` indices, stored with `index_dtype`.
  explicit RandomSampler(int64_t size, ::ctorch::ScalarType index_dtype = ::ctorch::kLong)
      : indices_(::ctorch::randperm(size, ::ctorch::TensorOptions().dtype(index_dtype))) {}
  /// A fresh permutation (of `new_size` indices when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    const auto size = static_cast<int64_t>(new_size.value_or(static_cast<size_t>(indices_.numel())));
    indices_ = ::ctorch::randperm(size, ::ctorch::TensorOptions().dtype(indices_.scalar_type()));
    index_ = 0;
  }
  /// The next min(batch_size, remaining) indices of the permutation.
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    const auto remaining = static_cast<size_t>(indices_.numel() - index_);
    if (remaining == 0) return std::nullopt;
    const size_t n = std::min(batch_size, remaining);
    const ::ctorch::Tensor slice =
        indices_.slice(0, index_, index_ + static_cast<int64_t>(n)).to(::ctorch::kLong).contiguous();
    const int64_t* p = slice.data_ptr<int64_t>();
    std::vector<size_t> batch(p, p + n);
    index_ += static_cast<int64_t>(n);
    return batch;
  }
  /// Not provided by ctorch (no archive format); throws.
  void save(serialize::OutputArchive&) const override { unsupported(); }
  /// Not provided by ctorch (no archive format); throws.
  void load(serialize::InputArchive&) override { unsupported(); }
  /// How many indices were handed out this epoch.
  size_t index() const noexcept { return static_cast<size_t>(index_); }

 private:
  static void unsupported() {
    CTORCH_CHECK_NOT_IMPLEMENTED(false, "ctorch does not serialize torch::data samplers");
  }
  ::ctorch::Tensor indices_;
  int64_t index_ = 0;
};

/// The request of a StreamSampler: a number of samples.
struct BatchSize : public CustomBatchRequest {
  /// A request for `size` samples.
  explicit BatchSize(size_t size) : size_(size) {}
  /// The number of samples.
  size_t size() const noexcept override { return size_; }
  /// The number of samples.
  operator size_t() const noexcept { return size_; }  // NOLINT: implicit as libtorch's
  size_t size_;  ///< The number of samples.
};

/// Batch sizes adding up to `epoch_size` per epoch, for datasets that choose their own samples.
class StreamSampler : public Sampler<BatchSize> {
 public:
  /// Epochs of `epoch_size` samples.
  explicit StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}
  /// A new epoch (of `new_size` samples when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    if (new_size) epoch_size_ = *new_size;
    examples_retrieved_so_far_ = 0;
  }
  /// min(batch_size, remaining) samples; nullopt once the epoch's samples are handed out.
  std::optional<BatchSize> next(size_t batch_size) override {
    if (examples_retrieved_so_far_ >= epoch_size_) return std::nullopt;
    batch_size = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
    examples_retrieved_so_far_ += batch_size;
    return BatchSize(batch_size);
  }
  /// Not provided by ctorch (no archive format); throws.
  void save(serialize::OutputArchive&) const override { unsupported(); }
  /// Not provided by ctorch (no archive format); throws.
  void load(serialize::InputArchive&) override { unsupported(); }

 private:
  static void unsupported() {
    CTORCH_CHECK_NOT_IMPLEMENTED(false, "ctorch does not serialize torch::data samplers");
  }
  size_t examples_retrieved_so_far_ = 0;
  size_t epoch_size_;
};

/// A replica's share of `size` samples among `num_replicas`: ceil(size / num_replicas) each with
/// allow_duplicates (the first indices repeat to fill the last shares), floor(...) without.
template <class BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  /// Replica `rank` of `num_replicas`.
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {}
  /// Sets the epoch (it seeds DistributedRandomSampler's shuffle at the next reset()).
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  /// The epoch set last.
  size_t epoch() const { return epoch_; }

 protected:
  /// Samples per replica.
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }
  static void unsupported() {
    CTORCH_CHECK_NOT_IMPLEMENTED(false, "ctorch does not serialize torch::data samplers");
  }
  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_ = 0;
  bool allow_duplicates_;
};

/// This replica's share of a shuffle of all indices; every replica shuffles alike (seeded by the epoch).
class DistributedRandomSampler : public DistributedSampler<> {
 public:
  /// Replica `rank` of `num_replicas`, shuffled for epoch 0.
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
    reset(size_);
  }
  /// Reshuffles for the current epoch (over `new_size` samples when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    size_ = new_size.value_or(size_);
    const size_t local = local_sample_count();
    const size_t total = num_replicas_ == 1 ? size_ : local * num_replicas_;
    all_indices_.resize(total);
    for (size_t i = 0; i < total; ++i) all_indices_[i] = i < size_ ? i : i - size_;
    std::mt19937 engine(static_cast<std::mt19937::result_type>(epoch_));
    std::shuffle(all_indices_.begin(), all_indices_.end(), engine);
    begin_index_ = rank_ * local;
    end_index_ = begin_index_ + local;
    sample_index_ = begin_index_;
  }
  /// The next min(batch_size, remaining) indices of this replica's share.
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    if (sample_index_ >= end_index_) return std::nullopt;
    const size_t end = std::min(sample_index_ + batch_size, end_index_);
    std::vector<size_t> batch(all_indices_.begin() + static_cast<std::ptrdiff_t>(sample_index_),
                              all_indices_.begin() + static_cast<std::ptrdiff_t>(end));
    sample_index_ = end;
    return batch;
  }
  /// Not provided by ctorch (no archive format); throws.
  void save(serialize::OutputArchive&) const override { unsupported(); }
  /// Not provided by ctorch (no archive format); throws.
  void load(serialize::InputArchive&) override { unsupported(); }
  /// The position in the shuffled indices.
  size_t index() const noexcept { return sample_index_; }

 private:
  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
  std::vector<size_t> all_indices_;
};

/// This replica's contiguous share of 0, ..., size - 1 (wrapping around with allow_duplicates).
class DistributedSequentialSampler : public DistributedSampler<> {
 public:
  /// Replica `rank` of `num_replicas`.
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
    populate_indices();
  }
  /// Back to the share's start (over `new_size` samples when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    size_ = new_size.value_or(size_);
    populate_indices();
  }
  /// The next min(batch_size, remaining) indices of this replica's share.
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    if (sample_index_ >= end_index_) return std::nullopt;
    const size_t end = std::min(sample_index_ + batch_size, end_index_);
    std::vector<size_t> batch(end - sample_index_);
    std::iota(batch.begin(), batch.end(), sample_index_);
    for (size_t& i : batch) i %= size_;
    sample_index_ = end;
    return batch;
  }
  /// Not provided by ctorch (no archive format); throws.
  void save(serialize::OutputArchive&) const override { unsupported(); }
  /// Not provided by ctorch (no archive format); throws.
  void load(serialize::InputArchive&) override { unsupported(); }
  /// The next index handed out.
  size_t index() const noexcept { return sample_index_; }

 private:
  void populate_indices() {
    begin_index_ = rank_ * local_sample_count();
    end_index_ = begin_index_ + local_sample_count();
    sample_index_ = begin_index_;
  }
  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
};

}  // namespace torch::data::samplers
