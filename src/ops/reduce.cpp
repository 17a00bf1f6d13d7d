// Reductions (sum, mean, prod, max, min, argmax, argmin, all, any, norm, var, std), softmax and the
// whole-tensor comparisons (equal, allclose, isclose): argument checks, result dtypes and shapes,
// the ReducePlan, then one call to the backend's reduce or softmax slot.
#include <algorithm>
#include <bitset>
#include <cmath>
#include <limits>

#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "kernels/reduce_functors.h"
#include "kernels/reduce_plan.h"
#include "ops/elementwise.h"
#include "ops/grad_hook.h"
#include "ops/kernel_table.h"
#include "ops/launch.h"

namespace ctorch::inline api::ops {
namespace {

// stride * itemsize with wrap-around: only an empty view (never read) can have strides whose byte
// value overflows, since a non-empty view was bounds-checked against its storage.
int64_t byte_stride(int64_t stride, int64_t itemsize) {
  return static_cast<int64_t>(static_cast<uint64_t>(stride) * static_cast<uint64_t>(itemsize));
}

using kernels::ReduceArgs;
using kernels::ReduceOp;
using kernels::ReducePlan;

/// Dims that a reduction folds (bit d set: dim d is reduced).
using DimMask = std::bitset<64>;

// PyTorch's make_dim_mask: an empty list reduces every dim; duplicates are an error.
DimMask make_dim_mask(IntArrayRef dims, int64_t ndim) {
  CTORCH_CHECK(ndim <= 64, "only tensors with up to 64 dims are supported");
  DimMask mask;
  if (dims.empty()) {
    mask.set();
    return mask;
  }
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim);
    CTORCH_CHECK(!mask[w], "dim ", w, " appears multiple times in the list of dims");
    mask.set(w);
  }
  return mask;
}

DimMask all_dims() { return DimMask().set(); }

DimVector reduced_shape(const Tensor& self, const DimMask& mask, bool keepdim) {
  CTORCH_CHECK(self.dim() <= 64, "only tensors with up to 64 dims are supported");
  DimVector shape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!mask[d]) {
      shape.push_back(self.sizes()[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return shape;
}

struct DimInfo {
  int64_t size, in, out;
};

// Sorts dims by input stride, fastest first (insertion sort: a handful of dims).
void sort_by_input_stride(DimInfo* dims, int n) {
  for (int i = 1; i < n; ++i) {
    const DimInfo v = dims[i];
    int j = i - 1;
    while (j >= 0 && dims[j].in > v.in) {
      dims[j + 1] = dims[j];
      --j;
    }
    dims[j + 1] = v;
  }
}

// Merges neighbours (fastest first) whose strides chain; `with_out` also requires the output to chain.
int coalesce(DimInfo* dims, int n, bool with_out) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0) {
      DimInfo& prev = dims[m - 1];
      if (dims[i].in == prev.in * prev.size && (!with_out || dims[i].out == prev.out * prev.size)) {
        prev.size *= dims[i].size;
        continue;
      }
    }
    dims[m++] = dims[i];
  }
  return m;
}

// The plan of reducing `in` over `mask` into a fresh contiguous output (see Note [Reduction layout]).
ReducePlan make_reduce_plan(const Tensor& in, const DimMask& mask, bool keep_order) {
  ReducePlan p;
  const int64_t n = in.dim();
  const int64_t esize = in.element_size();
  DimInfo kept[64], red[64];
  int nk = 0, nr = 0;
  int64_t out_stride = 1;
  for (int64_t d = n - 1; d >= 0; --d) {  // fastest logical dim first
    const int64_t size = in.sizes()[d];
    if (mask[d]) {
      p.numel_reduce *= size;
      if (size != 1) red[nr++] = DimInfo{size, byte_stride(in.strides()[d], esize), 0};
    } else {
      p.numel_out *= size;
      if (size != 1) kept[nk++] = DimInfo{size, byte_stride(in.strides()[d], esize), out_stride};
      out_stride *= size;
    }
  }
  sort_by_input_stride(kept, nk);
  nk = coalesce(kept, nk, true);
  if (!keep_order) sort_by_input_stride(red, nr);
  nr = coalesce(red, nr, false);
  if (p.numel_reduce == 0) nr = 0;
  CTORCH_CHECK_NOT_IMPLEMENTED(nk <= kernels::kMaxDims && nr <= kernels::kMaxDims, "reductions support at most ",
                               kernels::kMaxDims, " non-mergeable kept and reduced dims");
  p.nkept = nk;
  p.nred = nr;
  for (int i = 0; i < nk; ++i) {
    p.kept_size[i] = kept[i].size;
    p.kept_in[i] = kept[i].in;
    p.kept_out[i] = kept[i].out;
  }
  for (int i = 0; i < nr; ++i) {
    p.red_size[i] = red[i].size;
    p.red_in[i] = red[i].in;
  }
  p.fastest_reduced = nk == 0 || (nr > 0 && red[0].in < kept[0].in);
  return p;
}

