// Raw-buffer samplers, bit-exact with PyTorch 1.13's CPU kernels. See distributions.h.
//
// Note [Fused multiply-add in the reference build]
// PyTorch compiles its CPU kernels once per capability; the AVX2 copy (the one a current x86-64
// machine runs) is built with -mavx2 -mfma, and GCC contracts `a * b + c` into one fma there.
// So `x * (to - from) + from` (uniform), `ret * std + mean` (normal) and several steps of
// avx_mathfun's log256_ps/sincos256_ps round once, not twice. The code below writes each fused
// step as std::fma and every other product as a separate statement that feeds no addition, so
// no compiler contraction can change the results.
#include "random/distributions.h"

#include <bit>
#include <cmath>
#include <limits>
#include <mutex>
#include <numbers>
#include <tuple>
#include <type_traits>

#include "ctorch/error.h"
#include "ctorch/half.h"
#include "kernels/dispatch.h"
#include "kernels/random_math.h"

namespace ctorch::inline api::impl {
namespace {

// ---- dtype helpers ------------------------------------------------------------------------------

// Mantissa digits of the floating types (std::numeric_limits<T>::digits).
constexpr int float_digits(ScalarType t) {
  switch (t) {
    case kFloat16: return 11;
    case kBFloat16: return 8;
    case kFloat32: return 24;
    default: return 53;
  }
}

// Largest finite value of a floating dtype, as a double.
double float_max(ScalarType t) {
  switch (t) {
    case kFloat16: return 65504.0;
    case kBFloat16: return static_cast<double>(std::bit_cast<float>(0x7f7f0000u));
    case kFloat32: return static_cast<double>(std::numeric_limits<float>::max());
    default: return std::numeric_limits<double>::max();
  }
}


// The error AT_DISPATCH raises for a dtype a kernel does not handle.
[[noreturn]] void throw_dispatch_error(const char* kernel, ScalarType t) {
  CTORCH_CHECK_NOT_IMPLEMENTED(false, "\"", kernel, "\" not implemented for '",
                               scalar_type_cpp_name(t), "'");
  throw Error("unreachable");
}

// x86's result of converting a float that does not fit (inf, nan, out of range) to int64.
int64_t to_int64_like_x86(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(v);
}

// static_cast<T>(int64) as c10 does it (Half/BFloat16 via float).
template <class T>
T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// static_cast<int64_t>(static_cast<T>(v)) for a floating dtype.
int64_t round_trip_int64(ScalarType t, int64_t v) {
  switch (t) {
    case kFloat16: return to_int64_like_x86(static_cast<float>(Half(static_cast<float>(v))));
    case kBFloat16: return to_int64_like_x86(static_cast<float>(BFloat16(static_cast<float>(v))));
    case kFloat32: return to_int64_like_x86(static_cast<float>(v));
    default: return to_int64_like_x86(static_cast<double>(v));
  }
}

// Number of times v can be halved before reaching 0, minus one (floor(log2(v)) for v > 0).
int floor_log2(int64_t v) {
  int n = 0;
  while (v >>= 1) ++n;
  return n;
}

// PyTorch's update_from: the closest int64 >= from that stays >= from once cast to the dtype.
int64_t update_from(ScalarType t, int64_t from) {
  if (from == std::numeric_limits<int64_t>::max()) return from;  // from + 1 would overflow
  const int64_t from_plus_1 = round_trip_int64(t, from + 1);
  if (from_plus_1 < from) {
    const int n = floor_log2(std::abs(from + 1));
    from = from_plus_1 + (int64_t{1} << (n - float_digits(t) + 1));
  }
  return from;
}

// PyTorch's update_to: the closest int64 <= to whose cast stays below to.
int64_t update_to(ScalarType t, int64_t to) {
  const int64_t to_minus_1 = round_trip_int64(t, to - 1);
  if (to_minus_1 >= to) {
    const int n = floor_log2(std::abs(to - 1));
    to = to_minus_1 - (int64_t{1} << (n - float_digits(t) + 1));
  }
  return to;
}

// PyTorch's check_from_to_in_range.
void check_from_to_in_range(ScalarType t, int64_t from, int64_t to_inc) {
  if (is_floating_point(t)) {
    const double max = float_max(t);
    const double f = static_cast<double>(from);
    const double ti = static_cast<double>(to_inc);
    CTORCH_CHECK_VALUE(f >= -max && f <= max, "from is out of bounds for ", type_meta_name(t));
    CTORCH_CHECK_VALUE(ti >= -max && ti <= max, "to - 1 is out of bounds for ", type_meta_name(t));
    return;
  }
  int64_t min = 0;
  int64_t max = 0;
  kernels::dispatch_all(t, "random", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      min = static_cast<int64_t>(std::numeric_limits<T>::lowest());
      max = static_cast<int64_t>(std::numeric_limits<T>::max());
    }
  });
  CTORCH_CHECK_VALUE(from >= min && from <= max, "from is out of bounds for ", type_meta_name(t));
  CTORCH_CHECK_VALUE(to_inc >= min && to_inc <= max, "to - 1 is out of bounds for ",
                     type_meta_name(t));
}

