#include "autograd/functional.h"

namespace ctorch::autograd {

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  const size_t ndim = shape.size(), target = desired.size();
  if (ndim > target) return false;
  for (size_t i = 0; i < ndim; ++i) {
    const int64_t size = shape[ndim - i - 1], want = desired[target - i - 1];
    if (size != want && size != 1) return false;
  }
  return true;
}

Tensor sum_to(const Tensor& t, IntArrayRef shape) {
  if (t.sizes() == shape) return t;
  const int64_t lead = t.dim() - static_cast<int64_t>(shape.size());
  DimVector dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (int64_t d = lead; d < t.dim(); ++d) {
    if (shape[d - lead] == 1 && t.sizes()[d] != 1) dims.push_back(d);
  }
  Tensor r = dims.empty() ? t : t.sum(IntArrayRef(dims), /*keepdim=*/true);
  if (lead > 0) r = r.reshape(shape);
  return r.sizes() == shape ? r : r.view(shape);
}

}  // namespace ctorch::autograd
