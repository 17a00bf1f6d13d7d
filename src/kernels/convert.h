// Value conversion between storage types (copy_, fill_, to(dtype)), written once for every backend.
// PyTorch's c10::convert rules: to bool is "non-zero"; half and bfloat16 go through float; a
// floating value to uint8 goes through int64 (-1.5 gives 255, c10::static_cast_with_inter_type);
// a floating value to int8/int16 goes through int32 and keeps the low bits (as x86 converts).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ctorch/dtype.h"
#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {

/// True for the 16-bit floating types whose arithmetic runs in float.
template <class T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// `v` converted to storage type To with PyTorch's rules (see the file comment).
template <class To, class From>
CTORCH_HD To convert(From v) {
  constexpr bool from_reduced = is_reduced_float_v<From>;
  constexpr bool from_floating = std::is_floating_point_v<From> || from_reduced;
  using Wide = std::conditional_t<from_reduced, float, From>;
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<Wide>(v) != Wide(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (from_floating && std::is_same_v<To, uint8_t>) {
    return static_cast<uint8_t>(static_cast<int64_t>(static_cast<Wide>(v)));
  } else if constexpr (from_floating && std::is_integral_v<To> && sizeof(To) < 4) {
    return static_cast<To>(static_cast<int32_t>(static_cast<Wide>(v)));
  } else {
    return static_cast<To>(static_cast<Wide>(v));
  }
}

}  // namespace ctorch::api::kernels