// Fails (before anything is allocated) when `device`'s backend has no reduction kernels.
void require_reduce(Device device, const char* name) {
  CTORCH_CHECK_NOT_IMPLEMENTED(kernels_for(device).reduce != nullptr, "[", name, "] the backend of ", device,
                               " has no reduction kernels yet");
}

// PyTorch's name of the op that launches `op` (for the stream sanitizer's reports).
const char* reduce_op_name(ReduceOp op) {
  static constexpr const char* names[] = {"sum", "mean", "prod", "max", "min", "argmax", "argmin",
                                          "all", "any", "norm", "norm", "norm", "var"};
  return names[static_cast<int>(op)];
}

// Runs `op` over `in`; values (may be null for argmax) and indices (indexed ops) are preallocated.
void launch(ReduceOp op, const Tensor& in, const DimMask& mask, ScalarType out_dtype, const ReduceArgs& args,
            const Tensor* values, const Tensor* indices) {
  const Tensor& out = values ? *values : *indices;
  if (out.numel() == 0) return;
  const ReducePlan plan = make_reduce_plan(in, mask, kernels::reduce_op_indexed(op));
  char* data[3] = {values ? static_cast<char*>(values->data_ptr()) : nullptr, static_cast<char*>(in.data_ptr()),
                   indices ? static_cast<char*>(indices->data_ptr()) : nullptr};
  const Tensor none;
  launch_reduce(reduce_op_name(op), op, in.dtype(), out_dtype, plan, data, args, in.device(),
                CTORCH_OPERANDS({values ? *values : none, nullptr, true, true},
                                {indices ? *indices : none, nullptr, true, true}, {in, "self"}));
}

// A reduction with one output of `out_dtype`.
Tensor reduce(ReduceOp op, const Tensor& self, const DimMask& mask, bool keepdim, ScalarType out_dtype,
              const ReduceArgs& args = {}) {
  require_reduce(self.device(), "reduce");
  Tensor out = empty(reduced_shape(self, mask, keepdim), TensorOptions().dtype(out_dtype).device(self.device()));
  launch(op, self, mask, out_dtype, args, &out, nullptr);
  return out;
}

// sum and prod: integers and bool accumulate in int64 in the kernel; other requested dtypes convert
// the input first (as PyTorch does) or narrow the int64 result (the same value modulo 2^bits).
Tensor sum_or_prod(ReduceOp op, const Tensor& self, const DimMask& mask, bool keepdim, ScalarType out_dtype) {
  require_reduce(self.device(), op == ReduceOp::Sum ? "sum" : "prod");
  const bool reads_self = self.dtype() == out_dtype || (out_dtype == kLong && is_integral(self.dtype(), true));
  const Tensor in = reads_self ? self : self.to(out_dtype);
  const bool integral = is_integral(in.dtype(), true);
  Tensor out = reduce(op, in, mask, keepdim, integral ? kLong : in.dtype());
  return out.dtype() == out_dtype ? out : out.to(out_dtype);
}

// all and any read bool (non-zero, NaN included, is true).
Tensor all_any(ReduceOp op, const Tensor& self, const DimMask& mask, bool keepdim) {
  require_reduce(self.device(), op == ReduceOp::All ? "all" : "any");
  const Tensor in = self.dtype() == kBool ? self : self.ne(0);
  return reduce(op, in, mask, keepdim, self.dtype() == kUInt8 ? kUInt8 : kBool);
}

ScalarType sum_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? kLong : self.dtype();
}

// PyTorch's zero_numel_check_dims for one dim.
void check_nonempty_dim(const Tensor& self, int64_t dim, const char* name) {
  if (self.dim() == 0) return;  // wrap_dim already limited dim to 0 / -1
  CTORCH_CHECK_INDEX(self.sizes()[dim] != 0, name, ": Expected reduction dim ", dim, " to have non-zero size.");
}

void check_no_bool(const Tensor& self, const char* kernel) {
  CTORCH_CHECK_TYPE(self.dtype() != kBool, "\"", kernel, "\" not implemented for 'Bool'");
}

Tensor all_reduce_extreme(const Tensor& self, ReduceOp op, const char* name) {
  CTORCH_CHECK(self.numel() > 0, name,
               "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
               "with the 'dim' argument.");
  return reduce(op, self, all_dims(), false, self.dtype());
}

