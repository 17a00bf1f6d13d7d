// The CUDA generator without a device: CUDAGeneratorImpl bookkeeping and state bytes, the launch
// shape and offset increments, curand's conversions, the contraction-proof math, and the cpu
// backend's KernelTable::random checked against a literal transcription of PyTorch's kernel loop
// and against values PyTorch prints on NVIDIA GPUs.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/half.h"
#include "ctorch/parallel.h"
#include "kernels/philox.h"
#include "kernels/random_functors.h"
#include "ops/kernel_table.h"
#include "random/cuda_generator.h"
#include "test_util.h"

namespace ctorch::inline api::impl {
namespace {

using kernels::ElementwisePlan;
using kernels::PhiloxBlock;
using kernels::RandomArgs;
using kernels::RandomOp;

using ::ctorch::testing::error_of;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- CUDAGeneratorImpl ---------------------------------------------------------------------------

TEST(CudaGenerator, FreshGeneratorAndSeeding) {
  CUDAGeneratorImpl gen(1);
  EXPECT_EQ(gen.device(), Device(DeviceType::CUDA, 1));
  EXPECT_EQ(gen.current_seed(), 67280421310721ULL);
  EXPECT_EQ(gen.philox_offset_per_thread(), 0u);
  gen.philox_cuda_state(4);
  gen.set_current_seed(7);
  EXPECT_EQ(gen.current_seed(), 7u);
  EXPECT_EQ(gen.philox_offset_per_thread(), 0u);  // reseeding resets the offset
  for (int i = 0; i < 50; ++i) {
    const uint64_t s = gen.seed();
    EXPECT_LT(s, uint64_t{1} << 53);  // getNonDeterministicRandom(true) keeps 53 bits
    EXPECT_EQ(gen.current_seed(), s);
    EXPECT_EQ(gen.philox_offset_per_thread(), 0u);
  }
}

TEST(CudaGenerator, PhiloxCudaStateRoundsIncrementsUpToFour) {
  CUDAGeneratorImpl gen(0, 11);
  kernels::PhiloxArgs s = gen.philox_cuda_state(1);
  EXPECT_EQ(s.seed, 11u);
  EXPECT_EQ(s.offset, 0u);
  EXPECT_EQ(gen.philox_offset_per_thread(), 4u);
  s = gen.philox_cuda_state(4);
  EXPECT_EQ(s.offset, 4u);
  EXPECT_EQ(gen.philox_offset_per_thread(), 8u);
  s = gen.philox_cuda_state(kernels::kBernoulliTensorIncrement);  // 10 -> 12
  EXPECT_EQ(s.offset, 8u);
  EXPECT_EQ(gen.philox_offset_per_thread(), 20u);
  s = gen.philox_cuda_state(0);
  EXPECT_EQ(s.offset, 20u);
  EXPECT_EQ(gen.philox_offset_per_thread(), 20u);
}

TEST(CudaGenerator, StateBytesAreSeedThenOffsetLittleEndian) {
  CUDAGeneratorImpl gen(0, 0x0102030405060708ULL);
  gen.philox_cuda_state(0x1234);
  const std::vector<uint8_t> bytes = gen.get_state();
  ASSERT_EQ(bytes.size(), 16u);
  const std::vector<uint8_t> want = {8, 7, 6, 5, 4, 3, 2, 1, 0x34, 0x12, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(bytes, want);

  CUDAGeneratorImpl other(0, 5);
  other.set_state(bytes.data(), bytes.size());
  EXPECT_EQ(other.current_seed(), 0x0102030405060708ULL);
  EXPECT_EQ(other.philox_offset_per_thread(), 0x1234u);

  const uint8_t seed_only[8] = {42, 0, 0, 0, 0, 0, 0, 0};
  other.set_state(seed_only, 8);  // 8 bytes: seed only, offset 0
  EXPECT_EQ(other.current_seed(), 42u);
  EXPECT_EQ(other.philox_offset_per_thread(), 0u);

  // A negative offset is a multiple of 4 as uint64 (PyTorch casts it).
  std::vector<uint8_t> negative = bytes;
  const int64_t minus_four = -4;
  std::memcpy(negative.data() + 8, &minus_four, 8);
  other.set_state(negative.data(), negative.size());
  EXPECT_EQ(other.philox_offset_per_thread(), static_cast<uint64_t>(-4));
}

TEST(CudaGenerator, BadStatesThrowAndChangeNothing) {
  CUDAGeneratorImpl gen(0, 9);
  gen.philox_cuda_state(8);
  std::vector<uint8_t> bytes = gen.get_state();
  bytes[8] = 6;  // offset 6
  CUDAGeneratorImpl target(0, 3);
  target.philox_cuda_state(4);
  EXPECT_TRUE(contains(error_of([&] { target.set_state(bytes.data(), bytes.size()); }),
                       "offset must be a multiple of 4"));
  EXPECT_TRUE(contains(error_of([&] { target.set_state(bytes.data(), 15); }), "RNG state is wrong size"));
  EXPECT_TRUE(contains(error_of([&] { target.set_state(bytes.data(), 0); }), "RNG state is wrong size"));
  EXPECT_EQ(target.current_seed(), 3u);
  EXPECT_EQ(target.philox_offset_per_thread(), 4u);
  EXPECT_TRUE(contains(error_of([&] { target.set_philox_offset_per_thread(2); }), "offset must be a multiple of 4"));
  EXPECT_EQ(target.philox_offset_per_thread(), 4u);
}

TEST(CudaGenerator, CloneIsIndependent) {
  CUDAGeneratorImpl gen(2, 77);
  gen.philox_cuda_state(4);
  auto copy = std::static_pointer_cast<CUDAGeneratorImpl>(gen.clone());
  EXPECT_EQ(copy->device(), gen.device());
  EXPECT_EQ(copy->current_seed(), 77u);
  EXPECT_EQ(copy->philox_offset_per_thread(), 4u);
  copy->philox_cuda_state(4);
  EXPECT_EQ(gen.philox_offset_per_thread(), 4u);
}

// ---- launch shape ----------------------------------------------------------------------------------

TEST(CudaRandomLaunch, DistributionGridAndIncrement) {
  // An A100: 108 SMs of 2048 threads -> at most 864 blocks.
  auto l = kernels::distribution_launch(1, 108, 2048);
  EXPECT_EQ(l.grid, 1);
  EXPECT_EQ(l.threads, 256);
  EXPECT_EQ(l.increment, 4u);
  l = kernels::distribution_launch(256 * 864, 108, 2048);
  EXPECT_EQ(l.grid, 864);
  EXPECT_EQ(l.increment, 4u);
  l = kernels::distribution_launch(256 * 864 * 4, 108, 2048);
  EXPECT_EQ(l.increment, 4u);
  l = kernels::distribution_launch(256 * 864 * 4 + 1, 108, 2048);
  EXPECT_EQ(l.grid, 864);
  EXPECT_EQ(l.increment, 8u);
  l = kernels::distribution_launch(1000000, 108, 2048);
  EXPECT_EQ(l.threads, 221184);
  EXPECT_EQ(l.increment, 8u);
  l = kernels::distribution_launch(1000, 2, 1536);  // 1536 / 256 = 6 blocks per SM
  EXPECT_EQ(l.grid, 4);
  l = kernels::distribution_launch(100000, 2, 1536);
  EXPECT_EQ(l.grid, 12);
  EXPECT_EQ(l.increment, (99999u / (12 * 256 * 4) + 1) * 4);
  l = kernels::distribution_launch(100, 0, 0);  // unknown limits: one block
  EXPECT_EQ(l.grid, 1);

  auto b = kernels::bernoulli_tensor_launch(1);
  EXPECT_EQ(b.grid, 1);
  EXPECT_EQ(b.block, 512);
  EXPECT_EQ(b.increment, 10u);
  b = kernels::bernoulli_tensor_launch(2049);
  EXPECT_EQ(b.grid, 2);
}

// ---- Philox streams and curand's conversions ----------------------------------------------------------

TEST(CudaRandomFunctors, Curand4AtMatchesTheCurandStream) {
  for (uint64_t seed : {0ULL, 42ULL, 0xDEADBEEFCAFEULL}) {
    for (uint64_t sub : {0ULL, 1ULL, 255ULL, 0xFFFFFFFFULL, 0x100000000ULL}) {
      for (uint64_t offset = 0; offset < 12; ++offset) {
        kernels::Philox4x32 stream(seed, sub, offset);
        for (uint64_t call = 0; call < 4; ++call) {
          const PhiloxBlock want = stream.next4();
          const PhiloxBlock got = kernels::curand4_at(seed, sub, offset, call);
          EXPECT_EQ(got.x, want.x);
          EXPECT_EQ(got.y, want.y);
          EXPECT_EQ(got.z, want.z);
          EXPECT_EQ(got.w, want.w);
        }
      }
    }
  }
  // The counter's low 64 bits carry into the subsequence words.
  const PhiloxBlock carried = kernels::curand4_at(5, 3, 4, ~uint64_t{0});  // 1 + (2^64 - 1) wraps
  const PhiloxBlock want = kernels::philox4x32(PhiloxBlock{0, 0, 4, 0}, kernels::PhiloxKey{5, 0});
  EXPECT_EQ(carried.x, want.x);
  EXPECT_EQ(carried.w, want.w);
}

TEST(CudaRandomFunctors, CurandUniformConversions) {
  EXPECT_EQ(kernels::curand_uniform(0), 0x1p-33f);
  EXPECT_EQ(kernels::curand_uniform(0xFFFFFFFFu), 1.0f);  // (0, 1]: the top word rounds to 1
  std::mt19937 rng(1);
  for (int i = 0; i < 10000; ++i) {
    const uint32_t x = rng();
    const float product = static_cast<float>(x) * 2.3283064e-10f;  // CURAND_2POW32_INV
    const float want = product + 2.3283064e-10f / 2.0f;
    EXPECT_EQ(kernels::curand_uniform(x), want) << x;
    const uint32_t y = rng();
    const uint64_t z = static_cast<uint64_t>(x) ^ (static_cast<uint64_t>(y) << 21);
    const double dproduct = static_cast<double>(z) * 1.1102230246251565e-16;  // CURAND_2POW53_INV_DOUBLE
    EXPECT_EQ(kernels::curand_uniform_double(x, y), dproduct + 1.1102230246251565e-16 / 2.0);
  }
  EXPECT_EQ(kernels::curand_uniform_double(0, 0), 0x1p-54);
  EXPECT_EQ(kernels::curand_uniform_double(0x001FFFFFu, 0xFFFFFFFFu), 1.0);  // z = 2^53 - 1 ties to 1
}

TEST(CudaRandomFunctors, BoxMullerFollowsCurandsFormula) {
  std::mt19937 rng(2);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t x = rng(), y = rng();
    float n0, n1;
    kernels::box_muller(x, y, &n0, &n1);
    const double u = static_cast<double>(kernels::curand_uniform(x));
    const double v = std::fma(static_cast<double>(y), static_cast<double>(6.2831855f * 0x1p-32f),
                              static_cast<double>(6.2831855f * 0x1p-33f));
    const double s = std::sqrt(-2.0 * std::log(u));
    EXPECT_NEAR(n0, std::sin(static_cast<double>(static_cast<float>(v))) * s, 4e-6 * (1 + s));
    EXPECT_NEAR(n1, std::cos(static_cast<double>(static_cast<float>(v))) * s, 4e-6 * (1 + s));
    const uint32_t x1 = rng(), y1 = rng();
    double d0, d1;
    kernels::box_muller_double(PhiloxBlock{x, x1, y, y1}, &d0, &d1);
    const double du = kernels::curand_uniform_double(x, x1);
    const uint64_t zy = static_cast<uint64_t>(y) ^ (static_cast<uint64_t>(y1) << 21);
    const long double dv = static_cast<long double>(std::fma(static_cast<double>(zy), 0x1p-52, 0x1p-53));
    const long double pi = 3.141592653589793238462643383279502884L;
    const long double ds = std::sqrt(-2.0L * std::log(static_cast<long double>(du)));
    EXPECT_NEAR(d0, static_cast<double>(std::sin(pi * dv) * ds), 1e-14 * (1 + static_cast<double>(ds)));
    EXPECT_NEAR(d1, static_cast<double>(std::cos(pi * dv) * ds), 1e-14 * (1 + static_cast<double>(ds)));
  }
}

// ---- contraction-proof math ----------------------------------------------------------------------------

double ulp_error(double got, long double want) {
  const double w = static_cast<double>(want);
  const double ulp = std::nextafter(std::fabs(w), INFINITY) - std::fabs(w);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want)) / ulp;
}

