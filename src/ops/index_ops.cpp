// Advanced indexing: aten::index and aten::index_put_ (PyTorch 1.13's TensorAdvancedIndexing.cpp,
// IndexingUtils.h), over the gather/scatter kernels (KernelTable::index_gather / index_scatter).
//
// The index list holds one optional tensor per leading dim of self (absent: the dim is not indexed).
// Masks (bool, uint8) become their nonzero() columns; the tensors broadcast together; when they are
// not adjacent, self's indexed dims move to the front; the result is self's dims before the indexed
// ones, the broadcast index shape, then self's dims after them.
//
// Note [Index bounds on the host]
// Every index value is checked on the host before the launch, so an out-of-range index fails with
// PyTorch's error and leaves every tensor unchanged, on every device. A device index is copied to
// the host for that (a synchronizing copy, as PyTorch's nonzero and masked ops synchronize; its
// CUDA index kernels assert on the device instead). The kernels check again and skip such an element.
#include <algorithm>
#include <sstream>

#include "core/wrap_dim.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ctorch/warning.h"
#include "ops/grad_hook.h"
#include "ops/index_plan.h"
#include "ops/launch.h"

namespace ctorch::inline api::ops {

namespace {

int64_t byte_extent(const Tensor& t) {
  if (t.numel() == 0) return 0;
  int64_t elems = 1;
  for (int64_t d = 0; d < t.dim(); ++d) elems += (t.sizes()[d] - 1) * t.strides()[d];
  return elems * t.element_size();
}

}  // namespace

kernels::IndexPlan make_index_plan(const IndexGeometry& g, char** data) {
  const int ndim = static_cast<int>(g.shape.size());
  const int nindices = static_cast<int>(g.indices.size());
  CTORCH_CHECK(ndim <= kernels::kMaxDims, "[index] at most ", kernels::kMaxDims, " dims are supported, got ", ndim);
  CTORCH_CHECK(nindices <= kernels::kMaxIndexTensors, "[index] at most ", kernels::kMaxIndexTensors,
               " index tensors are supported, got ", nindices);
  kernels::IndexPlan p;
  p.ndim = ndim;
  p.nindices = nindices;
  p.wrap_negative = g.wrap_negative;
  p.numel = 1;
  for (int64_t s : g.shape) p.numel *= s;
  const int64_t es = g.indexed.element_size();
  const int64_t des = g.dense.element_size();
  for (int d = 0; d < ndim; ++d) {
    const int td = ndim - 1 - d;  // fastest-first
    p.shape[d] = g.shape[td];
    p.strides[0][d] = g.indexed_strides[td] * es;
    p.strides[1][d] = g.dense.strides()[td] * des;
    for (int k = 0; k < nindices; ++k) p.strides[2 + k][d] = g.indices[k].strides()[td] * 8;
  }
  for (int k = 0; k < nindices; ++k) {
    p.indexed_size[k] = g.indexed_sizes[k];
    p.indexed_stride[k] = g.indexed_dim_strides[k] * es;
  }
  p.extent[0] = byte_extent(g.indexed);
  p.extent[1] = byte_extent(g.dense);
  data[0] = static_cast<char*>(g.indexed.data_ptr());
  data[1] = static_cast<char*>(g.dense.data_ptr());
  for (int k = 0; k < nindices; ++k) {
    p.extent[2 + k] = byte_extent(g.indices[k]);
    data[2 + k] = static_cast<char*>(g.indices[k].data_ptr());
  }
  return p;
}

std::optional<int64_t> first_out_of_range(const Tensor& index, int64_t lo, int64_t hi) {
  if (index.numel() == 0) return std::nullopt;
  for (int64_t v : index.to_vector<int64_t>()) {
    if (v < lo || v >= hi) return v;
  }
  return std::nullopt;
}

void check_same_device(const Tensor& self, const Tensor& t) {
  if (t.device() == self.device()) return;
  Device a = self.device(), b = t.device();
  if (a.is_cpu()) std::swap(a, b);
  CTORCH_CHECK(false, "Expected all tensors to be on the same device, but found at least two devices, ", a, " and ",
               b, "!");
}

void warn_uint8_index() {
  warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.");
}

namespace {

// make_info + AdvancedIndex: the geometry of self indexed by `orig`, with `dense` left for the caller.
struct AdvancedIndex {
  Tensor src;                         // self, permuted when the indices are not adjacent
  Tensor packed;                      // the broadcast index tensors, stacked: [k, *replacement]
  std::vector<int64_t> result_shape;  // before + replacement + after
  IndexGeometry geometry;             // everything but dense
};

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kByte; }

std::string shapes_as_str(const std::vector<Tensor>& tensors) {
  std::ostringstream os;
  bool first = true;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    os << (first ? "" : ", ") << t.sizes();
    first = false;
  }
  return os.str();
}

