// Basic indexing: Tensor.__getitem__ / __setitem__ with integers, slices, None and Ellipsis.
//
// Follows PyTorch 1.13's aten/src/ATen/TensorIndexing.h (get_item, set_item, applySlicing,
// copy_to): the result of index() is always a view sharing storage with self; index_put_
// writes through such a view with copy_ / fill_.
#include "ctorch/indexing.h"

#include <cstring>
#include <ostream>

#include "ctorch/ops.h"

namespace ctorch {
namespace {

using Kind = TensorIndex::Kind;

Tensor alias_of(const Tensor& t) {
  return Tensor(IntrusivePtr<TensorImpl>::make(t.impl()->storage(), t.dtype(), t.sizes(), t.strides(),
                                               t.storage_offset()));
}

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

// A boolean index adds a dim of size 1 (true: all of it, false: none of it) at `dim`. PyTorch
// indexes that dim with a [0] or [] index tensor (a copy); ctorch returns the equal view.
Tensor apply_boolean(const Tensor& t, int64_t dim, bool value) {
  const Tensor result = t.unsqueeze(dim);
  return value ? result : result.narrow(dim, 0, 0);
}

// Resolves the indices to a view of self (get_item without the final alias).
Tensor apply_indices(const Tensor& self, ArrayRef<TensorIndex> indices) {
  if (indices.size() == 1) {
    const TensorIndex& idx = *indices.begin();
    switch (idx.kind()) {
      case Kind::Integer:
        return apply_select(self, 0, idx.integer(), 0);
      case Kind::Slice:
        return apply_slice(self, 0, idx.slice());
      case Kind::None:
        return self.unsqueeze(0);
      case Kind::Ellipsis:
        return self;
      case Kind::Boolean:
        return apply_boolean(self, 0, idx.boolean());
    }
  }
  int64_t specified = 0;
  for (const TensorIndex& idx : indices) {
    if (idx.kind() == Kind::Integer || idx.kind() == Kind::Slice) ++specified;
  }
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
        result = apply_boolean(result, dim, idx.boolean());
        ++dim;
        break;
    }
    ++real_dim;
  }
  return result;
}

// Strips leading size-1 dims (slicePrefix1sSize), numpy's rule for assignment sources.
IntArrayRef strip_leading_ones(IntArrayRef sizes) {
  size_t first = 0;
  while (first < sizes.size() && sizes[first] == 1) ++first;
  return IntArrayRef(sizes.data() + first, sizes.size() - first);
}

// copy_to: dst = src with numpy assignment broadcasting.
void copy_to(Tensor dst, const Tensor& src) {
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
  Tensor result = apply_indices(*this, indices);
  // Like Python, always a new tensor object, even for x[...] or x[:].
  return result.is_same(*this) ? alias_of(result) : result;
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) {
  CTORCH_CHECK(!indices.empty(), "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  CTORCH_CHECK(value.defined(), "index_put_: value must be a defined tensor");
  copy_to(apply_indices(*this, indices), value);
  return *this;
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) {
  CTORCH_CHECK(!indices.empty(), "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  // PyTorch wraps the scalar in a 0-dim tensor of self's dtype and fills the target.
  Tensor dst = apply_indices(*this, indices);
  dst.fill_(value);
  return *this;
}

}  // namespace ctorch
