// The cpu launchers: run a single-source functor over an ElementwisePlan with a chunked
// parallel loop. Inner loops over dense operands use plain indexing so the compiler vectorizes.
#pragma once

#include <cstdint>
#include <cstring>
#include <tuple>
#include <utility>

#include "backends/cpu/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/elementwise_plan.h"

namespace ctorch::backends::cpu {

/// Elements per parallel chunk for elementwise loops.
inline constexpr int64_t kElementwiseGrain = 32768;

namespace detail {

template <class Out, class... In, class F, size_t... I>
inline void inner_loop(char* const* data, const int64_t* strides, int64_t n, const F& f,
                       std::index_sequence<I...>) {
  using kernels::opmath_t;
  char* out = data[0];
  const int64_t so = strides[0];
  bool dense = so == static_cast<int64_t>(sizeof(Out)) &&
               ((strides[I + 1] == static_cast<int64_t>(sizeof(In))) && ...);
  if (dense) {
    Out* o = reinterpret_cast<Out*>(out);
    std::tuple<const In*...> in{reinterpret_cast<const In*>(data[I + 1])...};
    for (int64_t i = 0; i < n; ++i) {
      o[i] = static_cast<Out>(f(static_cast<opmath_t<In>>(std::get<I>(in)[i])...));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    Out* o = reinterpret_cast<Out*>(out + i * so);
    *o = static_cast<Out>(
        f(static_cast<opmath_t<In>>(*reinterpret_cast<const In*>(data[I + 1] + i * strides[I + 1]))...));
  }
}

}  // namespace detail

/// Walks linear indices [begin, end) of `plan`, calling loop(ptrs, inner_strides, n) per inner run.
template <class Loop>
void for_each_run(const kernels::ElementwisePlan& plan, char* const* base, int64_t begin, int64_t end,
                  const Loop& loop) {
  const int nop = plan.noperands;
  char* ptrs[kernels::kMaxOperands];
  if (plan.ndim <= 1) {
    int64_t inner[kernels::kMaxOperands];
    for (int k = 0; k < nop; ++k) {
      inner[k] = plan.ndim == 0 ? 0 : plan.strides[k][0];
      ptrs[k] = base[k] + begin * inner[k];
    }
    loop(ptrs, inner, end - begin);
    return;
  }
  int64_t idx[kernels::kMaxDims];
  int64_t linear = begin;
  for (int d = 0; d < plan.ndim; ++d) {
    idx[d] = linear % plan.shape[d];
    linear /= plan.shape[d];
  }
  int64_t inner[kernels::kMaxOperands];
  for (int k = 0; k < nop; ++k) inner[k] = plan.strides[k][0];
  int64_t pos = begin;
  while (pos < end) {
    for (int k = 0; k < nop; ++k) {
      int64_t off = 0;
      for (int d = 0; d < plan.ndim; ++d) off += idx[d] * plan.strides[k][d];
      ptrs[k] = base[k] + off;
    }
    int64_t n = std::min(plan.shape[0] - idx[0], end - pos);
    loop(ptrs, inner, n);
    pos += n;
    idx[0] += n;
    for (int d = 0; d + 1 < plan.ndim && idx[d] >= plan.shape[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

/// out = f(in...) over the plan; Out and In are storage types, f sees opmath values.
template <class Out, class... In, class F>
void launch_elementwise(const kernels::ElementwisePlan& plan, char* const* data, const F& f) {
  parallel_for(0, plan.numel, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for_each_run(plan, data, b, e, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
      detail::inner_loop<Out, In...>(ptrs, strides, n, f, std::index_sequence_for<In...>{});
    });
  });
}

}  // namespace ctorch::backends::cpu
