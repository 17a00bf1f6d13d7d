// PyTorch's 2-d pooling kernels (aten/src/ATen/native/cuda/DilatedMaxPool2d.cu, AveragePool2d.cu
// and AdaptiveAveragePooling.cu, 1.13, NCHW), written once for every backend as thread functors
// (Note [Thread functors] in kernels/thread_functors.h): a thread computes one row of a plane.
//
// Note [Pooling kernels]
// - Forward: for each output element of its row, a thread scans the window in order (rows, then
//   columns), accumulating in opmath. Max: a later element wins only if greater, or NaN (the last
//   NaN wins), from -inf with the window's first in-bounds position as the index, so values and
//   indices are PyTorch's on both of its devices. Average: the sum divided by PyTorch's divide
//   factor (divisor_override, or the window's extent clipped to the padded input with
//   count_include_pad, else to the input); adaptive windows [floor(o * in / out),
//   ceil((o + 1) * in / out)) divide by the rows, then by the columns.
// - Backward: for each input element of its row, a thread gathers, in output order, the outputs
//   whose windows can hold it: max adds the gradients whose index is this element, average each
//   gradient over its divide factor. No thread writes another's element (no atomics), so the
//   result does not depend on the schedule, and each sum is taken in the order PyTorch's cpu
//   kernel scatters it.
// - A row per thread (PyTorch's CUDA kernels take an element per thread) keeps the index
//   arithmetic out of the inner loops, which the host walkers pay for; the values are the same.
//   Where opmath is the storage type (float, double) the backward scatters each output row's
//   gradients into the thread's own input row in output order, which adds each element's terms in
//   the gather's order; half and bfloat16 gather per element in float.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "ctorch/macros.h"
#include "kernels/dispatch.h"

