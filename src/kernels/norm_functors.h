// Batch and layer normalization as block functors (Note [Thread functors]), written once for every
// backend: one block per channel (batch norm over [N, C, L]) or per row (layer norm over [M, N])
// computes the statistics and normalizes in the same launch.
//
// Note [Normalization kernels]
// - Statistics: Welford in opmath per thread, merged by the block tree (PyTorch's CUDA kernels use
//   Welford too); the variance is biased (m2 / count).
// - Forward: out = weight * (x - mean) * invstd + bias (PyTorch's CUDA element formula), invstd =
//   1 / sqrt(var + eps); batch norm in eval reads the running statistics instead.
// - Backward: the block sums dy and dy * (x - mean) (batch norm; layer norm: w * dy and w * dy * xhat)
//   and writes, per element, dx = invstd * w * (dy - mean(dy) - xhat * mean(dy * xhat)) (with the
//   batch's statistics; in eval dx = dy * invstd * w). Batch norm's weight and bias gradients come
//   from the same block; layer norm's are column sums, a second block functor (one block per column).
#pragma once

#include <cmath>
#include <cstdint>

#include "ctorch/macros.h"
#include "kernels/dispatch.h"
#include "kernels/thread_functors.h"

namespace ctorch::inline api::kernels {

/// The sums a normalization backward folds.
template <class A>
struct GradSums {
  A dy = A(0);    ///< sum of dy (layer norm: of w * dy)
  A dy_x = A(0);  ///< sum of dy * (x - mean) (layer norm: of w * dy * xhat)
};

/// Batch normalization forward over [N, C, L]: block c normalizes channel c.
template <class T>
struct BatchNormForwardFn {
  using A = opmath_t<T>;
  using Acc = Welford<A>;
  struct Post {
    A mean, invstd, w, b;
  };
  int64_t n, c, l;
  A eps;
  bool training;  ///< the batch's statistics (written to mean / var); else mean / var are read
  const T* in;
  const T* weight;  ///< or null
  const T* bias;    ///< or null
  T* mean;
  T* var;
  T* out;
  CTORCH_HD int64_t blocks() const { return c; }
  CTORCH_HD int64_t extent() const { return training ? n * l : 0; }
  CTORCH_HD int64_t offset(int64_t b, int64_t e) const { return (e / l * c + b) * l + e % l; }
  CTORCH_HD Acc init() const { return Acc{}; }
  CTORCH_HD Acc fold(const Acc& a, int64_t b, int64_t e) const { return a.add(static_cast<A>(in[offset(b, e)])); }
  CTORCH_HD Acc combine(const Acc& a, const Acc& b) const { return Acc::merge(a, b); }
  CTORCH_HD Post finish(int64_t b, const Acc& total, bool write) const {
    A m, v;
    if (training) {
      m = total.mean, v = total.n > 0 ? total.m2 / static_cast<A>(total.n) : A(0);
      if (write) mean[b] = static_cast<T>(m), var[b] = static_cast<T>(v);
    } else {
      m = static_cast<A>(mean[b]), v = static_cast<A>(var[b]);
    }
    return Post{m, A(1) / std::sqrt(v + eps), weight ? static_cast<A>(weight[b]) : A(1),
                bias ? static_cast<A>(bias[b]) : A(0)};
  }
  CTORCH_HD int64_t apply_extent() const { return n * l; }
  CTORCH_HD void apply(int64_t b, int64_t e, const Post& p) const {
    const int64_t i = offset(b, e);
    out[i] = static_cast<T>(p.w * (static_cast<A>(in[i]) - p.mean) * p.invstd + p.b);
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(in, n * c * l);
    v(weight, c);
    v(bias, c);
    v(mean, c);
    v(var, c);
    v(out, n * c * l);
  }
};

/// Batch normalization backward over [N, C, L]: block c writes channel c's input, weight and bias gradients.
template <class T>
struct BatchNormBackwardFn {
  using A = opmath_t<T>;
  using Acc = GradSums<A>;
  struct Post {
    A mean, invstd, w, mean_dy, proj;
  };
  int64_t n, c, l;
  A eps;
  bool use_batch_stats;
  const T* in;
  const T* grad_output;
  const T* weight;  ///< or null
  const T* mean;
  const T* var;
  T* grad_input;
  T* grad_weight;  ///< or null
  T* grad_bias;    ///< or null
  CTORCH_HD int64_t blocks() const { return c; }
  CTORCH_HD int64_t extent() const { return n * l; }
  CTORCH_HD int64_t offset(int64_t b, int64_t e) const { return (e / l * c + b) * l + e % l; }
  CTORCH_HD Acc init() const { return Acc{}; }
  CTORCH_HD Acc fold(const Acc& a, int64_t b, int64_t e) const {
    const int64_t i = offset(b, e);
    const A dy = static_cast<A>(grad_output[i]);
    return Acc{a.dy + dy, a.dy_x + dy * (static_cast<A>(in[i]) - static_cast<A>(mean[b]))};
  }
  CTORCH_HD Acc combine(const Acc& a, const Acc& b) const { return Acc{a.dy + b.dy, a.dy_x + b.dy_x}; }
  CTORCH_HD Post finish(int64_t b, const Acc& total, bool write) const {
    const A invstd = A(1) / std::sqrt(static_cast<A>(var[b]) + eps);
    if (write && grad_weight) grad_weight[b] = static_cast<T>(total.dy_x * invstd);
    if (write && grad_bias) grad_bias[b] = static_cast<T>(total.dy);
    const A count = static_cast<A>(n * l);
    return Post{static_cast<A>(mean[b]), invstd, weight ? static_cast<A>(weight[b]) : A(1), total.dy / count,
                total.dy_x / count * invstd * invstd};
  }
  CTORCH_HD int64_t apply_extent() const { return grad_input ? n * l : 0; }
  CTORCH_HD void apply(int64_t b, int64_t e, const Post& p) const {
    const int64_t i = offset(b, e);
    const A dy = static_cast<A>(grad_output[i]);
    if (!use_batch_stats) {
      grad_input[i] = static_cast<T>(dy * p.invstd * p.w);
      return;
    }
    const A xmu = static_cast<A>(in[i]) - p.mean;
    grad_input[i] = static_cast<T>((dy - p.mean_dy - xmu * p.proj) * p.invstd * p.w);
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(in, n * c * l);
    v(grad_output, n * c * l);
    v(weight, c);
    v(mean, c);
    v(var, c);
    v(grad_input, n * c * l);
    v(grad_weight, c);
    v(grad_bias, c);
  }
};

/// Layer normalization forward over the rows of [M, N]: block r normalizes row r.
template <class T>
struct LayerNormForwardFn {
  using A = opmath_t<T>;
  using Acc = Welford<A>;
  struct Post {
    A mean, invstd;
  };
  int64_t m, n;
  A eps;
  const T* in;
  const T* weight;  ///< [N] or null
  const T* bias;    ///< [N] or null
  T* mean;
  T* var;
  T* out;
  CTORCH_HD int64_t blocks() const { return m; }
  CTORCH_HD int64_t extent() const { return n; }
  CTORCH_HD Acc init() const { return Acc{}; }
  CTORCH_HD Acc fold(const Acc& a, int64_t b, int64_t e) const { return a.add(static_cast<A>(in[b * n + e])); }
  CTORCH_HD Acc combine(const Acc& a, const Acc& b) const { return Acc::merge(a, b); }
  CTORCH_HD Post finish(int64_t b, const Acc& total, bool write) const {
    const A v = total.n > 0 ? total.m2 / static_cast<A>(total.n) : A(0);
    if (write) mean[b] = static_cast<T>(total.mean), var[b] = static_cast<T>(v);
    return Post{total.mean, A(1) / std::sqrt(v + eps)};
  }
  CTORCH_HD int64_t apply_extent() const { return n; }
  CTORCH_HD void apply(int64_t b, int64_t e, const Post& p) const {
    const A w = weight ? static_cast<A>(weight[e]) : A(1), bb = bias ? static_cast<A>(bias[e]) : A(0);
    out[b * n + e] = static_cast<T>((static_cast<A>(in[b * n + e]) - p.mean) * p.invstd * w + bb);
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(in, m * n);
    v(weight, n);
    v(bias, n);
    v(mean, m);
    v(var, m);
    v(out, m * n);
  }
};

/// Layer normalization backward, the input's gradient: block r writes row r.
template <class T>
struct LayerNormBackwardFn {
  using A = opmath_t<T>;
  using Acc = GradSums<A>;
  struct Post {
    A mean, invstd, mean_dy, mean_dy_xhat;
  };
  int64_t m, n;
  A eps;
  const T* in;
  const T* grad_output;
  const T* weight;  ///< [N] or null
  const T* mean;
  const T* var;
  T* grad_input;
  CTORCH_HD int64_t blocks() const { return m; }
  CTORCH_HD int64_t extent() const { return n; }
  CTORCH_HD A invstd_of(int64_t b) const { return A(1) / std::sqrt(static_cast<A>(var[b]) + eps); }
  CTORCH_HD Acc init() const { return Acc{}; }
  CTORCH_HD Acc fold(const Acc& a, int64_t b, int64_t e) const {
    const A wdy = static_cast<A>(grad_output[b * n + e]) * (weight ? static_cast<A>(weight[e]) : A(1));
    const A xhat = (static_cast<A>(in[b * n + e]) - static_cast<A>(mean[b])) * invstd_of(b);
    return Acc{a.dy + wdy, a.dy_x + wdy * xhat};
  }
  CTORCH_HD Acc combine(const Acc& a, const Acc& b) const { return Acc{a.dy + b.dy, a.dy_x + b.dy_x}; }
  CTORCH_HD Post finish(int64_t b, const Acc& total, bool) const {
    return Post{static_cast<A>(mean[b]), invstd_of(b), total.dy / static_cast<A>(n), total.dy_x / static_cast<A>(n)};
  }
  CTORCH_HD int64_t apply_extent() const { return n; }
  CTORCH_HD void apply(int64_t b, int64_t e, const Post& p) const {
    const A wdy = static_cast<A>(grad_output[b * n + e]) * (weight ? static_cast<A>(weight[e]) : A(1));
    const A xhat = (static_cast<A>(in[b * n + e]) - p.mean) * p.invstd;
    grad_input[b * n + e] = static_cast<T>(p.invstd * (wdy - p.mean_dy - xhat * p.mean_dy_xhat));
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(in, m * n);
    v(grad_output, m * n);
    v(weight, n);
    v(mean, m);
    v(var, m);
    v(grad_input, m * n);
  }
};

/// Layer normalization backward, the weight's and bias's gradients: block j sums column j over the rows.
template <class T>
struct LayerNormParamGradFn {
  using A = opmath_t<T>;
  using Acc = GradSums<A>;
  struct Post {};
  int64_t m, n;
  A eps;
  const T* in;
  const T* grad_output;
  const T* mean;
  const T* var;
  T* grad_weight;  ///< or null
  T* grad_bias;    ///< or null
  CTORCH_HD int64_t blocks() const { return n; }
  CTORCH_HD int64_t extent() const { return m; }
  CTORCH_HD Acc init() const { return Acc{}; }
  CTORCH_HD Acc fold(const Acc& a, int64_t j, int64_t r) const {
    const A dy = static_cast<A>(grad_output[r * n + j]);
    const A xhat = (static_cast<A>(in[r * n + j]) - static_cast<A>(mean[r])) / std::sqrt(static_cast<A>(var[r]) + eps);
    return Acc{a.dy + dy, a.dy_x + dy * xhat};
  }
  CTORCH_HD Acc combine(const Acc& a, const Acc& b) const { return Acc{a.dy + b.dy, a.dy_x + b.dy_x}; }
  CTORCH_HD Post finish(int64_t j, const Acc& total, bool write) const {
    if (write && grad_weight) grad_weight[j] = static_cast<T>(total.dy_x);
    if (write && grad_bias) grad_bias[j] = static_cast<T>(total.dy);
    return Post{};
  }
  CTORCH_HD int64_t apply_extent() const { return 0; }
  CTORCH_HD void apply(int64_t, int64_t, const Post&) const {}
  template <class V>
  void visit_buffers(V&& v) {
    v(in, m * n);
    v(grad_output, m * n);
    v(mean, m);
    v(var, m);
    v(grad_weight, n);
    v(grad_bias, n);
  }
};

}  // namespace ctorch::api::kernels
