// libtorch's torch::data spellings over ctorch::data (docs/libtorch.md "torch::data"): Example<>,
// datasets::Dataset<Self> (a CRTP base whose map(transforms::Stack<>()) returns the dataset:
// ctorch's loader always stacks), DataLoaderOptions, samplers::{RandomSampler, SequentialSampler}
// as tags and make_data_loader<Sampler>(dataset, options), datasets::MNIST (ctorch's IDX reader),
// transforms::Normalize and dataset.map(transform). Not here: Lambda transforms, stateful datasets,
// custom samplers and batch-vector (unstacked) loaders.
// libtorch's make_data_loader defaults to RandomSampler (shuffled), as here.
#pragma once

#include <memory>
#include <string>
#include <vector>
#include <type_traits>
#include <utility>

#include "ctorch/data.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"

namespace torch::data {

/// libtorch's Example<Data, Target>; ctorch's Example holds two tensors whatever the arguments.
template <class Data = ::ctorch::Tensor, class Target = ::ctorch::Tensor>
using Example = ::ctorch::data::Example;
using ::ctorch::data::DataLoader;
using ::ctorch::data::DataLoaderOptions;

namespace transforms {
/// Stacks examples into a batch; ctorch's DataLoader always does, so map(Stack<>()) is the identity.
template <class E = Example<>>
struct Stack {};

/// (data - mean) / stddev per channel (one value each: every channel), targets unchanged.
template <class Target = ::ctorch::Tensor>
struct Normalize {
  /// One mean and one standard deviation for every channel.
  Normalize(double mean, double stddev) : Normalize(std::vector<double>{mean}, std::vector<double>{stddev}) {}
  /// One per channel (dim 0 of an image [C, H, W]).
  Normalize(::ctorch::ArrayRef<double> mean, ::ctorch::ArrayRef<double> stddev)
      : mean(::ctorch::tensor(std::vector<double>(mean.begin(), mean.end()), ::ctorch::TensorOptions().dtype(::ctorch::kFloat)).view({-1, 1, 1})),
        stddev(::ctorch::tensor(std::vector<double>(stddev.begin(), stddev.end()), ::ctorch::TensorOptions().dtype(::ctorch::kFloat)).view({-1, 1, 1})) {}
  /// The transformed example.
  Example<> operator()(Example<> e) const {
    e.data = (e.data - mean.to(e.data.device())) / stddev.to(e.data.device());
    return e;
  }
  ::ctorch::Tensor mean, stddev;
};
}  // namespace transforms

namespace datasets {
template <class Source, class Transform>
class MapDataset;

/// CRTP base of map-style datasets: override get(size_t) and size() const.
template <class Self, class SingleExample = Example<>>
class Dataset : public ::ctorch::data::Dataset {
 public:
  /// dataset.map(transforms::Stack<>()): the dataset itself (batches are stacked anyway).
  template <class E>
  Self map(transforms::Stack<E>) && {
    return std::move(static_cast<Self&>(*this));
  }
  /// dataset.map(transform): each example passes through `transform` (Normalize, ...).
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return MapDataset<Self, Transform>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// `source` with `transform` applied to each example (libtorch's MapDataset).
template <class Source, class Transform>
class MapDataset : public Dataset<MapDataset<Source, Transform>> {
 public:
  MapDataset(Source source, Transform transform) : source_(std::move(source)), transform_(std::move(transform)) {}
  /// transform(source.get(index)).
  Example<> get(size_t index) override { return transform_(source_.get(index)); }
  /// The source's size.
  std::optional<size_t> size() const override { return source_.size(); }

 private:
  Source source_;
  Transform transform_;
};

/// libtorch's MNIST: ctorch's reader (ctorch::data::datasets::MNIST) under torch::data's dataset base.
class MNIST : public Dataset<MNIST> {
 public:
  using Mode = ::ctorch::data::datasets::MNIST::Mode;
  /// Reads the split from `root` (its four IDX files).
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain) : reader_(root, mode) {}
  /// (image, label).
  Example<> get(size_t index) override { return reader_.get(index); }
  /// The number of samples.
  std::optional<size_t> size() const override { return reader_.size(); }
  /// True for the training split.
  bool is_train() const noexcept { return reader_.is_train(); }
  /// All images [N, 1, 28, 28].
  const ::ctorch::Tensor& images() const { return reader_.images(); }
  /// All labels [N].
  const ::ctorch::Tensor& targets() const { return reader_.targets(); }

 private:
  ::ctorch::data::datasets::MNIST reader_;
};
using ::ctorch::data::TensorDataset;
using ::ctorch::data::datasets::SyntheticMNIST;
}  // namespace datasets

namespace samplers {
/// Shuffled order (make_data_loader's default).
struct RandomSampler {};
/// Index order.
struct SequentialSampler {};
}  // namespace samplers

/// A DataLoader over `dataset`, shuffled when Sampler is samplers::RandomSampler.
template <class Sampler = samplers::RandomSampler, class D>
  requires(std::is_same_v<Sampler, samplers::RandomSampler> || std::is_same_v<Sampler, samplers::SequentialSampler>)
std::unique_ptr<DataLoader> make_data_loader(D&& dataset, DataLoaderOptions options = DataLoaderOptions()) {
  options.shuffle(std::is_same_v<Sampler, samplers::RandomSampler>);
  return std::make_unique<DataLoader>(std::forward<D>(dataset), std::move(options));
}

}  // namespace torch::data
