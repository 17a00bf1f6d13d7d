// View and shape ops: results share storage with their input.
//
// Semantics and messages follow PyTorch 1.13 (aten/src/ATen/native/TensorShape.cpp,
// InferSize.h, TensorUtils.cpp computeStride, ExpandUtils.cpp inferExpandGeometry).
// Every view is a fresh TensorImpl over the same Storage (so it shares the version
// counter) and never requires grad.
#include <algorithm>
#include <limits>

#include "ctorch/ops.h"
#include "ops/elementwise.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"
#include "tensor/allocation.h"

namespace ctorch::inline api {
namespace {

// A new impl over self's storage with the given geometry (no bounds checks: callers derive
// the geometry from self's valid one).
// The View funnel of the op boundary: observers see each view as `name` (ops/op_observer.h).
Tensor make_view(const char* name, const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  Tensor view(IntrusivePtr<TensorImpl>::make(self.impl()->storage(), self.dtype(), sizes, strides, offset));
  if (ops::observed()) ops::observe_view(name, self, view);
  return view;
}

Tensor make_view(const char* name, const Tensor& self, IntArrayRef sizes, IntArrayRef strides) {
  return make_view(name, self, sizes, strides, self.storage_offset());
}

// Records `view` of `self` for autograd when self requires grad (Note [Recording hook]); no
// launch, so nothing runs below grad mode.
template <class Args>
Tensor recorded_view(ops::GradFn fn, const Tensor& self, Tensor view, Args&& make_args) {
  if (ops::needs_grad({&self})) [[unlikely]] {
    if (ops::GradRecorder* r = ops::grad_recorder()) {
      ops::GradArgs g;
      make_args(g);
      r->record(fn, {&self}, view, g);
    }
  }
  return view;
}

Tensor recorded_view(ops::GradFn fn, const Tensor& self, Tensor view) {
  return recorded_view(fn, self, std::move(view), [](ops::GradArgs&) {});
}

// A new impl with self's geometry (PyTorch's alias()).
Tensor alias_of(const char* name, const Tensor& self) { return make_view(name, self, self.sizes(), self.strides()); }

// at::infer_size: resolves one -1 entry so the product equals numel.
DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector res(shape);
  int64_t newsize = 1;
  int64_t infer_dim = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      CTORCH_CHECK(infer_dim < 0, "only one dimension can be inferred");
      infer_dim = static_cast<int64_t>(d);
    } else if (shape[d] >= 0) {
      newsize *= shape[d];
    } else {
      CTORCH_CHECK(false, "invalid shape dimension ", shape[d]);
    }
  }
  if (numel == newsize || (infer_dim >= 0 && newsize > 0 && numel % newsize == 0)) {
    if (infer_dim >= 0) {
      CTORCH_CHECK(newsize != 0, "cannot reshape tensor of 0 elements into shape ", shape,
                   " because the unspecified dimension size -1 can be any value and is ambiguous");
      res[infer_dim] = numel / newsize;
    }
    return res;
  }
  CTORCH_CHECK(false, "shape '", shape, "' is invalid for input of size ", numel);
  return res;  // unreachable
}