TEST(CudaRandomMath, DoubleLogWithinOneUlp) {
  std::mt19937_64 rng(3);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = rng();
    double x = std::ldexp(static_cast<double>(bits >> 11) + 1.0, -53);  // (0, 1]
    if (i % 4 == 1) x = std::ldexp(x, -static_cast<int>(bits % 40));  // small values
    if (i % 4 == 2) x = 1.0 + std::ldexp(x, -20);                      // near 1
    if (i % 4 == 3) x = std::ldexp(x, static_cast<int>(bits % 60));    // large values
    const double e = ulp_error(kernels::log_fma(x), std::log(static_cast<long double>(x)));
    worst = std::max(worst, e);
  }
  EXPECT_LT(worst, 1.0);
  EXPECT_EQ(kernels::log_fma(1.0), 0.0);
  EXPECT_LT(ulp_error(kernels::log_fma(0x1p-54), -54 * 0.693147180559945309417232121458176568L), 1.0);
  EXPECT_TRUE(std::isinf(kernels::log_fma(0.0)) && kernels::log_fma(0.0) < 0);
  EXPECT_TRUE(std::isnan(kernels::log_fma(-1.0)));
}

TEST(CudaRandomMath, SinCosPiWithinTwoUlps) {
  std::mt19937_64 rng(4);
  const long double pi = 3.141592653589793238462643383279502884L;
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(static_cast<double>(rng() >> 11), -52);  // [0, 2)
    double s, c;
    kernels::sincospi_fma(x, &s, &c);
    // Reference: exact reduction to r = x - n / 2, then sinl/cosl of pi * r (a relative error of
    // 2^-64, where pi * x alone would lose the small values near the zeros).
    const long long n = std::llround(2.0L * x);
    const long double r = static_cast<long double>(x) - static_cast<long double>(n) / 2;
    const long double sr = std::sin(pi * r), cr = std::cos(pi * r);
    const long double ws = n % 4 == 0 ? sr : n % 4 == 1 ? cr : n % 4 == 2 ? -sr : -cr;
    const long double wc = n % 4 == 0 ? cr : n % 4 == 1 ? -sr : n % 4 == 2 ? -cr : sr;
    if (std::fabs(ws) > 1e-300L) worst = std::max(worst, ulp_error(s, ws));
    if (std::fabs(wc) > 1e-300L) worst = std::max(worst, ulp_error(c, wc));
  }
  EXPECT_LT(worst, 2.0);
  double s, c;
  for (double x : {0.0, 0.5, 1.0, 1.5, 2.0}) {
    kernels::sincospi_fma(x, &s, &c);
    EXPECT_EQ(s, std::round(std::sin(M_PI * x))) << x;
    EXPECT_EQ(c, std::round(std::cos(M_PI * x))) << x;
  }
}

