// torch.fft (aten/src/ATen/native/SpectralOps.cpp, PyTorch 1.13): argument checks, promotion,
// padding/trimming to n, and norm modes; each transformed dim is one batched 1-d transform over
// contiguous rows (kernels/fft_plan.h) through the Fft funnel (ops/launch.h). Multi-dim transforms
// run one dim after another. Normalization is a separate multiply, as ATen's cuFFT path does.
#include <algorithm>
#include <cmath>
#include <string>

#include "ctorch/complex.h"
#include "ctorch/factories.h"
#include "ctorch/fft.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ops/elementwise.h"
#include "ops/launch.h"

namespace ctorch::fft {
namespace {

using kernels::FftKind;

enum class Norm { None, ByN, ByRootN };

// norm_from_string.
Norm norm_from_string(std::optional<std::string_view> norm, bool forward) {
  if (!norm || *norm == "backward") return forward ? Norm::None : Norm::ByN;
  if (*norm == "forward") return forward ? Norm::ByN : Norm::None;
  if (*norm == "ortho") return Norm::ByRootN;
  CTORCH_CHECK(false, "Invalid normalization mode: \"", std::string(*norm), "\"");
  return Norm::None;
}

// promote_type_fft: integers to the default float dtype, float/double kept (half is not supported:
// ctorch has no complex32), complex when required.
ScalarType promote_type_fft(ScalarType t, bool require_complex) {
  if (is_complex(t)) return t;
  if (!is_floating_point(t)) t = get_default_dtype();
  CTORCH_CHECK(t == kFloat || t == kDouble, "Unsupported dtype ", scalar_type_cpp_name(t));
  return require_complex ? to_complex_type(t) : t;
}

Tensor promote_tensor_fft(const Tensor& t, bool require_complex) {
  return t.to(promote_type_fft(t.dtype(), require_complex));
}

// maybe_wrap_dim with wrap_scalar=false.
int64_t wrap_dim(int64_t dim, int64_t ndim) {
  CTORCH_CHECK_INDEX(ndim > 0, "dimension specified as ", dim, " but tensor has no dimensions");
  return ops::wrap_dim(dim, ndim);
}

void check_no_grad(const char* name, const Tensor& t) {
  CTORCH_CHECK_NOT_IMPLEMENTED(!(t.requires_grad() && GradMode::is_enabled()), "fft_", name,
                               ": autograd of torch.fft ops is not supported by ctorch");
}

// resize_fft_input: x with x.size(dim) == size, trimmed or zero-padded at the end.
Tensor resize_fft_input(const Tensor& x, int64_t dim, int64_t size) {
  const int64_t cur = x.size(dim);
  if (cur == size) return x;
  if (cur > size) return x.slice(dim, 0, size);
  DimVector shape(x.sizes());
  shape[dim] = size;
  Tensor out = zeros(shape, x.options());
  Tensor head = out.slice(dim, 0, cur);
  ops::copy_into(head, x);
  return out;
}

void apply_norm(Tensor& out, Norm norm, int64_t n) {
  if (norm == Norm::None) return;
  const double scale = norm == Norm::ByN ? 1.0 / static_cast<double>(n) : 1.0 / std::sqrt(static_cast<double>(n));
  Tensor r = out.is_complex() ? view_as_real(out) : out;
  r.mul_(scale);
}

// One batched transform of `kind` along `dim` of `input` (dtype and length already right): the
// dim moves last, rows become contiguous, the backend transforms them, the dim moves back.
Tensor exec_1d(const char* name, const Tensor& input, int64_t dim, FftKind kind, bool forward, int64_t n, Norm norm) {
  Tensor x = input.transpose(dim, -1).contiguous();
  // c2r may overwrite its input (cuFFT, FFTW): it gets a private copy.
  if (kind == FftKind::C2R && x.impl()->storage().get() == input.impl()->storage().get()) x = x.clone();
  const int64_t out_len = kind == FftKind::R2C ? n / 2 + 1 : n;
  const ScalarType out_dtype = kind == FftKind::C2R   ? to_real_value_type(x.dtype())
                               : kind == FftKind::R2C ? to_complex_type(x.dtype())
                                                      : x.dtype();
  DimVector shape(x.sizes());
  shape[shape.size() - 1] = out_len;
  Tensor out = empty(shape, TensorOptions().dtype(out_dtype).device(x.device()));
  if (out.numel() != 0) {
    kernels::FftPlan plan;
    plan.kind = kind;
    plan.dtype = kind == FftKind::C2R ? x.dtype() : out_dtype;
    plan.forward = forward;
    plan.n = n;
    plan.batch = out.numel() / out_len;
    plan.in_dist = x.size(-1);
    plan.out_dist = out_len;
    ops::launch_fft(name, plan, x.data_ptr(), out.data_ptr(), x.device(),
                    CTORCH_OPERANDS({out, nullptr, true, true}, {x, "self", kind == FftKind::C2R}));
    apply_norm(out, norm, n);
  }
  return out.transpose(dim, -1);
}

const char* kernel_name(FftKind kind) {
  switch (kind) {
    case FftKind::C2C: return "fft_c2c";
    case FftKind::R2C: return "fft_r2c";
    case FftKind::C2R: return "fft_c2r";
  }
  return "fft";
}

// fft_c2c: input complex (checked), trimmed/padded to n along dim.
Tensor c2c(const char* name, Tensor input, std::optional<int64_t> n_opt, int64_t unwrapped_dim,
           std::optional<std::string_view> norm_str, bool forward) {
  CTORCH_CHECK(input.is_complex(), name, " expects a complex input tensor, but got ",
               scalar_type_cpp_name(input.dtype()));
  const int64_t dim = wrap_dim(unwrapped_dim, input.dim());
  const int64_t n = n_opt.value_or(input.size(dim));
  CTORCH_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, dim, n);
  const Norm norm = norm_from_string(norm_str, forward);
  return exec_1d(kernel_name(FftKind::C2C), input, dim, FftKind::C2C, forward, n, norm);
}

// fft_r2c with onesided output: input real (checked), promoted to float/double.
Tensor r2c(const char* name, Tensor input, std::optional<int64_t> n_opt, int64_t unwrapped_dim,
           std::optional<std::string_view> norm_str, bool forward) {
  CTORCH_CHECK(!input.is_complex(), name, " expects a real input tensor, but got ", scalar_type_cpp_name(input.dtype()));
  input = promote_tensor_fft(input, false);
  const int64_t dim = wrap_dim(unwrapped_dim, input.dim());
  const int64_t n = n_opt.value_or(input.size(dim));
  CTORCH_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, dim, n);
  const Norm norm = norm_from_string(norm_str, forward);
  Tensor out = exec_1d(kernel_name(FftKind::R2C), input, dim, FftKind::R2C, true, n, norm);
  return forward ? out : out.conj();
}