// at::detail::computeStride: strides that let `newshape` view memory laid out as
// (oldshape, oldstride), or nullopt when some new dim would span two non-mergeable chunks.
std::optional<DimVector> compute_stride(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape) {
  const int64_t new_ndim = static_cast<int64_t>(newshape.size());
  if (oldshape.empty()) return DimVector(newshape.size(), 1);
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0 && oldshape == newshape) return DimVector(oldstride);
  DimVector newstride(newshape.size());
  if (numel == 0) {
    for (int64_t d = new_ndim - 1; d >= 0; --d) {
      newstride[d] = d == new_ndim - 1 ? 1 : std::max<int64_t>(newshape[d + 1], 1) * newstride[d + 1];
    }
    return newstride;
  }
  int64_t view_d = new_ndim - 1;
  int64_t chunk_base_stride = oldstride.back();  // stride of the innermost dim of the current chunk
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    // End of a contiguous chunk: the view dims covering it must multiply to its numel.
    if (tensor_d == 0 ||
        (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

// "torch.FloatTensor" / "torch.cuda.FloatTensor", as PyTorch prints a tensor type in messages.
std::string legacy_type_name(const Tensor& t) {
  return std::string(t.is_cuda() ? "torch.cuda." : "torch.") + scalar_type_cpp_name(t.dtype()) + "Tensor";
}

}  // namespace

Tensor Tensor::as_strided(IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) const {
  CTORCH_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  CTORCH_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  for (size_t i = 0; i < size.size(); ++i) {
    CTORCH_CHECK(size[i] >= 0, "Trying to create tensor with negative dimension ", size[i], ": ", size);
    CTORCH_CHECK(stride[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
                 stride);
  }
  // c10's checkInBoundsForStorage: the bytes the view needs, with overflow checked.
  const size_t needed = storage_nbytes(size, stride, static_cast<size_t>(element_size()), offset);
  const size_t available = impl()->storage()->nbytes();
  CTORCH_CHECK(needed <= available, "setStorage: sizes ", size, ", strides ", stride, " in storage offset ", offset,
               " and itemsize ", element_size(), " requiring a storage size of ", needed,
               " are out of bounds for storage of size ", available);
  return recorded_view(ops::GradFn::AsStrided, *this, make_view("as_strided", *this, size, stride, offset),
                       [&](ops::GradArgs& a) {
                         a.dims = DimVector(size);
                         a.strides = DimVector(stride);
                         a.start = offset;
                         a.self_strides = DimVector(this->strides());
                         a.self_offset = this->storage_offset();
                         a.self_storage = static_cast<int64_t>(impl()->storage()->nbytes() / element_size());
                       });
}

Tensor Tensor::alias() const {
  return recorded_view(ops::GradFn::Alias, *this, make_view("alias", *this, sizes(), strides(), storage_offset()));
}

// ---- view / reshape ------------------------------------------------------------------------

Tensor Tensor::view(IntArrayRef size) const {
  const DimVector shape = infer_size(size, numel());
  const std::optional<DimVector> stride = compute_stride(sizes(), strides(), shape);
  CTORCH_CHECK(stride.has_value(),
               "view size is not compatible with input tensor's size and stride (at least one dimension spans "
               "across two contiguous subspaces). Use .reshape(...) instead.");
  return recorded_view(ops::GradFn::View, *this, make_view("view", *this, shape, *stride));
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  if (is_contiguous()) return view(shape);
  const DimVector inferred = infer_size(shape, numel());
  if (std::optional<DimVector> stride = compute_stride(sizes(), strides(), inferred)) {
    return recorded_view(ops::GradFn::View, *this, make_view("reshape", *this, inferred, *stride));
  }
  // Not viewable: a contiguous copy, then a view of it.
  return contiguous().view(inferred);
}

Tensor Tensor::view_as(const Tensor& other) const { return view(other.sizes()); }

Tensor Tensor::reshape_as(const Tensor& other) const { return reshape(other.sizes()); }

// ---- dimension reordering ------------------------------------------------------------------

Tensor Tensor::permute(IntArrayRef dims) const {
  const int64_t ndim = dim();
  CTORCH_CHECK(ndim == static_cast<int64_t>(dims.size()),
               "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
               "desired ordering of dimensions i.e. input.dim() = ",
               ndim, " is not equal to len(dims) = ", dims.size());
  DimVector new_sizes(ndim), new_strides(ndim);
  std::vector<bool> seen(ndim, false);
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t d = ops::wrap_dim(dims[i], ndim);
    CTORCH_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    new_sizes[i] = sizes()[d];
    new_strides[i] = strides()[d];
  }
  return recorded_view(ops::GradFn::Permute, *this, make_view("permute", *this, new_sizes, new_strides),
                       [&](ops::GradArgs& g) { g.dims = ops::wrapped_dims(dims, ndim); });
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  const int64_t ndim = dim();
  dim0 = ops::wrap_dim(dim0, ndim);
  dim1 = ops::wrap_dim(dim1, ndim);
  DimVector new_sizes(sizes()), new_strides(strides());
  std::swap(new_sizes[dim0], new_sizes[dim1]);
  std::swap(new_strides[dim0], new_strides[dim1]);
  return recorded_view(ops::GradFn::Transpose, *this, make_view("transpose", *this, new_sizes, new_strides),
                       [&](ops::GradArgs& g) {
                         g.dim = dim0;
                         g.dim1 = dim1;
                       });
}

Tensor Tensor::t() const {
  CTORCH_CHECK(dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  if (!ops::needs_grad({this})) [[likely]] return transpose(0, dim() < 2 ? 0 : 1);
  Tensor view;
  {
    AutoGradMode below(false);
    view = transpose(0, dim() < 2 ? 0 : 1);
  }
  return recorded_view(ops::GradFn::T, *this, view);
}

// ---- adding and removing size-1 dims ---------------------------------------------------------

Tensor Tensor::squeeze() const {
  DimVector new_sizes, new_strides;
  for (int64_t d = 0; d < dim(); ++d) {
    if (sizes()[d] != 1) {
      new_sizes.push_back(sizes()[d]);
      new_strides.push_back(strides()[d]);
    }
  }
  return recorded_view(ops::GradFn::Squeeze, *this, make_view("squeeze", *this, new_sizes, new_strides));
}

Tensor Tensor::squeeze(int64_t dim) const {
  const int64_t ndim = this->dim();
  dim = ops::wrap_dim(dim, ndim);
  if (ndim == 0 || sizes()[dim] != 1) {
    return recorded_view(ops::GradFn::SqueezeDim, *this, alias_of("squeeze", *this));
  }
  DimVector new_sizes(sizes()), new_strides(strides());
  new_sizes.erase(dim);
  new_strides.erase(dim);
  return recorded_view(ops::GradFn::SqueezeDim, *this, make_view("squeeze", *this, new_sizes, new_strides));
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  const int64_t ndim = this->dim();
  dim = ops::wrap_dim(dim, ndim + 1);
  DimVector new_sizes(sizes()), new_strides(strides());
  const int64_t new_stride = dim >= ndim ? 1 : sizes()[dim] * strides()[dim];
  new_sizes.insert(dim, 1);
  new_strides.insert(dim, new_stride);
  return recorded_view(ops::GradFn::Unsqueeze, *this, make_view("unsqueeze", *this, new_sizes, new_strides),
                       [&](ops::GradArgs& g) { g.dim = dim; });
}

// ---- broadcasting -----------------------------------------------------------------------------

Tensor Tensor::expand(IntArrayRef size) const {
  const int64_t ndim = static_cast<int64_t>(size.size());
  const int64_t tensor_dim = dim();
  CTORCH_CHECK(ndim >= tensor_dim, "expand(", legacy_type_name(*this), "{", sizes(), "}, size=", size,
               "): the number of sizes provided (", size.size(),
               ") must be greater or equal to the number of dimensions in the tensor (", tensor_dim, ")");
  DimVector new_sizes(ndim), new_strides(ndim);
  if (tensor_dim == 0) {
    // PyTorch copies the target sizes verbatim for a 0-dim tensor.
    for (int64_t i = 0; i < ndim; ++i) new_sizes[i] = size[i];
  } else {
    for (int64_t i = ndim - 1; i >= 0; --i) {
      const int64_t d = tensor_dim - 1 - (ndim - 1 - i);
      int64_t sz = d >= 0 ? sizes()[d] : 1;
      int64_t st = d >= 0 ? strides()[d] : new_sizes[i + 1] * new_strides[i + 1];
      int64_t target = size[i];
      if (target == -1) {
        CTORCH_CHECK(d >= 0, "The expanded size of the tensor (", target,
                     ") isn't allowed in a leading, non-existing dimension ", i);
        target = sz;
      }
      if (sz != target) {
        CTORCH_CHECK(sz == 1, "The expanded size of the tensor (", target, ") must match the existing size (", sz,
                     ") at non-singleton dimension ", i, ".  Target sizes: ", size, ".  Tensor sizes: ", sizes());
        sz = target;
        st = 0;
      }
      new_sizes[i] = sz;
      new_strides[i] = st;
    }
  }
  for (int64_t s : new_sizes) {
    CTORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", IntArrayRef(new_sizes));
  }
  return recorded_view(ops::GradFn::Expand, *this, make_view("expand", *this, new_sizes, new_strides));
}

Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.sizes()); }

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  const int64_t ndim = dim();
  start_dim = ops::wrap_dim(start_dim, ndim);
  end_dim = ops::wrap_dim(end_dim, ndim);
  CTORCH_CHECK(start_dim <= end_dim, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (ndim == 0) return reshape({1});
  if (start_dim == end_dim) return *this;
  // The flattened size is computed directly (not as -1) so empty dims stay unambiguous.
  int64_t slice_numel = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) slice_numel *= sizes()[d];
  DimVector shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(sizes()[d]);
  shape.push_back(slice_numel);
  for (int64_t d = end_dim + 1; d < ndim; ++d) shape.push_back(sizes()[d]);
  return reshape(shape);
}