// ---- uniform draws (DistributionsHelper's uniform_real_distribution) ------------------------------

constexpr float kTwoPiF = static_cast<float>(2.0 * std::numbers::pi);
constexpr double kTwoPi = 2.0 * std::numbers::pi;

// uniform_real<float>(random(), 0, 1): the low 24 bits of one draw.
float uniform_float01(CPUGeneratorImpl& gen) {
  return static_cast<float>(gen.random() & 0xFFFFFFu) * (1.0f / 16777216.0f);
}

// uniform_real<double>(random64(), 0, 1): the low 53 bits of a 64-bit draw.
double uniform_double01(CPUGeneratorImpl& gen) {
  return static_cast<double>(gen.random64() & ((uint64_t{1} << 53) - 1)) *
         (1.0 / 9007199254740992.0);
}

// uniform_real<T>(random(), 0, 1) for half (11 bits) and bfloat16 (8 bits), in float.
template <class T>
float uniform_low_precision01(CPUGeneratorImpl& gen) {
  constexpr int digits = std::is_same_v<T, Half> ? 11 : 8;
  constexpr uint32_t mask = (1u << digits) - 1;
  return static_cast<float>(gen.random() & mask) * (1.0f / static_cast<float>(1u << digits));
}

// ---- normal: scalar Box-Muller (normal_distribution<double>) ----------------------------------------

// One N(mean, std) value: the cached sine value if present, else a new pair (cos returned,
// sin cached). Caller holds the mutex.
double normal_double(CPUGeneratorImpl& gen, double mean, double std) {
  if (auto cached = gen.next_double_normal_sample()) {
    gen.set_next_double_normal_sample(std::nullopt);
    return std::fma(*cached, std, mean);
  }
  const double u1 = uniform_double01(gen);
  const double u2 = uniform_double01(gen);
  const double log_term = std::log(1.0 - u2);
  const double r = std::sqrt(-2.0 * log_term);
  const double theta = kTwoPi * u1;
  const double sin_value = r * std::sin(theta);
  gen.set_next_double_normal_sample(sin_value);
  const double ret = r * std::cos(theta);
  return std::fma(ret, std, mean);
}

// ---- normal: float normal_fill, the AVX2 avx_mathfun algorithm in scalar form -------------------

// log256_ps and sincos256_ps for one lane: kernels::mathfun_logf / mathfun_sincosf
// (kernels/random_math.h), shared with the CUDA generator's normal sampler.
using kernels::mathfun_logf;
using kernels::mathfun_sincosf;

// normal_fill_16_AVX2: pairs element j (radius) with j + 8 (angle).
void normal_fill_16_float(float* d, float mean, float std) {
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - d[j];
    const float u2 = d[j + 8];
    const float log_u1 = mathfun_logf(u1);
    const float radius = std::sqrt(-2.0f * log_u1);
    const float theta = kTwoPiF * u2;
    float s = 0.0f;
    float c = 0.0f;
    mathfun_sincosf(theta, &s, &c);
    const float n1 = radius * c;
    const float n2 = radius * s;
    d[j] = std::fma(n1, std, mean);
    d[j + 8] = std::fma(n2, std, mean);
  }
}