// IndexingUtils.h expandTensors: masks become their nonzero() columns.
std::vector<Tensor> expand_masks(const Tensor& self, const std::vector<std::optional<Tensor>>& orig) {
  std::vector<Tensor> result;
  for (const std::optional<Tensor>& entry : orig) {
    if (!entry || !entry->defined()) {
      result.emplace_back();
      continue;
    }
    const Tensor& index = *entry;
    if (!is_mask(index)) {
      result.push_back(index);
      continue;
    }
    if (index.dtype() == kByte) warn_uint8_index();
    for (int64_t j = 0; j < index.dim(); ++j) {
      const int64_t src_idx = static_cast<int64_t>(result.size()) + j;
      if (src_idx >= self.dim() || index.size(j) != self.size(src_idx)) {
        CTORCH_CHECK_INDEX(false, "The shape of the mask ", index.sizes(), " at index ", j,
                           " does not match the shape of the indexed tensor ", self.sizes(), " at index ", src_idx);
      }
    }
    const Tensor nz = index.nonzero();
    for (int64_t j = 0; j < index.dim(); ++j) result.push_back(nz.select(1, j));
  }
  return result;
}

bool has_contiguous_subspace(const std::vector<Tensor>& list) {
  int first = -1, last = -1;
  for (int i = 0; i < static_cast<int>(list.size()); ++i) {
    if (!list[i].defined()) continue;
    if (first < 0) first = i;
    last = i;
  }
  for (int i = first; i >= 0 && i <= last; ++i) {
    if (!list[i].defined()) return false;
  }
  return true;
}

AdvancedIndex make_info(const Tensor& self, const std::vector<std::optional<Tensor>>& orig) {
  CTORCH_CHECK_INDEX(static_cast<int64_t>(orig.size()) <= self.dim(), "too many indices for tensor of dimension ",
                     self.dim(), " (got ", orig.size(), ")");
  for (const std::optional<Tensor>& entry : orig) {
    if (!entry || !entry->defined()) continue;
    const ScalarType t = entry->dtype();
    CTORCH_CHECK_INDEX(t == kLong || t == kByte || t == kBool,
                       "tensors used as indices must be long, byte or bool tensors");
    CTORCH_CHECK(entry->is_cpu() || entry->device() == self.device(), "indices should be either on cpu or on the same "
                 "device as the indexed tensor (", self.device(), ")");
  }
  std::vector<Tensor> list = expand_masks(self, orig);
  // Broadcast the index tensors together.
  std::vector<Tensor> defined;
  for (const Tensor& t : list) {
    if (t.defined()) defined.push_back(t);
  }
  DimVector shape;
  try {
    bool first = true;
    for (const Tensor& t : defined) {
      shape = first ? DimVector(t.sizes()) : broadcast_shapes(shape, t.sizes());
      first = false;
    }
  } catch (const Error&) {
    CTORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                       shapes_as_str(list));
  }
  while (static_cast<int64_t>(list.size()) < self.dim()) list.emplace_back();
  CTORCH_CHECK_INDEX(static_cast<int64_t>(list.size()) <= self.dim(), "too many indices for tensor of dimension ",
                     self.dim(), " (got ", list.size(), ")");
  AdvancedIndex info;
  info.src = self;
  if (!has_contiguous_subspace(list)) {  // transposeToFront
    std::vector<int64_t> dims;
    std::vector<Tensor> moved;
    for (int pass = 0; pass < 2; ++pass) {
      for (int64_t i = 0; i < self.dim(); ++i) {
        if (list[i].defined() == (pass == 0)) {
          dims.push_back(i);
          moved.push_back(list[i]);
        }
      }
    }
    info.src = self.permute(dims);
    list = std::move(moved);
  }
  const Tensor& src = info.src;
  int64_t before = 0, after = 0, indexed = 0;
  IndexGeometry& g = info.geometry;
  for (int64_t d = 0; d < src.dim(); ++d) {
    if (!list[d].defined()) {
      (indexed == 0 ? before : after) += 1;
    } else {
      ++indexed;
      g.indexed_sizes.push_back(src.size(d));
      g.indexed_dim_strides.push_back(src.stride(d));
    }
  }
  const bool empty_dim = std::find(g.indexed_sizes.begin(), g.indexed_sizes.end(), 0) != g.indexed_sizes.end();
  const bool empty_index = std::find(shape.begin(), shape.end(), 0) != shape.end();
  CTORCH_CHECK_INDEX(!empty_dim || empty_index, "index is out of bounds for dimension with size 0");
  // Host bounds check (Note [Index bounds on the host]); the dimension named is the index's position.
  for (size_t k = 0; k < defined.size(); ++k) {
    const int64_t size = g.indexed_sizes[k];
    if (auto bad = first_out_of_range(defined[k], -size, size)) {
      CTORCH_CHECK_INDEX(false, "index ", *bad, " is out of bounds for dimension ", k, " with size ", size);
    }
  }
  // Result shape and the restrided source (restride_src).
  for (int64_t d = 0; d < before; ++d) {
    info.result_shape.push_back(src.size(d));
    g.indexed_strides.push_back(src.stride(d));
  }
  for (int64_t s : shape) {
    info.result_shape.push_back(s);
    g.indexed_strides.push_back(0);
  }
  for (int64_t d = before + indexed; d < src.dim(); ++d) {
    info.result_shape.push_back(src.size(d));
    g.indexed_strides.push_back(src.stride(d));
  }
  // The index tensors, stacked on self's device, each viewed over the result shape (reshape_indexer).
  std::vector<Tensor> broadcast;
  for (const Tensor& t : defined) broadcast.push_back(t.to(src.device()).expand(shape));
  info.packed = defined.empty() ? Tensor() : stack(broadcast, 0);
  std::vector<int64_t> view_shape(static_cast<size_t>(before), 1);
  view_shape.insert(view_shape.end(), shape.begin(), shape.end());
  view_shape.insert(view_shape.end(), static_cast<size_t>(after), 1);
  for (size_t k = 0; k < defined.size(); ++k) {
    g.indices.push_back(info.packed.select(0, static_cast<int64_t>(k)).view(view_shape).expand(info.result_shape));
  }
  g.indexed = src;
  g.shape = info.result_shape;
  g.wrap_negative = true;
  return info;
}

}  // namespace

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  if (needs_grad({&self})) [[unlikely]] {
    return recorded(
        GradFn::Index, {&self}, [&] { return ops::index(self, indices); },
        [&](GradArgs& g) { g.index_list = indices; });
  }
  AdvancedIndex info = make_info(self, indices);
  Tensor result = empty(info.result_shape, self.options());
  if (result.numel() == 0) return result;
  IndexGeometry& g = info.geometry;
  g.dense = result;
  char* data[kernels::kMaxIndexOperands];
  const kernels::IndexPlan plan = make_index_plan(g, data);
  const Tensor& packed = info.packed.defined() ? info.packed : result;
  launch_index_gather("index", self.dtype(), plan, data, self.device(),
                      CTORCH_OPERANDS({result, nullptr, true, true}, {self, "self"}, {packed, "indices"}));
  return result;
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  return self.clone().index_put_(indices, values, accumulate);
}

}  // namespace ctorch::api::ops