// fft_c2r: input promoted to complex; n real outputs.
Tensor c2r(const char* name, Tensor input, std::optional<int64_t> n_opt, int64_t unwrapped_dim,
           std::optional<std::string_view> norm_str, bool forward) {
  input = promote_tensor_fft(input, true);
  const int64_t dim = wrap_dim(unwrapped_dim, input.dim());
  const int64_t n = n_opt.value_or(2 * (input.size(dim) - 1));
  CTORCH_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, dim, n / 2 + 1);
  const Norm norm = norm_from_string(norm_str, forward);
  if (forward) input = input.conj();
  return exec_1d(kernel_name(FftKind::C2R), input, dim, FftKind::C2R, false, n, norm);
}

// canonicalize_fft_shape_and_dim_args: the dims transformed and their lengths.
struct ShapeAndDims {
  DimVector shape, dim;
};

ShapeAndDims canonicalize(const Tensor& input, OptionalIntArrayRef shape, OptionalIntArrayRef dim) {
  const int64_t ndim = input.dim();
  ShapeAndDims ret;
  if (dim) {
    for (int64_t d : *dim) ret.dim.push_back(wrap_dim(d, ndim));
    DimVector copy = ret.dim;
    std::sort(copy.begin(), copy.end());
    CTORCH_CHECK(std::adjacent_find(copy.begin(), copy.end()) == copy.end(), "FFT dims must be unique");
  }
  if (shape) {
    CTORCH_CHECK(!dim || dim.value().size() == shape.value().size(), "When given, dim and shape arguments must have the same length");
    const int64_t transform_ndim = static_cast<int64_t>(shape.value().size());
    CTORCH_CHECK(transform_ndim <= ndim, "Got shape with ", transform_ndim, " values but input tensor only has ", ndim,
                 " dimensions.");
    if (!dim) {
      for (int64_t d = ndim - transform_ndim; d < ndim; ++d) ret.dim.push_back(d);
    }
    for (size_t i = 0; i < shape.value().size(); ++i) {
      const int64_t s = (*shape)[i];
      ret.shape.push_back(s == -1 ? input.size(ret.dim[i]) : s);
      CTORCH_CHECK(ret.shape.back() > 0, "Invalid number of data points (", ret.shape.back(), ") specified");
    }
  } else {
    if (!dim) {
      for (int64_t d = 0; d < ndim; ++d) ret.dim.push_back(d);
    }
    for (int64_t d : ret.dim) ret.shape.push_back(input.size(d));
  }
  return ret;
}

