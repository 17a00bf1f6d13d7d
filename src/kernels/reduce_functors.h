// Single-source reduction math: every backend instantiates these functors (CTORCH_HD).
//
// A reduction functor R has
//   in_t                          the type each input element is converted to before reduce
//   acc_t                         the accumulator
//   identity()                    the accumulator of zero elements
//   reduce(acc, x, index)         folds element x at reduction position `index` into acc; one
//                                 accumulator sees its positions in increasing order
//   combine(a, b)                 merges two accumulators; a covers lower positions than b
//   project(acc)                  the value to store (still in the accumulate type)
//   kIndexed                      true when acc_t is a ValueIndex whose index is also stored
// reduce and combine are associative, so launchers may split, reorder and tree-combine partial
// accumulators; index ops break ties on the index, so the first occurrence wins whatever the split.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {

/// Reductions a backend runs. Max/Min give values only, ArgMax/ArgMin values and indices; the op
/// layer builds norms of order 0 and +-inf from Sum and Max/Min, and std from Var.
enum class ReduceOp : int8_t {
  Sum, Mean, Prod, Max, Min, ArgMax, ArgMin, All, Any, Norm1, Norm2, NormP, Var,
};

/// True for ops that track an index (their reduced dims keep logical order, Note [Reduction layout]).
CTORCH_HD constexpr bool reduce_op_indexed(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }

/// Parameters of a reduction: the norm order, var's correction and whether std takes the root.
struct ReduceArgs {
  double p = 2;
  int64_t correction = 1;
  bool take_sqrt = false;
};

/// A value and its reduction position (index < 0: no element yet).
template <class V>
struct ValueIndex {
  V value;
  int64_t index;
};

namespace detail {

template <class V>
CTORCH_HD constexpr V lowest() {
  if constexpr (std::is_floating_point_v<V>) return -std::numeric_limits<V>::infinity();
  else return std::numeric_limits<V>::lowest();
}
template <class V>
CTORCH_HD constexpr V highest() {
  if constexpr (std::is_floating_point_v<V>) return std::numeric_limits<V>::infinity();
  else return std::numeric_limits<V>::max();
}
template <class V>
CTORCH_HD bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) return v != v;
  else return false;
}
// True when x replaces a as the largest so far: a NaN is kept, a NaN x wins, ties keep a.
template <class V>
CTORCH_HD bool takes_max(V a, V x) {
  return a == a && !(x <= a);
}
template <class V>
CTORCH_HD bool takes_min(V a, V x) {
  return a == a && !(x >= a);
}
template <class V>
CTORCH_HD V abs_value(V v) {
  if constexpr (std::is_unsigned_v<V>) return v;
  else return v < V(0) ? static_cast<V>(-v) : v;
}

}  // namespace detail

// Note [Integer reductions wrap]
// PyTorch's integer sum and prod wrap around in two's complement (tensor([INT64_MAX, 1]).sum() is
// INT64_MIN); in C++ signed overflow is undefined. Integer Sum and Prod therefore accumulate in the
// unsigned type of the same width (wrap_t), where + and * are defined modulo 2^N, and project back
// to the signed type (a modular conversion since C++20). The accumulator itself is unsigned, not a
// signed value cast to unsigned and back around each add: GCC 12.2's loop vectorizer miscompiles
// that round trip when the input is widened from int8/uint8 (cpu/reduce.h's blocked dense loop with
// one stream kept half of the lanes' sums), while a plain unsigned accumulator vectorizes correctly.
namespace detail {
template <class V, bool = std::is_integral_v<V> && !std::is_same_v<V, bool>>
struct wrap_type {
  using type = V;
};
template <class V>
struct wrap_type<V, true> {
  using type = std::make_unsigned_t<V>;
};
}  // namespace detail

/// The type integer Sum/Prod accumulate in: unsigned of V's width for integers, V otherwise.
template <class V>
using wrap_t = typename detail::wrap_type<V>::type;

/// Sum in Acc (bool and integers widen to int64 when the output is int64); integers wrap around.
template <class Acc>
struct SumOp {
  using in_t = wrap_t<Acc>;
  using acc_t = wrap_t<Acc>;
  static constexpr bool kIndexed = false;
  CTORCH_HD acc_t identity() const { return acc_t(0); }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t) const { return static_cast<acc_t>(a + x); }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const { return static_cast<acc_t>(a + b); }
  CTORCH_HD Acc project(acc_t a) const { return static_cast<Acc>(a); }
};

/// Sum divided by the number of reduced elements (as PyTorch's sum().div_(n)).
template <class Acc>
struct MeanOp : SumOp<Acc> {
  static_assert(std::is_floating_point_v<Acc>, "mean accumulates floating types only");
  Acc count = Acc(1);
  CTORCH_HD Acc project(Acc a) const { return a / count; }
};

/// Product in Acc; integers wrap around (Note [Integer reductions wrap]).
template <class Acc>
struct ProdOp {
  using in_t = wrap_t<Acc>;
  using acc_t = wrap_t<Acc>;
  static constexpr bool kIndexed = false;
  CTORCH_HD acc_t identity() const { return acc_t(1); }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t) const { return static_cast<acc_t>(a * x); }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const { return static_cast<acc_t>(a * b); }
  CTORCH_HD Acc project(acc_t a) const { return static_cast<Acc>(a); }
};