// ---- sub-ranges ---------------------------------------------------------------------------------

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  CTORCH_CHECK(this->dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t cur_size = size(dim);
  // start == size is a valid (empty) start but not a valid "dim" for wrapping.
  if (start != cur_size) start = ops::wrap_dim(start, cur_size);
  CTORCH_CHECK(length >= 0 && start <= cur_size - length, "start (", start, ") + length (", length,
               ") exceeds dimension size (", cur_size, ").");
  return slice(dim, start, start + length, 1);
}

Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  const int64_t ndim = this->dim();
  CTORCH_CHECK_INDEX(ndim != 0, "slice() cannot be applied to a 0-dim tensor.");
  dim = ops::wrap_dim(dim, ndim);
  CTORCH_CHECK(step > 0, "slice step must be positive");
  const int64_t size = sizes()[dim];
  int64_t start_val = start.value_or(0);
  int64_t end_val = end.value_or(std::numeric_limits<int64_t>::max());
  if (start_val == std::numeric_limits<int64_t>::max()) start_val = 0;
  if (start_val < 0) start_val += size;
  if (end_val < 0) end_val += size;
  if (start_val < 0) {
    start_val = 0;
  } else if (start_val >= size) {
    start_val = size;
  }
  if (end_val < start_val) {
    end_val = start_val;
  } else if (end_val >= size) {
    end_val = size;
  }
  const int64_t len = end_val - start_val;
  DimVector new_sizes(sizes()), new_strides(strides());
  new_sizes[dim] = len == 0 ? 0 : (len - 1) / step + 1;  // ceil(len / step) without overflow
  // Wrapping multiply: a huge step only matters when the dim has at most one element.
  new_strides[dim] = static_cast<int64_t>(static_cast<uint64_t>(new_strides[dim]) * static_cast<uint64_t>(step));
  return recorded_view(ops::GradFn::Slice, *this,
                       make_view("slice", *this, new_sizes, new_strides, storage_offset() + start_val * strides()[dim]),
                       [&](ops::GradArgs& g) {
                         g.dim = dim;
                         g.start = start_val;
                         g.end = end_val;
                         g.step = step;
                       });
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  const int64_t ndim = this->dim();
  CTORCH_CHECK_INDEX(ndim != 0, "select() cannot be applied to a 0-dim tensor.");
  dim = ops::wrap_dim(dim, ndim);
  const int64_t size = sizes()[dim];
  CTORCH_CHECK_INDEX(index >= -size && index < size, "select(): index ", index, " out of range for tensor of size ",
                     sizes(), " at dimension ", dim);
  if (index < 0) index += size;
  DimVector new_sizes(sizes()), new_strides(strides());
  new_sizes.erase(dim);
  new_strides.erase(dim);
  return recorded_view(ops::GradFn::Select, *this,
                       make_view("select", *this, new_sizes, new_strides, storage_offset() + index * strides()[dim]),
                       [&](ops::GradArgs& g) {
                         g.dim = dim;
                         g.start = index;
                       });
}

