// Free-function forms of tensor ops (torch.add, torch.cat, torch.matmul, ...).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// torch.result_type: the dtype an op on these operands computes in (0-dim and scalar categories).
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);
ScalarType result_type(const Scalar& a, const Tensor& b);
ScalarType result_type(const Scalar& a, const Scalar& b);
/// The broadcast shape of two shapes (fails with PyTorch's message when incompatible).
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);

inline Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) { return a.add(b, alpha); }
/// out = a + alpha * b written into an existing tensor of the broadcast shape (torch.add(out=)).
Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
/// out = a * b into an existing tensor.
Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b);
inline Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) { return a.sub(b, alpha); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return a.mul(b); }
inline Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string> mode = std::nullopt) {
  return a.div(b, std::move(mode));
}
inline Tensor remainder(const Tensor& a, const Tensor& b) { return a.remainder(b); }
// Scalar second operands (torch.add(t, 1), torch.div(t, 2, rounding_mode="floor")).
inline Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1) { return a.add(b, alpha); }
inline Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1) { return a.sub(b, alpha); }
inline Tensor mul(const Tensor& a, const Scalar& b) { return a.mul(b); }
inline Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string> mode = std::nullopt) {
  return a.div(b, std::move(mode));
}
inline Tensor remainder(const Tensor& a, const Scalar& b) { return a.remainder(b); }
inline Tensor pow(const Tensor& a, const Tensor& b) { return a.pow(b); }
inline Tensor pow(const Tensor& a, const Scalar& b) { return a.pow(b); }
/// A scalar raised to tensor powers.
Tensor pow(const Scalar& self, const Tensor& exponent);
inline Tensor maximum(const Tensor& a, const Tensor& b) { return a.maximum(b); }
inline Tensor minimum(const Tensor& a, const Tensor& b) { return a.minimum(b); }
inline Tensor eq(const Tensor& a, const Tensor& b) { return a.eq(b); }
inline Tensor ne(const Tensor& a, const Tensor& b) { return a.ne(b); }
inline Tensor lt(const Tensor& a, const Tensor& b) { return a.lt(b); }
inline Tensor le(const Tensor& a, const Tensor& b) { return a.le(b); }
inline Tensor gt(const Tensor& a, const Tensor& b) { return a.gt(b); }
inline Tensor ge(const Tensor& a, const Tensor& b) { return a.ge(b); }
inline Tensor eq(const Tensor& a, const Scalar& b) { return a.eq(b); }
inline Tensor ne(const Tensor& a, const Scalar& b) { return a.ne(b); }
inline Tensor lt(const Tensor& a, const Scalar& b) { return a.lt(b); }
inline Tensor le(const Tensor& a, const Scalar& b) { return a.le(b); }
inline Tensor gt(const Tensor& a, const Scalar& b) { return a.gt(b); }
inline Tensor ge(const Tensor& a, const Scalar& b) { return a.ge(b); }
inline Tensor logical_and(const Tensor& a, const Tensor& b) { return a.logical_and(b); }
inline Tensor logical_or(const Tensor& a, const Tensor& b) { return a.logical_or(b); }
inline Tensor logical_xor(const Tensor& a, const Tensor& b) { return a.logical_xor(b); }
inline Tensor logical_not(const Tensor& a) { return a.logical_not(); }
/// x where condition else y (broadcast, promoted).
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y);
Tensor where(const Tensor& condition, const Scalar& x, const Tensor& y);
Tensor where(const Tensor& condition, const Tensor& x, const Scalar& y);
Tensor where(const Tensor& condition, const Scalar& x, const Scalar& y);
inline Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) {
  return t.clamp(min, max);
}
inline Tensor neg(const Tensor& t) { return t.neg(); }
inline Tensor abs(const Tensor& t) { return t.abs(); }
inline Tensor exp(const Tensor& t) { return t.exp(); }
inline Tensor log(const Tensor& t) { return t.log(); }
inline Tensor sqrt(const Tensor& t) { return t.sqrt(); }
inline Tensor rsqrt(const Tensor& t) { return t.rsqrt(); }
inline Tensor sin(const Tensor& t) { return t.sin(); }
inline Tensor cos(const Tensor& t) { return t.cos(); }
inline Tensor tanh(const Tensor& t) { return t.tanh(); }
inline Tensor sigmoid(const Tensor& t) { return t.sigmoid(); }
inline Tensor erf(const Tensor& t) { return t.erf(); }
inline Tensor log1p(const Tensor& t) { return t.log1p(); }
inline Tensor relu(const Tensor& t) { return t.relu(); }
inline Tensor floor(const Tensor& t) { return t.floor(); }
inline Tensor ceil(const Tensor& t) { return t.ceil(); }
inline Tensor round(const Tensor& t) { return t.round(); }
inline Tensor sign(const Tensor& t) { return t.sign(); }
/// True where t is NaN (torch.isnan).
inline Tensor isnan(const Tensor& t) { return t.ne(t); }
/// True where t is +-inf (torch.isinf); false everywhere for integral and bool dtypes.
inline Tensor isinf(const Tensor& t) {
  return t.dtype() == kBool ? t.ne(t) : t.abs().eq(std::numeric_limits<double>::infinity());
}
/// True where t is neither inf nor NaN (torch.isfinite); true everywhere for integral and bool dtypes.
inline Tensor isfinite(const Tensor& t) { return t.dtype() == kBool ? t.eq(t) : t.eq(t).logical_and(isinf(t).logical_not()); }

