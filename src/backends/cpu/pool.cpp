// Max pooling on the cpu: planes spread over the intra-op pool, each window scanned in order with
// PyTorch's rule (a later element wins only if greater, or NaN), so values and indices are
// PyTorch's; the backward adds each output's gradient at its index, plane by plane (no conflicts).
#include "backends/cpu/pool.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu/parallel.h"

namespace ctorch::inline api::backends::cpu {

namespace {

template <class T>
void forward(const ops::MaxPoolKernelArgs& a) {
  const int64_t plane_in = a.h * a.w, plane_out = a.oh * a.ow;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, plane_out * a.kernel[0] * a.kernel[1]));
  parallel_for(0, a.planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* in = static_cast<const T*>(a.input) + p * plane_in;
      T* out = static_cast<T*>(a.output) + p * plane_out;
      int64_t* idx = a.indices + p * plane_out;
      for (int64_t y = 0; y < a.oh; ++y) {
        const int64_t y0 = y * a.stride[0] - a.padding[0];
        for (int64_t x = 0; x < a.ow; ++x) {
          const int64_t x0 = x * a.stride[1] - a.padding[1];
          T best = -std::numeric_limits<T>::infinity();
          int64_t at = -1;
          for (int64_t i = 0; i < a.kernel[0]; ++i) {
            const int64_t yy = y0 + i * a.dilation[0];
            if (yy < 0 || yy >= a.h) continue;
            for (int64_t j = 0; j < a.kernel[1]; ++j) {
              const int64_t xx = x0 + j * a.dilation[1];
              if (xx < 0 || xx >= a.w) continue;
              const T v = in[yy * a.w + xx];
              if (at < 0 || v > best || std::isnan(v)) {  // PyTorch's rule: the last NaN wins
                best = v;
                at = yy * a.w + xx;
              }
            }
          }
          out[y * a.ow + x] = best;
          idx[y * a.ow + x] = at;
        }
      }
    }
  });
}

template <class T>
void backward(const ops::MaxPoolKernelArgs& a) {
  const int64_t plane_in = a.h * a.w, plane_out = a.oh * a.ow;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, plane_in));
  parallel_for(0, a.planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* gin = static_cast<T*>(a.grad_input) + p * plane_in;
      const T* gout = static_cast<const T*>(a.grad_output) + p * plane_out;
      const int64_t* idx = a.indices + p * plane_out;
      std::memset(gin, 0, static_cast<size_t>(plane_in) * sizeof(T));
      for (int64_t o = 0; o < plane_out; ++o) gin[idx[o]] += gout[o];
    }
  });
}

}  // namespace

bool max_pool2d(const ops::MaxPoolKernelArgs& a, Stream) {
  if (a.dtype == kFloat) {
    a.backward ? backward<float>(a) : forward<float>(a);
    return true;
  }
  if (a.dtype == kDouble) {
    a.backward ? backward<double>(a) : forward<double>(a);
    return true;
  }
  return false;
}

}  // namespace ctorch::api::backends::cpu
