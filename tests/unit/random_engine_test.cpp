// The CPU generator without tensors: mt19937, seeding, state bytes, raw-buffer samplers against
// PyTorch 1.13 reference values, and Philox4x32-10 against the Random123 known answers.
//
// Values marked "reference" come from /work/shared/reference/torch_reference_values.md; values
// marked "torch 1.13.1" were produced with Debian's python3-torch 1.13.1 (CPU capability AVX2).
#include <gtest/gtest.h>

#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "ctorch/cuda.h"
#include "ctorch/error.h"
#include "ctorch/generator.h"
#include "ctorch/random.h"
#include "kernels/philox.h"
#include "random/cpu_generator.h"
#include "random/distributions.h"
#include "random/mt19937.h"

namespace ctorch::inline api::impl {
namespace {

using Doubles = std::vector<double>;

template <class T>
Doubles widen(const std::vector<T>& v) {
  Doubles out;
  for (const T& x : v) out.push_back(static_cast<double>(static_cast<float>(x)));
  return out;
}

template <>
Doubles widen<double>(const std::vector<double>& v) {
  return v;
}

// Compares bit patterns so that -0.0 / 0.0 and last-bit differences are caught.
void expect_bits(const Doubles& got, const Doubles& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(want[i]))
        << "element " << i << ": got " << std::hexfloat << got[i] << ", want " << want[i];
  }
}

CPUGeneratorImpl seeded(uint64_t seed) { return CPUGeneratorImpl(seed); }

std::vector<float> rand_f(CPUGeneratorImpl& g, int64_t n, double from = 0, double to = 1) {
  std::vector<float> v(n);
  uniform_fill(g, kFloat32, v.data(), n, from, to);
  return v;
}

std::vector<float> randn_f(CPUGeneratorImpl& g, int64_t n, double mean = 0, double std = 1) {
  std::vector<float> v(n);
  normal_fill(g, kFloat32, v.data(), n, mean, std, /*contiguous=*/true);
  return v;
}

std::vector<double> randn_d(CPUGeneratorImpl& g, int64_t n) {
  std::vector<double> v(n);
  normal_fill(g, kFloat64, v.data(), n, 0, 1, /*contiguous=*/true);
  return v;
}

// ---- mt19937 -----------------------------------------------------------------------------------

TEST(Mt19937, MatchesStdMt19937SeededWithLow32Bits) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{5}, (uint64_t{1} << 32) + 5, kDefaultRngSeed}) {
    Mt19937 ours(seed);
    std::mt19937 ref(static_cast<uint32_t>(seed));
    for (int i = 0; i < 3000; ++i) ASSERT_EQ(ours(), ref()) << "seed " << seed << " output " << i;
    EXPECT_EQ(ours.seed(), seed);
  }
}

TEST(Mt19937, SeedingLeavesOneOutputBeforeTheFirstTwist) {
  Mt19937 e(0);
  EXPECT_EQ(e.data().left, 1);
  EXPECT_EQ(e.data().next, 0u);
  EXPECT_TRUE(e.data().seeded);
  EXPECT_TRUE(e.is_valid());
  e();
  EXPECT_EQ(e.data().left, 624);
  EXPECT_EQ(e.data().next, 1u);
}

TEST(Mt19937, ValidityRules) {
  Mt19937 e(1);
  Mt19937Data d = e.data();
  d.left = 0;
  e.set_data(d);
  EXPECT_FALSE(e.is_valid());
  d.left = 625;
  e.set_data(d);
  EXPECT_FALSE(e.is_valid());
  d.left = 624;
  d.next = 625;
  e.set_data(d);
  EXPECT_FALSE(e.is_valid());
  d.next = 624;
  d.seeded = false;
  e.set_data(d);
  EXPECT_FALSE(e.is_valid());
}

// ---- generator ----------------------------------------------------------------------------------

TEST(CpuGenerator, Random64JoinsTwoDrawsHighFirst) {
  CPUGeneratorImpl a(7), b(7);
  const uint64_t hi = a.random();
  const uint64_t lo = a.random();
  EXPECT_EQ(b.random64(), (hi << 32) | lo);
}

