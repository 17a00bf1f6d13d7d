// index_select, gather, scatter_, scatter_add_, index_add_, masked_fill_, masked_select and nonzero,
// with PyTorch 1.13's checks and messages (TensorAdvancedIndexing.cpp, ScatterGatherChecks.h). The
// first five run the gather/scatter kernels (Note [Index plan]); index values are checked on the
// host first (Note [Index bounds on the host] in index_ops.cpp). masked_fill_ is a where();
// masked_select and nonzero compute the positions on the host.
#include <algorithm>

#include "core/wrap_dim.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ctorch/warning.h"
#include "ops/grad_hook.h"
#include "ops/index_plan.h"
#include "ops/launch.h"

namespace ctorch::inline api {

namespace {

// At least one dim: a 0-dim tensor as a 1-element 1-d view (ensure_nonempty_dim).
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }

std::vector<int64_t> strides_without(const Tensor& t, int64_t dim) {
  std::vector<int64_t> s(t.strides().begin(), t.strides().end());
  s[static_cast<size_t>(dim)] = 0;
  return s;
}

// `index` (1-d, numel n) viewed over `shape` (shape[dim] == n), advancing along dim only.
Tensor along_dim(const Tensor& index, const std::vector<int64_t>& shape, int64_t dim) {
  std::vector<int64_t> v(shape.size(), 1);
  v[static_cast<size_t>(dim)] = index.numel();
  return index.reshape(v).expand(shape);
}

// Shared by scatter_ and scatter_add_: checks, host bounds check, launch.
Tensor& scatter_impl(Tensor& self, const char* name, int64_t dim, const Tensor& index, const Tensor& src,
                     bool accumulate) {
  dim = detail::wrap_dim(dim, self.dim());
  if (index.numel() != 0) CTORCH_CHECK(index.dtype() == kLong, "scatter(): Expected dtype int64 for index");
  CTORCH_CHECK(self.dtype() == src.dtype(), "scatter(): Expected self.dtype to be equal to src.dtype");
  ops::check_same_device(self, index);
  ops::check_same_device(self, src);
  if (index.numel() == 0) return self;
  const int64_t nd = std::max<int64_t>(1, self.dim());
  CTORCH_CHECK(nd == std::max<int64_t>(1, index.dim()),
               "Index tensor must have the same number of dimensions as self tensor");
  CTORCH_CHECK(std::max<int64_t>(1, src.dim()) == std::max<int64_t>(1, index.dim()),
               "Index tensor must have the same number of dimensions as src tensor");
  for (int64_t d = 0; d < nd; ++d) {
    const bool fits = (d == dim || nonempty_size(index, d) <= nonempty_size(self, d)) &&
                      nonempty_size(index, d) <= nonempty_size(src, d);
    CTORCH_CHECK(fits, "Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                 " apart from dimension ", dim, " and to be smaller size than src ", src.sizes());
  }
  const Tensor self1 = at_least_1d(self), index1 = at_least_1d(index), src1 = at_least_1d(src);
  const int64_t size = self1.size(dim);
  if (auto bad = ops::first_out_of_range(index1, 0, size)) {
    CTORCH_CHECK(false, "index ", *bad, " is out of bounds for dimension ", dim, " with size ", size);
  }
  ops::IndexGeometry g;
  g.indexed = self1;
  g.shape.assign(index1.sizes().begin(), index1.sizes().end());
  g.indexed_strides = strides_without(self1, dim);
  g.dense = src1.as_strided(index1.sizes(), src1.strides());
  g.indices = {index1};
  g.indexed_sizes = {size};
  g.indexed_dim_strides = {self1.stride(dim)};
  char* data[kernels::kMaxIndexOperands];
  const kernels::IndexPlan plan = ops::make_index_plan(g, data);
  ops::launch_index_scatter(name, self.dtype(), accumulate, 1, plan, data, self.device(),
                            CTORCH_OPERANDS({self, "self", true}, {index, "index"}, {src, "src"}));
  self.impl()->storage()->bump_version();
  return self;
}

// Records the in-place scatter-like op `fn` (Note [Recording hook]) when an operand requires grad.
template <class Impl>
Tensor& recorded_scatter(ops::GradFn fn, Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         const Scalar& alpha, Impl&& impl) {
  if (!ops::needs_grad({&self, &src})) [[likely]] return impl();
  return ops::recorded_inplace(fn, self, {&src}, impl, [&](ops::GradArgs& g) {
    g.dim = detail::wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
    g.indices = index;
    g.alpha = alpha;
  });
}

void check_mask(const Tensor& mask, const char* op) {
  CTORCH_CHECK(mask.dtype() == kBool || mask.dtype() == kByte, op, " only supports boolean masks, but got mask with "
               "dtype ", scalar_type_cpp_name(mask.dtype()));
  if (mask.dtype() == kByte) {
    warn(std::string(op) + " received a mask with dtype torch.uint8, this behavior is now deprecated,please use a "
         "mask with dtype torch.bool instead.");
  }
}

}  // namespace

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded(
        ops::GradFn::IndexSelect, {this}, [&] { return index_select(dim, index); },
        [&](ops::GradArgs& g) {
          g.dim = detail::wrap_dim(dim, std::max<int64_t>(this->dim(), 1));
          g.indices = index;
        });
  }
  dim = detail::wrap_dim(dim, this->dim());
  CTORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  CTORCH_CHECK(index.dtype() == kLong || index.dtype() == kInt,
               "index_select(): Expected dtype int32 or int64 for index");
  ops::check_same_device(*this, index);
  const int64_t n = index.numel();
  if (this->dim() == 0) {
    CTORCH_CHECK_INDEX(n == 1, "index_select(): Index to scalar can have only 1 value, got ", n, " value(s)");
  }
  const Tensor idx = index.to(kLong).reshape({-1});
  const Tensor self1 = at_least_1d(*this);
  const int64_t size = self1.size(dim);
  if (ops::first_out_of_range(idx, 0, size)) CTORCH_CHECK_INDEX(false, "index out of range in self");
  std::vector<int64_t> shape(self1.sizes().begin(), self1.sizes().end());
  shape[static_cast<size_t>(dim)] = n;
  Tensor result = empty(shape, options());
  if (this->dim() == 0) result = result.reshape({});
  if (result.numel() == 0) return result;
  ops::IndexGeometry g;
  g.indexed = self1;
  g.shape = shape;
  g.indexed_strides = strides_without(self1, dim);
  g.dense = result.view(shape);
  g.indices = {along_dim(idx, shape, dim)};
  g.indexed_sizes = {size};
  g.indexed_dim_strides = {self1.stride(dim)};
  char* data[kernels::kMaxIndexOperands];
  const kernels::IndexPlan plan = ops::make_index_plan(g, data);
  ops::launch_index_gather("index_select", dtype(), plan, data, device(),
                           CTORCH_OPERANDS({result, nullptr, true, true}, {*this, "self"}, {idx, "index"}));
  return result;
}

Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded(
        ops::GradFn::Gather, {this}, [&] { return gather(dim, index); },
        [&](ops::GradArgs& g) {
          g.dim = detail::wrap_dim(dim, std::max<int64_t>(this->dim(), 1));
          g.indices = index;
        });
  }
  dim = detail::wrap_dim(dim, this->dim());
  if (index.numel() != 0) CTORCH_CHECK(index.dtype() == kLong, "gather(): Expected dtype int64 for index");
  ops::check_same_device(*this, index);
  Tensor result = empty(index.sizes(), options());
  if (index.numel() == 0) return result;
  const int64_t nd = std::max<int64_t>(1, this->dim());
  CTORCH_CHECK(nd == std::max<int64_t>(1, index.dim()),
               "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < nd; ++d) {
    CTORCH_CHECK(d == dim || nonempty_size(index, d) <= nonempty_size(*this, d), "Size does not match at dimension ",
                 d, " expected index ", index.sizes(), " to be smaller than self ", sizes(), " apart from dimension ",
                 dim);
  }
  const Tensor self1 = at_least_1d(*this), index1 = at_least_1d(index);
  const int64_t size = self1.size(dim);
  if (auto bad = ops::first_out_of_range(index1, 0, size)) {
    CTORCH_CHECK(false, "index ", *bad, " is out of bounds for dimension ", dim, " with size ", size);
  }
  ops::IndexGeometry g;
  g.indexed = self1;
  g.shape.assign(index1.sizes().begin(), index1.sizes().end());
  g.indexed_strides = strides_without(self1, dim);
  g.dense = at_least_1d(result);
  g.indices = {index1};
  g.indexed_sizes = {size};
  g.indexed_dim_strides = {self1.stride(dim)};
  char* data[kernels::kMaxIndexOperands];
  const kernels::IndexPlan plan = ops::make_index_plan(g, data);
  ops::launch_index_gather("gather", dtype(), plan, data, device(),
                           CTORCH_OPERANDS({result, nullptr, true, true}, {*this, "self"}, {index, "index"}));
  return result;
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  return recorded_scatter(ops::GradFn::Scatter, *this, dim, index, src, 1,
                          [&]() -> Tensor& { return scatter_impl(*this, "scatter_", dim, index, src, false); });
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  Tensor result = clone();
  if (ops::needs_grad({this, &src})) [[unlikely]] return result.scatter_(dim, index, src);  // recorded
  return scatter_impl(result, "scatter", dim, index, src, false);
}

Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  return recorded_scatter(ops::GradFn::ScatterAdd, *this, dim, index, src, 1,
                          [&]() -> Tensor& { return scatter_impl(*this, "scatter_add_", dim, index, src, true); });
}

Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  Tensor result = clone();
  if (ops::needs_grad({this, &src})) [[unlikely]] return result.scatter_add_(dim, index, src);  // recorded
  return scatter_impl(result, "scatter_add", dim, index, src, true);
}

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  if (ops::needs_grad({this, &source})) [[unlikely]] {
    return recorded_scatter(ops::GradFn::IndexAdd, *this, dim, index, source, alpha,
                            [&]() -> Tensor& { return index_add_(dim, index, source, alpha); });
  }
  dim = detail::wrap_dim(dim, this->dim());
  const int64_t n = index.numel();
  CTORCH_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector, but got dim: ", index.dim(),
                     " with type: ", scalar_type_cpp_name(index.dtype()), " and size: ", index.sizes());
  CTORCH_CHECK(index.dtype() == kLong || index.dtype() == kInt,
               "index_add_(): Expected dtype int32/int64 for index but got: ", scalar_type_cpp_name(index.dtype()));
  CTORCH_CHECK(dtype() == source.dtype(), "index_add_(): self (", scalar_type_cpp_name(dtype()), ") and source (",
               scalar_type_cpp_name(source.dtype()),
               ") must have the same scalar type");
  CTORCH_CHECK(dim == 0 || dim < source.dim(), "index_add_(): Indexing dim ", dim,
               " is out of bounds of the source tensor with dim ", source.dim());
  const int64_t source_n = source.dim() == 0 ? 1 : source.size(dim);
  CTORCH_CHECK(n == source_n, "index_add_(): Number of indices (", n, ") should be equal to source.size(dim): (",
               source_n, "), for dim: ", dim);
  ops::check_same_device(*this, index);
  ops::check_same_device(*this, source);
  const Tensor idx = index.to(kLong).reshape({-1});
  const Tensor self1 = at_least_1d(*this);
  const int64_t size = self1.size(dim);
  if (ops::first_out_of_range(idx, 0, size)) CTORCH_CHECK_INDEX(false, "index out of range in self");
  if (n == 0) return *this;
  std::vector<int64_t> shape(self1.sizes().begin(), self1.sizes().end());
  shape[static_cast<size_t>(dim)] = n;
  ops::IndexGeometry g;
  g.indexed = self1;
  g.shape = shape;
  g.indexed_strides = strides_without(self1, dim);
  g.dense = at_least_1d(source).expand(shape);
  g.indices = {along_dim(idx, shape, dim)};
  g.indexed_sizes = {size};
  g.indexed_dim_strides = {self1.stride(dim)};
  char* data[kernels::kMaxIndexOperands];
  const kernels::IndexPlan plan = ops::make_index_plan(g, data);
  ops::launch_index_scatter("index_add_", dtype(), true, alpha, plan, data, device(),
                            CTORCH_OPERANDS({*this, "self", true}, {idx, "index"}, {source, "source"}));
  impl()->storage()->bump_version();
  return *this;
}

Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  return clone().index_add_(dim, index, source, alpha);
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) {
  check_mask(mask, "masked_fill_");
  CTORCH_CHECK(mask.device() == device(), "expected self and mask to be on the same device, but got mask on ",
               mask.device(), " and self on ", device());
  const DimVector shape = broadcast_shapes(sizes(), mask.sizes());
  CTORCH_CHECK(IntArrayRef(shape) == sizes(), "output with shape ", sizes(), " doesn't match the broadcast shape ",
               IntArrayRef(shape));
  const Tensor m = mask.dtype() == kBool ? mask : mask.to(kBool);
  // where() computes the filled values into a new tensor; nothing is written before it succeeds.
  const Tensor filled = where(m, full({}, value, options()), *this);
  return copy_(filled);
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  CTORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
               value.dim(), " dimension(s).");
  return masked_fill_(mask, value.item());
}

Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  const DimVector shape = broadcast_shapes(sizes(), mask.sizes());
  Tensor result = expand(shape).contiguous().clone();
  return result.masked_fill_(mask, value);
}

Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  const DimVector shape = broadcast_shapes(sizes(), mask.sizes());
  Tensor result = expand(shape).contiguous().clone();
  return result.masked_fill_(mask, value);
}

