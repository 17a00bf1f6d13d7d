// torch.nn.init (torch/nn/init.py, PyTorch 1.13): same formulas, same draws from the generator.
#include "ctorch/nn_init.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ctorch/random.h"
#include "ctorch/warning.h"

namespace ctorch::nn::init {

double calculate_gain(const std::string& nonlinearity, std::optional<double> param) {
  static const char* const kLinear[] = {"linear",           "conv1d",           "conv2d",          "conv3d",
                                        "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
  if (std::find(std::begin(kLinear), std::end(kLinear), nonlinearity) != std::end(kLinear) || nonlinearity == "sigmoid") {
    return 1;
  }
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4;
  CTORCH_CHECK_VALUE(false, "Unsupported nonlinearity ", nonlinearity);
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  CTORCH_CHECK_VALUE(tensor.dim() >= 2,
                     "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

namespace {

int64_t correct_fan(const Tensor& tensor, std::string mode) {
  std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::tolower(c); });
  CTORCH_CHECK_VALUE(mode == "fan_in" || mode == "fan_out", "Mode ", mode,
                     " not supported, please use one of ['fan_in', 'fan_out']");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return mode == "fan_in" ? fan_in : fan_out;
}

bool has_zero_dim(const Tensor& tensor) {
  for (int64_t s : tensor.sizes()) {
    if (s == 0) return true;
  }
  return false;
}

/// Reduced QR of a [m, n] matrix (m >= n) by Householder reflections, in double: Q [m, n], R [n, n].
void householder_qr(std::vector<double> a, int64_t m, int64_t n, std::vector<double>& q, std::vector<double>& r) {
  std::vector<std::vector<double>> vs;
  for (int64_t k = 0; k < n; ++k) {
    double norm = 0;
    for (int64_t i = k; i < m; ++i) norm += a[i * n + k] * a[i * n + k];
    norm = std::sqrt(norm);
    std::vector<double> v(static_cast<size_t>(m), 0.0);
    if (norm > 0) {
      const double alpha = a[k * n + k] > 0 ? -norm : norm;
      for (int64_t i = k; i < m; ++i) v[i] = a[i * n + k];
      v[k] -= alpha;
      double vnorm = 0;
      for (int64_t i = k; i < m; ++i) vnorm += v[i] * v[i];
      if (vnorm > 0) {
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t i = k; i < m; ++i) dot += v[i] * a[i * n + j];
          const double f = 2 * dot / vnorm;
          for (int64_t i = k; i < m; ++i) a[i * n + j] -= f * v[i];
        }
      }
      for (int64_t i = k; i < m; ++i) v[i] /= std::sqrt(vnorm > 0 ? vnorm / 2 : 1);  // H = I - v v^T
    }
    vs.push_back(std::move(v));
  }
  r.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i; j < n; ++j) r[i * n + j] = a[i * n + j];
  }
  // Q = H_0 H_1 ... H_{n-1} applied to the first n columns of the identity.
  q.assign(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < n; ++i) q[i * n + i] = 1;
  for (int64_t k = n - 1; k >= 0; --k) {
    const std::vector<double>& v = vs[k];
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i] * q[i * n + j];
      for (int64_t i = k; i < m; ++i) q[i * n + j] -= dot * v[i];
    }
  }
}

}  // namespace

Tensor uniform_(Tensor tensor, double a, double b) {
  NoGradGuard no_grad;
  return tensor.uniform_(a, b);
}

Tensor normal_(Tensor tensor, double mean, double std) {
  NoGradGuard no_grad;
  return tensor.normal_(mean, std);
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b) {
  // PyTorch's method: uniform in [cdf(a), cdf(b)], then the inverse cdf through erfinv.
  NoGradGuard no_grad;
  auto norm_cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
  if (mean < a - 2 * std || mean > b + 2 * std) {
    warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be incorrect.");
  }
  const double l = norm_cdf((a - mean) / std), u = norm_cdf((b - mean) / std);
  tensor.uniform_(2 * l - 1, 2 * u - 1);
  Tensor values = tensor.to(ScalarType::Float64).cpu().contiguous();
  double* p = values.data_ptr<double>();
  for (int64_t i = 0; i < values.numel(); ++i) {
    // erfinv by Newton's method on erf (double precision).
    const double y = p[i];
    double x = 0;
    for (int it = 0; it < 60; ++it) {
      const double err = std::erf(x) - y;
      x -= err / (2 / std::sqrt(M_PI) * std::exp(-x * x));
      if (std::abs(err) < 1e-15) break;
    }
    p[i] = std::clamp(x * std * std::sqrt(2.) + mean, a, b);
  }
  tensor.copy_(values);
  return tensor;
}