TEST(CpuGenerator, NewGeneratorUsesDefaultSeed) {
  Generator g;
  EXPECT_EQ(g.initial_seed(), 67280421310721ULL);
  EXPECT_EQ(g.device(), Device(DeviceType::CPU));
  // reference: torch.rand(4, generator=torch.Generator())
  auto v = rand_f(static_cast<CPUGeneratorImpl&>(*g.impl()), 4);
  expect_bits(widen(v), {0x1.11b5d80000000p-2, 0x1.bebc080000000p-1, 0x1.5755f40000000p-2,
                         0x1.9cb0300000000p-2});
}

TEST(CpuGenerator, FreshStateBytes) {
  // torch 1.13.1: torch.Generator().get_state()[:24]
  CPUGeneratorImpl g;
  auto s = g.get_state();
  ASSERT_EQ(s.size(), 5056u);
  const std::vector<uint8_t> head(s.begin(), s.begin() + 24);
  EXPECT_EQ(head, (std::vector<uint8_t>{1, 209, 156, 241, 48, 61, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
                                         0, 0, 0, 0, 0, 0, 0, 0}));
  // reference: after manual_seed(0), first 16 bytes
  g.set_current_seed(0);
  s = g.get_state();
  EXPECT_EQ(std::vector<uint8_t>(s.begin(), s.begin() + 16),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  uint64_t word1 = 0;
  std::memcpy(&word1, s.data() + 24 + 8, 8);
  EXPECT_EQ(word1, 1812433253u * (0u ^ (0u >> 30)) + 1u);  // state[1] zero-extended
}

TEST(CpuGenerator, StateRoundTripRestoresStreamAndCaches) {
  CPUGeneratorImpl g(42);
  std::vector<float> tmp(3);
  normal_fill(g, kFloat32, tmp.data(), 3, 0, 1, true);  // leaves a cached double sample
  ASSERT_TRUE(g.next_double_normal_sample().has_value());
  g.set_next_float_normal_sample(1.25f);
  const auto state = g.get_state();
  const auto a = randn_f(g, 40);
  const auto a2 = randn_f(g, 5);
  g.set_current_seed(9);
  g.set_state(state.data(), state.size());
  EXPECT_EQ(g.next_float_normal_sample(), std::optional<float>(1.25f));
  EXPECT_EQ(randn_f(g, 40), a);
  EXPECT_EQ(randn_f(g, 5), a2);
  EXPECT_EQ(g.current_seed(), 42u);
}

TEST(CpuGenerator, BadStateSizeThrowsAndChangesNothing) {
  CPUGeneratorImpl g(3);
  const auto before = g.get_state();
  std::vector<uint8_t> small(10, 0);
  try {
    g.set_state(small.data(), small.size());
    FAIL() << "expected a throw";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(),
                 "Expected either a CPUGeneratorImplStateLegacy of size 5048 or a "
                 "CPUGeneratorImplState of size 5056 but found the input RNG state size to be 10");
  }
  std::vector<uint8_t> big(5057, 0);
  EXPECT_THROW(g.set_state(big.data(), big.size()), ValueError);
  EXPECT_EQ(g.get_state(), before);
}

TEST(CpuGenerator, InvalidEngineStateThrowsAndChangesNothing) {
  CPUGeneratorImpl g(3);
  const auto before = g.get_state();
  std::vector<uint8_t> zeros(5056, 0);
  try {
    g.set_state(zeros.data(), zeros.size());
    FAIL() << "expected a throw";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Invalid mt19937 state");
  }
  auto bad_left = before;
  const int32_t left = 700;
  std::memcpy(bad_left.data() + 8, &left, 4);
  EXPECT_THROW(g.set_state(bad_left.data(), bad_left.size()), ValueError);
  EXPECT_EQ(g.get_state(), before);
}

TEST(CpuGenerator, LegacyStateKeepsEngineAndDropsFloatCache) {
  CPUGeneratorImpl g(11);
  g.random();
  const auto full = g.get_state();
  std::vector<uint8_t> legacy(full.begin(), full.begin() + 5048);
  const uint32_t expected = g.random();
  CPUGeneratorImpl h(0);
  h.set_next_float_normal_sample(2.0f);
  h.set_state(legacy.data(), legacy.size());
  EXPECT_EQ(h.random(), expected);
  EXPECT_FALSE(h.next_float_normal_sample().has_value());
  EXPECT_FALSE(h.next_double_normal_sample().has_value());
}

