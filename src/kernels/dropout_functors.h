// PyTorch's fused dropout kernel (aten/src/ATen/native/cuda/Dropout.cu, 1.13), written once for
// every backend like the other random kernels (kernels/random_functors.h): the cpu launcher and
// the emulated devices walk its grid on the host, the CUDA backend runs it as a kernel.
//
// Note [Fused dropout]
// native_dropout(input, p, train) on a CUDA tensor draws with the launch of
// distribution_nullary_kernel (block 256, grid min(ceil(n / 256), sm_count * blocks_per_sm),
// offset increment ((n - 1) / (threads * 4) + 1) * 4: distribution_launch) and writes, per
// element, output = input * keep * (1 / keep_p) and mask = keep, where keep = (u < keep_p) for a
// float uniform u in (0, 1] (curand_uniform4; float for every dtype, compared in the acc type).
// All three buffers are walked in memory order (the op layer passes dense buffers sharing it).
// Which elements a draw serves depends on `vec`, chosen by the op layer as PyTorch's
// get_vector_size: 4 or 2 when the input is dense, its address aligned to vec elements and numel
// a multiple of vec, else 1.
//   vec == 1 (fused_dropout_kernel): draw `it` of thread t serves elements
//            t + it * threads * 4 + ii * threads, ii < 4.
//   vec >= 2 (fused_dropout_kernel_vec): draw `it` of thread t serves the vec consecutive elements
//            from (t + it * threads) * vec, with the draw's first vec uniforms (a new draw each
//            time: 1.13's reuse of the last two uniforms for vec == 2 never triggers).
#pragma once

#include <cstdint>

#include "ctorch/macros.h"
#include "kernels/philox.h"
#include "kernels/random_functors.h"

namespace ctorch::inline api::kernels {

/// Thread `t`'s part of the fused dropout over `numel` elements (Note [Fused dropout]); `keep_p` is
/// 1 - p, T the element type, A its accumulate type.
template <class T>
CTORCH_HD void fused_dropout_thread(int64_t t, int64_t numel, int64_t threads, int vec, uint64_t seed,
                                    uint64_t offset, random_acc_t<T> keep_p, const T* in, T* out, bool* mask) {
  using A = random_acc_t<T>;
  const A scale = static_cast<A>(1.0 / static_cast<double>(keep_p));  // `1.0 / p`: a double division
  uint64_t call = 0;
  if (vec == 1) {
    const int64_t step = threads * 4;
    for (int64_t first = t; first < numel; first += step, ++call) {
      const PhiloxBlock b = curand4_at(seed, static_cast<uint64_t>(t), offset, call);
      const uint32_t words[4] = {b.x, b.y, b.z, b.w};
      for (int ii = 0; ii < 4; ++ii) {
        const int64_t li = first + threads * ii;
        if (li >= numel) break;
        const bool keep = static_cast<A>(curand_uniform(words[ii])) < keep_p;
        out[li] = static_cast<T>(static_cast<A>(in[li]) * static_cast<A>(keep ? 1 : 0) * scale);
        mask[li] = keep;
      }
    }
    return;
  }
  const int64_t step = threads * vec;
  for (int64_t first = t * vec; first < numel; first += step, ++call) {
    const PhiloxBlock b = curand4_at(seed, static_cast<uint64_t>(t), offset, call);
    const uint32_t words[4] = {b.x, b.y, b.z, b.w};
    for (int ii = 0; ii < vec; ++ii) {
      const int64_t li = first + ii;
      const bool keep = static_cast<A>(curand_uniform(words[ii])) < keep_p;
      out[li] = static_cast<T>(static_cast<A>(in[li]) * static_cast<A>(keep ? 1 : 0) * scale);
      mask[li] = keep;
    }
  }
}

}  // namespace ctorch::api::kernels
