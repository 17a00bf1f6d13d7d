// ops::pad_dim (ops/pad.h).
#include "ops/pad.h"

#include <vector>

#include "ctorch/factories.h"
#include "ctorch/ops.h"

namespace ctorch::inline api::ops {

Tensor pad_dim(const Tensor& x, int64_t dim, int64_t before, int64_t after, double value) {
  if (before == 0 && after == 0) return x;
  std::vector<Tensor> parts;
  DimVector shape(x.sizes());
  if (before > 0) {
    shape[static_cast<size_t>(dim)] = before;
    parts.push_back(full(shape, value, x.options()));
  }
  parts.push_back(x);
  if (after > 0) {
    shape[static_cast<size_t>(dim)] = after;
    parts.push_back(full(shape, value, x.options()));
  }
  return cat(parts, dim);
}

}  // namespace ctorch::api::ops