TEST(CudaRandomMath, FloatLogAndSinCosAreAccurate) {
  std::mt19937 rng(5);
  for (int i = 0; i < 100000; ++i) {
    const float u = kernels::curand_uniform(rng());
    const double want = std::log(static_cast<double>(u));
    EXPECT_NEAR(kernels::mathfun_logf(u), want, 2.5e-7 * std::max(1.0, std::fabs(want)));
    const float v = u * 6.2831855f;
    float s, c;
    kernels::mathfun_sincosf(v, &s, &c);
    EXPECT_NEAR(s, std::sin(static_cast<double>(v)), 3e-7);
    EXPECT_NEAR(c, std::cos(static_cast<double>(v)), 3e-7);
  }
}

// ---- the cpu backend's KernelTable::random -----------------------------------------------------------

ElementwisePlan flat_plan(int64_t n, int64_t element_size) {
  ElementwisePlan p;
  p.ndim = 1;
  p.noperands = 1;
  p.numel = n;
  p.shape[0] = n;
  p.strides[0][0] = element_size;
  p.element_size[0] = element_size;
  return p;
}

template <class T>
std::vector<T> run_cpu(RandomOp op, ScalarType dtype, int64_t n, uint64_t seed, uint64_t offset,
                       const RandomArgs& args, int sms, int threads_per_sm) {
  std::vector<T> out(static_cast<size_t>(n));
  const ElementwisePlan plan = flat_plan(n, sizeof(T));
  char* data[kernels::kMaxOperands] = {reinterpret_cast<char*>(out.data())};
  ops::cpu_kernels().random(op, dtype, plan, data, kernels::PhiloxArgs{seed, offset}, args, sms, threads_per_sm,
                            Stream::default_stream(Device(DeviceType::CPU, 0)));
  return out;
}

