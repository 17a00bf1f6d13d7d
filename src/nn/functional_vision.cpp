// torch.nn.functional's resampling: interpolate (separable per spatial dim: nearest picks a source
// index, linear blends two, bicubic four, area averages adaptive windows), grid_sample (gathers
// from the flattened plane) and affine_grid, all composed of differentiable ops.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "ctorch/factories.h"
#include "ctorch/nn_functional_layers.h"
#include "ctorch/ops.h"
#include "nn/functional_common.h"

namespace ctorch::nn::functional {

namespace {

// PyTorch's area_pixel_compute_scale: the source step per output step.
double pixel_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  return scale && *scale > 0 ? 1.0 / *scale : static_cast<double>(in) / static_cast<double>(out);
}

// The source coordinate of output index i (PyTorch's area_pixel_compute_source_index).
double source_index(double scale, int64_t i, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<double>(i);
  const double src = scale * (static_cast<double>(i) + 0.5) - 0.5;
  return (!cubic && src < 0) ? 0.0 : src;
}

Tensor take(const Tensor& x, int64_t dim, const std::vector<int64_t>& idx) {
  return x.index_select(dim, tensor(idx, TensorOptions(kLong).device(x.device())));
}

// Weights along `dim` shaped to broadcast over x.
Tensor weights_along(const std::vector<double>& w, int64_t dim, const Tensor& x) {
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[static_cast<size_t>(dim)] = static_cast<int64_t>(w.size());
  return tensor(w, TensorOptions(x.scalar_type()).device(x.device())).view(shape);
}

double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

// Antialiased bilinear/bicubic along one dim (PyTorch's _upsample_*_aa, after Pillow): each output
// averages the inputs under the filter stretched by the downscaling factor, weights normalized.
Tensor resize_dim_aa(const Tensor& x, int64_t dim, int64_t out, const std::string& mode, bool align_corners,
                     std::optional<double> scale_factor) {
  const int64_t in = x.size(dim);
  const double scale = pixel_scale(in, out, align_corners, scale_factor);
  const bool cubic = mode == "bicubic";
  const double interp = cubic ? 4.0 : 2.0;
  const double support = scale >= 1.0 ? interp * 0.5 * scale : interp * 0.5;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  auto filter = [cubic](double v) {
    v = std::abs(v);
    if (!cubic) return v < 1.0 ? 1.0 - v : 0.0;
    constexpr double kA = -0.5;  // Pillow's bicubic
    if (v < 1.0) return cubic1(v, kA);
    if (v < 2.0) return cubic2(v, kA);
    return 0.0;
  };
  std::vector<std::vector<int64_t>> idx;
  std::vector<std::vector<double>> w;
  size_t taps = 0;
  for (int64_t i = 0; i < out; ++i) {
    const double center = scale * (static_cast<double>(i) + 0.5);
    const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t xsize = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in) - xmin;
    std::vector<int64_t> ii;
    std::vector<double> ww;
    double total = 0;
    for (int64_t j = 0; j < xsize; ++j) {
      ii.push_back(xmin + j);
      ww.push_back(filter((static_cast<double>(j + xmin) - center + 0.5) * invscale));
      total += ww.back();
    }
    for (double& v : ww) v = total != 0 ? v / total : 0.0;
    taps = std::max(taps, ii.size());
    idx.push_back(std::move(ii));
    w.push_back(std::move(ww));
  }
  Tensor y;
  for (size_t j = 0; j < taps; ++j) {
    std::vector<int64_t> ij;
    std::vector<double> wj;
    for (int64_t i = 0; i < out; ++i) {
      const bool has = j < idx[i].size();
      ij.push_back(has ? idx[i][j] : 0);
      wj.push_back(has ? w[i][j] : 0.0);
    }
    const Tensor term = take(x, dim, ij) * weights_along(wj, dim, x);
    y = y.defined() ? y + term : term;
  }
  return y;
}

