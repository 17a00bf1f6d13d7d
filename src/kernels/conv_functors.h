// The column kernels of the generic convolution (Note [Convolution] in ops/conv.cpp), written once
// for every backend as thread functors (Note [Thread functors]): im2col reads the input's windows
// into columns, col2im folds column gradients back into the input's gradient. PyTorch's CUDA
// slow_conv2d has the same pair (aten/src/ATen/native/cuda/im2col.cuh); here a thread writes a block
// of rows (index arithmetic out of the inner loops, which the host walkers pay for).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ctorch/macros.h"
#include "kernels/dispatch.h"

namespace ctorch::inline api::kernels {

/// A 2-d convolution's geometry for the column kernels: input [N, C, H, W], windows KH x KW giving OH x OW.
struct ColumnsGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, kh = 1, kw = 1, oh = 0, ow = 0;
  int64_t stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  CTORCH_HD int64_t input_numel() const { return n * c * h * w; }
  CTORCH_HD int64_t columns_numel() const { return c * kh * kw * n * oh * ow; }
};

namespace conv_detail {

CTORCH_HD inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
CTORCH_HD inline int64_t max64(int64_t a, int64_t b) { return a < b ? b : a; }

// The outputs [lo, hi) along one dim whose position out * stride + offset falls inside [0, size).
CTORCH_HD inline void inside(int64_t offset, int64_t stride, int64_t size, int64_t out, int64_t* lo, int64_t* hi) {
  *lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  *hi = size - offset <= 0 ? 0 : min64(out, (size - offset + stride - 1) / stride);
  *lo = min64(*lo, max64(*hi, 0));
}

}  // namespace conv_detail

/// im2col: columns [C * KH * KW, N * OH * OW] from input [N, C, H, W] (zeros where a window reads the
/// padding); thread (c, i, j, n) writes the OH x OW block of its column row.
template <class T>
struct Im2ColFn {
  ColumnsGeometry g;
  const T* in;
  T* cols;
  CTORCH_HD int64_t threads() const { return g.c * g.kh * g.kw * g.n; }
  CTORCH_HD void operator()(int64_t t) const {
    const int64_t n = t % g.n, k = t / g.n;  // k = (c * KH + i) * KW + j
    const int64_t j = k % g.kw, i = k / g.kw % g.kh, c = k / (g.kw * g.kh);
    const int64_t x0 = j * g.dilation[1] - g.padding[1];
    int64_t lo = 0, hi = 0;  // the columns whose x = ox * stride + x0 is inside the input
    conv_detail::inside(x0, g.stride[1], g.w, g.ow, &lo, &hi);
    const T* plane = in + (n * g.c + c) * g.h * g.w;
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      T* out = cols + t * g.oh * g.ow + oy * g.ow;
      const int64_t y = oy * g.stride[0] - g.padding[0] + i * g.dilation[0];
      if (y < 0 || y >= g.h) {
        for (int64_t ox = 0; ox < g.ow; ++ox) out[ox] = T(0);
        continue;
      }
      const T* row = plane + y * g.w;
      for (int64_t ox = 0; ox < lo; ++ox) out[ox] = T(0);
      if (g.stride[1] == 1) {
        for (int64_t ox = lo; ox < hi; ++ox) out[ox] = row[ox + x0];
      } else {
        for (int64_t ox = lo; ox < hi; ++ox) out[ox] = row[ox * g.stride[1] + x0];
      }
      for (int64_t ox = hi; ox < g.ow; ++ox) out[ox] = T(0);
    }
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(in, g.input_numel());
    v(cols, g.columns_numel());
  }
};

/// col2im: the input's gradient [N, C, H, W] from column gradients [C * KH * KW, N * OH * OW], each
/// element the sum over the kernel offsets (i, j), in order, of the column entries that read it;
/// thread (n, c) writes one plane (float and double: by scattering each offset's column rows into it,
/// which adds each element's terms in that order; half and bfloat16 gather per element in float).
template <class T>
struct Col2ImFn {
  ColumnsGeometry g;
  const T* cols;
  T* in_grad;
  CTORCH_HD int64_t threads() const { return g.n * g.c; }
  // The output row whose window reads input row y at kernel row i, or -1.
  CTORCH_HD int64_t source_row(int64_t y, int64_t i) const {
    const int64_t ys = y + g.padding[0] - i * g.dilation[0];  // oy * stride
    if (ys < 0 || ys % g.stride[0] != 0 || ys / g.stride[0] >= g.oh) return -1;
    return ys / g.stride[0];
  }
  CTORCH_HD void operator()(int64_t t) const {
    using A = opmath_t<T>;
    const int64_t c = t % g.c, n = t / g.c;
    T* plane = in_grad + t * g.h * g.w;
    const int64_t column_row = g.n * g.oh * g.ow;
    auto source = [&](int64_t i, int64_t j, int64_t oy) {
      return cols + ((c * g.kh + i) * g.kw + j) * column_row + (n * g.oh + oy) * g.ow;
    };
    if constexpr (std::is_same_v<T, A>) {
      for (int64_t e = 0; e < g.h * g.w; ++e) plane[e] = T(0);
      for (int64_t y = 0; y < g.h; ++y) {
        T* out = plane + y * g.w;
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t oy = source_row(y, i);
          if (oy < 0) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t x0 = j * g.dilation[1] - g.padding[1];
            int64_t lo = 0, hi = 0;
            conv_detail::inside(x0, g.stride[1], g.w, g.ow, &lo, &hi);
            const T* src = source(i, j, oy);
            if (g.stride[1] == 1) {
              for (int64_t ox = lo; ox < hi; ++ox) out[ox + x0] += src[ox];
            } else {
              for (int64_t ox = lo; ox < hi; ++ox) out[ox * g.stride[1] + x0] += src[ox];
            }
          }
        }
      }
    } else {
      for (int64_t y = 0; y < g.h; ++y) {
        for (int64_t x = 0; x < g.w; ++x) {
          A sum = A(0);
          for (int64_t i = 0; i < g.kh; ++i) {
            const int64_t oy = source_row(y, i);
            if (oy < 0) continue;
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t xs = x + g.padding[1] - j * g.dilation[1];
              if (xs < 0 || xs % g.stride[1] != 0 || xs / g.stride[1] >= g.ow) continue;
              sum += static_cast<A>(source(i, j, oy)[xs / g.stride[1]]);
            }
          }
          plane[y * g.w + x] = static_cast<T>(sum);
        }
      }
    }
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(cols, g.columns_numel());
    v(in_grad, g.input_numel());
  }
};

}  // namespace ctorch::api::kernels