Tensor Tensor::masked_select(const Tensor& mask) const {
  CTORCH_CHECK(mask.dtype() == kBool || mask.dtype() == kByte, "masked_select: expected BoolTensor or ByteTensor for "
               "mask");
  if (mask.dtype() == kByte) {
    warn("masked_select received a mask with dtype torch.uint8, this behavior is now deprecated,please use a mask "
         "with dtype torch.bool instead.");
  }
  ops::check_same_device(*this, mask);
  const DimVector shape = broadcast_shapes(sizes(), mask.sizes());
  Tensor self_b = expand(shape), mask_b = mask.to(kBool).expand(shape);
  if (shape.size() == 0) {
    self_b = self_b.reshape({1});
    mask_b = mask_b.reshape({1});
  }
  return ctorch::index(self_b, {mask_b});
}

// Note [nonzero on the host]: the positions are found on the host after a synchronizing copy of
// the tensor (PyTorch's nonzero synchronizes too, to learn the result's size); the result is then
// copied to self's device.
Tensor Tensor::nonzero() const {
  const int64_t nd = dim();
  Tensor host_result;
  auto run = [&] {
    const std::vector<double> values = to_vector<double>();
    std::vector<int64_t> coords;
    std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
    for (double v : values) {
      if (v != 0) coords.insert(coords.end(), idx.begin(), idx.end());
      for (int64_t d = nd - 1; d >= 0; --d) {  // row-major increment
        if (++idx[static_cast<size_t>(d)] < sizes()[d]) break;
        idx[static_cast<size_t>(d)] = 0;
      }
    }
    const int64_t n = nd == 0 ? static_cast<int64_t>(coords.empty() ? (values.at(0) != 0 ? 1 : 0) : 0)
                              : static_cast<int64_t>(coords.size()) / nd;
    host_result = empty({n, nd}, TensorOptions().dtype(kLong));
    if (!coords.empty()) std::copy(coords.begin(), coords.end(), host_result.data_ptr<int64_t>());
  };
  if (is_cpu()) {
    ops::run_on_host_observed(ops::OpFamily::Index, "nonzero", CTORCH_OPERANDS({*this, "self"}), run);
    return host_result;
  }
  run();
  return host_result.to(device());
}

}  // namespace ctorch::api