std::tuple<Tensor, Tensor> extreme_with_indices(const Tensor& self, int64_t dim, bool keepdim, ReduceOp op,
                                                const char* name) {
  dim = wrap_dim(dim, self.dim());
  check_nonempty_dim(self, dim, name);
  require_reduce(self.device(), name);
  DimMask mask;
  mask.set(dim);
  const DimVector shape = reduced_shape(self, mask, keepdim);
  Tensor values = empty(shape, self.options());
  Tensor indices = empty(shape, TensorOptions().dtype(kLong).device(self.device()));
  launch(op, self, mask, self.dtype(), {}, &values, &indices);
  return {values, indices};
}

Tensor arg_extreme(const Tensor& self, std::optional<int64_t> dim, bool keepdim, ReduceOp op, const char* name,
                   const char* kernel) {
  DimMask mask;
  if (dim) {
    const int64_t d = wrap_dim(*dim, self.dim());
    check_nonempty_dim(self, d, name);
    mask.set(d);
  } else {
    CTORCH_CHECK_INDEX(self.numel() != 0, name, ": Expected reduction dim to be specified for input.numel() == 0.");
    mask.set();
  }
  check_no_bool(self, kernel);
  require_reduce(self.device(), name);
  Tensor indices = empty(reduced_shape(self, mask, keepdim), TensorOptions().dtype(kLong).device(self.device()));
  launch(op, self, mask, self.dtype(), {}, nullptr, &indices);
  return indices;
}

Tensor norm_impl(const Tensor& self, const Scalar& p, const DimMask& mask, bool explicit_dims, bool keepdim) {
  CTORCH_CHECK(self.is_floating_point(), "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
               scalar_type_cpp_name(self.dtype()));
  require_reduce(self.device(), "norm");
  const double ord = p.to_double();
  const double inf = std::numeric_limits<double>::infinity();
  if (self.numel() == 0 && (ord < 0 || ord == inf)) {
    CTORCH_CHECK(explicit_dims, "linalg.vector_norm cannot compute the ", ord,
                 " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d = 0; d < self.dim(); ++d) {
      CTORCH_CHECK(!mask[d] || self.sizes()[d] != 0, "linalg.vector_norm cannot compute the ", ord,
                   " norm on the dimension ", d,
                   " because this dimension is empty and the operation does not have an identity");
    }
  }
  if (ord == 0) return sum_or_prod(ReduceOp::Sum, self.ne(0), mask, keepdim, self.dtype());
  if (ord == inf || ord == -inf) {
    return reduce(ord > 0 ? ReduceOp::Max : ReduceOp::Min, self.abs(), mask, keepdim, self.dtype());
  }
  const ReduceOp op = ord == 1 ? ReduceOp::Norm1 : ord == 2 ? ReduceOp::Norm2 : ReduceOp::NormP;
  ReduceArgs args;
  args.p = ord;
  return reduce(op, self, mask, keepdim, self.dtype(), args);
}

Tensor var_impl(const Tensor& self, std::optional<IntArrayRef> dim, int64_t correction, bool keepdim, bool take_sqrt) {
  CTORCH_CHECK(self.is_floating_point(), "std and var only support floating point and complex dtypes");
  const DimMask mask = make_dim_mask(dim.value_or(IntArrayRef()), self.dim());
  ReduceArgs args;
  args.correction = correction;
  args.take_sqrt = take_sqrt;
  return reduce(ReduceOp::Var, self, mask, keepdim, self.dtype(), args);
}

Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  const int64_t d = wrap_dim(dim, self.dim());
  CTORCH_CHECK_NOT_IMPLEMENTED(kernels_for(self.device()).softmax != nullptr, "[softmax] the backend of ",
                               self.device(), " has no softmax kernel yet");
  const Tensor in = (dtype ? self.to(*dtype) : self).contiguous();
  kernels::SoftmaxPlan plan;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i < d) plan.outer *= self.sizes()[i];
    if (i == d) plan.dim_size = self.sizes()[i];
    if (i > d) plan.inner *= self.sizes()[i];
  }
  if (!is_floating_point(in.dtype())) {
    // PyTorch 1.13's kernel names; log_softmax over an inner dim reports softmax's.
    const bool last = d == std::max<int64_t>(self.dim(), 1) - 1;
    const char* kernel = !last ? "softmax_kernel_impl" : log ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl";
    CTORCH_CHECK_TYPE(false, "\"", kernel, "\" not implemented for '", scalar_type_cpp_name(in.dtype()), "'");
  }
  Tensor out = empty(in.sizes(), in.options());
  if (out.numel() == 0) return out;
  char* data[2] = {static_cast<char*>(out.data_ptr()), static_cast<char*>(in.data_ptr())};
  launch_softmax(log ? "_log_softmax" : "_softmax", in.dtype(), log, plan, data, in.device(),
                 CTORCH_OPERANDS({out, nullptr, true, true}, {in, "self"}));
  return out;
}

}  // namespace
}  // namespace ctorch::api::ops