// normal_fill_16<double> (std::log/cos/sin in double).
void normal_fill_16_double(double* d, double mean, double std) {
  for (int j = 0; j < 8; ++j) {
    const double u1 = 1.0 - d[j];
    const double u2 = d[j + 8];
    const double log_u1 = std::log(u1);
    const double radius = std::sqrt(-2.0 * log_u1);
    const double theta = kTwoPi * u2;
    const double n1 = radius * std::cos(theta);
    const double n2 = radius * std::sin(theta);
    d[j] = std::fma(n1, std, mean);
    d[j + 8] = std::fma(n2, std, mean);
  }
}

// normal_fill_16<Half>: PyTorch 1.13 runs it on c10::Half itself. Each Half variable rounds;
// std::log/cos/sin take the float overloads and Half * float is float, so the last step fuses.
void normal_fill_16_half(Half* d, Half mean, Half std) {
  for (int j = 0; j < 8; ++j) {
    const Half u1 = Half(1.0f - static_cast<float>(d[j]));
    const Half u2 = d[j + 8];
    const float log_u1 = std::log(static_cast<float>(u1));
    const Half radius = Half(std::sqrt(-2.0f * log_u1));
    const Half theta = Half(static_cast<float>(kTwoPi * static_cast<double>(static_cast<float>(u2))));
    const float n1 = static_cast<float>(radius) * std::cos(static_cast<float>(theta));
    const float n2 = static_cast<float>(radius) * std::sin(static_cast<float>(theta));
    d[j] = Half(std::fma(n1, static_cast<float>(std), static_cast<float>(mean)));
    d[j + 8] = Half(std::fma(n2, static_cast<float>(std), static_cast<float>(mean)));
  }
}

// normal_fill_16<BFloat16>: c10's BFloat16-math.h gives std::log/sqrt/cos/sin BFloat16 overloads
// and BFloat16 * BFloat16 is BFloat16, so every step rounds to bfloat16 and nothing fuses.
void normal_fill_16_bfloat16(BFloat16* d, BFloat16 mean, BFloat16 std) {
  using B = BFloat16;
  const auto f = [](B v) { return static_cast<float>(v); };
  for (int j = 0; j < 8; ++j) {
    const B u1 = B(1.0f - f(d[j]));
    const B u2 = d[j + 8];
    const B log_u1 = B(std::log(f(u1)));
    const B minus_two_log = B(-2.0f * f(log_u1));
    const B radius = B(std::sqrt(f(minus_two_log)));
    const B theta = B(static_cast<float>(kTwoPi * static_cast<double>(f(u2))));
    const B cos_t = B(std::cos(f(theta)));
    const B sin_t = B(std::sin(f(theta)));
    const B n1 = B(f(radius) * f(cos_t));
    const B n2 = B(f(radius) * f(sin_t));
    d[j] = B(f(B(f(n1) * f(std))) + f(mean));
    d[j + 8] = B(f(B(f(n2) * f(std))) + f(mean));
  }
}

// PyTorch's normal_fill: uniforms for all n, Box-Muller per block of 16, last 16 redrawn when
// n % 16 != 0. Requires n >= 16. Caller holds the mutex.
template <class T, class Uniform, class Block>
void normal_fill_blocks(T* data, int64_t n, Uniform uniform, Block block) {
  for (int64_t i = 0; i < n; ++i) data[i] = uniform();
  for (int64_t i = 0; i < n - 15; i += 16) block(data + i);
  if (n % 16 != 0) {
    T* tail = data + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = uniform();
    block(tail);
  }
}

}  // namespace

// ---- argument checks --------------------------------------------------------------------------------