// distribution_elementwise_grid_stride_kernel transcribed literally: every thread a curand
// state, a grid-stride loop over rounded_size, `unroll` values per draw.
template <class T, int kUnroll, class Draw>
std::vector<T> reference_kernel(int64_t n, uint64_t seed, uint64_t offset, int sms, int threads_per_sm, Draw draw) {
  std::vector<T> out(static_cast<size_t>(n));
  const int64_t block = 256;
  int64_t grid = (n + block - 1) / block;
  grid = std::min<int64_t>(grid, static_cast<int64_t>(sms) * (threads_per_sm / block));
  const int64_t stride = block * grid * kUnroll;
  const int64_t rounded = ((n - 1) / stride + 1) * stride;
  for (int64_t idx = 0; idx < block * grid; ++idx) {
    kernels::Philox4x32 state(seed, static_cast<uint64_t>(idx), offset);
    for (int64_t linear = idx; linear < rounded; linear += stride) {
      T values[kUnroll];
      draw(state.next4(), values);
      for (int ii = 0; ii < kUnroll; ++ii) {
        const int64_t li = linear + block * grid * ii;
        if (li < n) out[static_cast<size_t>(li)] = values[ii];
      }
    }
  }
  return out;
}

TEST(CudaRandomCpuKernel, UniformFloatMatchesTheKernelLoop) {
  for (int64_t n : {1, 5, 255, 256, 257, 1000, 2049, 10000}) {
    const auto got = run_cpu<float>(RandomOp::Uniform, kFloat32, n, 42, 8, RandomArgs{-2, 3}, 2, 512);
    const auto want = reference_kernel<float, 4>(n, 42, 8, 2, 512, [](PhiloxBlock b, float* v) {
      const uint32_t w[4] = {b.x, b.y, b.z, b.w};
      for (int i = 0; i < 4; ++i) {
        const float r = static_cast<float>(w[i]) * 2.3283064e-10f + 2.3283064e-10f / 2.0f;
        const float value = std::fma(r, 5.0f, -2.0f);
        v[i] = value == 3.0f ? -2.0f : value;
      }
    });
    EXPECT_EQ(got, want) << n;
  }
}

