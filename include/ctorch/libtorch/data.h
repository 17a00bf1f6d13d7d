// libtorch's torch::data spellings over ctorch::data (docs/libtorch.md "torch::data"): Example<>,
// datasets::Dataset<Self> (a CRTP base whose map(transforms::Stack<>()) returns the dataset:
// ctorch's loader always stacks), DataLoaderOptions, samplers::{RandomSampler, SequentialSampler}
// as tags and make_data_loader<Sampler>(dataset, options). Not here: the MNIST reader, Normalize
// and Lambda transforms, stateful datasets, custom samplers and batch-vector (unstacked) loaders.
// libtorch's make_data_loader defaults to RandomSampler (shuffled), as here.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

#include "ctorch/data.h"

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
}  // namespace transforms

namespace datasets {
/// CRTP base of map-style datasets: override get(size_t) and size() const.
template <class Self, class SingleExample = Example<>>
class Dataset : public ::ctorch::data::Dataset {
 public:
  /// dataset.map(transforms::Stack<>()): the dataset itself (batches are stacked anyway).
  template <class E>
  Self map(transforms::Stack<E>) && {
    return std::move(static_cast<Self&>(*this));
  }
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