// fftn_c2c: each dim in turn.
Tensor c2c_n(const char* name, const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,
             std::optional<std::string_view> norm_str, bool forward) {
  check_no_grad(name, self);
  const ShapeAndDims desc = canonicalize(self, s, dim);
  Tensor x = promote_tensor_fft(self, true);
  const Norm norm = norm_from_string(norm_str, forward);
  for (size_t i = 0; i < desc.dim.size(); ++i) {
    x = resize_fft_input(x, desc.dim[i], desc.shape[i]);
    x = exec_1d(kernel_name(FftKind::C2C), x, desc.dim[i], FftKind::C2C, forward, desc.shape[i], norm);
  }
  return desc.dim.empty() ? x.clone() : x;
}

// Tensor::roll along one dim by `shift` (cat of two slices).
Tensor roll(const Tensor& t, int64_t dim, int64_t shift) {
  const int64_t size = t.size(dim);
  if (size == 0) return t;
  shift = ((shift % size) + size) % size;
  if (shift == 0) return t;
  return cat({t.slice(dim, size - shift, size), t.slice(dim, 0, size - shift)}, dim);
}

Tensor shift(const Tensor& input, OptionalIntArrayRef dim, bool inverse) {
  DimVector dims;
  if (dim) {
    for (int64_t d : *dim) dims.push_back(ops::wrap_dim(d, input.dim()));
  } else {
    for (int64_t d = 0; d < input.dim(); ++d) dims.push_back(d);
  }
  Tensor out = input;
  for (int64_t d : dims) out = roll(out, d, inverse ? (input.size(d) + 1) / 2 : input.size(d) / 2);
  return out.is_same(input) ? input.clone() : out;
}

}  // namespace

Tensor fft(const Tensor& input, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  check_no_grad("fft", input);
  if (input.is_complex()) return c2c("fft", input, n, dim, norm, true);
  // A real input: ATen runs r2c with the two-sided output; the c2c of its complex promotion is the same transform.
  return c2c("fft", promote_tensor_fft(input, true), n, dim, norm, true);
}

Tensor ifft(const Tensor& input, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  check_no_grad("ifft", input);
  if (input.is_complex()) return c2c("ifft", input, n, dim, norm, false);
  return c2c("ifft", promote_tensor_fft(input, true), n, dim, norm, false);
}

Tensor rfft(const Tensor& input, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  check_no_grad("rfft", input);
  return r2c("rfft", input, n, dim, norm, true);
}

Tensor irfft(const Tensor& input, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  check_no_grad("irfft", input);
  return c2r("irfft", input, n, dim, norm, false);
}

Tensor fftn(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim, std::optional<std::string_view> norm) {
  return c2c_n("fftn", input, s, dim, norm, true);
}

Tensor ifftn(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim, std::optional<std::string_view> norm) {
  return c2c_n("ifftn", input, s, dim, norm, false);
}