Tensor resize_dim(const Tensor& x, int64_t dim, int64_t out, const std::string& mode, bool align_corners,
                  std::optional<double> scale) {
  const int64_t in = x.size(dim);
  if (mode == "nearest" || mode == "nearest-exact") {
    const double s = scale && *scale > 0 ? 1.0 / *scale : static_cast<double>(in) / static_cast<double>(out);
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < out; ++i) {
      const double src =
          mode == "nearest" ? std::floor(static_cast<double>(i) * s) : std::floor((static_cast<double>(i) + 0.5) * s);
      idx.push_back(std::min<int64_t>(static_cast<int64_t>(src), in - 1));
    }
    return take(x, dim, idx);
  }
  if (mode == "area") {  // adaptive average windows along this dim
    std::vector<Tensor> cells;
    for (int64_t j = 0; j < out; ++j) {
      const int64_t start = (j * in) / out, end = ((j + 1) * in + out - 1) / out;
      cells.push_back(x.narrow(dim, start, end - start).mean({dim}, true));
    }
    return cat(cells, dim);
  }
  const double s = pixel_scale(in, out, align_corners, scale);
  if (mode == "bicubic") {
    constexpr double kA = -0.75;
    std::vector<std::vector<int64_t>> idx(4);
    std::vector<std::vector<double>> w(4);
    for (int64_t i = 0; i < out; ++i) {
      const double src = source_index(s, i, align_corners, true);
      const auto base = static_cast<int64_t>(std::floor(src));
      const double t = src - static_cast<double>(base);
      const double ws[4] = {cubic2(t + 1, kA), cubic1(t, kA), cubic1(1 - t, kA), cubic2(2 - t, kA)};
      for (int j = 0; j < 4; ++j) {
        idx[j].push_back(std::clamp<int64_t>(base - 1 + j, 0, in - 1));
        w[j].push_back(ws[j]);
      }
    }
    Tensor y = take(x, dim, idx[0]) * weights_along(w[0], dim, x);
    for (int j = 1; j < 4; ++j) y = y + take(x, dim, idx[j]) * weights_along(w[j], dim, x);
    return y;
  }
  // linear, bilinear, trilinear: two taps per output.
  std::vector<int64_t> lo, hi;
  std::vector<double> wl, wh;
  for (int64_t i = 0; i < out; ++i) {
    const double src = source_index(s, i, align_corners, false);
    const auto i0 = std::min<int64_t>(static_cast<int64_t>(src), in - 1);
    const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
    const double l1 = src - static_cast<double>(i0);
    lo.push_back(i0);
    hi.push_back(i1);
    wl.push_back(1.0 - l1);
    wh.push_back(l1);
  }
  return take(x, dim, lo) * weights_along(wl, dim, x) + take(x, dim, hi) * weights_along(wh, dim, x);
}

// "[3, 2]": doubles as libtorch prints an ArrayRef<double>.
std::string join_doubles(const std::vector<double>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

}  // namespace

Tensor interpolate(const Tensor& input, const std::optional<std::vector<int64_t>>& size,
                   const std::optional<std::vector<double>>& scale_factor, const std::string& mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor, bool antialias) {
  const int64_t dims = input.dim() - 2;
  CTORCH_CHECK_NOT_IMPLEMENTED(dims >= 1 && dims <= 3, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ",
                               input.dim(), "D) for the modes: nearest | linear | bilinear | bicubic | trilinear ",
                               "(got ", mode, ")");
  CTORCH_CHECK_NOT_IMPLEMENTED(!antialias || (input.dim() == 4 && (mode == "bilinear" || mode == "bicubic")),
                               "Anti-alias option is only supported for bilinear and bicubic modes");
  const bool interpolating = mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
  CTORCH_CHECK_VALUE(!align_corners || interpolating, "align_corners option can only be set with the interpolating ",
                     "modes: linear | bilinear | bicubic | trilinear");
  CTORCH_CHECK_VALUE(size || scale_factor, "either size or scale_factor should be defined");
  CTORCH_CHECK_VALUE(!(size && scale_factor), "only one of size or scale_factor should be defined");
  const int64_t want = mode == "linear"                          ? 1
                       : mode == "bilinear" || mode == "bicubic" ? 2
                       : mode == "trilinear"                     ? 3
                                                                 : dims;
  CTORCH_CHECK_NOT_IMPLEMENTED(want == dims, "Got ", input.dim(), "D input, but ", mode, " mode needs ", want + 2,
                               "D input");
  std::vector<int64_t> out(static_cast<size_t>(dims));
  std::vector<std::optional<double>> scales(static_cast<size_t>(dims));
  if (size) {
    CTORCH_CHECK_VALUE(size->size() == 1 || static_cast<int64_t>(size->size()) == dims,
                       "size shape must match input shape. Input is ", dims, "D, size is ", IntArrayRef(*size));
    for (int64_t i = 0; i < dims; ++i) out[i] = (*size)[size->size() == 1 ? 0 : i];
  } else {
    CTORCH_CHECK_VALUE(scale_factor->size() == 1 || static_cast<int64_t>(scale_factor->size()) == dims,
                       "scale_factor shape must match input shape. Input is ", dims, "D, scale_factor size is ",
                       join_doubles(*scale_factor));
    for (int64_t i = 0; i < dims; ++i) {
      const double f = (*scale_factor)[scale_factor->size() == 1 ? 0 : i];
      out[i] = static_cast<int64_t>(std::floor(static_cast<double>(input.size(2 + i)) * f));
      if (!recompute_scale_factor.value_or(false)) scales[i] = f;
    }
  }
  Tensor y = input;
  for (int64_t i = 0; i < dims; ++i)
    y = antialias ? resize_dim_aa(y, 2 + i, out[i], mode, align_corners.value_or(false), scales[i])
                  : resize_dim(y, 2 + i, out[i], mode, align_corners.value_or(false), scales[i]);
  return y;
}

