// Sampling for the CUDA generator, written once for every backend: Philox4x32-10 words to
// uniform, normal, integer and Bernoulli values (curand's formulas), and PyTorch's mapping of
// elements to Philox streams (distribution_nullary_kernel, CUDA_tensor_apply2). The cpu backend
// walks the CUDA grid on the host with these functions; the CUDA kernels run the same ones.
//
// Note [CUDA RNG determinism contract]
// A random op on a CUDA tensor takes (seed, offset) from its generator once
// (CUDAGeneratorImpl::philox_cuda_state) and then every value is a pure function of
//   (seed, offset, numel, sm_count, max_threads_per_sm, op, op arguments, dtype, element index),
// where the element index counts in the output's memory order (PyTorch's TensorIterator order)
// and the two device properties fix the grid, hence which Philox subsequence serves an element.
// The same inputs give the same bits on every ctorch CUDA backend (emulated and real), on any
// host, across runs and with any number of host threads. The arithmetic obeys Note
// [Contraction-proof arithmetic] (kernels/random_math.h).
// Relation to PyTorch 1.13 + curand for the same (seed, offset, grid):
//   - uniform_/rand, random_/randint, bernoulli_(p) and bernoulli(p tensor) give the same bits:
//     curand's conversions (x * 2^-32 + 2^-33, (x ^ y << 21) * 2^-53 + 2^-54) are exact products
//     plus one rounding, so contraction cannot change them either. uniform_ on half and bfloat16
//     follows PyTorch >= 2.1 where 1.13 could return `to` (see UniformSampler).
//   - normal_/randn are close, not equal: curand evaluates logf and __sincosf (float) or log and
//     sincospi (double) with device code; ctorch uses random_math.h. Float values differ by a few
//     1e-6 absolute (the error of the fast __sincosf intrinsic), double values by a few ulps.
//   - Tensors of 2^31 elements or more: PyTorch splits them into 32-bit-indexed launches, each
//     with its own philox_cuda_state; ctorch uses one launch with 64-bit indices.
//
// Note [Distribution grid]
// distribution_nullary_kernel: block = 256 threads, grid = min(ceil(n / 256),
// sm_count * (max_threads_per_sm / 256)), T = 256 * grid threads. Thread t owns the curand stream
// (seed, subsequence t, offset); each of its draws is one curand4() (four words) that yields
// `unroll` values: 4 for float/half/bfloat16 samples and 32-bit integer draws, 2 for double
// samples and 64-bit integer draws. Draw `it` of thread t covers elements
// li = it * T * unroll + ii * T + t (ii < unroll). The generator advances by
// ((n - 1) / (T * 4) + 1) * 4, with 4 even when unroll is 2 (as PyTorch 1.13).
// bernoulli(p tensor) (CUDA_tensor_apply2, 512 threads, 4 elements per thread): thread t serves
// elements 4t..4t+3 in row-major order with one curand_uniform4 from (seed, t, offset) and the
// generator advances by 10 (12 after rounding).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ctorch/dtype.h"
#include "ctorch/error.h"
#include "ctorch/half.h"
#include "ctorch/macros.h"
#include "kernels/dispatch.h"
#include "kernels/elementwise_plan.h"
#include "kernels/philox.h"
#include "kernels/random_math.h"
#include "kernels/random_op.h"