TEST(CpuGenerator, ReseedClearsCaches) {
  CPUGeneratorImpl g(1);
  g.set_next_double_normal_sample(0.5);
  g.set_next_float_normal_sample(0.5f);
  g.set_current_seed(1);
  EXPECT_FALSE(g.next_double_normal_sample().has_value());
  EXPECT_FALSE(g.next_float_normal_sample().has_value());
}

TEST(CpuGenerator, OnlyLow32BitsOfSeedDriveTheStream) {
  CPUGeneratorImpl a((uint64_t{1} << 32) + 5), b(5);
  EXPECT_EQ(randn_f(a, 20), randn_f(b, 20));
  EXPECT_EQ(a.current_seed(), (uint64_t{1} << 32) + 5);
  EXPECT_EQ(b.current_seed(), 5u);
}

TEST(CpuGenerator, CloneIsIndependent) {
  CPUGeneratorImpl g(5);
  g.random();
  auto c = g.clone();
  auto& cc = static_cast<CPUGeneratorImpl&>(*c);
  EXPECT_EQ(cc.random(), g.random());
  cc.random();
  EXPECT_NE(cc.get_state(), g.get_state());
}

TEST(CpuGenerator, GeneratorHandlesShareStateAndAreIndependentOfDefault) {
  manual_seed(0);
  Generator g;
  g.manual_seed(0);
  Generator alias = g;
  EXPECT_TRUE(alias == g);
  EXPECT_FALSE(g == default_generator());
  auto& gi = static_cast<CPUGeneratorImpl&>(*g.impl());
  const auto first = rand_f(gi, 4);
  // The default generator is untouched by draws from g.
  const auto from_default = rand_f(cpu_generator_or_default(std::nullopt), 4);
  EXPECT_EQ(first, from_default);
  // alias continues g's stream.
  const auto next = rand_f(static_cast<CPUGeneratorImpl&>(*alias.impl()), 4);
  expect_bits(widen(next), {0x1.3acd0c0000000p-2, 0x1.44a5f60000000p-1, 0x1.f5db0c0000000p-2,
                            0x1.caface0000000p-1});
}

TEST(CpuGenerator, DefaultGeneratorSeedFunctions) {
  EXPECT_EQ(manual_seed(0).initial_seed(), 0u);
  EXPECT_EQ(initial_seed(), 0u);
  const uint64_t s1 = seed();
  const uint64_t s2 = seed();
  EXPECT_NE(s1, s2);  // 64 random bits twice: equal with probability 2^-64
  EXPECT_EQ(initial_seed(), s2);
  EXPECT_TRUE(default_generator() == default_generator());
  EXPECT_NE(get_non_deterministic_random(true) >> 53, 1u);  // 53-bit for cuda
}

TEST(CpuGenerator, CudaGeneratorNeedsACudaDevice) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "CUDA devices are present (tests/device/cuda_random_test.cpp)";
  EXPECT_THROW(Generator(Device(DeviceType::CUDA)), Error);
}

TEST(CpuGenerator, ConcurrentDrawsNeitherLoseNorRepeatOutputs) {
  CPUGeneratorImpl g(123);
  std::vector<std::vector<float>> parts(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 50; ++k) {
        auto v = rand_f(g, 100);
        parts[t].insert(parts[t].end(), v.begin(), v.end());
      }
    });
  }
  for (auto& th : threads) th.join();
  CPUGeneratorImpl ref(123);
  auto all = rand_f(ref, 4 * 50 * 100);
  std::multiset<float> want(all.begin(), all.end()), got;
  for (auto& p : parts) got.insert(p.begin(), p.end());
  EXPECT_EQ(got, want);
}

// ---- samplers ------------------------------------------------------------------------------------

