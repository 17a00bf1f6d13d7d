// ctorch::cuda::jiterator (torch.cuda.jiterator): an elementwise kernel written as a C++ template
// function in a string, compiled at its first call for the inputs' dtype and device, then run
// with broadcasting and type promotion like any elementwise op. Real CUDA devices compile it with
// NVRTC; cpu and emulated devices compile the same string with the system C++ compiler into a
// shared object cached on disk (docs/jiterator.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ctorch/scalar.h"
#include "ctorch/tensor.h"

namespace ctorch::cuda::jiterator {

/// Named scalar arguments of a jitted function, in declaration order ({{"alpha", 1.0}}).
using Kwargs = std::vector<std::pair<std::string, Scalar>>;

class JitFunction;

namespace detail {
struct JitFunctionState;
/// Wraps a parsed function (used by the create_* functions).
JitFunction make_jit_function(std::shared_ptr<const JitFunctionState> state);
}  // namespace detail

/// A jitted elementwise function (create_jit_fn, create_multi_output_jit_fn); cheap to copy.
class JitFunction {
 public:
  /// The single output of f(inputs..., kwargs...): 1 to 8 tensors on one device, broadcast and
  /// promoted to their common dtype; `kwargs` override the declared defaults by name.
  Tensor operator()(const std::vector<Tensor>& inputs, const Kwargs& kwargs = {}) const;
  /// Every output of f (num_outputs tensors of the common dtype and broadcast shape).
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const Kwargs& kwargs = {}) const;
  /// The entry function's name parsed from the code string.
  const std::string& kernel_name() const;
  /// Number of outputs (1 for create_jit_fn).
  int64_t num_outputs() const;

 private:
  friend JitFunction detail::make_jit_function(std::shared_ptr<const detail::JitFunctionState> state);
  explicit JitFunction(std::shared_ptr<const detail::JitFunctionState> state) : state_(std::move(state)) {}
  std::shared_ptr<const detail::JitFunctionState> state_;
};

/// A function whose code string returns its one output by value:
/// "template <typename T> T my_kernel(T x, T y, T alpha) { return -x + alpha * y; }".
JitFunction create_jit_fn(const std::string& code_string, const Kwargs& kwargs = {});
/// A function whose code string writes `num_outputs` outputs through reference parameters after
/// the inputs and kwargs: "template <typename T> void f(T x, T& out0, T& out1) {...}".
JitFunction create_multi_output_jit_fn(const std::string& code_string, int64_t num_outputs,
                                       const Kwargs& kwargs = {});

}  // namespace ctorch::cuda::jiterator
