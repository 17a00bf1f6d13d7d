// The CPU generator without tensors: mt19937, seeding, state bytes, raw-buffer samplers against
// PyTorch 1.13 reference values, and Philox4x32-10 against the Random123 known answers.
//
// Values marked "reference" come from /work/shared/reference/torch_reference_values.md; values
// marked "torch 1.13.1" were produced with Debian's python3-torch 1.13.1 (CPU capability AVX2).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/generator.h"
#include "ctorch/random.h"
#include "kernels/philox.h"
#include "random/cpu_generator.h"
#include "random/distributions.h"
#include "random/mt19937.h"

namespace ctorch::impl {
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

TEST(CpuGenerator, CudaGeneratorNotYetAvailable) {
  EXPECT_THROW(Generator(Device(DeviceType::CUDA)), NotImplementedError);
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

}  // namespace
}  // namespace ctorch::impl