TEST(Samplers, UniformFloatAndDouble) {
  auto g = seeded(0);  // reference: rand(8)
  expect_bits(widen(rand_f(g, 8)),
              {0x1.fc2ab00000000p-2, 0x1.89545e0000000p-1, 0x1.6a67500000000p-4, 0x1.0e66000000000p-3,
               0x1.3acd0c0000000p-2, 0x1.44a5f60000000p-1, 0x1.f5db0c0000000p-2, 0x1.caface0000000p-1});
  g.set_current_seed(0);  // reference: rand(8, dtype=float64)
  std::vector<double> d(8);
  uniform_fill(g, kFloat64, d.data(), 8, 0, 1);
  expect_bits(d, {0x1.f0aac97c4aa2fp-1, 0x1.6a675d821ccc0p-1, 0x1.d6687b744a5f6p-2, 0x1.d76c3d8e57d67p-1,
                  0x1.4a4099fa1ded3p-1, 0x1.951156266d6f2p-1, 0x1.6dc9130ace95cp-3, 0x1.6788c1d097bb0p-2});
}

TEST(Samplers, UniformRangeIsFused) {
  // torch 1.13.1: manual_seed(0); empty(8).uniform_(0.1, 0.7). Element 7 differs without fma.
  auto g = seeded(0);
  expect_bits(widen(rand_f(g, 8, 0.1, 0.7)),
              {0x1.974cce0000000p-2, 0x1.1f329e0000000p-1, 0x1.3985640000000p-3, 0x1.6f0a000000000p-3,
               0x1.2347d40000000p-2, 0x1.ebfa580000000p-2, 0x1.93836c0000000p-2, 0x1.46967a0000000p-1});
}

TEST(Samplers, UniformHalfAndBFloat16UseTheirMantissaBits) {
  // torch 1.13.1: rand(8, dtype=float16) / bfloat16 after manual_seed(0)
  auto g = seeded(0);
  std::vector<Half> h(8);
  uniform_fill(g, kFloat16, h.data(), 8, 0, 1);
  expect_bits(widen(h), {0x1.5600000000000p-2, 0x1.1780000000000p-2, 0x1.9d40000000000p-1, 0x1.3000000000000p-1,
                         0x1.a180000000000p-2, 0x1.7d80000000000p-2, 0x1.b0c0000000000p-1, 0x1.59c0000000000p-1});
  g.set_current_seed(0);
  std::vector<BFloat16> b(8);
  uniform_fill(g, kBFloat16, b.data(), 8, 0, 1);
  expect_bits(widen(b), {0x1.5800000000000p-1, 0x1.7800000000000p-3, 0x1.d400000000000p-2, 0x1.8000000000000p-1,
                         0x1.0c00000000000p-2, 0x1.f600000000000p-1, 0x1.8600000000000p-1, 0x1.9c00000000000p-2});
}

TEST(Samplers, NormalScalarPathBelow16) {
  auto g = seeded(0);  // reference: randn(15)
  expect_bits(widen(randn_f(g, 15)),
              {0x1.8a7eb80000000p+0, -0x1.2c78a00000000p-2, -0x1.16e2920000000p+1, 0x1.23096c0000000p-1,
               -0x1.15a3420000000p+0, -0x1.660a5a0000000p+0, 0x1.9d06f40000000p-2, 0x1.ad11ca0000000p-1,
               -0x1.7042880000000p-1, -0x1.9d06160000000p-2, -0x1.317a300000000p-1, 0x1.74cf8c0000000p-3,
               -0x1.b69e0e0000000p-1, 0x1.19c1320000000p+0, -0x1.1239560000000p+0});
  g.set_current_seed(0);  // reference: randn(8, dtype=float64)
  std::vector<double> d(8);
  normal_fill(g, kFloat64, d.data(), 8, 0, 1, true);
  expect_bits(d, {0x1.8a7eb8902be3ap+0, -0x1.2c78a087c6feap-2, -0x1.16e2920a70ee5p+1, 0x1.23096ca3e350dp-1,
                  -0x1.15a341987e136p+0, -0x1.660a590b74404p+0, 0x1.9d06f4be0cd62p-2, 0x1.ad11c99ad2d18p-1});
}

