// torch.nn.init: in-place initializers of parameters (PyTorch 1.13's formulas and random streams).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "ctorch/tensor.h"

namespace ctorch::nn::init {

/// The recommended gain for `nonlinearity` ("linear", "conv2d", "sigmoid", "tanh", "relu",
/// "leaky_relu" with negative slope `param` (default 0.01), "selu"); ValueError otherwise.
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = std::nullopt);
/// (fan_in, fan_out) of a weight of at least 2 dims: size(1) and size(0) times the receptive field.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

/// Fills `tensor` from U(a, b).
Tensor uniform_(Tensor tensor, double a = 0, double b = 1);
/// Fills `tensor` from N(mean, std^2).
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
/// Fills `tensor` from N(mean, std^2) truncated to [a, b].
Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2, double b = 2);
/// Fills `tensor` with `value`.
Tensor constant_(Tensor tensor, double value);
/// Fills `tensor` with ones.
Tensor ones_(Tensor tensor);
/// Fills `tensor` with zeros.
Tensor zeros_(Tensor tensor);
/// Fills a 2-d `tensor` with the identity.
Tensor eye_(Tensor tensor);
/// Fills a 3-, 4- or 5-d `tensor` with the Dirac delta (convolutions that keep their input), per group.
Tensor dirac_(Tensor tensor, int64_t groups = 1);
/// U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot).
Tensor xavier_uniform_(Tensor tensor, double gain = 1);
/// N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot).
Tensor xavier_normal_(Tensor tensor, double gain = 1);
/// U(-bound, bound) with bound = gain(nonlinearity, a) * sqrt(3 / fan) and fan of `mode`
/// ("fan_in" or "fan_out") (He).
Tensor kaiming_uniform_(Tensor tensor, double a = 0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu");
/// N(0, std^2) with std = gain(nonlinearity, a) / sqrt(fan) (He).
Tensor kaiming_normal_(Tensor tensor, double a = 0, const std::string& mode = "fan_in",
                       const std::string& nonlinearity = "leaky_relu");
/// A (semi-)orthogonal matrix (of the tensor flattened to [size(0), -1]) times `gain`, from the QR
/// decomposition of a normal sample.
Tensor orthogonal_(Tensor tensor, double gain = 1);
/// A 2-d `tensor` from N(0, std^2) with a `sparsity` fraction of each column set to zero.
Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);

}  // namespace ctorch::nn::init
