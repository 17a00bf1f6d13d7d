// torch.nn.functional's activations, composed of differentiable ops. Branches that where() does not
// select are kept finite (exp of a clamped argument), so their zero gradient never meets an inf.
#include <tuple>

#include "ctorch/factories.h"
#include "ctorch/nn_functional.h"
#include "ctorch/nn_functional_activation.h"
#include "ctorch/ops.h"
#include "nn/activation_math.h"

namespace ctorch::nn::functional {

namespace {

/// `out`, or `input` overwritten with it when inplace (F.*(..., inplace=True) returns the input).
Tensor write_back(const Tensor& input, const Tensor& out, bool inplace) {
  return inplace ? Tensor(input).copy_(out) : out;
}

/// scale * (x where x > 0, else alpha * (exp(x * input_scale) - 1)) (ATen's elu).
Tensor elu_core(const Tensor& input, double alpha, double scale, double input_scale) {
  return detail::in_opmath(input, [&](const Tensor& x) {
    const Tensor out = where(x > 0, x, (x.clamp_max(0) * input_scale).exp().sub(1).mul(alpha));
    return scale == 1 ? out : out * scale;
  });
}

}  // namespace

Tensor relu(const Tensor& input, bool inplace) { return inplace ? Tensor(input).relu_() : input.relu(); }

Tensor relu6(const Tensor& input, bool inplace) { return hardtanh(input, 0.0, 6.0, inplace); }

Tensor elu(const Tensor& input, double alpha, bool inplace) {
  return write_back(input, elu_core(input, alpha, 1.0, 1.0), inplace);
}

Tensor selu(const Tensor& input, bool inplace) {
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return write_back(input, elu_core(input, kAlpha, kScale, 1.0), inplace);
}

Tensor celu(const Tensor& input, double alpha, bool inplace) {
  CTORCH_CHECK(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return write_back(input, elu_core(input, alpha, 1.0, 1.0 / alpha), inplace);
}

Tensor leaky_relu(const Tensor& input, double negative_slope, bool inplace) {
  return write_back(input, leaky_relu(input, negative_slope), inplace);
}

Tensor hardtanh(const Tensor& input, double min_val, double max_val, bool inplace) {
  CTORCH_CHECK(input.dtype() != kBool, "Bool inputs not supported for hardtanh");
  // The bounds are constants: no gradient reaches x at or beyond them (ATen's hardtanh_backward).
  const Tensor out = where(input <= min_val, Scalar(min_val), where(input >= max_val, Scalar(max_val), input));
  return write_back(input, out, inplace);
}

Tensor hardshrink(const Tensor& input, double lambd) {
  return where((input >= -lambd).logical_and(input <= lambd), Scalar(0), input);
}

Tensor softshrink(const Tensor& input, double lambd) {
  CTORCH_CHECK(lambd >= 0, "lambda must be greater or equal to 0, but found to be ", lambd, ".");
  return where(input > lambd, input - lambd, where(input < -lambd, input + lambd, Scalar(0)));
}

Tensor tanhshrink(const Tensor& input) {
  return detail::in_opmath(input, [](const Tensor& x) { return x - x.tanh(); });
}

Tensor softsign(const Tensor& input) {
  return detail::in_opmath(input, [](const Tensor& x) { return x / (x.abs() + 1); });
}

Tensor softplus(const Tensor& input, double beta, double threshold) {
  return detail::in_opmath(input, [&](const Tensor& x) {
    const Tensor z = x * beta;
    return where(z > threshold, x, detail::log1p_exp(z) / beta);
  });
}

Tensor logsigmoid(const Tensor& input) {
  return detail::in_opmath(input, [](const Tensor& x) { return detail::log1p_exp(x.neg()).neg(); });
}

Tensor silu(const Tensor& input, bool inplace) {
  return write_back(input, detail::in_opmath(input, [](const Tensor& x) { return x * x.sigmoid(); }), inplace);
}

Tensor mish(const Tensor& input, bool inplace) {
  const Tensor out = detail::in_opmath(input, [](const Tensor& x) { return x * detail::log1p_exp(x).tanh(); });
  return write_back(input, out, inplace);
}

Tensor hardsigmoid(const Tensor& input, bool inplace) {
  const Tensor out = detail::in_opmath(
      input, [](const Tensor& x) { return where(x <= -3, Scalar(0), where(x >= 3, Scalar(1), x / 6 + 0.5)); });
  return write_back(input, out, inplace);
}

Tensor hardswish(const Tensor& input, bool inplace) {
  const Tensor out = detail::in_opmath(
      input, [](const Tensor& x) { return where(x < -3, Scalar(0), where(x > 3, x, x * (x + 3) / 6)); });
  return write_back(input, out, inplace);
}

Tensor glu(const Tensor& input, int64_t dim) {
  CTORCH_CHECK(input.dim() != 0, "glu does not support scalars because halving size must be even");
  const int64_t d = dim < 0 ? dim + input.dim() : dim;
  CTORCH_CHECK_INDEX(d >= 0 && d < input.dim(), "Dimension out of range (expected to be in range of [",
                     -input.dim(), ", ", input.dim() - 1, "], but got ", dim, ")");
  const int64_t n = input.size(d);
  CTORCH_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  return input.narrow(d, 0, n / 2) * input.narrow(d, n / 2, n / 2).sigmoid();
}

Tensor prelu(const Tensor& input, const Tensor& weight) {
  const int64_t weight_num = weight.numel();
  Tensor w;
  if (weight_num == 1) {
    w = weight.reshape({});
  } else {
    CTORCH_CHECK(input.dim() > 0, "Not allow zero-dim input tensor.");
    const int64_t channel_size = input.dim() > 1 ? input.size(1) : 1;
    CTORCH_CHECK(channel_size == weight_num,
                 "Mismatch of parameter numbers and input channel size. Found parameter numbers = ", weight_num,
                 " and channel size = ", channel_size, ".");
    DimVector shape(static_cast<size_t>(input.dim()), 1);
    shape[1] = weight_num;
    w = weight.reshape(shape);
  }
  return where(input > 0, input, input * w);
}

Tensor rrelu(const Tensor& input, double lower, double upper, bool training, bool inplace) {
  CTORCH_CHECK(lower <= upper, "Lower bound should be less than or equal to the upper bound");
  if (!training) return write_back(input, leaky_relu(input, (lower + upper) / 2), inplace);
  // One slope per element from U(lower, upper), drawn (and applied) in float for half types so
  // that the rounded product stays between input * upper and input * lower.
  const ScalarType dtype = input.dtype();
  const ScalarType math = dtype == kHalf || dtype == kBFloat16 ? kFloat : dtype;
  const Tensor slope = empty(input.sizes(), input.options().dtype(math)).uniform_(lower, upper);
  const Tensor out = where(input > 0, input, (input.to(math) * slope).to(dtype));
  return write_back(input, out, inplace);
}

Tensor threshold(const Tensor& input, double threshold, double value, bool inplace) {
  return write_back(input, where(input > threshold, input, Scalar(value)), inplace);
}

Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return input.softmax(dim, dtype);
}

Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return input.neg().softmax(dim, dtype);
}

Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return input.log_softmax(dim, dtype);
}

Tensor gumbel_softmax(const Tensor& logits, double tau, bool hard, int64_t dim) {
  // Exp(1) noise as -log(1 - U); a U of exactly 0 would give log(0), so the noise is kept above
  // the smallest normal float.
  const Tensor exponential = empty_like(logits).uniform_().neg().add(1).log().neg().clamp_min(1.17549435e-38);
  const Tensor gumbels = (logits - exponential.log()) / tau;  // ~ Gumbel(logits, tau)
  const Tensor y_soft = gumbels.softmax(dim);
  if (!hard) return y_soft;
  const Tensor index = std::get<1>(y_soft.max(dim, /*keepdim=*/true));
  const Tensor y_hard = zeros_like(logits).scatter(dim, index, ones(index.sizes(), logits.options()));
  return y_hard - y_soft.detach() + y_soft;  // straight-through: the value of y_hard, the gradient of y_soft
}

}  // namespace ctorch::nn::functional
