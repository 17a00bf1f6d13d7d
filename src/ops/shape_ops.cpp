// torch.cat and torch.stack (PyTorch 1.13 TensorShape.cpp: cat meta function, stack).
#include <optional>

#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ops/elementwise.h"
#include "ops/grad_hook.h"

namespace ctorch::inline api {
namespace {

// Legacy rule: 1-D empty tensors (size [0]) are ignored by cat whatever the other shapes are.
bool cat_should_skip(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

// The codegen'd device check of the cuda kernel (runs first, only when some input is on cuda).
void check_cat_devices(const std::vector<Tensor>& tensors) {
  bool any_cuda = false;
  for (const Tensor& t : tensors) any_cuda = any_cuda || t.is_cuda();
  if (!any_cuda) return;
  const Device common = tensors.front().device();
  for (const Tensor& t : tensors) {
    CTORCH_CHECK(t.device() == common, "Expected all tensors to be on the same device, but found at least two "
                 "devices, ", common, " and ", t.device(),
                 "! (when checking argument for argument tensors in method wrapper_cat)");
  }
}

void check_cat_shape_except_dim(const Tensor& first, const Tensor& second, int64_t dimension, size_t index) {
  const int64_t first_dims = first.dim();
  const int64_t second_dims = second.dim();
  CTORCH_CHECK(first_dims == second_dims, "Tensors must have same number of dimensions: got ", first_dims, " and ",
               second_dims);
  for (int64_t d = 0; d < first_dims; ++d) {
    if (d == dimension) continue;
    CTORCH_CHECK(first.sizes()[d] == second.sizes()[d], "Sizes of tensors must match except in dimension ", dimension,
                 ". Expected size ", first.sizes()[d], " but got size ", second.sizes()[d], " for tensor number ",
                 index, " in the list.");
  }
}

}  // namespace

namespace {

// Records cat or stack of `tensors` (every tensor an input).
template <class Impl>
Tensor recorded_list(ops::GradFn fn, const std::vector<Tensor>& tensors, int64_t dim, Impl&& impl) {
  std::vector<const Tensor*> inputs;
  inputs.reserve(tensors.size());
  for (const Tensor& t : tensors) inputs.push_back(&t);
  return ops::recorded(fn, ArrayRef<const Tensor*>(inputs), impl, [&](ops::GradArgs& g) { g.dim = dim; });
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (ops::needs_grad(tensors)) [[unlikely]] {
    return recorded_list(ops::GradFn::Cat, tensors, dim, [&] { return cat(tensors, dim); });
  }
  for (const Tensor& t : tensors) CTORCH_CHECK(t.defined(), "torch.cat(): expected defined Tensors");
  check_cat_devices(tensors);
  for (size_t i = 0; i < tensors.size(); ++i) {
    CTORCH_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
  }
  // legacy_cat_wrap_dim: wrap against the first tensor that is not a skipped 1-D empty one.
  for (const Tensor& t : tensors) {
    if (cat_should_skip(t)) continue;
    dim = ops::wrap_dim(dim, t.dim());
    break;
  }
  CTORCH_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");

  // Every input takes part in type promotion, including skipped empty ones.
  ScalarType out_dtype = tensors.front().dtype();
  for (const Tensor& t : tensors) out_dtype = promote_types(out_dtype, t.dtype());

  const Tensor* valid = nullptr;
  for (const Tensor& t : tensors) {
    if (!cat_should_skip(t)) {
      valid = &t;
      break;
    }
  }
  if (!valid) return empty({0}, TensorOptions().dtype(out_dtype).device(tensors.front().device()));

  int64_t size_at_dim = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_should_skip(t)) continue;
    check_cat_shape_except_dim(*valid, t, dim, i);
    size_at_dim += t.sizes()[dim];
  }
  DimVector out_sizes(valid->sizes());
  out_sizes[dim] = size_at_dim;
  Tensor out = empty(out_sizes, TensorOptions().dtype(out_dtype).device(valid->device()));
  if (out.numel() == 0) return out;

  // Copy each input into its slice of the output (converting dtype on the way).
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (cat_should_skip(t)) continue;
    const int64_t n = t.sizes()[dim];
    if (n > 0) out.narrow(dim, offset, n).copy_(t);
    offset += n;
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (ops::needs_grad(tensors)) [[unlikely]] {
    return recorded_list(ops::GradFn::Stack, tensors, dim, [&] { return stack(tensors, dim); });
  }
  CTORCH_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  for (const Tensor& t : tensors) CTORCH_CHECK(t.defined(), "stack expects defined Tensors");
  const int64_t wrapped = ops::wrap_dim(dim, tensors.front().dim() + 1);
  const IntArrayRef entry_shape = tensors.front().sizes();
  for (size_t i = 1; i < tensors.size(); ++i) {
    CTORCH_CHECK(tensors[i].sizes() == entry_shape, "stack expects each tensor to be equal size, but got ",
                 entry_shape, " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  std::vector<Tensor> inputs;
  inputs.reserve(tensors.size());
  for (const Tensor& t : tensors) inputs.push_back(t.unsqueeze(wrapped));
  return cat(inputs, wrapped);
}

}  // namespace ctorch::api