inline Tensor sum(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt) { return t.sum(dtype); }
inline Tensor sum(const Tensor& t, IntArrayRef dim, bool keepdim = false) { return t.sum(dim, keepdim); }
inline Tensor mean(const Tensor& t) { return t.mean(); }
inline Tensor mean(const Tensor& t, IntArrayRef dim, bool keepdim = false) { return t.mean(dim, keepdim); }
inline Tensor prod(const Tensor& t) { return t.prod(); }
namespace detail {
/// mean over `dim`, or over every dim when nullopt (keeping them as size 1 when keepdim).
inline Tensor mean_over(const Tensor& t, OptionalIntArrayRef dim, bool keepdim) {
  if (dim) return t.mean(dim.value(), keepdim);
  if (!keepdim || t.dim() == 0) return t.mean();
  std::vector<int64_t> all(static_cast<size_t>(t.dim()));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  return t.mean(all, true);
}
}  // namespace detail
/// Variance over `dim` (all dims when nullopt) with Bessel's `correction` (1: unbiased).
inline Tensor var(const Tensor& t, OptionalIntArrayRef dim = std::nullopt, int64_t correction = 1,
                  bool keepdim = false) {
  return t.var(dim, correction, keepdim);
}
/// Standard deviation over `dim` (all dims when nullopt) with Bessel's `correction`.
inline Tensor std(const Tensor& t, OptionalIntArrayRef dim = std::nullopt, int64_t correction = 1,
                  bool keepdim = false) {
  return t.std(dim, correction, keepdim);
}
/// (var, mean) over `dim` (all dims when nullopt), as torch.var_mean.
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& t, OptionalIntArrayRef dim = std::nullopt,
                                           int64_t correction = 1, bool keepdim = false) {
  return {t.var(dim, correction, keepdim), detail::mean_over(t, dim, keepdim)};
}
/// (std, mean) over `dim` (all dims when nullopt), as torch.std_mean.
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& t, OptionalIntArrayRef dim = std::nullopt,
                                           int64_t correction = 1, bool keepdim = false) {
  return {t.std(dim, correction, keepdim), detail::mean_over(t, dim, keepdim)};
}
inline Tensor max(const Tensor& t) { return t.max(); }
inline std::tuple<Tensor, Tensor> max(const Tensor& t, int64_t dim, bool keepdim = false) { return t.max(dim, keepdim); }
inline Tensor min(const Tensor& t) { return t.min(); }
/// torch.max(a, b): the elementwise maximum (torch.maximum).
inline Tensor max(const Tensor& a, const Tensor& b) { return a.maximum(b); }
/// torch.min(a, b): the elementwise minimum (torch.minimum).
inline Tensor min(const Tensor& a, const Tensor& b) { return a.minimum(b); }
inline std::tuple<Tensor, Tensor> min(const Tensor& t, int64_t dim, bool keepdim = false) { return t.min(dim, keepdim); }
inline Tensor argmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return t.argmax(dim, keepdim);
}
inline Tensor argmin(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return t.argmin(dim, keepdim);
}
inline Tensor all(const Tensor& t) { return t.all(); }
inline Tensor any(const Tensor& t) { return t.any(); }
inline Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype = std::nullopt) {
  return t.softmax(dim, dtype);
}
inline Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype = std::nullopt) {
  return t.log_softmax(dim, dtype);
}

/// Joins tensors along an existing dim.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// Joins tensors along a new dim.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
inline std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0) { return t.chunk(chunks, dim); }
inline std::vector<Tensor> split(const Tensor& t, int64_t size, int64_t dim = 0) { return t.split(size, dim); }
inline Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1) {
  return t.flatten(start_dim, end_dim);
}
inline Tensor reshape(const Tensor& t, IntArrayRef shape) { return t.reshape(shape); }
inline Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) { return t.transpose(d0, d1); }
inline Tensor permute(const Tensor& t, IntArrayRef dims) { return t.permute(dims); }
inline Tensor squeeze(const Tensor& t) { return t.squeeze(); }
inline Tensor unsqueeze(const Tensor& t, int64_t dim) { return t.unsqueeze(dim); }

inline Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }
inline Tensor mm(const Tensor& a, const Tensor& b) { return a.mm(b); }
inline Tensor bmm(const Tensor& a, const Tensor& b) { return a.bmm(b); }
inline Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta = 1,
                    const Scalar& alpha = 1) {
  return self.addmm(m1, m2, beta, alpha);
}
/// input @ weight.T + bias (torch.nn.functional.linear).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());

/// self indexed by one optional index tensor per leading dim (aten::index; masks expand to nonzero).
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
/// self.index_put_(indices, values, accumulate) (aten::index_put_).
inline Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                          bool accumulate = false) {
  return self.index_put_(indices, values, accumulate);
}
/// Out-of-place index_put_ (a clone of self with the values written).
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate = false);
inline Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return self.index_select(dim, index);
}
inline Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) { return self.gather(dim, index); }
inline Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return self.scatter(dim, index, src);
}
inline Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return self.scatter_add(dim, index, src);
}
inline Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                        const Scalar& alpha = 1) {
  return self.index_add(dim, index, source, alpha);
}
inline Tensor masked_select(const Tensor& self, const Tensor& mask) { return self.masked_select(mask); }
inline Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return self.masked_fill(mask, value);
}
inline Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return self.masked_fill(mask, value);
}
inline Tensor nonzero(const Tensor& self) { return self.nonzero(); }

inline bool equal(const Tensor& a, const Tensor& b) { return a.equal(b); }
inline bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
                     bool equal_nan = false) {
  return a.allclose(b, rtol, atol, equal_nan);
}
/// Elementwise closeness as a bool tensor.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false);

}  // namespace ctorch::api