TEST(CudaRandomCpuKernel, HalfAndBFloat16UniformStayBelowTo) {
  // Words near 2^32 give rand just below 1, which rounds to 1 in half and bfloat16.
  const kernels::UniformSampler<Half> h = kernels::UniformSampler<Half>::make(0, 1);
  EXPECT_EQ(static_cast<float>(h.transform(kernels::curand_uniform(0xFFFFF000u))), 0.0f);
  EXPECT_EQ(static_cast<float>(h.transform(0.25f)), 0.25f);
  const kernels::UniformSampler<BFloat16> b = kernels::UniformSampler<BFloat16>::make(0, 1);
  EXPECT_EQ(static_cast<float>(b.transform(kernels::curand_uniform(0xFFFF0000u))), 0.0f);
  const auto values = run_cpu<Half>(RandomOp::Uniform, kFloat16, 200000, 3, 0, RandomArgs{0, 1}, 4, 2048);
  for (Half v : values) ASSERT_LT(static_cast<float>(v), 1.0f);
}

TEST(CudaRandomCpuKernel, DoubleAndWideIntegerDrawsUseTwoValuesPerDraw) {
  const int64_t n = 3001;
  const auto got = run_cpu<double>(RandomOp::Uniform, kFloat64, n, 7, 0, RandomArgs{0, 1}, 1, 1024);
  const auto want = reference_kernel<double, 2>(n, 7, 0, 1, 1024, [](PhiloxBlock b, double* v) {
    v[0] = kernels::curand_uniform_double(b.x, b.y);
    v[1] = kernels::curand_uniform_double(b.z, b.w);
  });
  EXPECT_EQ(got, want);

  const uint64_t range = uint64_t{1} << 40;
  const auto ints = run_cpu<int64_t>(RandomOp::RandomFromTo, kInt64, n, 7, 4, RandomArgs{0, 0, range, -5}, 1, 1024);
  const auto ref = reference_kernel<int64_t, 2>(n, 7, 4, 1, 1024, [&](PhiloxBlock b, int64_t* v) {
    v[0] = static_cast<int64_t>((((static_cast<uint64_t>(b.x) << 32) | b.y) % range) - 5);
    v[1] = static_cast<int64_t>((((static_cast<uint64_t>(b.z) << 32) | b.w) % range) - 5);
  });
  EXPECT_EQ(ints, ref);

  const auto narrow = run_cpu<int32_t>(RandomOp::RandomFromTo, kInt32, n, 7, 4, RandomArgs{0, 0, 10, 3}, 1, 1024);
  const auto nref = reference_kernel<int32_t, 4>(n, 7, 4, 1, 1024, [&](PhiloxBlock b, int32_t* v) {
    const uint32_t w[4] = {b.x, b.y, b.z, b.w};
    for (int i = 0; i < 4; ++i) v[i] = static_cast<int32_t>(w[i] % 10 + 3);
  });
  EXPECT_EQ(narrow, nref);
}

