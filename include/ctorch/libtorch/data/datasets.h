// libtorch's torch::data::datasets: BatchDataset<Self, Batch, BatchRequest> (get_batch(request)),
// Dataset<Self, Example> (get(index), batches are vectors of examples), StreamDataset (the request
// is a batch size), StatefulDataset (batches are optional: nullopt ends the epoch; reset() starts
// the next), MapDataset (a dataset with a batch transform), SharedBatchDataset (a dataset behind a
// shared_ptr, so copies share it), TensorDataset and MNIST (ctorch's IDX reader).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ctorch/array_ref.h"
#include "ctorch/data.h"
#include "ctorch/libtorch/data/example.h"
#include "ctorch/libtorch/data/samplers.h"
#include "ctorch/ops.h"

namespace torch::data::datasets {

template <class Source, class AppliedTransform>
class MapDataset;

namespace detail {
/// True for std::optional<T>.
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
/// std::optional<T> when `Wrap`, else T.
template <bool Wrap, class T>
using optional_if_t = std::conditional_t<Wrap, std::optional<T>, T>;
}  // namespace detail

/// A dataset that produces whole batches for batch requests; `Self` is the derived class (CRTP).
template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = ::ctorch::ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;                  ///< The derived dataset.
  using BatchType = Batch;                ///< What get_batch returns.
  using BatchRequestType = BatchRequest;  ///< What get_batch takes.
  /// Stateful datasets return optional batches (nullopt ends an epoch).
  static constexpr bool is_stateful = detail::is_optional<Batch>::value;

  virtual ~BatchDataset() = default;
  /// The batch for `request`.
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of samples, if known.
  virtual std::optional<size_t> size() const = 0;

  /// This dataset (copied) with `transform` applied to each batch.
  template <class TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return MapDataset<Self, TransformType>(static_cast<Self&>(*this), std::move(transform));
  }
  /// This dataset (moved) with `transform` applied to each batch.
  template <class TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return MapDataset<Self, TransformType>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A map-style dataset: get(index) gives one example, get_batch(indices) a vector of them.
template <class Self, class SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;  ///< One example.
  /// The example at `index`.
  virtual SingleExample get(size_t index) = 0;
  /// get(i) for each index, in order.
  std::vector<SingleExample> get_batch(::ctorch::ArrayRef<size_t> indices) override {
    std::vector<SingleExample> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

/// A dataset asked only for a number of samples (with samplers::StreamSampler).
template <class Self, class Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, size_t>;

/// A dataset that keeps its own position: get_batch returns nullopt at the end of an epoch, and
/// reset() starts the next. A loader calls it with the batch size.
template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, std::optional<Batch>, BatchRequest> {
 public:
  /// Starts a new epoch.
  virtual void reset() = 0;
  /// Writes the dataset's state.
  virtual void save(serialize::OutputArchive& archive) const = 0;
  /// Reads the dataset's state.
  virtual void load(serialize::InputArchive& archive) = 0;
};

/// `Source` with a batch transform applied to each of its batches (stateful if the source is).
template <class Source, class AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<Source, AppliedTransform>,
                          detail::optional_if_t<Source::is_stateful, typename AppliedTransform::OutputBatchType>,
                          typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;                                        ///< The source dataset.
  using TransformType = AppliedTransform;                            ///< The transform.
  using BatchRequestType = typename Source::BatchRequestType;        ///< The source's request.
  using OutputBatchType =                                            ///< The transformed batch.
      detail::optional_if_t<Source::is_stateful, typename AppliedTransform::OutputBatchType>;

  /// `dataset` with `transform`.
  MapDataset(Source dataset, AppliedTransform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}
  /// transform(source.get_batch(request)); a stateful source's nullopt passes through.
  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (Source::is_stateful) {
      if (auto batch = dataset_.get_batch(std::move(request))) return transform_.apply_batch(std::move(*batch));
      return std::nullopt;
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }
  /// The source's size.
  std::optional<size_t> size() const override { return dataset_.size(); }
  /// Resets a stateful source.
  void reset()
    requires Source::is_stateful
  {
    dataset_.reset();
  }
  /// The source dataset.
  const Source& dataset() noexcept { return dataset_; }
  /// The transform.
  const AppliedTransform& transform() noexcept { return transform_; }

 private:
  Source dataset_;
  AppliedTransform transform_;
};

