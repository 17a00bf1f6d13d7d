// libtorch's torch::data::transforms: BatchTransform (a whole batch), Transform (each example of a
// vector batch), Lambda / BatchLambda (std::function), Collation / Collate (a vector to one value),
// Stack (examples of tensors to one example of stacked tensors), TensorTransform / TensorLambda /
// Normalize (the data tensor of Example<Tensor, Target>, any target type).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "ctorch/array_ref.h"
#include "ctorch/factories.h"
#include "ctorch/libtorch/data/example.h"
#include "ctorch/ops.h"

namespace torch::data::transforms {

/// Maps one batch to another.
template <class InputBatch, class OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;    ///< The batch it takes.
  using OutputBatchType = OutputBatch;  ///< The batch it returns.
  virtual ~BatchTransform() = default;
  /// The transformed batch.
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

/// Maps each example of a vector batch.
template <class Input, class Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;    ///< The example it takes.
  using OutputType = Output;  ///< The example it returns.
  /// The transformed example.
  virtual Output apply(Input input) = 0;
  /// apply() on each example, in order.
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> out;
    out.reserve(input_batch.size());
    for (auto& input : input_batch) out.push_back(apply(std::move(input)));
    return out;
  }
};

/// A batch transform given as a function.
template <class Input, class Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;  ///< The function's type.
  /// Applies `function` to each batch.
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  /// function(input_batch).
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

/// An example transform given as a function.
template <class Input, class Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;  ///< The function's type.
  /// Applies `function` to each example.
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  /// function(input).
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// Reduces a batch (by default a vector of T) to one T.
template <class T, class BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;

/// A Collation given as a function.
template <class T, class BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

/// Stacks the tensors of a vector of examples along a new dim 0.
template <class T = Example<>>
struct Stack;

/// Stacks data and targets.
template <>
struct Stack<Example<>> : public Collation<Example<>> {
  /// (stack(data...), stack(target...)).
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<::ctorch::Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& e : examples) {
      data.push_back(std::move(e.data));
      targets.push_back(std::move(e.target));
    }
    return {::ctorch::stack(data), ::ctorch::stack(targets)};
  }
};

/// Stacks data.
template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  /// stack(data...).
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<::ctorch::Tensor> data;
    data.reserve(examples.size());
    for (auto& e : examples) data.push_back(std::move(e.data));
    return ::ctorch::stack(data);
  }
};

/// Maps the data tensor of each Example<Tensor, Target>; the target passes through.
template <class Target = ::ctorch::Tensor>
class TensorTransform : public Transform<Example<::ctorch::Tensor, Target>, Example<::ctorch::Tensor, Target>> {
 public:
  using E = Example<::ctorch::Tensor, Target>;  ///< The example type.
  /// The transformed data.
  virtual ::ctorch::Tensor operator()(::ctorch::Tensor input) = 0;
  /// The example with its data transformed.
  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

/// A TensorTransform given as a function.
template <class Target = ::ctorch::Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<::ctorch::Tensor(::ctorch::Tensor)>;  ///< The function's type.
  /// Applies `function` to each data tensor.
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  /// function(input).
  ::ctorch::Tensor operator()(::ctorch::Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// (data - mean) / stddev per channel (dim 0 of [C, H, W]); one value applies to every channel.
template <class Target = ::ctorch::Tensor>
struct Normalize : public TensorTransform<Target> {
  /// Per-channel means and standard deviations (or one of each).
  Normalize(::ctorch::ArrayRef<double> mean, ::ctorch::ArrayRef<double> stddev)
      : mean(channels(mean)), stddev(channels(stddev)) {}
  /// The normalized data (mean and stddev follow the data's device).
  ::ctorch::Tensor operator()(::ctorch::Tensor input) override {
    return input.sub(mean.to(input.device())).div(stddev.to(input.device()));
  }
  ::ctorch::Tensor mean;    ///< [C, 1, 1] float.
  ::ctorch::Tensor stddev;  ///< [C, 1, 1] float.

 private:
  static ::ctorch::Tensor channels(::ctorch::ArrayRef<double> v) {
    return ::ctorch::tensor(v.vec(), ::ctorch::TensorOptions().dtype(::ctorch::kFloat)).unsqueeze(1).unsqueeze(2);
  }
};

}  // namespace torch::data::transforms