namespace ctorch::inline api {

using ops::all_dims;
using ops::make_dim_mask;
using ops::reduce;
using kernels::ReduceOp;
using ops::GradArgs;
using ops::GradFn;

namespace {

// Records a reduction over `dims` (empty: all) when self requires grad (Note [Recording hook]).
template <class Impl>
Tensor reduction(GradFn fn, const Tensor& self, IntArrayRef dims, bool keepdim, Impl&& impl,
                 double p = 2, int64_t correction = 1) {
  if (!ops::needs_grad({&self})) [[likely]] return impl();
  return ops::recorded(fn, {&self}, impl, [&](GradArgs& g) {
    g.dims = ops::wrapped_dims(dims, self.dim());
    g.keepdim = keepdim;
    g.p = p;
    g.correction = correction;
  });
}

}  // namespace

Tensor Tensor::sum(std::optional<ScalarType> dtype) const {
  return reduction(GradFn::Sum, *this, {}, false, [&] {
    return ops::sum_or_prod(ReduceOp::Sum, *this, all_dims(), false, ops::sum_dtype(*this, dtype));
  });
}

Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return reduction(GradFn::Sum, *this, dim, keepdim, [&] {
    return ops::sum_or_prod(ReduceOp::Sum, *this, make_dim_mask(dim, this->dim()), keepdim,
                            ops::sum_dtype(*this, dtype));
  });
}

Tensor Tensor::mean(std::optional<ScalarType> dtype) const { return mean(IntArrayRef(), false, dtype); }

Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  const ScalarType out = dtype.value_or(this->dtype());
  CTORCH_CHECK(ctorch::is_floating_point(out), "mean(): could not infer output dtype. ",
               dtype ? "Optional" : "Input", " dtype must be either a floating point or complex dtype. Got: ",
               scalar_type_cpp_name(out));
  ops::require_reduce(device(), "mean");
  return reduction(GradFn::Mean, *this, dim, keepdim, [&] {
    return reduce(ReduceOp::Mean, this->to(out), make_dim_mask(dim, this->dim()), keepdim, out);
  });
}

Tensor Tensor::prod(std::optional<ScalarType> dtype) const {
  return reduction(GradFn::Prod, *this, {}, false, [&] {
    return ops::sum_or_prod(ReduceOp::Prod, *this, all_dims(), false, ops::sum_dtype(*this, dtype));
  });
}

Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  ops::DimMask mask;
  mask.set(ops::wrap_dim(dim, this->dim()));
  const int64_t d = dim;
  return reduction(GradFn::Prod, *this, IntArrayRef(d), keepdim, [&] {
    return ops::sum_or_prod(ReduceOp::Prod, *this, mask, keepdim, ops::sum_dtype(*this, dtype));
  });
}

Tensor Tensor::max() const {
  return reduction(GradFn::MaxAll, *this, {}, false,
                   [&] { return ops::all_reduce_extreme(*this, ReduceOp::Max, "max"); });
}
Tensor Tensor::min() const {
  return reduction(GradFn::MinAll, *this, {}, false,
                   [&] { return ops::all_reduce_extreme(*this, ReduceOp::Min, "min"); });
}

namespace {

// max(dim) / min(dim): the values are recorded, with the indices saved for the backward.
std::tuple<Tensor, Tensor> extreme_dim(const Tensor& self, int64_t dim, bool keepdim, bool is_max) {
  const ReduceOp op = is_max ? ReduceOp::ArgMax : ReduceOp::ArgMin;
  const char* name = is_max ? "max()" : "min()";
  if (!ops::needs_grad({&self})) [[likely]] return ops::extreme_with_indices(self, dim, keepdim, op, name);
  Tensor indices;
  Tensor values = ops::recorded(
      is_max ? GradFn::MaxDim : GradFn::MinDim, {&self},
      [&] {
        auto [v, i] = ops::extreme_with_indices(self, dim, keepdim, op, name);
        indices = i;
        return v;
      },
      [&](GradArgs& g) {
        g.dim = ops::wrap_dim(dim, self.dim());
        g.keepdim = keepdim;
        g.indices = indices;
      });
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return extreme_dim(*this, dim, keepdim, true); }

std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return extreme_dim(*this, dim, keepdim, false); }

Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return ops::arg_extreme(*this, dim, keepdim, ReduceOp::ArgMax, "argmax()", "argmax_cpu");
}

Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return ops::arg_extreme(*this, dim, keepdim, ReduceOp::ArgMin, "argmin()", "argmin_cpu");
}