std::pair<double, double> check_uniform_args(ScalarType dtype, double from, double to) {
  if (!is_floating_point(dtype)) throw_dispatch_error("check_uniform_bounds", dtype);
  const double max = float_max(dtype);
  const char* name = type_meta_name(dtype);
  CTORCH_CHECK_VALUE(from >= -max && from <= max, "from is out of bounds for ", name);
  CTORCH_CHECK_VALUE(to >= -max && to <= max, "to is out of bounds for ", name);
  CTORCH_CHECK_VALUE(from <= to, "uniform_ expects to return a [from, to) range, but found from=",
                     from, " > to=", to);
  CTORCH_CHECK_VALUE(to - from <= max, "uniform_ expects to-from <= std::numeric_limits<",
                     scalar_type_cpp_name(dtype), ">::max(), but found to=", to, " and from=", from,
                     " which result in to-from to exceed the limit");
  return {std::min(std::max(from, -max), max), std::max(std::min(to, max), -max)};
}

void check_normal_std(double std) {
  CTORCH_CHECK_VALUE(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
}

void check_normal_dtype(ScalarType dtype, bool cuda) {
  if (!is_floating_point(dtype)) throw_dispatch_error(cuda ? "normal_kernel_cuda" : "normal_kernel_cpu", dtype);
}

RandomRange random_from_to_args(ScalarType dtype, int64_t from, std::optional<int64_t> to, bool cuda) {
  RandomRange r;
  if (to.has_value()) {
    int64_t hi = *to;
    CTORCH_CHECK_VALUE(from < hi, "random_ expects 'from' to be less than 'to', but got from=", from,
                       " >= to=", hi);
    if (is_floating_point(dtype)) {
      from = update_from(dtype, from);
      hi = update_to(dtype, hi);
      CTORCH_CHECK_VALUE(from < hi,
                         "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                         "dtype, but got from=",
                         from, " >= to=", hi);
    }
    check_from_to_in_range(dtype, from, hi - 1);
    r.range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(from);
    r.base = from;
    return r;
  }
  if (from != std::numeric_limits<int64_t>::min()) {
    int64_t to_inc = 0;
    if (is_floating_point(dtype)) {
      to_inc = int64_t{1} << float_digits(dtype);
      from = update_from(dtype, from);
      CTORCH_CHECK_VALUE(from < to_inc,
                         "random_ expects 'from' casted to dtype to be less than or equal to "
                         "'to_inc' casted to dtype, but got from=",
                         from, " > to_inc=", to_inc);
    } else {
      kernels::dispatch_all(dtype, "random", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T>) to_inc = static_cast<int64_t>(std::numeric_limits<T>::max());
      });
    }
    check_from_to_in_range(dtype, from, to_inc);
    r.range = static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1;
    r.base = from;
    return r;
  }
  const char* kernel = cuda ? "random_full_64_bits_range_kernel_cuda" : "random_full_64_bits_range_kernel_cpu";
  if (dtype == kFloat16 || dtype == kBool) throw_dispatch_error(kernel, dtype);
  CTORCH_CHECK_NOT_IMPLEMENTED(dtype == kInt64 || dtype == kFloat64 || dtype == kFloat32 || dtype == kBFloat16,
                               kernel, " handles only int64, double, float and bfloat16");
  r.full_64_bits = true;
  return r;
}

