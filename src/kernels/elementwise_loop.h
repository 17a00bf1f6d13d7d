// One element of an elementwise launch, written once: the CUDA kernel's threads and the emulated
// walker of the same grid (Note [Elementwise launch shape]) both call elementwise_element.
// Functors see opmath values (float for half and bfloat16); the result is cast to the output's
// storage type.
#pragma once

#include <cstdint>
#include <utility>

#include "ctorch/macros.h"
#include "kernels/dispatch.h"
#include "kernels/elementwise_plan.h"

namespace ctorch::inline api::kernels {

namespace detail {

template <class Out, class... In, class F, size_t... I>
CTORCH_HD inline void apply_element(char* out, char* const* in, const F& f, std::index_sequence<I...>) {
  *reinterpret_cast<Out*>(out) =
      static_cast<Out>(f(static_cast<opmath_t<In>>(*reinterpret_cast<const In*>(in[I]))...));
}

// Out of line in device code: the int64 index math is most of a kernel's code, and ptxas time
// grows with code size.
CTORCH_HD CTORCH_DEVICE_NOINLINE inline void plan_offsets(const ElementwisePlan& plan, int64_t linear,
                                                          int64_t* offsets) {
  plan.offsets(linear, offsets);
}

}  // namespace detail

/// out = f(in...) at element `linear` of `plan`; `contiguous` (plan.is_contiguous()) selects flat
/// indexing. `data[0]` is the output; Out and In are storage types.
template <class Out, class... In, class F>
CTORCH_HD inline void elementwise_element(const ElementwisePlan& plan, char* const* data, int64_t linear,
                                          bool contiguous, const F& f) {
  constexpr int kInputs = sizeof...(In);
  char* in[kInputs > 0 ? kInputs : 1];
  if (contiguous) {
    constexpr int64_t sizes[] = {static_cast<int64_t>(sizeof(In))..., 0};
    for (int k = 0; k < kInputs; ++k) in[k] = data[k + 1] + linear * sizes[k];
    detail::apply_element<Out, In...>(data[0] + linear * static_cast<int64_t>(sizeof(Out)), in, f,
                                      std::index_sequence_for<In...>{});
  } else {
    int64_t offsets[kMaxOperands];
    detail::plan_offsets(plan, linear, offsets);
    for (int k = 0; k < kInputs; ++k) in[k] = data[k + 1] + offsets[k + 1];
    detail::apply_element<Out, In...>(data[0] + offsets[0], in, f, std::index_sequence_for<In...>{});
  }
}

}  // namespace ctorch::api::kernels