TEST(CudaRandomCpuKernel, ValuesPyTorchPrintsOnNvidiaGpus) {
  // Small tensors use one block, so these do not depend on the GPU model. Printed values:
  // torch.manual_seed(0); torch.rand(10, device="cuda") twice, and torch.manual_seed(42);
  // torch.rand(3, 4, device="cuda") / torch.randn(2, 5, device="cuda") (4 decimals).
  const std::vector<double> seed0_first = {0.3990, 0.5167, 0.0249, 0.9401, 0.9459,
                                           0.7967, 0.4150, 0.8203, 0.2290, 0.9096};
  const std::vector<double> seed0_second = {0.9722, 0.7910, 0.4690, 0.3300, 0.3345,
                                            0.3783, 0.7640, 0.6405, 0.1103, 0.3594};
  const std::vector<double> seed42_rand = {0.6130, 0.0101, 0.3984, 0.0403, 0.1563, 0.4825,
                                           0.7362, 0.4060, 0.5189, 0.2867, 0.2416, 0.9228};
  const std::vector<double> seed42_randn = {0.1940,  2.1614,  -0.1721, 0.8491, -1.9244,
                                            0.6530, -0.6494, -0.8175, 0.5280, -1.2753};
  CUDAGeneratorImpl gen(0, 0);
  auto draw = [&](RandomOp op, int64_t n) {
    const kernels::RandomLaunch l = kernels::distribution_launch(n, 108, 2048);
    const kernels::PhiloxArgs s = gen.philox_cuda_state(l.increment);
    return run_cpu<float>(op, kFloat32, n, s.seed, s.offset, RandomArgs{0, 1}, 108, 2048);
  };
  auto expect_close = [](const std::vector<float>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 0.00005 + 1e-6) << i;
  };
  expect_close(draw(RandomOp::Uniform, 10), seed0_first);
  expect_close(draw(RandomOp::Uniform, 10), seed0_second);
  gen.set_current_seed(42);
  expect_close(draw(RandomOp::Uniform, 12), seed42_rand);
  gen.set_current_seed(42);
  expect_close(draw(RandomOp::Normal, 10), seed42_randn);
}

