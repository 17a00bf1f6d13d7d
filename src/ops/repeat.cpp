// Tensor.repeat: a composition of views (unsqueeze, expand) and one reshape, so its gradient is the
// sum over the copies without a recorded op of its own.
#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::inline api {

Tensor Tensor::repeat(IntArrayRef repeats) const {
  CTORCH_CHECK(static_cast<int64_t>(repeats.size()) >= dim(),
               "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  for (int64_t r : repeats) CTORCH_CHECK(r >= 0, "Trying to create tensor with negative dimension ", r, ": ", repeats);
  const size_t n = repeats.size(), lead = n - static_cast<size_t>(dim());
  std::vector<int64_t> padded(lead, 1), interleaved, expanded, result;
  padded.insert(padded.end(), sizes().begin(), sizes().end());
  for (size_t i = 0; i < n; ++i) {
    interleaved.insert(interleaved.end(), {1, padded[i]});
    expanded.insert(expanded.end(), {repeats[i], padded[i]});
    result.push_back(repeats[i] * padded[i]);
  }
  return reshape(padded).reshape(interleaved).expand(expanded).reshape(result);
}

}  // namespace ctorch::inline api
