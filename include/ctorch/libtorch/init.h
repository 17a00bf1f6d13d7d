// libtorch's torch::nn::init (torch/nn/init.h) over ctorch::nn::init (torch.nn.init): the
// nonlinearity and fan mode are option enums (torch::kReLU, torch::kFanOut) instead of strings.
#pragma once

#include <cstdint>
#include <tuple>

#include "ctorch/libtorch/enum.h"
#include "ctorch/nn_init.h"

namespace torch::nn::init {

/// The nonlinearities calculate_gain knows.
using NonlinearityType =
    c10::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D, enumtype::kConvTranspose1D,
                 enumtype::kConvTranspose2D, enumtype::kConvTranspose3D, enumtype::kSigmoid, enumtype::kTanh,
                 enumtype::kReLU, enumtype::kLeakyReLU>;
/// Which fan the kaiming initializers scale by.
using FanModeType = c10::variant<enumtype::kFanIn, enumtype::kFanOut>;

/// The recommended gain for `nonlinearity` (`param`: LeakyReLU's negative slope).
inline double calculate_gain(NonlinearityType nonlinearity, double param = 0.01) {
  return ::ctorch::nn::init::calculate_gain(enumtype::enum_name_native(nonlinearity), param);
}
/// Fills `tensor` with `value`.
inline ::ctorch::Tensor constant_(::ctorch::Tensor tensor, ::ctorch::Scalar value) {
  return ::ctorch::nn::init::constant_(std::move(tensor), value.toDouble());
}
/// The Dirac delta (3-, 4- or 5-d).
inline ::ctorch::Tensor dirac_(::ctorch::Tensor tensor) { return ::ctorch::nn::init::dirac_(std::move(tensor)); }
/// The identity (2-d).
inline ::ctorch::Tensor eye_(::ctorch::Tensor matrix) { return ::ctorch::nn::init::eye_(std::move(matrix)); }
/// N(mean, std^2).
inline ::ctorch::Tensor normal_(::ctorch::Tensor tensor, double mean = 0, double std = 1) {
  return ::ctorch::nn::init::normal_(std::move(tensor), mean, std);
}
/// Ones.
inline ::ctorch::Tensor ones_(::ctorch::Tensor tensor) { return ::ctorch::nn::init::ones_(std::move(tensor)); }
/// A (semi-)orthogonal matrix times `gain`.
inline ::ctorch::Tensor orthogonal_(::ctorch::Tensor tensor, double gain = 1.0) {
  return ::ctorch::nn::init::orthogonal_(std::move(tensor), gain);
}
/// N(0, std^2) with a `sparsity` fraction of each column zeroed.
inline ::ctorch::Tensor sparse_(::ctorch::Tensor tensor, double sparsity, double std = 0.01) {
  return ::ctorch::nn::init::sparse_(std::move(tensor), sparsity, std);
}
/// U(low, high).
inline ::ctorch::Tensor uniform_(::ctorch::Tensor tensor, double low = 0, double high = 1) {
  return ::ctorch::nn::init::uniform_(std::move(tensor), low, high);
}
/// He normal initialization.
inline ::ctorch::Tensor kaiming_normal_(::ctorch::Tensor tensor, double a = 0, FanModeType mode = torch::kFanIn,
                                        NonlinearityType nonlinearity = torch::kLeakyReLU) {
  return ::ctorch::nn::init::kaiming_normal_(std::move(tensor), a, enumtype::enum_name_native(mode),
                                             enumtype::enum_name_native(nonlinearity));
}
/// He uniform initialization.
inline ::ctorch::Tensor kaiming_uniform_(::ctorch::Tensor tensor, double a = 0, FanModeType mode = torch::kFanIn,
                                         NonlinearityType nonlinearity = torch::kLeakyReLU) {
  return ::ctorch::nn::init::kaiming_uniform_(std::move(tensor), a, enumtype::enum_name_native(mode),
                                              enumtype::enum_name_native(nonlinearity));
}
/// Glorot normal initialization.
inline ::ctorch::Tensor xavier_normal_(::ctorch::Tensor tensor, double gain = 1.0) {
  return ::ctorch::nn::init::xavier_normal_(std::move(tensor), gain);
}
/// Glorot uniform initialization.
inline ::ctorch::Tensor xavier_uniform_(::ctorch::Tensor tensor, double gain = 1.0) {
  return ::ctorch::nn::init::xavier_uniform_(std::move(tensor), gain);
}
/// Zeros.
inline ::ctorch::Tensor zeros_(::ctorch::Tensor tensor) { return ::ctorch::nn::init::zeros_(std::move(tensor)); }
/// (fan_in, fan_out).
inline std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const ::ctorch::Tensor& tensor) {
  const auto [fan_in, fan_out] = ::ctorch::nn::init::calculate_fan_in_and_fan_out(tensor);
  return {fan_in, fan_out};
}

}  // namespace torch::nn::init