Tensor rfftn(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim, std::optional<std::string_view> norm) {
  check_no_grad("rfftn", input);
  CTORCH_CHECK(!input.is_complex(), "rfftn expects a real-valued input tensor, but got ",
               scalar_type_cpp_name(input.dtype()));
  const ShapeAndDims desc = canonicalize(input, s, dim);
  CTORCH_CHECK(!desc.shape.empty(), "rfftn must transform at least one axis");
  Tensor x = promote_tensor_fft(input, false);
  const Norm fnorm = norm_from_string(norm, true);
  const size_t last = desc.dim.size() - 1;
  x = resize_fft_input(x, desc.dim[last], desc.shape[last]);
  x = exec_1d(kernel_name(FftKind::R2C), x, desc.dim[last], FftKind::R2C, true, desc.shape[last], fnorm);
  for (size_t i = 0; i < last; ++i) {
    x = resize_fft_input(x, desc.dim[i], desc.shape[i]);
    x = exec_1d(kernel_name(FftKind::C2C), x, desc.dim[i], FftKind::C2C, true, desc.shape[i], fnorm);
  }
  return x;
}

Tensor irfftn(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim, std::optional<std::string_view> norm) {
  check_no_grad("irfftn", input);
  ShapeAndDims desc = canonicalize(input, s, dim);
  CTORCH_CHECK(!desc.shape.empty(), "irfftn must transform at least one axis");
  const size_t last = desc.dim.size() - 1;
  const int64_t last_dim_size = s ? desc.shape[last] : 2 * (input.size(desc.dim[last]) - 1);
  CTORCH_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
  Tensor x = promote_tensor_fft(input, true);
  const Norm inorm = norm_from_string(norm, false);
  for (size_t i = 0; i < last; ++i) {
    x = resize_fft_input(x, desc.dim[i], desc.shape[i]);
    x = exec_1d(kernel_name(FftKind::C2C), x, desc.dim[i], FftKind::C2C, false, desc.shape[i], inorm);
  }
  x = resize_fft_input(x, desc.dim[last], last_dim_size / 2 + 1);
  return exec_1d(kernel_name(FftKind::C2R), x, desc.dim[last], FftKind::C2R, false, last_dim_size, inorm);
}

Tensor fft2(const Tensor& input, OptionalIntArrayRef s, IntArrayRef dim, std::optional<std::string_view> norm) {
  return fftn(input, s, dim, norm);
}
Tensor ifft2(const Tensor& input, OptionalIntArrayRef s, IntArrayRef dim, std::optional<std::string_view> norm) {
  return ifftn(input, s, dim, norm);
}
Tensor rfft2(const Tensor& input, OptionalIntArrayRef s, IntArrayRef dim, std::optional<std::string_view> norm) {
  return rfftn(input, s, dim, norm);
}
Tensor irfft2(const Tensor& input, OptionalIntArrayRef s, IntArrayRef dim, std::optional<std::string_view> norm) {
  return irfftn(input, s, dim, norm);
}

Tensor fftfreq(int64_t n, double d, TensorOptions options) {
  CTORCH_CHECK(n >= 0, "fftfreq: n must be non-negative, but got ", n);
  if (!options.has_dtype()) options = options.dtype(get_default_dtype());
  Tensor result = arange(n, options);
  Tensor right = result.slice(0, (n + 1) / 2);
  ops::copy_into(right, arange(-(n / 2), 0, 1, options));
  return result.mul_(1.0 / (static_cast<double>(n) * d));
}

Tensor rfftfreq(int64_t n, double d, TensorOptions options) {
  CTORCH_CHECK(n >= 0, "rfftfreq: n must be non-negative, but got ", n);
  if (!options.has_dtype()) options = options.dtype(get_default_dtype());
  return arange(n / 2 + 1, options).mul_(1.0 / (static_cast<double>(n) * d));
}

Tensor fftshift(const Tensor& input, OptionalIntArrayRef dim) { return shift(input, dim, false); }

Tensor ifftshift(const Tensor& input, OptionalIntArrayRef dim) { return shift(input, dim, true); }

}  // namespace ctorch::fft