/// Largest value; NaN propagates.
template <class V>
struct MaxOp {
  using in_t = V;
  using acc_t = V;
  static constexpr bool kIndexed = false;
  CTORCH_HD acc_t identity() const { return detail::lowest<V>(); }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t) const { return detail::takes_max(a, x) ? x : a; }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const { return reduce(a, b, 0); }
  CTORCH_HD acc_t project(acc_t a) const { return a; }
};

/// Smallest value; NaN propagates.
template <class V>
struct MinOp {
  using in_t = V;
  using acc_t = V;
  static constexpr bool kIndexed = false;
  CTORCH_HD acc_t identity() const { return detail::highest<V>(); }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t) const { return detail::takes_min(a, x) ? x : a; }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const { return reduce(a, b, 0); }
  CTORCH_HD acc_t project(acc_t a) const { return a; }
};

/// Largest (IsMax) or smallest value and its position: the first NaN wins, then the first extreme.
template <class V, bool IsMax>
struct ArgExtremeOp {
  using in_t = V;
  using acc_t = ValueIndex<V>;
  static constexpr bool kIndexed = true;
  CTORCH_HD acc_t identity() const { return acc_t{V(0), -1}; }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t index) const {
    // index is past every position in a, so a tie keeps a.
    const bool take = a.index < 0 || (IsMax ? detail::takes_max(a.value, x) : detail::takes_min(a.value, x));
    return take ? acc_t{x, index} : a;
  }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const { return prefer(a, b) ? a : b; }
  CTORCH_HD acc_t project(acc_t a) const { return a; }

 private:
  // True when `a` should be kept over `b` (PyTorch's greater_or_nan / less_or_nan).
  CTORCH_HD static bool prefer(const acc_t& a, const acc_t& b) {
    if (b.index < 0) return true;
    if (a.index < 0) return false;
    if (detail::is_nan(a.value)) return !detail::is_nan(b.value) || a.index < b.index;
    if (detail::is_nan(b.value)) return false;
    if (a.value == b.value) return a.index < b.index;
    if constexpr (IsMax) return a.value > b.value;
    else return a.value < b.value;
  }
};

/// True when every element is non-zero (NaN counts as non-zero).
struct AllOp {
  using in_t = bool;
  using acc_t = bool;
  static constexpr bool kIndexed = false;
  CTORCH_HD acc_t identity() const { return true; }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t) const { return a && x; }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const { return a && b; }
  CTORCH_HD acc_t project(acc_t a) const { return a; }
};

/// True when any element is non-zero.
struct AnyOp {
  using in_t = bool;
  using acc_t = bool;
  static constexpr bool kIndexed = false;
  CTORCH_HD acc_t identity() const { return false; }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t) const { return a || x; }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const { return a || b; }
  CTORCH_HD acc_t project(acc_t a) const { return a; }
};

/// Vector norms of order 1, 2 and any other p: (sum |x|^p)^(1/p). NaN propagates through the sum.
template <class Acc, ReduceOp Kind>
struct NormOp {
  using in_t = Acc;
  using acc_t = Acc;
  static constexpr bool kIndexed = false;
  Acc p = Acc(2);
  CTORCH_HD acc_t identity() const { return Acc(0); }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t) const {
    if constexpr (Kind == ReduceOp::Norm1) return a + detail::abs_value(x);
    else if constexpr (Kind == ReduceOp::Norm2) return a + x * x;
    else return a + std::pow(detail::abs_value(x), p);
  }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const { return a + b; }
  CTORCH_HD acc_t project(acc_t a) const {
    if constexpr (Kind == ReduceOp::Norm2) return std::sqrt(a);
    else if constexpr (Kind == ReduceOp::NormP) return std::pow(a, Acc(1) / p);
    else return a;
  }
};

/// Welford accumulator: running mean, sum of squared deviations, count.
struct WelfordData {
  double mean;
  double m2;
  double n;
};

/// Variance (or its root) with `correction` (divisor max(0, n - correction)), accumulated in double.
struct VarOp {
  using in_t = double;
  using acc_t = WelfordData;
  static constexpr bool kIndexed = false;
  double correction = 1;
  bool take_sqrt = false;
  CTORCH_HD acc_t identity() const { return acc_t{0, 0, 0}; }
  CTORCH_HD acc_t reduce(acc_t a, in_t x, int64_t) const {
    const double n = a.n + 1;
    const double delta = x - a.mean;
    const double mean = a.mean + delta / n;
    return acc_t{mean, a.m2 + delta * (x - mean), n};
  }
  CTORCH_HD acc_t combine(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const double delta = b.mean - a.mean;
    const double n = a.n + b.n;
    const double nb_over_n = b.n / n;
    return acc_t{a.mean + delta * nb_over_n, a.m2 + b.m2 + delta * delta * a.n * nb_over_n, n};
  }
  CTORCH_HD double project(acc_t a) const {
    const double divisor = a.n > correction ? a.n - correction : 0.0;
    const double var = a.m2 / divisor;
    return take_sqrt ? std::sqrt(var) : var;
  }
};

}  // namespace ctorch::api::kernels
