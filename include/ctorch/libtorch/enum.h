// libtorch's option enums (torch/enum.h): `torch::kSum`, `torch::kReflect`, ... are constants of
// empty types in torch::enumtype, combined into std::variant option types (c10::variant), and
// turned into the native API's strings ("sum", "reflect", "nearest-exact") by enum_name_native.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>

#include "ctorch/libtorch/core.h"

namespace c10 {
using std::get;
using std::get_if;
using std::holds_alternative;
using std::visit;
/// c10::variant is std::variant.
template <class... T>
using variant = std::variant<T...>;
}  // namespace c10

/// Declares torch::enumtype::k<name> and the constant torch::k<name>; `native` is the native API's
/// (Python's) spelling of the value.
#define CTORCH_TORCH_ENUM(name, native)                                  \
  namespace torch::enumtype {                                           \
  struct k##name {                                                      \
    k##name() {}                                                        \
    static constexpr const char* pretty = "k" #name;                    \
    static constexpr const char* native_name = native;                  \
  };                                                                    \
  }                                                                     \
  namespace torch {                                                     \
  inline const enumtype::k##name k##name; /* NOLINT(readability-identifier-naming) */ \
  }

CTORCH_TORCH_ENUM(Linear, "linear")
CTORCH_TORCH_ENUM(Conv1D, "conv1d")
CTORCH_TORCH_ENUM(Conv2D, "conv2d")
CTORCH_TORCH_ENUM(Conv3D, "conv3d")
CTORCH_TORCH_ENUM(ConvTranspose1D, "conv_transpose1d")
CTORCH_TORCH_ENUM(ConvTranspose2D, "conv_transpose2d")
CTORCH_TORCH_ENUM(ConvTranspose3D, "conv_transpose3d")
CTORCH_TORCH_ENUM(Sigmoid, "sigmoid")
CTORCH_TORCH_ENUM(Tanh, "tanh")
CTORCH_TORCH_ENUM(ReLU, "relu")
CTORCH_TORCH_ENUM(GELU, "gelu")
CTORCH_TORCH_ENUM(SiLU, "silu")
CTORCH_TORCH_ENUM(Mish, "mish")
CTORCH_TORCH_ENUM(LeakyReLU, "leaky_relu")
CTORCH_TORCH_ENUM(FanIn, "fan_in")
CTORCH_TORCH_ENUM(FanOut, "fan_out")
CTORCH_TORCH_ENUM(Constant, "constant")
CTORCH_TORCH_ENUM(Reflect, "reflect")
CTORCH_TORCH_ENUM(Replicate, "replicate")
CTORCH_TORCH_ENUM(Circular, "circular")
CTORCH_TORCH_ENUM(Nearest, "nearest")
CTORCH_TORCH_ENUM(Bilinear, "bilinear")
CTORCH_TORCH_ENUM(Bicubic, "bicubic")
CTORCH_TORCH_ENUM(Trilinear, "trilinear")
CTORCH_TORCH_ENUM(Area, "area")
CTORCH_TORCH_ENUM(NearestExact, "nearest-exact")
CTORCH_TORCH_ENUM(Sum, "sum")
CTORCH_TORCH_ENUM(Mean, "mean")
CTORCH_TORCH_ENUM(Max, "max")
CTORCH_TORCH_ENUM(None, "none")
CTORCH_TORCH_ENUM(BatchMean, "batchmean")
CTORCH_TORCH_ENUM(Zeros, "zeros")
CTORCH_TORCH_ENUM(Border, "border")
CTORCH_TORCH_ENUM(Reflection, "reflection")
CTORCH_TORCH_ENUM(RNN_TANH, "RNN_TANH")
CTORCH_TORCH_ENUM(RNN_RELU, "RNN_RELU")
CTORCH_TORCH_ENUM(LSTM, "LSTM")
CTORCH_TORCH_ENUM(GRU, "GRU")
CTORCH_TORCH_ENUM(Valid, "valid")
CTORCH_TORCH_ENUM(Same, "same")

#undef CTORCH_TORCH_ENUM

namespace torch::enumtype {

/// libtorch's name of an enum value held by a variant: "kSum", "kReflect", ...
template <class V>
std::string get_enum_name(const V& variant_enum) {
  return std::visit([](const auto& v) { return std::string(std::decay_t<decltype(v)>::pretty); }, variant_enum);
}

/// The native API's (Python's) string for an enum value held by a variant: "sum", "reflect", ...
template <class V>
std::string enum_name_native(const V& variant_enum) {
  return std::visit([](const auto& v) { return std::string(std::decay_t<decltype(v)>::native_name); },
                    variant_enum);
}

/// libtorch's Reduction value of kNone/kMean/kSum; other values raise "<kName> is not a valid value for reduction".
template <class V>
int64_t reduction_get_enum(const V& variant_enum) {
  const int64_t reduction = std::visit(
      [](const auto& v) -> int64_t {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, kNone>) return ::Reduction::None;
        if constexpr (std::is_same_v<T, kMean>) return ::Reduction::Mean;
        if constexpr (std::is_same_v<T, kSum>) return ::Reduction::Sum;
        return ::Reduction::END;
      },
      variant_enum);
  CTORCH_CHECK(reduction != ::Reduction::END, get_enum_name(variant_enum), " is not a valid value for reduction");
  return reduction;
}

}  // namespace torch::enumtype

/// Constructors that let an options struct be built from one enum value (libtorch's macros of the same
/// names): `F::some_loss(x, y, torch::kNone)`.
#define TORCH_OPTIONS_CTOR_VARIANT_ARG3(OPTIONS_NAME, ARG_NAME, TYPE1, TYPE2, TYPE3) \
  OPTIONS_NAME() {}                                                                  \
  OPTIONS_NAME(torch::enumtype::TYPE1 ARG_NAME) : ARG_NAME##_(torch::TYPE1) {}       \
  OPTIONS_NAME(torch::enumtype::TYPE2 ARG_NAME) : ARG_NAME##_(torch::TYPE2) {}       \
  OPTIONS_NAME(torch::enumtype::TYPE3 ARG_NAME) : ARG_NAME##_(torch::TYPE3) {}

#define TORCH_OPTIONS_CTOR_VARIANT_ARG4(OPTIONS_NAME, ARG_NAME, TYPE1, TYPE2, TYPE3, TYPE4) \
  OPTIONS_NAME() {}                                                                         \
  OPTIONS_NAME(torch::enumtype::TYPE1 ARG_NAME) : ARG_NAME##_(torch::TYPE1) {}              \
  OPTIONS_NAME(torch::enumtype::TYPE2 ARG_NAME) : ARG_NAME##_(torch::TYPE2) {}              \
  OPTIONS_NAME(torch::enumtype::TYPE3 ARG_NAME) : ARG_NAME##_(torch::TYPE3) {}              \
  OPTIONS_NAME(torch::enumtype::TYPE4 ARG_NAME) : ARG_NAME##_(torch::TYPE4) {}
