// libtorch's torch::data::Example<Data, Target> (a value type: any data and target types, unlike
// ctorch::data::Example's two tensors), example::NoTarget and TensorExample, and WorkerException,
// the error a loader throws for an exception raised on one of its worker threads.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include "ctorch/data.h"
#include "ctorch/tensor.h"

namespace torch::data {

namespace example {
/// The target type of examples without a target.
using NoTarget = void;
}  // namespace example

/// One example (or a collated batch): `data` and `target`.
template <class Data = ::ctorch::Tensor, class Target = ::ctorch::Tensor>
struct Example {
  using DataType = Data;      ///< The data's type.
  using TargetType = Target;  ///< The target's type.
  Example() = default;
  /// An example of `data` and `target`.
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}
  /// ctorch's native (data, target) pair.
  Example(::ctorch::data::Example e)  // NOLINT: implicit, native to libtorch spelling
    requires(std::is_same_v<Data, ::ctorch::Tensor> && std::is_same_v<Target, ::ctorch::Tensor>)
      : data(std::move(e.data)), target(std::move(e.target)) {}
  Data data;      ///< The input.
  Target target;  ///< The label.
};

/// An example with data only; converts to its data.
template <class Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;                   ///< The data's type.
  using TargetType = example::NoTarget;  ///< No target.
  Example() = default;
  /// An example of `data`.
  Example(Data data) : data(std::move(data)) {}  // NOLINT: implicit as libtorch's
  /// The data.
  operator Data&() { return data; }  // NOLINT
  /// The data.
  operator const Data&() const { return data; }  // NOLINT
  Data data;  ///< The input.
};

/// A tensor without a target.
using TensorExample = Example<::ctorch::Tensor, example::NoTarget>;

/// An exception raised on a loader's worker thread, rethrown on the iterating thread.
struct WorkerException : public std::exception {
  /// Wraps the worker's exception; what() adds its message.
  explicit WorkerException(std::exception_ptr original)
      : original_exception(std::move(original)), message("Caught exception in DataLoader worker thread.") {
    try {
      std::rethrow_exception(original_exception);
    } catch (const std::exception& e) {
      message += " Original message: ";
      message += e.what();
    } catch (...) {
    }
  }
  /// "Caught exception in DataLoader worker thread. Original message: <what>".
  const char* what() const noexcept override { return message.c_str(); }
  std::exception_ptr original_exception;  ///< The worker's exception, for std::rethrow_exception.
  std::string message;                    ///< The text what() returns.
};

}  // namespace torch::data