void check_bernoulli_scalar_args(ScalarType dtype, double p, bool cuda) {
  CTORCH_CHECK_VALUE(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (dtype == kFloat16 && !cuda) throw_dispatch_error("bernoulli_scalar_cpu_", dtype);
}

void check_bernoulli_tensor_args(ScalarType dtype, ScalarType p_dtype, const void* p, int64_t n) {
  if (dtype == kFloat16) throw_dispatch_error("bernoulli_tensor_cpu_self_", dtype);
  if (p_dtype != kFloat64 && p_dtype != kFloat32 && p_dtype != kBFloat16) {
    throw_dispatch_error("bernoulli_tensor_cpu_p_", p_dtype);
  }
  kernels::dispatch_all(p_dtype, "random", [&](auto tag) {
    using P = typename decltype(tag)::type;
    const P* pv = static_cast<const P*>(p);
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(pv[i]);
      CTORCH_CHECK_VALUE(v >= 0 && v <= 1, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    }
  });
}

void check_randperm_args(int64_t n, ScalarType dtype) {
  CTORCH_CHECK_VALUE(n >= 0, "Trying to create tensor with negative dimension ", n, ": [", n, "]");
  if (dtype == kBool) throw_dispatch_error("randperm", dtype);
  const int64_t last = n > 0 ? n - 1 : n;
  const char* overflow_name = nullptr;
  switch (dtype) {
    case kUInt8: overflow_name = last > 255 ? "uint8_t" : nullptr; break;
    case kInt8: overflow_name = last > 127 ? "int8_t" : nullptr; break;
    case kInt16: overflow_name = last > 32767 ? "int16_t" : nullptr; break;
    case kInt32: overflow_name = last > 2147483647 ? "int32_t" : nullptr; break;
    case kFloat16: overflow_name = last > 65504 ? "at::Half" : nullptr; break;
    default: break;
  }
  CTORCH_CHECK_VALUE(overflow_name == nullptr, "value cannot be converted to type ", overflow_name,
                     " without overflow");
  switch (dtype) {
    case kFloat16:
      CTORCH_CHECK_VALUE(n <= (int64_t{1} << 11) + 1, "n cannot be greater than 2049 for Half type.");
      break;
    case kFloat32:
      CTORCH_CHECK_VALUE(n <= (int64_t{1} << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
      break;
    case kFloat64:
      CTORCH_CHECK_VALUE(n <= (int64_t{1} << 53) + 1, "n cannot be greater than 2^53+1 for Double type.");
      break;
    default: break;
  }
}

// ---- samplers -----------------------------------------------------------------------------------------

void uniform_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n, double from,
                  double to) {
  std::tie(from, to) = check_uniform_args(dtype, from, to);
  std::lock_guard<std::mutex> lock(gen.mutex());
  switch (dtype) {
    case kFloat32: {
      const float f = static_cast<float>(from);
      const float range = static_cast<float>(to) - f;
      float* o = static_cast<float*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = std::fma(uniform_float01(gen), range, f);
      return;
    }
    case kFloat64: {
      const double range = to - from;
      double* o = static_cast<double*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = std::fma(uniform_double01(gen), range, from);
      return;
    }
    default:
      kernels::dispatch_all(dtype, "random", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
          const T f = T(static_cast<float>(from));
          const T t = T(static_cast<float>(to));
          const float range = static_cast<float>(T(static_cast<float>(t) - static_cast<float>(f)));
          T* o = static_cast<T*>(out);
          for (int64_t i = 0; i < n; ++i) {
            o[i] = T(std::fma(uniform_low_precision01<T>(gen), range, static_cast<float>(f)));
          }
        }
      });
  }
}

void normal_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n, double mean,
                 double std, bool contiguous) {
  check_normal_std(std);
  check_normal_dtype(dtype);
  std::lock_guard<std::mutex> lock(gen.mutex());
  if (contiguous && n >= 16) {
    switch (dtype) {
      case kFloat32: {
        const float m = static_cast<float>(mean);
        const float s = static_cast<float>(std);
        normal_fill_blocks(
            static_cast<float*>(out), n, [&] { return uniform_float01(gen); },
            [&](float* d) { normal_fill_16_float(d, m, s); });
        return;
      }
      case kFloat64:
        normal_fill_blocks(
            static_cast<double*>(out), n, [&] { return uniform_double01(gen); },
            [&](double* d) { normal_fill_16_double(d, mean, std); });
        return;
      case kFloat16: {
        const Half m(static_cast<float>(mean));
        const Half s(static_cast<float>(std));
        normal_fill_blocks(
            static_cast<Half*>(out), n, [&] { return Half(uniform_low_precision01<Half>(gen)); },
            [&](Half* d) { normal_fill_16_half(d, m, s); });
        return;
      }
      default: {
        const BFloat16 m(static_cast<float>(mean));
        const BFloat16 s(static_cast<float>(std));
        normal_fill_blocks(
            static_cast<BFloat16*>(out), n,
            [&] { return BFloat16(uniform_low_precision01<BFloat16>(gen)); },
            [&](BFloat16* d) { normal_fill_16_bfloat16(d, m, s); });
        return;
      }
    }
  }
  kernels::dispatch_all(dtype, "random", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
      T* o = static_cast<T*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(normal_double(gen, mean, std));
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      T* o = static_cast<T*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = T(static_cast<float>(normal_double(gen, mean, std)));
    }
  });
}