Tensor constant_(Tensor tensor, double value) {
  NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }

Tensor zeros_(Tensor tensor) {
  NoGradGuard no_grad;
  return tensor.zero_();
}

Tensor eye_(Tensor tensor) {
  CTORCH_CHECK_VALUE(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  NoGradGuard no_grad;
  tensor.copy_(eye(tensor.size(0), tensor.size(1), TensorOptions().dtype(tensor.scalar_type())));
  return tensor;
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  const int64_t dims = tensor.dim();
  CTORCH_CHECK_VALUE(dims >= 3 && dims <= 5, "Only tensors with 3, 4, or 5 dimensions are supported");
  CTORCH_CHECK_VALUE(groups > 0 && tensor.size(0) % groups == 0, "dim 0 must be divisible by groups");
  NoGradGuard no_grad;
  tensor.zero_();
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t min_dim = std::min(out_per_group, tensor.size(1));
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < min_dim; ++d) {
      Tensor t = tensor.select(0, g * out_per_group + d).select(0, d);
      for (int64_t k = 2; k < dims; ++k) t = t.select(0, tensor.size(k) / 2);
      t.fill_(1);
    }
  }
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -a, a);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(tensor), 0, std);
}

Tensor kaiming_uniform_(Tensor tensor, double a, const std::string& mode, const std::string& nonlinearity) {
  if (has_zero_dim(tensor)) {
    warn("Initializing zero-element tensors is a no-op");
    return tensor;
  }
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(correct_fan(tensor, mode)));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, const std::string& mode, const std::string& nonlinearity) {
  if (has_zero_dim(tensor)) {
    warn("Initializing zero-element tensors is a no-op");
    return tensor;
  }
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(correct_fan(tensor, mode)));
  return normal_(std::move(tensor), 0, std);
}

Tensor orthogonal_(Tensor tensor, double gain) {
  CTORCH_CHECK_VALUE(tensor.dim() >= 2, "Only tensors with 2 or more dimensions are supported");
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  Tensor flattened = empty({rows, cols}, TensorOptions().dtype(tensor.scalar_type()).device(tensor.device())).normal_(0, 1);
  const bool wide = rows < cols;
  if (wide) flattened = flattened.t();
  const int64_t m = flattened.size(0), n = flattened.size(1);
  Tensor host = flattened.to(ScalarType::Float64).cpu().contiguous();
  std::vector<double> a(host.data_ptr<double>(), host.data_ptr<double>() + m * n), q, r;
  householder_qr(std::move(a), m, n, q, r);
  // Q times the signs of R's diagonal: the unique factor with a positive diagonal (PyTorch's ph).
  for (int64_t j = 0; j < n; ++j) {
    const double d = r[j * n + j];
    const double sign = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
    for (int64_t i = 0; i < m; ++i) q[i * n + j] *= sign;
  }
  Tensor result = from_blob(q.data(), {m, n}, TensorOptions().dtype(ScalarType::Float64))
                      .to(tensor.device(), tensor.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
  if (wide) result = result.t();
  tensor.view_as(result).copy_(result);
  tensor.mul_(gain);
  return tensor;
}

Tensor sparse_(Tensor tensor, double sparsity, double std) {
  CTORCH_CHECK_VALUE(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  const auto num_zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  NoGradGuard no_grad;
  tensor.normal_(0, std);
  for (int64_t c = 0; c < cols; ++c) {
    const Tensor order = randperm(rows);
    for (int64_t i = 0; i < num_zeros; ++i) tensor.select(0, order[i].item<int64_t>()).select(0, c).fill_(0);
  }
  return tensor;
}

}  // namespace ctorch::nn::init