Tensor Tensor::all() const { return ops::all_any(ReduceOp::All, *this, all_dims(), false); }
Tensor Tensor::any() const { return ops::all_any(ReduceOp::Any, *this, all_dims(), false); }

Tensor Tensor::all(int64_t dim, bool keepdim) const {
  ops::DimMask mask;
  mask.set(ops::wrap_dim(dim, this->dim()));
  return ops::all_any(ReduceOp::All, *this, mask, keepdim);
}

Tensor Tensor::any(int64_t dim, bool keepdim) const {
  ops::DimMask mask;
  mask.set(ops::wrap_dim(dim, this->dim()));
  return ops::all_any(ReduceOp::Any, *this, mask, keepdim);
}

Tensor Tensor::norm(const Scalar& p) const {
  return reduction(GradFn::Norm, *this, {}, false, [&] { return ops::norm_impl(*this, p, all_dims(), false, false); },
                   p.to_double());
}

Tensor Tensor::norm(const Scalar& p, IntArrayRef dim, bool keepdim) const {
  return reduction(
      GradFn::Norm, *this, dim, keepdim,
      [&] { return ops::norm_impl(*this, p, make_dim_mask(dim, this->dim()), !dim.empty(), keepdim); }, p.to_double());
}

Tensor Tensor::var(OptionalIntArrayRef dim, int64_t correction, bool keepdim) const {
  return reduction(GradFn::Var, *this, dim.opt().value_or(IntArrayRef()), keepdim,
                   [&] { return ops::var_impl(*this, dim.opt(), correction, keepdim, false); }, 2, correction);
}

Tensor Tensor::std(OptionalIntArrayRef dim, int64_t correction, bool keepdim) const {
  return reduction(GradFn::Std, *this, dim.opt().value_or(IntArrayRef()), keepdim,
                   [&] { return ops::var_impl(*this, dim.opt(), correction, keepdim, true); }, 2, correction);
}

Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  if (!ops::needs_grad({this})) [[likely]] return ops::softmax_impl(*this, dim, dtype, false);
  return ops::recorded(
      GradFn::Softmax, {this}, [&] { return ops::softmax_impl(*this, dim, dtype, false); },
      [&](GradArgs& g) { g.dim = ops::wrap_dim(dim, this->dim()); });
}

Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  if (!ops::needs_grad({this})) [[likely]] return ops::softmax_impl(*this, dim, dtype, true);
  return ops::recorded(
      GradFn::LogSoftmax, {this}, [&] { return ops::softmax_impl(*this, dim, dtype, true); },
      [&](GradArgs& g) { g.dim = ops::wrap_dim(dim, this->dim()); });
}

// As PyTorch 1.13's cpu_equal: different dtypes compare in the promoted type.
bool Tensor::equal(const Tensor& other) const {
  CTORCH_CHECK(device() == other.device(), "Cannot compare two tensors on different devices. Got: ", device(),
               " and ", other.device());
  if (sizes() != other.sizes()) return false;
  if (numel() == 0) return true;
  return eq(other).all().item<bool>();
}

bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return isclose(*this, other, rtol, atol, equal_nan).all().item<bool>();
}

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  CTORCH_CHECK(self.dtype() == other.dtype(), scalar_type_cpp_name(self.dtype()), " did not match ",
               scalar_type_cpp_name(other.dtype()));
  CTORCH_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  CTORCH_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = self.eq(other);
  if (equal_nan && (self.is_floating_point() || self.is_complex())) close = close.logical_or(self.ne(self).logical_and(other.ne(other)));
  if (rtol == 0 && atol == 0) return close;
  // Note [closeness error computation] in PyTorch: integers are compared in the default float dtype.
  const Tensor cast_self = self.dtype() == kBool ? self.to(get_default_dtype()) : self;
  const Tensor cast_other = is_integral(self.dtype(), true) ? other.to(get_default_dtype()) : other;
  const Tensor allowed = cast_other.mul(rtol).abs().add(atol);
  const Tensor actual = cast_self.sub(cast_other).abs();
  // actual is never negative, so "finite" is "not inf" (NaN fails the <= anyway).
  return close.logical_or(actual.le(allowed).logical_and(actual.ne(std::numeric_limits<double>::infinity())));
}

}  // namespace ctorch::api