TEST(CudaRandomCpuKernel, EveryOpAndDtypeIsDeterministicAcrossHostThreadCounts) {
  const int saved = get_num_threads();
  struct Case {
    RandomOp op;
    ScalarType dtype;
    RandomArgs args;
  };
  const std::vector<Case> cases = {
      {RandomOp::Uniform, kFloat32, {0, 1}},        {RandomOp::Uniform, kFloat64, {-1, 1}},
      {RandomOp::Uniform, kFloat16, {0, 4}},        {RandomOp::Uniform, kBFloat16, {0, 1}},
      {RandomOp::Normal, kFloat32, {1, 2}},         {RandomOp::Normal, kFloat64, {0, 1}},
      {RandomOp::Normal, kFloat16, {0, 1}},         {RandomOp::Normal, kBFloat16, {0, 1}},
      {RandomOp::RandomFromTo, kUInt8, {0, 0, 256, 0}}, {RandomOp::RandomFromTo, kBool, {0, 0, 2, 0}},
      {RandomOp::RandomFull64, kInt64, {}},         {RandomOp::RandomFull64, kFloat32, {}},
      {RandomOp::BernoulliScalar, kFloat32, {0.3}}, {RandomOp::BernoulliScalar, kFloat64, {0.7}},
      {RandomOp::BernoulliScalar, kBool, {0.5}},
  };
  const int64_t n = 300000;
  for (const Case& c : cases) {
    std::vector<std::vector<uint8_t>> results;
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      std::vector<uint8_t> out(static_cast<size_t>(n) * element_size(c.dtype));
      const ElementwisePlan plan = flat_plan(n, element_size(c.dtype));
      char* data[kernels::kMaxOperands] = {reinterpret_cast<char*>(out.data())};
      ops::cpu_kernels().random(c.op, c.dtype, plan, data, kernels::PhiloxArgs{1234, 16}, c.args, 4, 2048,
                                Stream::default_stream(Device(DeviceType::CPU, 0)));
      results.push_back(out);
    }
    EXPECT_EQ(results[0], results[1]) << static_cast<int>(c.op) << " " << c.dtype;
  }
  set_num_threads(saved);
}

TEST(CudaRandomCpuKernel, BernoulliTensorUsesFourElementsPerThread) {
  const int64_t n = 4099;
  std::vector<float> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = static_cast<float>(i % 11) / 10.0f;
  std::vector<uint8_t> out(static_cast<size_t>(n));
  ElementwisePlan plan = flat_plan(n, 1);
  plan.noperands = 2;
  plan.strides[1][0] = plan.element_size[1] = 4;
  char* data[kernels::kMaxOperands] = {reinterpret_cast<char*>(out.data()), reinterpret_cast<char*>(p.data())};
  ops::cpu_kernels().random(RandomOp::BernoulliTensor, kUInt8, plan, data, kernels::PhiloxArgs{99, 12}, RandomArgs{}, 0, 0,
                            Stream::default_stream(Device(DeviceType::CPU, 0)));
  for (int64_t i = 0; i < n; ++i) {
    const PhiloxBlock b = kernels::curand4_at(99, static_cast<uint64_t>(i / 4), 12, 0);
    const uint32_t w[4] = {b.x, b.y, b.z, b.w};
    const float u = kernels::curand_uniform(w[i % 4]);
    EXPECT_EQ(out[static_cast<size_t>(i)], u <= p[static_cast<size_t>(i)] ? 1 : 0) << i;
  }
  p[7] = 1.5f;  // PyTorch's device-side assert
  EXPECT_TRUE(contains(error_of([&] {
                         ops::cpu_kernels().random(RandomOp::BernoulliTensor, kUInt8, plan, data, kernels::PhiloxArgs{99, 12},
                                                   RandomArgs{}, 0, 0,
                                                   Stream::default_stream(Device(DeviceType::CPU, 0)));
                       }),
                       "device-side assert triggered"));
}

}  // namespace
}  // namespace ctorch::api::impl