namespace ctorch::inline api::kernels {

/// One 2-d pooling's geometry: `planes` contiguous h x w planes pooled into oh x ow planes.
struct PoolGeometry {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  CTORCH_HD int64_t in_numel() const { return planes * h * w; }
  CTORCH_HD int64_t out_numel() const { return planes * oh * ow; }
};

namespace pool_detail {

CTORCH_HD inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
CTORCH_HD inline int64_t max64(int64_t a, int64_t b) { return a < b ? b : a; }

// The first output along one dim whose (dilated) window can reach input position x (padded coordinate
// x + pad), and one past the last: PyTorch's p_start / p_end.
CTORCH_HD inline int64_t first_window(int64_t x, int64_t pad, int64_t extent, int64_t stride) {
  return x + pad < extent ? 0 : (x + pad - extent) / stride + 1;
}
CTORCH_HD inline int64_t end_window(int64_t x, int64_t pad, int64_t stride, int64_t out) {
  return min64((x + pad) / stride + 1, out);
}

// Adaptive window bounds: [floor(o * in / out), ceil((o + 1) * in / out)).
CTORCH_HD inline int64_t adaptive_start(int64_t o, int64_t out, int64_t in) { return o * in / out; }
CTORCH_HD inline int64_t adaptive_end(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

}  // namespace pool_detail

/// max_pool2d forward, one output row per thread: values and indices (positions in the input plane).
template <class T>
struct MaxPoolForwardFn {
  PoolGeometry g;
  const T* in;
  T* out;
  int64_t* indices;
  CTORCH_HD int64_t threads() const { return g.planes * g.oh; }
  CTORCH_HD void operator()(int64_t i) const {
    using A = opmath_t<T>;
    const int64_t ph = i % g.oh;
    int64_t hstart = ph * g.stride[0] - g.padding[0];
    const int64_t hend = pool_detail::min64(hstart + (g.kernel[0] - 1) * g.dilation[0] + 1, g.h);
    while (hstart < 0) hstart += g.dilation[0];
    const T* plane = in + i / g.oh * g.h * g.w;
    for (int64_t pw = 0; pw < g.ow; ++pw) {
      int64_t wstart = pw * g.stride[1] - g.padding[1];
      const int64_t wend = pool_detail::min64(wstart + (g.kernel[1] - 1) * g.dilation[1] + 1, g.w);
      while (wstart < 0) wstart += g.dilation[1];
      A best = -std::numeric_limits<A>::infinity();
      int64_t at = hstart * g.w + wstart;
      for (int64_t y = hstart; y < hend; y += g.dilation[0]) {
        for (int64_t x = wstart; x < wend; x += g.dilation[1]) {
          const A v = static_cast<A>(plane[y * g.w + x]);
          if (v > best || v != v) {
            best = v;
            at = y * g.w + x;
          }
        }
      }
      out[i * g.ow + pw] = static_cast<T>(best);
      indices[i * g.ow + pw] = at;
    }
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(in, g.in_numel());
    v(out, g.out_numel());
    v(indices, g.out_numel());
  }
};

/// max_pool2d backward, one input row per thread: each element's gradient, the sum of the outputs that
/// chose it.
template <class T>
struct MaxPoolBackwardFn {
  PoolGeometry g;
  const T* grad_output;
  const int64_t* indices;
  T* grad_input;
  CTORCH_HD int64_t threads() const { return g.planes * g.h; }
  CTORCH_HD void operator()(int64_t i) const {
    using A = opmath_t<T>;
    const int64_t y = i % g.h, base = i / g.h * g.oh * g.ow;
    // The output rows whose windows can reach row y.
    const int64_t ph0 = pool_detail::first_window(y, g.padding[0], (g.kernel[0] - 1) * g.dilation[0] + 1, g.stride[0]);
    const int64_t ph1 = pool_detail::end_window(y, g.padding[0], g.stride[0], g.oh);
    T* row = grad_input + i * g.w;
    if constexpr (std::is_same_v<T, A>) {
      // Accumulating in T: scatter those rows' gradients into this row, in output order (each element
      // gets its sum in the order of the gather below).
      for (int64_t x = 0; x < g.w; ++x) row[x] = T(0);
      for (int64_t ph = ph0; ph < ph1; ++ph) {
        for (int64_t pw = 0; pw < g.ow; ++pw) {
          const int64_t o = base + ph * g.ow + pw, at = indices[o] - y * g.w;
          if (at >= 0 && at < g.w) row[at] += grad_output[o];
        }
      }
    } else {
      for (int64_t x = 0; x < g.w; ++x) {
        const int64_t pw0 =
            pool_detail::first_window(x, g.padding[1], (g.kernel[1] - 1) * g.dilation[1] + 1, g.stride[1]);
        const int64_t pw1 = pool_detail::end_window(x, g.padding[1], g.stride[1], g.ow);
        A sum = A(0);
        for (int64_t ph = ph0; ph < ph1; ++ph) {
          for (int64_t pw = pw0; pw < pw1; ++pw) {
            const int64_t o = base + ph * g.ow + pw;
            if (indices[o] == y * g.w + x) sum += static_cast<A>(grad_output[o]);
          }
        }
        row[x] = static_cast<T>(sum);
      }
    }
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(grad_output, g.out_numel());
    v(indices, g.out_numel());
    v(grad_input, g.in_numel());
  }
};

/// Average pooling's options beyond the geometry (dilation is 1).
struct AvgPoolMode {
  bool adaptive = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;  ///< 0: none
};

namespace pool_detail {

// Output (ph, pw)'s window clipped to the input, and the divide factor of a non-adaptive pooling.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divide;
};

CTORCH_HD inline AvgWindow avg_window(const PoolGeometry& g, const AvgPoolMode& m, int64_t ph, int64_t pw) {
  if (m.adaptive) {
    return AvgWindow{adaptive_start(ph, g.oh, g.h), adaptive_end(ph, g.oh, g.h), adaptive_start(pw, g.ow, g.w),
                     adaptive_end(pw, g.ow, g.w), 0};
  }
  int64_t h0 = ph * g.stride[0] - g.padding[0], w0 = pw * g.stride[1] - g.padding[1];
  int64_t h1 = min64(h0 + g.kernel[0], g.h + g.padding[0]), w1 = min64(w0 + g.kernel[1], g.w + g.padding[1]);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = max64(h0, 0), w0 = max64(w0, 0), h1 = min64(h1, g.h), w1 = min64(w1, g.w);
  const int64_t divide = m.divisor_override != 0 ? m.divisor_override
                         : m.count_include_pad   ? pool_size
                                                 : (h1 - h0) * (w1 - w0);
  return AvgWindow{h0, h1, w0, w1, divide};
}

}  // namespace pool_detail

/// avg_pool2d / adaptive_avg_pool2d forward, one output row per thread.
template <class T>
struct AvgPoolForwardFn {
  PoolGeometry g;
  AvgPoolMode m;
  const T* in;
  T* out;
  CTORCH_HD int64_t threads() const { return g.planes * g.oh; }
  CTORCH_HD void operator()(int64_t i) const {
    using A = opmath_t<T>;
    const int64_t ph = i % g.oh;
    const T* plane = in + i / g.oh * g.h * g.w;
    for (int64_t pw = 0; pw < g.ow; ++pw) {
      const pool_detail::AvgWindow win = pool_detail::avg_window(g, m, ph, pw);
      A sum = A(0);
      for (int64_t y = win.h0; y < win.h1; ++y) {
        for (int64_t x = win.w0; x < win.w1; ++x) sum += static_cast<A>(plane[y * g.w + x]);
      }
      out[i * g.ow + pw] = static_cast<T>(
          m.adaptive ? sum / static_cast<A>(win.h1 - win.h0) / static_cast<A>(win.w1 - win.w0)
                     : sum / static_cast<A>(win.divide));
    }
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(in, g.in_numel());
    v(out, g.out_numel());
  }
};

/// avg_pool2d / adaptive_avg_pool2d backward, one input row per thread: each element gets the gradients of
/// the outputs whose windows hold it, each over its divide factor.
template <class T>
struct AvgPoolBackwardFn {
  PoolGeometry g;
  AvgPoolMode m;
  const T* grad_output;
  T* grad_input;
  CTORCH_HD int64_t threads() const { return g.planes * g.h; }
  CTORCH_HD void operator()(int64_t i) const {
    using A = opmath_t<T>;
    const int64_t y = i % g.h;
    const T* plane = grad_output + i / g.h * g.oh * g.ow;
    T* row = grad_input + i * g.w;
    // The output rows whose windows can hold row y (adaptive: [floor(y * oh / h), ceil((y + 1) * oh / h))).
    const int64_t ph0 = m.adaptive ? pool_detail::adaptive_start(y, g.h, g.oh)
                                   : pool_detail::first_window(y, g.padding[0], g.kernel[0], g.stride[0]);
    const int64_t ph1 = m.adaptive ? pool_detail::adaptive_end(y, g.h, g.oh)
                                   : pool_detail::end_window(y, g.padding[0], g.stride[0], g.oh);
    auto share = [&](int64_t ph, int64_t pw, const pool_detail::AvgWindow& win) {
      const A grad = static_cast<A>(plane[ph * g.ow + pw]);
      return m.adaptive ? grad / static_cast<A>(win.h1 - win.h0) / static_cast<A>(win.w1 - win.w0)
                        : grad / static_cast<A>(win.divide);
    };
    if constexpr (std::is_same_v<T, A>) {
      // Accumulating in T: scatter each window's share over its columns of this row, in output order (each
      // element gets its sum in the order of the gather below).
      for (int64_t x = 0; x < g.w; ++x) row[x] = T(0);
      for (int64_t ph = ph0; ph < ph1; ++ph) {
        for (int64_t pw = 0; pw < g.ow; ++pw) {
          const pool_detail::AvgWindow win = pool_detail::avg_window(g, m, ph, pw);
          if (y < win.h0 || y >= win.h1) continue;
          const A v = share(ph, pw, win);
          for (int64_t x = win.w0; x < win.w1; ++x) row[x] += v;
        }
      }
    } else {
      for (int64_t x = 0; x < g.w; ++x) {
        const int64_t pw0 = m.adaptive ? pool_detail::adaptive_start(x, g.w, g.ow)
                                       : pool_detail::first_window(x, g.padding[1], g.kernel[1], g.stride[1]);
        const int64_t pw1 = m.adaptive ? pool_detail::adaptive_end(x, g.w, g.ow)
                                       : pool_detail::end_window(x, g.padding[1], g.stride[1], g.ow);
        A sum = A(0);
        for (int64_t ph = ph0; ph < ph1; ++ph) {
          for (int64_t pw = pw0; pw < pw1; ++pw) {
            const pool_detail::AvgWindow win = pool_detail::avg_window(g, m, ph, pw);
            if (y >= win.h0 && y < win.h1 && x >= win.w0 && x < win.w1) sum += share(ph, pw, win);
          }
        }
        row[x] = static_cast<T>(sum);
      }
    }
  }
  template <class V>
  void visit_buffers(V&& v) {
    v(grad_output, g.out_numel());
    v(grad_input, g.in_numel());
  }
};

}  // namespace ctorch::api::kernels
