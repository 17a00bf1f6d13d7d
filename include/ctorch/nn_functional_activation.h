// torch.nn.functional's activations beyond relu/gelu/leaky_relu/softmax (nn_functional.h): each is
// composed of differentiable ops, spelled and defaulted as in Python. `inplace` writes the result
// into `input` and returns it (the input then must not be a leaf that requires grad).
#pragma once

#include <optional>

#include "ctorch/dtype.h"
#include "ctorch/ops.h"
#include "ctorch/tensor.h"

namespace ctorch::nn::functional {

/// max(x, 0), written into `input` when inplace (F.relu(input, inplace)).
Tensor relu(const Tensor& input, bool inplace);
/// min(max(x, 0), 6) (F.relu6).
Tensor relu6(const Tensor& input, bool inplace = false);
/// x where x > 0, else alpha * (exp(x) - 1) (F.elu).
Tensor elu(const Tensor& input, double alpha = 1.0, bool inplace = false);
/// scale * elu(x, alpha) with the self-normalizing constants (F.selu).
Tensor selu(const Tensor& input, bool inplace = false);
/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha 0 is an error (F.celu).
Tensor celu(const Tensor& input, double alpha = 1.0, bool inplace = false);
/// leaky_relu written into `input` when inplace (F.leaky_relu(input, negative_slope, inplace)).
Tensor leaky_relu(const Tensor& input, double negative_slope, bool inplace);
/// x clamped to [min_val, max_val] (F.hardtanh).
Tensor hardtanh(const Tensor& input, double min_val = -1.0, double max_val = 1.0, bool inplace = false);
/// x where |x| > lambd, else 0 (F.hardshrink).
Tensor hardshrink(const Tensor& input, double lambd = 0.5);
/// x - lambd above lambd, x + lambd below -lambd, else 0; lambd >= 0 (F.softshrink).
Tensor softshrink(const Tensor& input, double lambd = 0.5);
/// x - tanh(x) (F.tanhshrink).
Tensor tanhshrink(const Tensor& input);
/// x / (1 + |x|) (F.softsign).
Tensor softsign(const Tensor& input);
/// log(1 + exp(beta x)) / beta, and x where beta x > threshold (F.softplus).
Tensor softplus(const Tensor& input, double beta = 1.0, double threshold = 20.0);
/// log(sigmoid(x)), computed without overflow (F.logsigmoid).
Tensor logsigmoid(const Tensor& input);
// F.sigmoid and F.tanh are torch.sigmoid and torch.tanh.
using ::ctorch::sigmoid;
using ::ctorch::tanh;
/// x * sigmoid(x) (F.silu).
Tensor silu(const Tensor& input, bool inplace = false);
/// x * tanh(softplus(x)) (F.mish).
Tensor mish(const Tensor& input, bool inplace = false);
/// relu6(x + 3) / 6 (F.hardsigmoid).
Tensor hardsigmoid(const Tensor& input, bool inplace = false);
/// x * relu6(x + 3) / 6 (F.hardswish).
Tensor hardswish(const Tensor& input, bool inplace = false);
/// a * sigmoid(b), with a and b the halves of `input` along `dim` (F.glu).
Tensor glu(const Tensor& input, int64_t dim = -1);
/// x where x >= 0, else weight * x; weight has 1 or input.size(1) elements (F.prelu).
Tensor prelu(const Tensor& input, const Tensor& weight);
/// Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training, and is
/// (lower + upper) / 2 otherwise (F.rrelu; the draw uses the input device's generator).
Tensor rrelu(const Tensor& input, double lower = 1.0 / 8.0, double upper = 1.0 / 3.0, bool training = false,
             bool inplace = false);
/// x where x > threshold, else value (F.threshold).
Tensor threshold(const Tensor& input, double threshold, double value, bool inplace = false);
/// softmax along dim, computed in `dtype` when given (F.softmax(input, dim, dtype=...)).
Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype);
/// softmax(-x) along dim (F.softmin).
Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
/// log_softmax along dim, computed in `dtype` when given.
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype);
/// softmax((logits + g) / tau) with Gumbel noise g; `hard` returns the one-hot argmax with the soft
/// gradient (straight-through) (F.gumbel_softmax; the noise comes from the input device's generator).
Tensor gumbel_softmax(const Tensor& logits, double tau = 1.0, bool hard = false, int64_t dim = -1);

}  // namespace ctorch::nn::functional