TEST(Samplers, NormalFillFloatMatchesTheAvx2Path) {
  auto g = seeded(0);  // reference: randn(16)
  expect_bits(widen(randn_f(g, 16)),
              {-0x1.20370a0000000p+0, -0x1.2701140000000p+0, -0x1.0097ac0000000p-2, -0x1.bc4aba0000000p-2,
               0x1.b28a2a0000000p-1, 0x1.624f060000000p-1, -0x1.4398da0000000p-2, -0x1.0ebf820000000p+1,
               0x1.4a02700000000p-2, -0x1.4369e80000000p+0, 0x1.6661fe0000000p-2, 0x1.3b87760000000p-2,
               0x1.eadeee0000000p-4, 0x1.3cd7260000000p+0, 0x1.1de51c0000000p+0, -0x1.fa6cf80000000p-3});
  g.set_current_seed(0);  // reference: normal(2, 3, size=(20,))
  expect_bits(widen(randn_f(g, 20, 2, 3)),
              {-0x1.60a51e0000000p+0, -0x1.75033c0000000p+0, 0x1.3f8e400000000p+0, 0x1.658fe80000000p-1,
               0x1.e5f4500000000p+1, -0x1.5528100000000p+1, 0x1.f3aba20000000p-1, 0x1.e3c6f40000000p+2,
               0x1.b3bfc00000000p+1, 0x1.86e0780000000p+0, 0x1.952ec80000000p+2, 0x1.6629b80000000p+1,
               0x1.8ac2200000000p+2, 0x1.b093800000000p+2, 0x1.35b0740000000p+2, -0x1.0fe3320000000p-1,
               0x1.32e9240000000p+2, 0x1.71bad20000000p+2, 0x1.007a680000000p+3, 0x1.14a28e0000000p+1});
}

TEST(Samplers, NormalFillDoubleHalfBFloat16) {
  auto g = seeded(0);  // torch 1.13.1: empty(16, dtype=float64).normal_(2, 3)
  std::vector<double> d(16);
  normal_fill(g, kFloat64, d.data(), 16, 2, 3, true);
  expect_bits(d, {-0x1.3b995c5db944ap+2, 0x1.c2afca122a170p-1, -0x1.2eb50ba839122p+0, 0x1.3fe7e2411f97cp+2,
                  -0x1.4ddcc6b53030fp-1, -0x1.d39ebb195b7b3p+0, 0x1.0ae87e91e268cp-3, -0x1.32dab370a674fp-1,
                  -0x1.e30aa92a8db3fp+0, 0x1.a4898aa24b7d2p+2, 0x1.7c4920da2c4b4p+1, 0x1.01b3a28c11fccp+3,
                  0x1.5a1001eb4e3fcp+2, -0x1.ae3eafb13f3cfp+0, 0x1.1b69c5b3b4c47p+1, 0x1.81cc76795f664p+1});
  g.set_current_seed(0);  // torch 1.13.1: randn(16, dtype=float16)
  std::vector<Half> h(16);
  normal_fill(g, kFloat16, h.data(), 16, 0, 1, true);
  expect_bits(widen(h), {-0x1.cd40000000000p-1, 0x1.ecc0000000000p-2, 0x1.32c0000000000p+0, 0x1.cf80000000000p-1,
                         0x1.9980000000000p-1, -0x1.0500000000000p-2, -0x1.e340000000000p+0, -0x1.7780000000000p-3,
                         -0x1.a240000000000p-6, -0x1.4640000000000p-1, 0x1.5cc0000000000p+0, -0x1.fb00000000000p-1,
                         -0x1.4700000000000p-1, 0x1.dcc0000000000p-1, -0x1.a3c0000000000p-2, -0x1.7d00000000000p+0});
  g.set_current_seed(0);  // torch 1.13.1: randn(16, dtype=bfloat16)
  std::vector<BFloat16> b(16);
  normal_fill(g, kBFloat16, b.data(), 16, 0, 1, true);
  expect_bits(widen(b), {0x1.7600000000000p+0, 0x1.2a00000000000p-2, 0x1.ec00000000000p-1, 0x1.9200000000000p+0,
                         0x1.fa00000000000p-2, -0x1.8400000000000p+0, -0x1.0000000000000p-2, 0x1.2600000000000p-1,
                         0x1.4e00000000000p-2, -0x1.2200000000000p-1, 0x1.1600000000000p-1, -0x1.2000000000000p-1,
                         0x1.3400000000000p-1, 0x1.3000000000000p+1, 0x1.ac00000000000p+0, -0x1.ac00000000000p-1});
}

