// Tensor.__getitem__ / __setitem__ with integers, slices, None, Ellipsis, booleans and tensors.
//
// Follows PyTorch 1.13's aten/src/ATen/TensorIndexing.h (get_item, set_item, applySlicing,
// copy_to): basic indices give a view sharing storage with self (index_put_ writes through it with
// copy_ / fill_); booleans and tensor indices are collected and passed, with that view, to
// advanced indexing (ctorch::index / Tensor::index_put_ with optional tensors, index_ops.cpp). A
// value that requires grad written through a view of self records the write on self (Note
// [In-place on views], autograd/copy_slices.h).
#include "ctorch/indexing.h"

#include <cstring>
#include <optional>
#include <ostream>
#include <vector>

#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ops/grad_hook.h"

namespace ctorch::inline api {
namespace {

using Kind = TensorIndex::Kind;

// impl::applySelect: bounds are reported against `real_dim`, the position in the index list.
Tensor apply_select(const Tensor& t, int64_t dim, int64_t index, int64_t real_dim) {
  CTORCH_CHECK_INDEX(t.dim() != 0,
                     "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
                     "to convert a 0-dim tensor to a number");
  if (dim < t.dim()) {
    const int64_t size = t.sizes()[dim];
    CTORCH_CHECK_INDEX(index >= -size && index < size, "index ", index, " is out of bounds for dimension ", real_dim,
                       " with size ", size);
  }
  return t.select(dim, index);
}

// impl::applySlice (negative steps are not supported, as in PyTorch).
Tensor apply_slice(const Tensor& t, int64_t dim, const Slice& s) {
  CTORCH_CHECK_VALUE(s.step() > 0, "step must be greater than zero");
  return t.slice(dim, s.start(), s.stop(), s.step());
}

// boolToIndexingTensor: a boolean index adds a dim of size 1, indexed by [0] (true) or [] (false).
Tensor bool_index_tensor(const Tensor& t, bool value) {
  const TensorOptions options = TensorOptions().dtype(kLong).device(t.device());
  return value ? zeros({1}, options) : empty({0}, options);
}

// Records an index tensor for dim *dim (recordTensorIndex).
void record_index(const Tensor& index, std::vector<std::optional<Tensor>>& out, int64_t* dim) {
  out.resize(static_cast<size_t>(*dim + 1));
  out[static_cast<size_t>(*dim)] = index;
  ++*dim;
}

// count_specified_dimensions: everything but None, Ellipsis and booleans; a mask counts its dims.
int64_t count_specified(ArrayRef<TensorIndex> indices) {
  int64_t count = 0;
  for (const TensorIndex& idx : indices) {
    if (idx.is_tensor()) {
      const Tensor t = idx.tensor();
      count += (t.dtype() == kByte || t.dtype() == kBool) ? t.dim() : 1;
    } else if (idx.kind() == Kind::Integer || idx.kind() == Kind::Slice) {
      ++count;
    }
  }
  return count;
}

// applySlicing: resolves the basic indices to a view of self and collects the tensor indices.
Tensor apply_slicing(const Tensor& self, ArrayRef<TensorIndex> indices, std::vector<std::optional<Tensor>>& out) {
  const int64_t specified = count_specified(indices);
  CTORCH_CHECK_INDEX(specified <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Tensor result = self;
  int64_t dim = 0;
  int64_t real_dim = 0;
  for (const TensorIndex& idx : indices) {
    switch (idx.kind()) {
      case Kind::Integer:
        result = apply_select(result, dim, idx.integer(), real_dim);
        break;
      case Kind::Slice:
        result = apply_slice(result, dim, idx.slice());
        ++dim;
        break;
      case Kind::Ellipsis:
        dim += self.dim() - specified;
        break;
      case Kind::None:
        result = result.unsqueeze(dim);
        ++dim;
        break;
      case Kind::Boolean:
        result = result.unsqueeze(dim);
        record_index(bool_index_tensor(result, idx.boolean()), out, &dim);
        break;
      case Kind::Tensor: {
        const Tensor t = idx.tensor();
        const ScalarType st = t.dtype();
        if (t.dim() == 0 && is_integral(st, true)) {
          if (st != kByte && st != kBool) {
            result = apply_select(result, dim, t.item<int64_t>(), real_dim);
          } else {
            result = result.unsqueeze(dim);
            record_index(bool_index_tensor(result, t.item<bool>()), out, &dim);
          }
        } else {
          record_index(t, out, &dim);
        }
        break;
      }
    }
    ++real_dim;
  }
  return result;
}

bool any_defined(const std::vector<std::optional<Tensor>>& indices) {
  for (const auto& t : indices) {
    if (t && t->defined()) return true;
  }
  return false;
}

// Strips leading size-1 dims (slicePrefix1sSize), numpy's rule for assignment sources.
IntArrayRef strip_leading_ones(IntArrayRef sizes) {
  size_t first = 0;
  while (first < sizes.size() && sizes[first] == 1) ++first;
  return IntArrayRef(sizes.data() + first, sizes.size() - first);
}

// copy_to: dst (a view of self) = src with numpy assignment broadcasting.
void copy_to(Tensor dst, const Tensor& src, const Tensor& self) {
  if (src.requires_grad() && GradMode::is_enabled()) {
    if (ops::GradRecorder* r = ops::grad_recorder()) r->track_view(dst, self);
  }
  if (dst.sizes() == src.sizes()) {
    dst.copy_(src);
  } else if (src.dim() == 0 && src.is_cpu()) {
    dst.fill_(src);
  } else {
    const Tensor b_src = src.view(strip_leading_ones(src.sizes())).expand(dst.sizes());
    dst.copy_(b_src);
  }
}

}  // namespace

Slice::Slice(SliceBound start, SliceBound stop, SliceBound step) {
  step_ = step.value().value_or(1);
  CTORCH_CHECK_VALUE(step_ != 0, "slice step cannot be zero");
  start_ = start.value().value_or(step_ < 0 ? INDEX_MAX : 0);
  stop_ = stop.value().value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX);
}

std::ostream& operator<<(std::ostream& os, const Slice& s) {
  return os << s.start() << ":" << s.stop() << ":" << s.step();
}

TensorIndex::TensorIndex(const Tensor& tensor) : kind_(Kind::Tensor), tensor_(tensor.impl_ptr()) {
  CTORCH_CHECK(tensor.defined(), "TensorIndex: expected a defined tensor");
}

Tensor TensorIndex::tensor() const { return Tensor(tensor_); }

TensorIndex::TensorIndex(const char* text) : kind_(Kind::Ellipsis) {
  CTORCH_CHECK_VALUE(text != nullptr && std::strcmp(text, "...") == 0,
                     "Expected \"...\" to represent an ellipsis index, but got \"", text ? text : "(null)", "\"");
}

std::ostream& operator<<(std::ostream& os, const TensorIndex& index) {
  switch (index.kind()) {
    case TensorIndex::Kind::None:
      return os << "None";
    case TensorIndex::Kind::Ellipsis:
      return os << "...";
    case TensorIndex::Kind::Integer:
      return os << index.integer();
    case TensorIndex::Kind::Boolean:
      return os << (index.boolean() ? "true" : "false");
    case TensorIndex::Kind::Slice:
      return os << index.slice();
    case TensorIndex::Kind::Tensor:
      return os << index.tensor();
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, ArrayRef<TensorIndex> indices) {
  os << "(";
  for (size_t i = 0; i < indices.size(); ++i) os << (i ? ", " : "") << indices[i];
  return os << ")";
}

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  CTORCH_CHECK(!indices.empty(), "Passing an empty index list to Tensor::index() is not valid syntax");
  if (indices.size() == 1) {  // get_item's simple cases
    const TensorIndex& idx = indices[0];
    switch (idx.kind()) {
      case Kind::Integer:
        return apply_select(*this, 0, idx.integer(), 0);
      case Kind::Slice:
        return apply_slice(*this, 0, idx.slice());
      case Kind::None:
        return unsqueeze(0);
      case Kind::Ellipsis:
        return alias();
      case Kind::Boolean: {
        const Tensor result = unsqueeze(0);
        return ctorch::index(result, {bool_index_tensor(result, idx.boolean())});
      }
      case Kind::Tensor:
        break;
    }
  }
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor sliced = apply_slicing(*this, indices, tensor_indices);
  if (!any_defined(tensor_indices)) {
    // Like Python, always a new tensor object, even for x[...] or x[:].
    return sliced.is_same(*this) ? sliced.alias() : sliced;
  }
  return ctorch::index(sliced, tensor_indices);
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) {
  CTORCH_CHECK(!indices.empty(), "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  CTORCH_CHECK(value.defined(), "index_put_: value must be a defined tensor");
  if (indices.size() == 1) {  // set_item's simple cases
    const TensorIndex& idx = indices[0];
    switch (idx.kind()) {
      case Kind::Boolean:
        if (idx.boolean()) copy_to(unsqueeze(0), value, *this);
        return *this;
      case Kind::Ellipsis:
        copy_to(*this, value, *this);
        return *this;
      case Kind::None:
        copy_to(unsqueeze(0), value, *this);
        return *this;
      case Kind::Integer:
        copy_to(apply_select(*this, 0, idx.integer(), 0), value, *this);
        return *this;
      case Kind::Slice:
        copy_to(apply_slice(*this, 0, idx.slice()), value, *this);
        return *this;
      case Kind::Tensor:
        break;
    }
  }
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor sliced = apply_slicing(*this, indices, tensor_indices);
  if (!any_defined(tensor_indices)) {
    copy_to(sliced, value, *this);
    return *this;
  }
  const IntArrayRef stripped = strip_leading_ones(value.sizes());
  const Tensor values = stripped.size() == value.sizes().size() ? value : value.view(stripped);
  if (values.requires_grad() && GradMode::is_enabled()) {
    if (ops::GradRecorder* r = ops::grad_recorder()) r->track_view(sliced, *this);
  }
  sliced.index_put_(tensor_indices, values);
  return *this;
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) {
  CTORCH_CHECK(!indices.empty(), "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  // PyTorch wraps the scalar in a 0-dim cpu tensor of self's dtype (scalarToTensor).
  return index_put_(indices, full({}, value, TensorOptions().dtype(dtype())));
}

}  // namespace ctorch::api