/// A dataset held by a shared_ptr: copies (one per loader worker) share one dataset.
template <class UnderlyingDataset>
class SharedBatchDataset
    : public BatchDataset<SharedBatchDataset<UnderlyingDataset>, typename UnderlyingDataset::BatchType,
                          typename UnderlyingDataset::BatchRequestType> {
 public:
  using BatchType = typename UnderlyingDataset::BatchType;                ///< The dataset's batch.
  using BatchRequestType = typename UnderlyingDataset::BatchRequestType;  ///< The dataset's request.

  /// Shares `shared_dataset`.
  SharedBatchDataset(std::shared_ptr<UnderlyingDataset> shared_dataset)  // NOLINT: implicit as libtorch's
      : dataset_(std::move(shared_dataset)) {}
  /// The dataset's batch.
  BatchType get_batch(BatchRequestType request) override { return dataset_->get_batch(std::move(request)); }
  /// The dataset's size.
  std::optional<size_t> size() const override { return dataset_->size(); }
  /// The dataset.
  UnderlyingDataset& operator*() { return *dataset_; }
  /// The dataset.
  const UnderlyingDataset& operator*() const { return *dataset_; }
  /// The dataset's members.
  UnderlyingDataset* operator->() { return dataset_.get(); }
  /// The dataset's members.
  const UnderlyingDataset* operator->() const { return dataset_.get(); }
  /// Resets a stateful dataset.
  void reset() { dataset_->reset(); }

 private:
  std::shared_ptr<UnderlyingDataset> dataset_;
};

/// A SharedBatchDataset of an UnderlyingDataset built from `args`.
template <class UnderlyingDataset, class... Args>
SharedBatchDataset<UnderlyingDataset> make_shared_dataset(Args&&... args) {
  return std::make_shared<UnderlyingDataset>(std::forward<Args>(args)...);
}

/// Rows of one tensor (dim 0), as TensorExamples.
struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  /// The rows of stack(tensors).
  explicit TensorDataset(const std::vector<::ctorch::Tensor>& tensors) : TensorDataset(::ctorch::stack(tensors)) {}
  /// The rows of `tensor`.
  explicit TensorDataset(::ctorch::Tensor tensor) : tensor(std::move(tensor)) {}
  /// tensor[index].
  TensorExample get(size_t index) override { return tensor[static_cast<int64_t>(index)]; }
  /// tensor.size(0).
  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }
  ::ctorch::Tensor tensor;  ///< The rows.
};

/// libtorch's MNIST: ctorch's IDX reader (ctorch::data::datasets::MNIST) as a Dataset<MNIST>.
class MNIST : public Dataset<MNIST> {
 public:
  using Mode = ::ctorch::data::datasets::MNIST::Mode;  ///< kTrain or kTest.
  /// Reads the split from `root` (its four IDX files).
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain)
      : reader_(std::make_shared<::ctorch::data::datasets::MNIST>(root, mode)) {}
  /// (image, label).
  Example<> get(size_t index) override { return reader_->get(index); }
  /// The number of samples.
  std::optional<size_t> size() const override { return reader_->size(); }
  /// True for the training split.
  bool is_train() const noexcept { return reader_->is_train(); }
  /// All images [N, 1, 28, 28].
  const ::ctorch::Tensor& images() const { return reader_->images(); }
  /// All labels [N].
  const ::ctorch::Tensor& targets() const { return reader_->targets(); }

 private:
  std::shared_ptr<::ctorch::data::datasets::MNIST> reader_;  // shared: loader workers copy the dataset
};

/// ctorch's SyntheticMNIST (seeded digits, no download) as a Dataset<SyntheticMNIST>.
class SyntheticMNIST : public Dataset<SyntheticMNIST> {
 public:
  /// `size` samples drawn from `seed`.
  explicit SyntheticMNIST(size_t size = 60000, uint64_t seed = 0) : source_(size, seed) {}
  /// Image (1, 28, 28) float32 and label () int64; thread-safe.
  Example<> get(size_t index) override { return source_.get(index); }
  /// The number of samples.
  std::optional<size_t> size() const override { return source_.size(); }
  /// The label of sample `index` without drawing its image.
  int64_t label(size_t index) const { return source_.label(index); }

 private:
  ::ctorch::data::datasets::SyntheticMNIST source_;
};

}  // namespace torch::data::datasets