namespace ctorch::inline api {

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  return ops::index(self, indices);
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  return ops::index_put(self, indices, values, accumulate);
}

Tensor& Tensor::index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) {
  CTORCH_CHECK(values.defined(), "index_put_: values must be a defined tensor");
  if (ops::needs_grad({this, &values})) [[unlikely]] {
    return ops::recorded_inplace(
        ops::GradFn::IndexPut, *this, {&values}, [&] { index_put_(indices, values, accumulate); },
        [&](ops::GradArgs& g) {
          g.index_list = indices;
          g.accumulate = accumulate;
        });
  }
  // PyTorch moves a 0-dim value to self's device; ctorch moves any value (as copy_ would).
  const Tensor value = values.device() == device() ? values : values.to(device());
  ops::AdvancedIndex info = ops::make_info(*this, indices);
  ops::IndexGeometry& g = info.geometry;
  CTORCH_CHECK(value.dtype() == dtype(), "Index put requires the source and destination dtypes match, got ",
               scalar_type_cpp_name(dtype()), " for the destination and ", scalar_type_cpp_name(value.dtype()),
               " for the source.");
  Tensor dense;
  try {
    dense = value.expand(info.result_shape);
  } catch (const Error&) {
    CTORCH_CHECK(false, "shape mismatch: value tensor of shape ", value.sizes(),
                 " cannot be broadcast to indexing result of shape ", IntArrayRef(info.result_shape));
  }
  int64_t numel = 1;
  for (int64_t s : info.result_shape) numel *= s;
  if (numel == 0) return *this;
  g.dense = dense;
  char* data[kernels::kMaxIndexOperands];
  const kernels::IndexPlan plan = ops::make_index_plan(g, data);
  const Tensor& packed = info.packed.defined() ? info.packed : value;
  ops::launch_index_scatter("index_put_", dtype(), accumulate, 1, plan, data, device(),
                            CTORCH_OPERANDS({*this, "self", true}, {value, "values"}, {packed, "indices"}));
  impl()->storage()->bump_version();
  return *this;
}

}  // namespace ctorch::api