TEST(Samplers, NonContiguousNormalUsesScalarPath) {
  auto g = seeded(0);
  std::vector<float> v(20);
  normal_fill(g, kFloat32, v.data(), 20, 0, 1, /*contiguous=*/false);
  auto h = seeded(0);
  EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 15), randn_f(h, 15));
}

TEST(Samplers, IntegersBernoulliRandperm) {
  auto g = seeded(0);  // reference: randint(0, 10, (8,))
  std::vector<int64_t> i64(8);
  random_from_to_fill(g, kInt64, i64.data(), 8, random_from_to_args(kInt64, 0, 10));
  EXPECT_EQ(i64, (std::vector<int64_t>{4, 9, 3, 0, 3, 9, 7, 3}));
  g.set_current_seed(0);  // torch 1.13.1: randint(0, 2**40, (4,)) draws random64
  std::vector<int64_t> wide(4);
  random_from_to_fill(g, kInt64, wide.data(), 4, random_from_to_args(kInt64, 0, int64_t{1} << 40));
  EXPECT_EQ(wide, (std::vector<int64_t>{741280623151, 506137267392, 291447657211, 841157541223}));
  g.set_current_seed(0);  // torch 1.13.1: random_(-2**63, None)
  random_from_to_fill(g, kInt64, wide.data(), 4, random_from_to_args(kInt64, INT64_MIN, std::nullopt));
  EXPECT_EQ(wide, (std::vector<int64_t>{-8322921849960486353, -5253828890213626688, -7327722439656189189,
                                        -8395423546819117721}));
  g.set_current_seed(0);  // torch 1.13.1: empty(8).bernoulli_(0.3) uses 53-bit double uniforms
  std::vector<float> bern(8);
  bernoulli_scalar_fill(g, kFloat32, bern.data(), 8, 0.3);
  EXPECT_EQ(bern, (std::vector<float>{0, 0, 0, 0, 0, 0, 1, 0}));
  g.set_current_seed(0);  // reference: bernoulli(full((8,), 0.5)): float p, 24-bit float uniforms
  const std::vector<float> p(8, 0.5f);
  bernoulli_tensor_fill(g, kFloat32, bern.data(), 8, kFloat32, p.data());
  EXPECT_EQ(bern, (std::vector<float>{1, 0, 1, 1, 1, 0, 1, 0}));
  g.set_current_seed(0);  // torch 1.13.1: double p uses double uniforms
  const std::vector<double> pd(8, 0.5);
  std::vector<double> bd(8);
  bernoulli_tensor_fill(g, kFloat64, bd.data(), 8, kFloat64, pd.data());
  EXPECT_EQ(bd, (std::vector<double>{0, 0, 1, 0, 0, 0, 1, 1}));
  g.set_current_seed(0);  // torch 1.13.1: randperm(20)
  std::vector<int64_t> perm(20);
  randperm_fill(g, kInt64, perm.data(), 20);
  EXPECT_EQ(perm, (std::vector<int64_t>{4, 5, 13, 19, 7, 14, 3, 6, 9, 17, 11, 2, 16, 18, 10, 12, 15, 8, 1, 0}));
}

TEST(Samplers, FailedChecksLeaveTheGeneratorUnchanged) {
  auto g = seeded(0);
  g.random();
  const auto before = g.get_state();
  std::vector<float> f(20);
  std::vector<int64_t> i(20);
  EXPECT_THROW(normal_fill(g, kFloat32, f.data(), 20, 0, -1, true), ValueError);
  EXPECT_THROW(normal_fill(g, kInt64, i.data(), 20, 0, 1, true), NotImplementedError);
  EXPECT_THROW(uniform_fill(g, kFloat32, f.data(), 20, 1, 0), ValueError);
  EXPECT_THROW(uniform_fill(g, kInt64, i.data(), 20, 0, 1), NotImplementedError);
  EXPECT_THROW(bernoulli_scalar_fill(g, kFloat32, f.data(), 20, 1.5), ValueError);
  std::vector<float> p(20, 0.5f);
  p[19] = 1.5f;  // PyTorch fails only when it reaches this element; ctorch checks all first
  EXPECT_THROW(bernoulli_tensor_fill(g, kFloat32, f.data(), 20, kFloat32, p.data()), ValueError);
  EXPECT_THROW(randperm_fill(g, kInt8, i.data(), 300), ValueError);
  EXPECT_THROW(random_from_to_args(kInt64, 5, 5), ValueError);
  EXPECT_EQ(g.get_state(), before);
}

