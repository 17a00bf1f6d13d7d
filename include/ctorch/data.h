// Data loading (torch.utils.data): datasets of (data, target) examples and a DataLoader that
// shuffles with a Generator, stacks examples into batches, prefetches on worker threads and pins
// batches for asynchronous host-to-device copies. Names follow libtorch where it has them
// (Example, Dataset::get/size, DataLoaderOptions); behaviour follows Python's DataLoader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ctorch/generator.h"
#include "ctorch/tensor.h"

namespace ctorch::data {

/// One sample, or one batch of samples stacked along dim 0 (torch::data::Example).
struct Example {
  Tensor data;    ///< The input.
  Tensor target;  ///< The label; undefined for datasets without targets.
};

/// A map-style dataset (torch.utils.data.Dataset, torch::data::datasets::Dataset).
/// With num_workers > 0 a DataLoader calls get() from several threads at once.
class Dataset {
 public:
  virtual ~Dataset() = default;
  /// The sample at `index` (0 <= index < size()).
  virtual Example get(size_t index) = 0;
  /// Number of samples; nullopt when unknown (a DataLoader needs a size).
  virtual std::optional<size_t> size() const = 0;
};

/// Samples are slices along dim 0 of one or two tensors (torch.utils.data.TensorDataset).
class TensorDataset : public Dataset {
 public:
  /// One tensor (data only) or two (data, target) with equal first dimensions.
  explicit TensorDataset(std::vector<Tensor> tensors);
  /// Data and target with equal first dimensions.
  TensorDataset(Tensor data, Tensor target);
  /// (data[index], target[index]).
  Example get(size_t index) override;
  /// The common first dimension.
  std::optional<size_t> size() const override;
  /// The wrapped tensors.
  const std::vector<Tensor>& tensors() const { return tensors_; }

 private:
  std::vector<Tensor> tensors_;
};

namespace datasets {

/// MNIST read from its four IDX files in `root` (train-images-idx3-ubyte, train-labels-idx1-ubyte,
/// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte), as libtorch's torch::data::datasets::MNIST reads
/// them: images (1, 28, 28) float32 in [0, 1], labels () int64. Missing or damaged files throw.
class MNIST : public Dataset {
 public:
  /// Which split to read.
  enum class Mode { kTrain, kTest };
  /// Reads the split's two files from `root` (60000 training or 10000 test samples).
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);
  /// (images[index], targets[index]).
  Example get(size_t index) override;
  /// The number of samples.
  std::optional<size_t> size() const override { return static_cast<size_t>(images_.size(0)); }
  /// True for the training split.
  bool is_train() const noexcept { return train_; }
  /// All images [N, 1, 28, 28].
  const Tensor& images() const { return images_; }
  /// All labels [N].
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool train_;
};

/// A deterministic MNIST-like dataset generated from a seed, with no download: `size` images of
/// 1x28x28 float32 in [0, 1] (a seven-segment digit drawn with a random shift, stroke width and
/// noise) and int64 labels 0..9. get(i) depends only on (seed, i), so it is thread-safe and
/// order-independent; a small MLP learns it in an epoch or two.
class SyntheticMNIST : public Dataset {
 public:
  /// `size` samples drawn from `seed`.
  explicit SyntheticMNIST(size_t size = 60000, uint64_t seed = 0);
  /// Image (1, 28, 28) float32 and label () int64.
  Example get(size_t index) override;
  /// The number of samples.
  std::optional<size_t> size() const override { return size_; }
  /// The label of sample `index` without drawing its image.
  int64_t label(size_t index) const;

 private:
  size_t size_;
  uint64_t seed_;
};

}  // namespace datasets

/// The order in which a DataLoader visits a dataset, one epoch per indices() call
/// (torch.utils.data.Sampler); given with DataLoaderOptions::sampler.
class Sampler {
 public:
  virtual ~Sampler();
  /// The dataset indices of the next epoch, in order.
  virtual std::vector<int64_t> indices() = 0;
  /// Indices per epoch (len(sampler)).
  virtual size_t size() const = 0;
};

