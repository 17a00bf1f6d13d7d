// libtorch's activation options (torch/nn/options/activation.h) and their functional forms
// (`F::elu(x, F::ELUFuncOptions().alpha(2))`), forwarding to ctorch::nn::functional.
#pragma once

#include <optional>
#include <string>

#include "ctorch/libtorch/arg.h"
#include "ctorch/libtorch/core.h"
#include "ctorch/nn_functional.h"
#include "ctorch/nn_functional_activation.h"

namespace torch {
/// libtorch's name of a ScalarType in options (torch::Dtype).
using Dtype = ::ctorch::ScalarType;
}  // namespace torch

namespace torch::nn {

/// torch::nn::ELUOptions().alpha(a).inplace(b).
struct ELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
/// torch::nn::SELUOptions(inplace).
struct SELUOptions {
  SELUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(bool, inplace);
};
/// torch::nn::GLUOptions(dim).
struct GLUOptions {
  GLUOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(int64_t, dim);
};
/// torch::nn::GELUOptions().approximate("none" or "tanh").
struct GELUOptions {
  TORCH_ARG(std::string, approximate) = "none";
};
/// torch::nn::HardshrinkOptions(lambda).
struct HardshrinkOptions {
  HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(double, lambda);
};
/// torch::nn::HardtanhOptions().min_val(a).max_val(b).inplace(c).
struct HardtanhOptions {
  TORCH_ARG(double, min_val) = -1.0;
  TORCH_ARG(double, max_val) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
/// torch::nn::LeakyReLUOptions().negative_slope(s).inplace(b).
struct LeakyReLUOptions {
  TORCH_ARG(double, negative_slope) = 1e-2;
  TORCH_ARG(bool, inplace) = false;
};
/// torch::nn::SoftmaxOptions(dim).
struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(int64_t, dim);
};
/// torch::nn::SoftminOptions(dim).
struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(int64_t, dim);
};
/// torch::nn::LogSoftmaxOptions(dim).
struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(int64_t, dim);
};
/// torch::nn::PReLUOptions().num_parameters(n).init(w).
struct PReLUOptions {
  TORCH_ARG(int64_t, num_parameters) = 1;
  TORCH_ARG(double, init) = 0.25;
};
/// torch::nn::ReLUOptions(inplace).
struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(bool, inplace);
};
/// torch::nn::ReLU6Options(inplace).
struct ReLU6Options {
  ReLU6Options(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(bool, inplace);
};
/// torch::nn::RReLUOptions().lower(l).upper(u).inplace(b).
struct RReLUOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, inplace) = false;
};
/// torch::nn::CELUOptions().alpha(a).inplace(b).
struct CELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
/// torch::nn::SoftplusOptions().beta(b).threshold(t).
struct SoftplusOptions {
  TORCH_ARG(double, beta) = 1.0;
  TORCH_ARG(double, threshold) = 20.0;
};
/// torch::nn::SoftshrinkOptions(lambda).
struct SoftshrinkOptions {
  SoftshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(double, lambda);
};
/// torch::nn::ThresholdOptions(threshold, value).inplace(b).
struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  TORCH_ARG(double, threshold);
  TORCH_ARG(double, value);
  TORCH_ARG(bool, inplace) = false;
};

namespace functional {

using ELUFuncOptions = ELUOptions;
using SELUFuncOptions = SELUOptions;
using GLUFuncOptions = GLUOptions;
using GELUFuncOptions = GELUOptions;
using HardshrinkFuncOptions = HardshrinkOptions;
using HardtanhFuncOptions = HardtanhOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using ReLUFuncOptions = ReLUOptions;
using ReLU6FuncOptions = ReLU6Options;
using CELUFuncOptions = CELUOptions;
using SoftplusFuncOptions = SoftplusOptions;
using SoftshrinkFuncOptions = SoftshrinkOptions;
using ThresholdFuncOptions = ThresholdOptions;

/// F::softmax(x, F::SoftmaxFuncOptions(dim).dtype(t)).
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<torch::Dtype>, dtype) = std::nullopt;
};
/// F::softmin's options.
struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<torch::Dtype>, dtype) = std::nullopt;
};
/// F::log_softmax's options.
struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit, as libtorch's
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<torch::Dtype>, dtype) = std::nullopt;
};
/// F::rrelu's options (training is off unless set).
struct RReLUFuncOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};
/// F::gumbel_softmax's options.
struct GumbelSoftmaxFuncOptions {
  TORCH_ARG(double, tau) = 1.0;
  TORCH_ARG(bool, hard) = false;
  TORCH_ARG(int, dim) = -1;
};

namespace native = ::ctorch::nn::functional;

inline Tensor elu(Tensor input, const ELUFuncOptions& options = {}) {
  return native::elu(input, options.alpha(), options.inplace());
}
inline Tensor selu(Tensor input, const SELUFuncOptions& options = {}) { return native::selu(input, options.inplace()); }
inline Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {}) {
  return native::hardshrink(input, options.lambda());
}
inline Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {}) {
  return native::hardtanh(input, options.min_val(), options.max_val(), options.inplace());
}
inline Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {}) {
  return native::leaky_relu(input, options.negative_slope(), options.inplace());
}
inline Tensor logsigmoid(const Tensor& input) { return native::logsigmoid(input); }
inline Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {}) {
  return native::gumbel_softmax(logits, options.tau(), options.hard(), options.dim());
}
inline Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return native::softmax(input, options.dim(), options.dtype());
}
inline Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  return native::softmin(input, options.dim(), options.dtype());
}
inline Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return native::log_softmax(input, options.dim(), options.dtype());
}
inline Tensor glu(const Tensor& input, const GLUFuncOptions& options = {}) { return native::glu(input, options.dim()); }
inline Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {}) {
  return native::gelu(input, options.approximate());
}
inline Tensor silu(const Tensor& input) { return native::silu(input); }
inline Tensor mish(const Tensor& input) { return native::mish(input); }
inline Tensor prelu(const Tensor& input, const Tensor& weight) { return native::prelu(input, weight); }
inline Tensor relu(Tensor input, const ReLUFuncOptions& options = {}) { return native::relu(input, options.inplace()); }
inline Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {}) {
  return native::relu6(input, options.inplace());
}
inline Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {}) {
  return native::rrelu(input, options.lower(), options.upper(), options.training(), options.inplace());
}
inline Tensor celu(Tensor input, const CELUFuncOptions& options = {}) {
  return native::celu(input, options.alpha(), options.inplace());
}
inline Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {}) {
  return native::softplus(input, options.beta(), options.threshold());
}
inline Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {}) {
  return native::softshrink(input, options.lambda());
}
inline Tensor softsign(const Tensor& input) { return native::softsign(input); }
inline Tensor tanhshrink(const Tensor& input) { return native::tanhshrink(input); }
inline Tensor threshold(Tensor input, const ThresholdFuncOptions& options) {
  return native::threshold(input, options.threshold(), options.value(), options.inplace());
}

}  // namespace functional
}  // namespace torch::nn