TEST(Samplers, ErrorTextsArePyTorchs) {
  auto msg = [](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(msg([] { random_from_to_args(kInt64, 5, 5); }),
            "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  EXPECT_EQ(msg([] { check_normal_std(-1); }), "normal expects std >= 0.0, but found std -1");
  EXPECT_EQ(msg([] { random_from_to_args(kUInt8, 0, 300); }), "to - 1 is out of bounds for unsigned char");
  EXPECT_EQ(msg([] { random_from_to_args(kFloat16, 0, 70000); }), "to - 1 is out of bounds for c10::Half");
  EXPECT_EQ(msg([] { random_from_to_args(kInt32, INT64_MIN, std::nullopt); }),
            "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16");
  EXPECT_EQ(msg([] { check_uniform_args(kInt64, 0, 1); }), "\"check_uniform_bounds\" not implemented for 'Long'");
  EXPECT_EQ(msg([] { check_uniform_args(kFloat32, -3e38, 3e38); }),
            "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and "
            "from=-3e+38 which result in to-from to exceed the limit");
  EXPECT_EQ(msg([] { check_bernoulli_scalar_args(kFloat16, 0.5); }),
            "\"bernoulli_scalar_cpu_\" not implemented for 'Half'");
  EXPECT_EQ(msg([] { check_randperm_args(3000, kFloat16); }), "n cannot be greater than 2049 for Half type.");
  EXPECT_EQ(msg([] { check_randperm_args(300, kInt8); }),
            "value cannot be converted to type int8_t without overflow");
}

// ---- Philox4x32-10 ----------------------------------------------------------------------------------

TEST(Philox, Random123KnownAnswers) {
  using kernels::PhiloxBlock;
  using kernels::PhiloxKey;
  auto check = [](PhiloxBlock ctr, PhiloxKey key, PhiloxBlock want) {
    const PhiloxBlock got = kernels::philox4x32(ctr, key);
    EXPECT_EQ(got.x, want.x);
    EXPECT_EQ(got.y, want.y);
    EXPECT_EQ(got.z, want.z);
    EXPECT_EQ(got.w, want.w);
  };
  check({0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  check({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
        {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  check({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
        {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST(Philox, StreamFollowsCounterSubsequenceAndOffset) {
  using kernels::Philox4x32;
  const uint64_t seed = 0x0123456789abcdefULL;
  const kernels::PhiloxKey key{0x89abcdef, 0x01234567};
  Philox4x32 s(seed, /*subsequence=*/(uint64_t{7} << 32) | 3, /*offset=*/0);
  const auto b0 = kernels::philox4x32({0, 0, 3, 7}, key);
  const auto b1 = kernels::philox4x32({1, 0, 3, 7}, key);
  EXPECT_EQ(s.next(), b0.x);
  EXPECT_EQ(s.next(), b0.y);
  EXPECT_EQ(s.next(), b0.z);
  EXPECT_EQ(s.next(), b0.w);
  EXPECT_EQ(s.next(), b1.x);
  // offset 6 = block 1, word 2; next4 returns four consecutive words across blocks.
  Philox4x32 t(seed, (uint64_t{7} << 32) | 3, 6);
  const auto b2 = kernels::philox4x32({2, 0, 3, 7}, key);
  const auto four = t.next4();
  EXPECT_EQ(four.x, b1.z);
  EXPECT_EQ(four.y, b1.w);
  EXPECT_EQ(four.z, b2.x);
  EXPECT_EQ(four.w, b2.y);
  // Counter carry from the low word into the next.
  Philox4x32 u(seed, 0, (uint64_t{0xffffffff} + 1) * 4 - 4);
  EXPECT_EQ(u.next(), kernels::philox4x32({0xffffffff, 0, 0, 0}, key).x);
  for (int i = 0; i < 3; ++i) u.next();
  EXPECT_EQ(u.next(), kernels::philox4x32({0, 1, 0, 0}, key).x);
}

}  // namespace
}  // namespace ctorch::api::impl