namespace {
// PyTorch's grid_sampler_unnormalize then compute_coordinates for one axis of `size` positions.
Tensor grid_coordinates(const Tensor& coord, int64_t size, const std::string& padding_mode, bool align_corners) {
  const double n = static_cast<double>(size);
  Tensor x = align_corners ? (coord + 1) * ((n - 1) / 2) : ((coord + 1) * n - 1) / 2;
  if (padding_mode == "border") return x.clamp(0.0, n - 1);
  if (padding_mode == "reflection") {
    // Reflect about [0, n - 1] (align_corners) or [-0.5, n - 0.5], then clip.
    const double lo = align_corners ? 0.0 : -0.5, span = align_corners ? n - 1 : n;
    if (span <= 0) return zeros_like(x);
    Tensor t = (x - lo).abs();
    const Tensor flips = (t / span).floor();
    const Tensor extra = t - flips * span;
    t = where(flips.remainder(2).eq(0), extra + lo, span - extra + lo);
    return t.clamp(0.0, n - 1);
  }
  return x;
}
}  // namespace

Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode, const std::string& padding_mode,
                   std::optional<bool> align_corners) {
  const int64_t dims = input.dim() - 2;
  CTORCH_CHECK((dims == 2 || dims == 3) && grid.dim() == input.dim() && grid.size(-1) == dims,
               "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with ",
               "sizes ", input.sizes(), " and grid with sizes ", grid.sizes());
  CTORCH_CHECK(input.size(0) == grid.size(0),
               "grid_sampler(): expected grid and input to have same batch size, but got ", "input with sizes ",
               input.sizes(), " and grid with sizes ", grid.sizes());
  CTORCH_CHECK_VALUE(mode == "bilinear" || mode == "nearest",
                     "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '",
                     mode, "'");
  CTORCH_CHECK_VALUE(padding_mode == "zeros" || padding_mode == "border" || padding_mode == "reflection",
                     "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', ",
                     "but got: '", padding_mode, "'");
  const bool ac = align_corners.value_or(false);
  const int64_t n = input.size(0), c = input.size(1);
  std::vector<int64_t> out_shape{n, c}, sizes;  // sizes: the input's spatial dims, x (last) first
  int64_t positions = 1, numel = 1;
  for (int64_t d = 1; d <= dims; ++d) {
    out_shape.push_back(grid.size(d));
    positions *= grid.size(d);
    numel *= input.size(1 + d);
    sizes.insert(sizes.begin(), input.size(1 + d));
  }
  std::vector<Tensor> coords;  // [N, out...] per axis, x first
  for (int64_t a = 0; a < dims; ++a) coords.push_back(grid_coordinates(grid.select(-1, a), sizes[a], padding_mode, ac));
  const Tensor flat_input = input.reshape({n, c, numel});
  // The value at integer positions (one tensor per axis), zero outside the input.
  auto sample = [&](const std::vector<Tensor>& at) {
    Tensor inside, flat;
    int64_t stride = 1;
    for (int64_t a = 0; a < dims; ++a) {
      const Tensor in_axis = at[a].ge(0).logical_and(at[a].le(sizes[a] - 1));
      inside = inside.defined() ? inside.logical_and(in_axis) : in_axis;
      const Tensor term = at[a].clamp(0, sizes[a] - 1) * stride;
      flat = flat.defined() ? flat + term : term;
      stride *= sizes[a];
    }
    const Tensor index = flat.to(kLong).reshape({n, 1, positions}).expand({n, c, positions});
    return flat_input.gather(2, index).view(out_shape) * inside.unsqueeze(1).to(input.scalar_type());
  };
  if (mode == "nearest") {  // round half to even, as nearbyint
    std::vector<Tensor> at;
    for (const Tensor& g : coords) at.push_back(g.detach().round());
    return sample(at);
  }
  // Bilinear / trilinear: the 2^dims corners around each point, weighted by the opposite distances.
  Tensor result;
  for (int64_t corner = 0; corner < (int64_t{1} << dims); ++corner) {
    std::vector<Tensor> at;
    Tensor weight;
    for (int64_t a = 0; a < dims; ++a) {
      const Tensor lo = coords[a].detach().floor();
      const bool hi = (corner >> a) & 1;
      at.push_back(hi ? lo + 1 : lo);
      const Tensor frac = (coords[a] - lo).unsqueeze(1);
      const Tensor wa = hi ? frac : 1 - frac;
      weight = weight.defined() ? weight * wa : wa;
    }
    const Tensor term = sample(at) * weight;
    result = result.defined() ? result + term : term;
  }
  return result;
}