/// DataLoader options (torch.utils.data.DataLoader's keyword arguments); setters chain.
class DataLoaderOptions {
 public:
  /// Defaults as in PyTorch, with the given batch size.
  DataLoaderOptions(int64_t batch_size = 1) : batch_size_(batch_size) {}  // NOLINT: implicit like libtorch
  /// Samples per batch (default 1).
  DataLoaderOptions& batch_size(int64_t v) { batch_size_ = v; return *this; }
  /// Samples per batch.
  int64_t batch_size() const { return batch_size_; }
  /// Reshuffle at every epoch (default false).
  DataLoaderOptions& shuffle(bool v) { shuffle_ = v; return *this; }
  /// True when epochs are shuffled.
  bool shuffle() const { return shuffle_; }
  /// Drop the last incomplete batch (default false).
  DataLoaderOptions& drop_last(bool v) { drop_last_ = v; return *this; }
  /// True when the last incomplete batch is dropped.
  bool drop_last() const { return drop_last_; }
  /// Worker threads that prefetch batches (0: load on the iterating thread).
  DataLoaderOptions& num_workers(int64_t v) { num_workers_ = v; return *this; }
  /// Number of worker threads.
  int64_t num_workers() const { return num_workers_; }
  /// libtorch's name for num_workers.
  DataLoaderOptions& workers(int64_t v) { return num_workers(v); }
  /// Batches each worker loads ahead (default 2; only with num_workers > 0).
  DataLoaderOptions& prefetch_factor(int64_t v) { prefetch_factor_ = v; return *this; }
  /// Batches each worker loads ahead.
  int64_t prefetch_factor() const { return prefetch_factor_; }
  /// Seconds to wait for a worker's batch before raising (default 0: wait forever; only with
  /// num_workers > 0). A timed-out batch is waited for again by the next increment.
  DataLoaderOptions& timeout(double seconds) { timeout_ = seconds; return *this; }
  /// Seconds to wait for a worker's batch (0: forever).
  double timeout() const { return timeout_; }
  /// Copy batches into pinned host memory when CUDA is available (default false).
  DataLoaderOptions& pin_memory(bool v) { pin_memory_ = v; return *this; }
  /// True when batches are pinned.
  bool pin_memory() const { return pin_memory_; }
  /// The cpu generator for shuffling and the base seed (default: the global generator).
  DataLoaderOptions& generator(Generator g) { generator_ = std::move(g); return *this; }
  /// The generator, if one was set.
  const std::optional<Generator>& generator() const { return generator_; }
  /// Shorthand for generator(Generator().manual_seed(seed)).
  DataLoaderOptions& seed(uint64_t seed);
  /// Visit the dataset in the sampler's order (default none: in order, or shuffled with shuffle);
  /// mutually exclusive with shuffle.
  DataLoaderOptions& sampler(std::shared_ptr<Sampler> s) { sampler_ = std::move(s); return *this; }
  /// The sampler, if one was set.
  const std::shared_ptr<Sampler>& sampler() const { return sampler_; }

 private:
  int64_t batch_size_;
  bool shuffle_ = false;
  bool drop_last_ = false;
  int64_t num_workers_ = 0;
  int64_t prefetch_factor_ = 2;
  double timeout_ = 0;
  bool pin_memory_ = false;
  std::optional<Generator> generator_;
  std::shared_ptr<Sampler> sampler_;
};

namespace detail {
class Epoch;
}

/// Iterates a dataset in batches (torch.utils.data.DataLoader): `for (Example& batch : loader)`.
/// Each begin() starts an epoch (reshuffling from the loader's generator); batches arrive in
/// sampler order whatever the number of workers.
class DataLoader {
 public:
  /// Input iterator over one epoch's batches.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Example;
    using difference_type = std::ptrdiff_t;
    using pointer = Example*;
    using reference = Example&;
    /// The end sentinel.
    Iterator() = default;
    /// The current batch.
    Example& operator*() const;
    /// The current batch's members.
    Example* operator->() const { return &**this; }
    /// Loads the next batch (rethrows a worker's error for it).
    Iterator& operator++();
    /// True when both are exhausted, or both are the same position of one epoch.
    bool operator==(const Iterator& other) const;

   private:
    friend class DataLoader;
    explicit Iterator(std::shared_ptr<detail::Epoch> epoch);
    std::shared_ptr<detail::Epoch> epoch_;
  };

  /// A loader over a shared dataset.
  explicit DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {});
  /// A loader that owns a copy of `dataset`.
  template <class D>
    requires(std::is_base_of_v<Dataset, std::decay_t<D>> && !std::is_same_v<std::decay_t<D>, Dataset>)
  explicit DataLoader(D&& dataset, DataLoaderOptions options = {})
      : DataLoader(std::make_shared<std::decay_t<D>>(std::forward<D>(dataset)), std::move(options)) {}

  /// Starts an epoch and loads its first batch.
  Iterator begin();
  /// The end of any epoch.
  Iterator end() const { return Iterator(); }
  /// Batches per epoch (len(loader)).
  size_t size() const;
  /// The options.
  const DataLoaderOptions& options() const { return options_; }
  /// The dataset.
  Dataset& dataset() const { return *dataset_; }

 private:
  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  size_t dataset_size_ = 0;
};

/// Stacks examples along a new dim 0 (default_collate for (data, target) pairs).
Example collate(const std::vector<Example>& examples);

}  // namespace ctorch::data