namespace ctorch::inline api::kernels {

/// Threads per block of distribution_nullary_kernel.
inline constexpr int64_t kRandomBlockSize = 256;
/// Philox offsets reserved per draw (PyTorch's curand4_engine_calls).
inline constexpr uint64_t kCurand4EngineCalls = 4;
/// Threads per block and elements per thread of the bernoulli(p tensor) kernel.
inline constexpr int64_t kBernoulliTensorBlockSize = 512;
inline constexpr int64_t kBernoulliTensorPerThread = 4;
/// Offset increment requested by bernoulli(p tensor) (rounded up to 12 by the generator).
inline constexpr uint64_t kBernoulliTensorIncrement = 10;

/// Grid of a random launch and the offset increment it reserves.
struct RandomLaunch {
  int64_t grid = 0;
  int64_t block = 0;
  int64_t threads = 0;     // grid * block
  uint64_t increment = 0;  // philox_cuda_state argument
};

/// distribution_nullary_kernel's launch for `numel` >= 1 elements (Note [Distribution grid]).
CTORCH_HD constexpr RandomLaunch distribution_launch(int64_t numel, int sm_count, int max_threads_per_sm) {
  const int64_t blocks = (numel + kRandomBlockSize - 1) / kRandomBlockSize;
  const int64_t blocks_per_sm = max_threads_per_sm / kRandomBlockSize;
  const int64_t wave = static_cast<int64_t>(sm_count) * blocks_per_sm;
  int64_t grid = blocks < wave ? blocks : wave;
  if (grid < 1) grid = 1;  // unknown device limits: one block rather than an empty launch
  const int64_t threads = grid * kRandomBlockSize;
  const uint64_t increment =
      (static_cast<uint64_t>(numel - 1) / static_cast<uint64_t>(threads * kCurand4EngineCalls) + 1) *
      kCurand4EngineCalls;
  return RandomLaunch{grid, kRandomBlockSize, threads, increment};
}

/// The bernoulli(p tensor) launch for `numel` >= 1 elements (threads past ceil(n / 4) idle).
CTORCH_HD constexpr RandomLaunch bernoulli_tensor_launch(int64_t numel) {
  constexpr int64_t per_block = kBernoulliTensorBlockSize * kBernoulliTensorPerThread;
  const int64_t grid = (numel + per_block - 1) / per_block;
  return RandomLaunch{grid, kBernoulliTensorBlockSize, grid * kBernoulliTensorBlockSize, kBernoulliTensorIncrement};
}

/// Philox4x32-10 of the 128-bit counter (hi << 64 | lo) under `seed`.
CTORCH_HD inline PhiloxBlock philox_at(uint64_t seed, uint64_t lo, uint64_t hi) {
  return philox4x32(PhiloxBlock{static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32),
                                static_cast<uint32_t>(hi), static_cast<uint32_t>(hi >> 32)},
                    PhiloxKey{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

/// The `call`-th curand4() of a state made by curand_init(seed, subsequence, offset): counter
/// (subsequence << 64) + offset / 4 + call, words shifted by offset % 4.
CTORCH_HD inline PhiloxBlock curand4_at(uint64_t seed, uint64_t subsequence, uint64_t offset, uint64_t call) {
  const uint64_t lo = offset / 4 + call;
  const uint64_t hi = subsequence + (lo < call ? 1 : 0);  // 128-bit counter carry
  const PhiloxBlock cur = philox_at(seed, lo, hi);
  const uint32_t skip = static_cast<uint32_t>(offset & 3u);
  if (skip == 0) return cur;
  const PhiloxBlock next = philox_at(seed, lo + 1, lo + 1 == 0 ? hi + 1 : hi);
  if (skip == 1) return PhiloxBlock{cur.y, cur.z, cur.w, next.x};
  if (skip == 2) return PhiloxBlock{cur.z, cur.w, next.x, next.y};
  return PhiloxBlock{cur.w, next.x, next.y, next.z};
}

// ---- curand's conversions ------------------------------------------------------------------------

/// _curand_uniform: one word to a float in (0, 1] (x * 2^-32 + 2^-33; the product is exact).
CTORCH_HD inline float curand_uniform(uint32_t x) { return std::fma(static_cast<float>(x), 0x1p-32f, 0x1p-33f); }

/// _curand_uniform_double_hq: two words to a double in (0, 1] ((x ^ y << 21) * 2^-53 + 2^-54).
CTORCH_HD inline double curand_uniform_double(uint32_t x, uint32_t y) {
  const uint64_t z = static_cast<uint64_t>(x) ^ (static_cast<uint64_t>(y) << 21);
  return std::fma(static_cast<double>(z), 0x1p-53, 0x1p-54);
}

/// _curand_box_muller with ctorch's logf and sincosf: (sin, cos) * sqrt(-2 log u).
CTORCH_HD inline void box_muller(uint32_t x, uint32_t y, float* n0, float* n1) {
  constexpr float k2PiInv32 = 6.2831855f * 0x1p-32f;  // CURAND_2POW32_INV_2PI
  const float u = curand_uniform(x);
  const float v = std::fma(static_cast<float>(y), k2PiInv32, k2PiInv32 * 0.5f);
  const float s = std::sqrt(-2.0f * mathfun_logf(u));
  float sn, cs;
  mathfun_sincosf(v, &sn, &cs);
  *n0 = sn * s;
  *n1 = cs * s;
}

/// _curand_box_muller_double with ctorch's log and sincospi.
CTORCH_HD inline void box_muller_double(PhiloxBlock b, double* n0, double* n1) {
  const double u = curand_uniform_double(b.x, b.y);
  const uint64_t zy = static_cast<uint64_t>(b.z) ^ (static_cast<uint64_t>(b.w) << 21);
  const double v = std::fma(static_cast<double>(zy), 0x1p-52, 0x1p-53);
  const double s = std::sqrt(-2.0 * log_fma(u));
  double sn, cs;
  sincospi_fma(v, &sn, &cs);
  *n0 = sn * s;
  *n1 = cs * s;
}

/// static_cast<T>(int64_t) as c10 does it (half and bfloat16 through float).
template <class T>
CTORCH_HD inline T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

/// The arithmetic type of a floating sample: double for double, float otherwise.
template <class T>
using random_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// ---- samplers: one Philox block to `kUnroll` stored values ------------------------------------------

/// uniform_: v = fma(rand, to - from, from) in the acc type, cast to T, then `to` becomes `from`
/// (PyTorch >= 2.1, pytorch/pytorch#96947). 1.13 mapped rand == 1 to 0 before the cast instead;
/// both give the same bits for float and double rand (from 0, to 1), but 1.13 could return `to`
/// itself for half and bfloat16 (and for ranges where fma rounds up to `to`).
template <class T>
struct UniformSampler {
  using value_type = T;
  using A = random_acc_t<T>;
  static constexpr int kUnroll = std::is_same_v<T, double> ? 2 : 4;
  A from{};
  A to{};
  A range{};

  /// PyTorch's from/to/range for `T` (from and to cast to T; range = (to - from) rounded to T).
  static UniformSampler make(double from, double to) {
    const T f = T(static_cast<A>(from));
    const T t = T(static_cast<A>(to));
    const A range = static_cast<A>(T(static_cast<A>(t) - static_cast<A>(f)));
    return UniformSampler{static_cast<A>(f), static_cast<A>(t), range};
  }
  CTORCH_HD T transform(A r) const {
    const T v = T(std::fma(r, range, from));
    return static_cast<A>(v) == to ? T(from) : v;
  }
  CTORCH_HD void operator()(PhiloxBlock b, T* out) const {
    if constexpr (kUnroll == 2) {
      out[0] = transform(curand_uniform_double(b.x, b.y));
      out[1] = transform(curand_uniform_double(b.z, b.w));
    } else {
      out[0] = transform(curand_uniform(b.x));
      out[1] = transform(curand_uniform(b.y));
      out[2] = transform(curand_uniform(b.z));
      out[3] = transform(curand_uniform(b.w));
    }
  }
};

/// normal_: curand_normal4 / curand_normal2_double, then fma(n, std, mean) in the acc type.
template <class T>
struct NormalSampler {
  using value_type = T;
  using A = random_acc_t<T>;
  static constexpr int kUnroll = std::is_same_v<T, double> ? 2 : 4;
  A mean{};
  A std{};

  CTORCH_HD void operator()(PhiloxBlock b, T* out) const {
    if constexpr (kUnroll == 2) {
      double n[2];
      box_muller_double(b, &n[0], &n[1]);
      out[0] = T(std::fma(n[0], std, mean));
      out[1] = T(std::fma(n[1], std, mean));
    } else {
      float n[4];
      box_muller(b.x, b.y, &n[0], &n[1]);
      box_muller(b.z, b.w, &n[2], &n[3]);
      for (int i = 0; i < 4; ++i) out[i] = T(std::fma(n[i], std, mean));
    }
  }
};

/// True when random_(from, to) draws 64 bits for `T` (PyTorch: int64/double/float/bfloat16 with
/// a range of 2^32 or more).
template <class T>
constexpr bool random_draws_64_bits(uint64_t range) {
  return (std::is_same_v<T, int64_t> || std::is_same_v<T, double> || std::is_same_v<T, float> ||
          std::is_same_v<T, BFloat16>) &&
         range >= (uint64_t{1} << 32);
}

/// random_(from, to): static_cast<T>((x % range) + base), x one word or two words (hi << 32 | lo).
template <class T, bool kWide>
struct RandomFromToSampler {
  using value_type = T;
  static constexpr int kUnroll = kWide ? 2 : 4;
  uint64_t range = 1;
  int64_t base = 0;

  CTORCH_HD T transform(uint64_t x) const {
    return from_int64<T>(static_cast<int64_t>(x % range + static_cast<uint64_t>(base)));
  }
  CTORCH_HD void operator()(PhiloxBlock b, T* out) const {
    if constexpr (kWide) {
      out[0] = transform((static_cast<uint64_t>(b.x) << 32) | b.y);
      out[1] = transform((static_cast<uint64_t>(b.z) << 32) | b.w);
    } else {
      out[0] = transform(b.x);
      out[1] = transform(b.y);
      out[2] = transform(b.z);
      out[3] = transform(b.w);
    }
  }
};

/// random_(INT64_MIN, None): static_cast<T>(static_cast<int64_t>(hi << 32 | lo)).
template <class T>
struct RandomFull64Sampler {
  using value_type = T;
  static constexpr int kUnroll = 2;

  CTORCH_HD void operator()(PhiloxBlock b, T* out) const {
    out[0] = from_int64<T>(static_cast<int64_t>((static_cast<uint64_t>(b.x) << 32) | b.y));
    out[1] = from_int64<T>(static_cast<int64_t>((static_cast<uint64_t>(b.z) << 32) | b.w));
  }
};

/// bernoulli_(p): 1 where the (0, 1] uniform is below p, compared in the acc type.
template <class T>
struct BernoulliScalarSampler {
  using value_type = T;
  using A = random_acc_t<T>;
  static constexpr int kUnroll = std::is_same_v<T, double> ? 2 : 4;
  A p{};

  CTORCH_HD T transform(A u) const { return from_int64<T>(u < p ? 1 : 0); }
  CTORCH_HD void operator()(PhiloxBlock b, T* out) const {
    if constexpr (kUnroll == 2) {
      out[0] = transform(curand_uniform_double(b.x, b.y));
      out[1] = transform(curand_uniform_double(b.z, b.w));
    } else {
      out[0] = transform(curand_uniform(b.x));
      out[1] = transform(curand_uniform(b.y));
      out[2] = transform(curand_uniform(b.z));
      out[3] = transform(curand_uniform(b.w));
    }
  }
};

// ---- element mapping ---------------------------------------------------------------------------------

/// Byte offset of operand `k`'s element `li` in `plan` (dim 0 fastest).
CTORCH_HD inline int64_t plan_offset(const ElementwisePlan& plan, int k, int64_t li) {
  int64_t off = 0;
  for (int d = 0; d < plan.ndim; ++d) {
    const int64_t size = plan.shape[d];
    off += (li % size) * plan.strides[k][d];
    li /= size;
  }
  return off;
}

/// Stores element `li` of operand 0 of a plan (flat indexing when `contiguous`).
template <class T>
struct PlanWriter {
  ElementwisePlan plan;
  char* base = nullptr;
  bool contiguous = true;

  CTORCH_HD void operator()(int64_t li, T v) const {
    const int64_t off = contiguous ? li * static_cast<int64_t>(sizeof(T)) : plan_offset(plan, 0, li);
    *reinterpret_cast<T*>(base + off) = v;
  }
};

/// The work of thread `t` of distribution_nullary_kernel (Note [Distribution grid]).
template <class Sampler, class Store>
CTORCH_HD void distribution_thread(int64_t t, int64_t numel, int64_t threads, uint64_t seed, uint64_t offset,
                                   const Sampler& sampler, const Store& store) {
  constexpr int kUnroll = Sampler::kUnroll;
  const int64_t step = threads * kUnroll;
  uint64_t call = 0;
  for (int64_t first = t; first < numel; first += step, ++call) {
    typename Sampler::value_type v[kUnroll];
    sampler(curand4_at(seed, static_cast<uint64_t>(t), offset, call), v);
    for (int ii = 0; ii < kUnroll; ++ii) {
      const int64_t li = first + threads * ii;
      if (li < numel) store(li, v[ii]);
    }
  }
}

/// The work of thread `t` of the bernoulli(p tensor) kernel: elements 4t..4t+3 of a two-operand
/// plan (0: output T, 1: probabilities P). Returns false when a probability is outside [0, 1]
/// (PyTorch's device-side assert); the values are written either way.
template <class T, class P>
CTORCH_HD bool bernoulli_tensor_thread(int64_t t, int64_t numel, uint64_t seed, uint64_t offset,
                                       const ElementwisePlan& plan, char* out, const char* p, bool contiguous) {
  const PhiloxBlock b = curand4_at(seed, static_cast<uint64_t>(t), offset, 0);
  const uint32_t words[4] = {b.x, b.y, b.z, b.w};
  bool valid = true;
  for (int k = 0; k < kBernoulliTensorPerThread; ++k) {
    const int64_t li = t * kBernoulliTensorPerThread + k;
    if (li >= numel) break;
    const P pv = *reinterpret_cast<const P*>(
        p + (contiguous ? li * static_cast<int64_t>(sizeof(P)) : plan_offset(plan, 1, li)));
    valid = valid && P(0) <= pv && pv <= P(1);
    const float u = curand_uniform(words[k]);
    T* o = reinterpret_cast<T*>(out + (contiguous ? li * static_cast<int64_t>(sizeof(T)) : plan_offset(plan, 0, li)));
    *o = from_int64<T>(u <= pv ? 1 : 0);
  }
  return valid;
}

// ---- host-side selection ---------------------------------------------------------------------------

/// Calls f(sampler) with the sampler of `op` for `dtype`, built from `args` (host code; every op
/// but BernoulliTensor). Combinations the op layer rejects are internal errors here.
template <class F>
void visit_sampler(RandomOp op, ScalarType dtype, const RandomArgs& args, F&& f) {
  dispatch_all(dtype, "random", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = random_acc_t<T>;
    constexpr bool kFloating = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                               std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
    constexpr bool kFull64 = std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                             std::is_same_v<T, float> || std::is_same_v<T, BFloat16>;
    switch (op) {
      case RandomOp::Uniform:
        if constexpr (kFloating) return f(UniformSampler<T>::make(args.a, args.b));
        break;
      case RandomOp::Normal:
        if constexpr (kFloating) return f(NormalSampler<T>{static_cast<A>(args.a), static_cast<A>(args.b)});
        break;
      case RandomOp::RandomFromTo:
        if (random_draws_64_bits<T>(args.range)) return f(RandomFromToSampler<T, true>{args.range, args.base});
        return f(RandomFromToSampler<T, false>{args.range, args.base});
      case RandomOp::RandomFull64:
        if constexpr (kFull64) return f(RandomFull64Sampler<T>{});
        break;
      case RandomOp::BernoulliScalar:
        return f(BernoulliScalarSampler<T>{static_cast<A>(args.a)});
      case RandomOp::BernoulliTensor:
      case RandomOp::FusedDropout:
        break;
    }
    CTORCH_INTERNAL_ASSERT(false, "[random] no sampler for op ", static_cast<int>(op), " and dtype ", dtype);
  });
}

/// Calls f(TypeTag<T>{}, TypeTag<P>{}) for bernoulli(p tensor) with output `dtype`: P is double
/// for a double output and float otherwise (PyTorch casts p to that type first).
template <class F>
void visit_bernoulli_tensor(ScalarType dtype, F&& f) {
  dispatch_all(dtype, "bernoulli", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using P = std::conditional_t<std::is_same_v<T, double>, double, float>;
    f(tag, TypeTag<P>{});
  });
}

}  // namespace ctorch::api::kernels
