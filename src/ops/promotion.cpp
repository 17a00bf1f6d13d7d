// torch.result_type and broadcasting (aten/src/ATen/native/TypeProperties.cpp, ExpandUtils.cpp).
#include <optional>
#include <span>

#include "ops/elementwise.h"

#include "ctorch/ops.h"

namespace ctorch::inline api {
namespace {

// PyTorch keeps three running results: dimensioned tensors, 0-dim tensors, wrapped numbers.
struct ResultTypeState {
  std::optional<ScalarType> dim, zero, wrapped;
};

std::optional<ScalarType> promote_opt(std::optional<ScalarType> a, ScalarType b) {
  return a ? promote_types(*a, b) : b;
}

void update(ResultTypeState& s, const Tensor& t) {
  if (t.dim() > 0) {
    s.dim = promote_opt(s.dim, t.dtype());
  } else {
    s.zero = promote_opt(s.zero, t.dtype());
  }
}

void update(ResultTypeState& s, const Scalar& v) { s.wrapped = promote_opt(s.wrapped, v.type()); }

// combine_categories(higher, lower): a lower-priority operand only matters when it is of a
// higher category (complex over floating over integral, anything over bool).
std::optional<ScalarType> combine(std::optional<ScalarType> higher, std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_complex(*higher)) return higher;
  if (is_complex(*lower)) return promote_types(*higher, *lower);
  if (is_floating_point(*higher)) return higher;
  if (*higher == kBool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

ScalarType finish(const ResultTypeState& s) { return combine(s.dim, combine(s.zero, s.wrapped)).value_or(kFloat32); }

}  // namespace

ScalarType result_type(const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return a.dtype();
  ResultTypeState s;
  update(s, a);
  update(s, b);
  return finish(s);
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  ResultTypeState s;
  update(s, a);
  update(s, b);
  return finish(s);
}

ScalarType result_type(const Scalar& a, const Tensor& b) { return result_type(b, a); }

ScalarType result_type(const Scalar& a, const Scalar& b) {
  ResultTypeState s;
  update(s, a);
  update(s, b);
  return finish(s);
}

namespace ops {

ScalarType common_dtype(std::span<const Tensor* const> tensors) {
  ResultTypeState s;
  for (const Tensor* t : tensors) update(s, *t);
  return finish(s);
}

}  // namespace ops

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  if (a == b) return DimVector(a);
  const size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  // at::infer_size walks from the last dim, so the last mismatching dim is the one reported.
  for (size_t i = n; i-- > 0;) {
    const int64_t ia = static_cast<int64_t>(i) - static_cast<int64_t>(n - a.size());
    const int64_t ib = static_cast<int64_t>(i) - static_cast<int64_t>(n - b.size());
    const int64_t sa = ia >= 0 ? a[ia] : 1;
    const int64_t sb = ib >= 0 ? b[ib] : 1;
    CTORCH_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa, ") must match the size of tensor b (",
                 sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

}  // namespace ctorch::api