namespace {
// The normalized coordinates of `steps` positions along an axis.
Tensor base_axis(int64_t steps, bool align_corners, const TensorOptions& options) {
  if (steps <= 1) return zeros({steps}, options);
  Tensor r = linspace(-1, 1, steps, options);
  if (!align_corners) r = r * (static_cast<double>(steps - 1) / static_cast<double>(steps));
  return r;
}
}  // namespace

Tensor affine_grid(const Tensor& theta, IntArrayRef size, std::optional<bool> align_corners) {
  CTORCH_CHECK_VALUE(theta.is_floating_point(), "Expected theta to have floating point type, but got ",
                     dtype_name(theta.scalar_type()));
  const bool ac = align_corners.value_or(false);
  if (size.size() == 4) {
    CTORCH_CHECK(theta.dim() == 3 && theta.size(1) == 2 && theta.size(2) == 3,
                 "Expected a batch of 2D affine matrices of shape Nx2x3 for size ", size, ". Got ", theta.sizes(), ".");
  } else if (size.size() == 5) {
    CTORCH_CHECK(theta.dim() == 3 && theta.size(1) == 3 && theta.size(2) == 4,
                 "Expected a batch of 3D affine matrices of shape Nx3x4 for size ", size, ". Got ", theta.sizes(), ".");
  } else {
    CTORCH_CHECK_NOT_IMPLEMENTED(false, "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, ",
                                 "respectively. Got size ", size, ".");
  }
  for (int64_t s : size) CTORCH_CHECK(s > 0, "Expected non-zero, positive output size. Got ", size);
  const TensorOptions opts = theta.options();
  const int64_t n = size[0];
  // base [N?, spatial..., dims + 1]: (x, y[, z], 1) per position, x along the last spatial dim.
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  const auto d = static_cast<int64_t>(spatial.size());
  std::vector<Tensor> coords;
  for (int64_t a = 0; a < d; ++a) {
    // Coordinate a (x first) runs along spatial dim d - 1 - a.
    const int64_t along = d - 1 - a;
    std::vector<int64_t> shape(static_cast<size_t>(d), 1);
    shape[static_cast<size_t>(along)] = spatial[static_cast<size_t>(along)];
    coords.push_back(base_axis(spatial[static_cast<size_t>(along)], ac, opts).view(shape).expand(spatial));
  }
  coords.push_back(ones(spatial, opts));
  int64_t positions = 1;
  for (int64_t s : spatial) positions *= s;
  const Tensor base = stack(coords, -1).reshape({1, positions, d + 1});
  std::vector<int64_t> out_shape{n};
  out_shape.insert(out_shape.end(), spatial.begin(), spatial.end());
  out_shape.push_back(d);
  return base.matmul(theta.transpose(1, 2)).reshape(out_shape);
}

}  // namespace ctorch::nn::functional