void random_from_to_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n,
                         const RandomRange& range) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  kernels::dispatch_all(dtype, "random", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = static_cast<T*>(out);
    if (range.full_64_bits) {
      for (int64_t i = 0; i < n; ++i) o[i] = from_int64<T>(static_cast<int64_t>(gen.random64()));
      return;
    }
    constexpr bool wide = std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                          std::is_same_v<T, float> || std::is_same_v<T, BFloat16>;
    const uint64_t base = static_cast<uint64_t>(range.base);
    if (wide && range.range >= (uint64_t{1} << 32)) {
      for (int64_t i = 0; i < n; ++i) {
        o[i] = from_int64<T>(static_cast<int64_t>(gen.random64() % range.range + base));
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t v = gen.random();
        o[i] = from_int64<T>(static_cast<int64_t>(v % range.range + base));
      }
    }
  });
}

void bernoulli_scalar_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n, double p) {
  check_bernoulli_scalar_args(dtype, p);
  std::lock_guard<std::mutex> lock(gen.mutex());
  kernels::dispatch_all(dtype, "random", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = static_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) o[i] = from_int64<T>(uniform_double01(gen) < p ? 1 : 0);
  });
}

void dropout_fill(CPUGeneratorImpl& gen, ScalarType dtype, const void* in, void* out, bool* mask, int64_t n,
                  double keep) {
  check_bernoulli_scalar_args(dtype, keep);
  std::lock_guard<std::mutex> lock(gen.mutex());
  kernels::dispatch_floating(dtype, "native_dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
    // noise = T(1) / T(keep), as div_ computes it in the dtype (Half/BFloat16 through float)
    const T noise = static_cast<T>(static_cast<A>(T(1)) / static_cast<A>(static_cast<T>(keep)));
    const T* x = static_cast<const T*>(in);
    T* o = static_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) {
      const bool kept = uniform_double01(gen) < keep;
      mask[i] = kept;
      o[i] = static_cast<T>(static_cast<A>(x[i]) * static_cast<A>(kept ? noise : T(0)));
    }
  });
}

void bernoulli_tensor_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n,
                           ScalarType p_dtype, const void* p) {
  check_bernoulli_tensor_args(dtype, p_dtype, p, n);
  std::lock_guard<std::mutex> lock(gen.mutex());
  kernels::dispatch_all(dtype, "random", [&](auto out_tag) {
    using T = typename decltype(out_tag)::type;
    T* o = static_cast<T*>(out);
    if (p_dtype == kFloat64) {
      const double* pv = static_cast<const double*>(p);
      for (int64_t i = 0; i < n; ++i) o[i] = from_int64<T>(uniform_double01(gen) < pv[i] ? 1 : 0);
      return;
    }
    kernels::dispatch_all(p_dtype, "random", [&](auto p_tag) {
      using P = typename decltype(p_tag)::type;
      if constexpr (std::is_same_v<P, float> || std::is_same_v<P, BFloat16>) {
        const P* pv = static_cast<const P*>(p);
        for (int64_t i = 0; i < n; ++i) {
          o[i] = from_int64<T>(uniform_float01(gen) < static_cast<float>(pv[i]) ? 1 : 0);
        }
      }
    });
  });
}

void randperm_fill(CPUGeneratorImpl& gen, ScalarType dtype, void* out, int64_t n) {
  check_randperm_args(n, dtype);
  std::lock_guard<std::mutex> lock(gen.mutex());
  kernels::dispatch_all(dtype, "random", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      T* o = static_cast<T*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = from_int64<T>(i);
      for (int64_t i = 0; i < n - 1; ++i) {
        const int64_t z = static_cast<int64_t>(gen.random()) % (n - i);
        const T saved = o[i];
        o[i] = o[z + i];
        o[z + i] = saved;
      }
    }
  });
}

}  // namespace ctorch::api::impl