// ---- splitting ----------------------------------------------------------------------------------

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  CTORCH_CHECK(this->dim() > 0, "chunk expects at least a 1-dimensional tensor");
  CTORCH_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t dim_size = size(dim);
  const int64_t split_size = dim_size / chunks + (dim_size % chunks != 0);  // ceil, without overflow
  // An empty dim still yields `chunks` (empty) pieces.
  if (split_size == 0 && dim_size == 0) {
    CTORCH_CHECK(static_cast<uint64_t>(chunks) <= (uint64_t{1} << 32),
                 "chunk: cannot return ", chunks, " empty chunks (at most 2^32 pieces are supported)");
    std::vector<int64_t> split_sizes(static_cast<size_t>(chunks), 0);
    return split(IntArrayRef(split_sizes), dim);
  }
  return split(split_size, dim);
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  CTORCH_CHECK(this->dim() != 0, "split expects at least a 1-dimensional tensor");
  CTORCH_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t dim_size = size(dim);
  CTORCH_CHECK(split_size > 0 || dim_size == 0,
               "split_size can only be 0 if dimension size is 0, but got dimension size of ", dim_size);
  int64_t num_splits = 1;
  if (split_size != 0) num_splits = std::max<int64_t>(dim_size / split_size + (dim_size % split_size != 0), 1);
  const int64_t last_split_size = dim_size - split_size * (num_splits - 1);  // no overflow: <= dim_size
  std::vector<Tensor> splits;
  splits.reserve(num_splits);
  for (int64_t i = 0; i < num_splits; ++i) {
    splits.push_back(narrow(dim, i * split_size, i < num_splits - 1 ? split_size : last_split_size));
  }
  return splits;
}

std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const {
  CTORCH_CHECK(this->dim() != 0, "split expects at least a 1-dimensional tensor");
  const int64_t dim_size = size(dim);
  std::vector<Tensor> splits;
  splits.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t length : split_sizes) {
    CTORCH_CHECK(length >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got "
                 "split_sizes=", split_sizes);
    splits.push_back(narrow(dim, start, length));
    start += length;
  }
  CTORCH_CHECK(start == dim_size, "split_with_sizes expects split_sizes to sum exactly to ", dim_size,
               " (input tensor's size at dimension ", dim, "), but got split_sizes=", split_sizes);
  return splits;
}

std::vector<Tensor> Tensor::unbind(int64_t dim) const {
  const int64_t ndim = this->dim();
  dim = ops::wrap_dim(dim, ndim);
  CTORCH_CHECK_INDEX(ndim != 0, "dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t n = sizes()[dim];
  std::vector<Tensor> out;
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) out.push_back(select(dim, i));
  return out;
}

}  // namespace ctorch::api
