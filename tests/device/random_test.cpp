// Tensor-level random functions on the cpu device: every value of the "RNG outputs" section of
// /work/shared/reference/torch_reference_values.md, plus stream, state and error semantics.
// Values marked "torch 1.13.1" were produced with Debian's python3-torch 1.13.1 (CPU capability
// AVX2). CUDA generators (Philox) are a later issue; these tests cover the cpu device only.
#include <gtest/gtest.h>

#include <bit>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/generator.h"
#include "ctorch/random.h"
#include "test_util.h"

namespace ctorch {
namespace {

using Doubles = std::vector<double>;

Doubles values(const Tensor& t) { return t.to_vector<double>(); }

void expect_bits(const Tensor& t, const Doubles& want) {
  const Doubles got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(want[i]))
        << "element " << i << ": got " << std::hexfloat << got[i] << ", want " << want[i];
  }
}

using ::ctorch::testing::error_of;

const Doubles kRand8 = {0x1.fc2ab00000000p-2, 0x1.89545e0000000p-1, 0x1.6a67500000000p-4,
                        0x1.0e66000000000p-3, 0x1.3acd0c0000000p-2, 0x1.44a5f60000000p-1,
                        0x1.f5db0c0000000p-2, 0x1.caface0000000p-1};
const Doubles kRandn15 = {0x1.8a7eb80000000p+0,  -0x1.2c78a00000000p-2, -0x1.16e2920000000p+1,
                          0x1.23096c0000000p-1,  -0x1.15a3420000000p+0, -0x1.660a5a0000000p+0,
                          0x1.9d06f40000000p-2,  0x1.ad11ca0000000p-1,  -0x1.7042880000000p-1,
                          -0x1.9d06160000000p-2, -0x1.317a300000000p-1, 0x1.74cf8c0000000p-3,
                          -0x1.b69e0e0000000p-1, 0x1.19c1320000000p+0,  -0x1.1239560000000p+0};
const Doubles kRandn16 = {-0x1.20370a0000000p+0, -0x1.2701140000000p+0, -0x1.0097ac0000000p-2,
                          -0x1.bc4aba0000000p-2, 0x1.b28a2a0000000p-1,  0x1.624f060000000p-1,
                          -0x1.4398da0000000p-2, -0x1.0ebf820000000p+1, 0x1.4a02700000000p-2,
                          -0x1.4369e80000000p+0, 0x1.6661fe0000000p-2,  0x1.3b87760000000p-2,
                          0x1.eadeee0000000p-4,  0x1.3cd7260000000p+0,  0x1.1de51c0000000p+0,
                          -0x1.fa6cf80000000p-3};

Doubles head(const Doubles& v, size_t n) { return Doubles(v.begin(), v.begin() + n); }

// ---- reference values ---------------------------------------------------------------------------

TEST(RandomReference, Rand) {
  manual_seed(0);
  expect_bits(rand({8}), kRand8);
  manual_seed(0);
  const Tensor d = rand({8}, kFloat64);
  EXPECT_EQ(d.dtype(), kFloat64);
  expect_bits(d, {0x1.f0aac97c4aa2fp-1, 0x1.6a675d821ccc0p-1, 0x1.d6687b744a5f6p-2, 0x1.d76c3d8e57d67p-1,
                  0x1.4a4099fa1ded3p-1, 0x1.951156266d6f2p-1, 0x1.6dc9130ace95cp-3, 0x1.6788c1d097bb0p-2});
  manual_seed(0);
  rand({4});
  expect_bits(rand({4}), {0x1.3acd0c0000000p-2, 0x1.44a5f60000000p-1, 0x1.f5db0c0000000p-2,
                          0x1.caface0000000p-1});
  manual_seed(0);
  const Tensor two_d = rand({2, 4});
  EXPECT_EQ(two_d.sizes(), IntArrayRef({2, 4}));
  expect_bits(two_d, kRand8);
}

TEST(RandomReference, NewGeneratorStream) {
  Generator g;
  EXPECT_EQ(g.initial_seed(), 67280421310721ULL);
  expect_bits(rand({4}, {}, g), {0x1.11b5d80000000p-2, 0x1.bebc080000000p-1, 0x1.5755f40000000p-2,
                                 0x1.9cb0300000000p-2});
}

TEST(RandomReference, RandnScalarPath) {
  manual_seed(0);
  expect_bits(randn({1}), head(kRandn15, 1));
  manual_seed(0);
  expect_bits(randn({8}), head(kRandn15, 8));
  manual_seed(0);
  expect_bits(randn({15}), kRandn15);
  manual_seed(0);
  expect_bits(randn({8}, kFloat64),
              {0x1.8a7eb8902be3ap+0, -0x1.2c78a087c6feap-2, -0x1.16e2920a70ee5p+1, 0x1.23096ca3e350dp-1,
               -0x1.15a341987e136p+0, -0x1.660a590b74404p+0, 0x1.9d06f4be0cd62p-2, 0x1.ad11c99ad2d18p-1});
}

TEST(RandomReference, RandnNormalFillPath) {
  manual_seed(0);
  expect_bits(randn({16}), kRandn16);
  manual_seed(0);
  expect_bits(randn({17}),
              {-0x1.20370a0000000p+0, -0x1.b2288c0000000p+0, 0x1.2220080000000p-1, 0x1.9646ba0000000p-1,
               0x1.329b160000000p-1, -0x1.8e1ab60000000p+0, -0x1.5d8d940000000p-2, 0x1.da5e9c0000000p+0,
               0x1.df54aa0000000p-2, -0x1.2bc6560000000p-1, -0x1.631dd60000000p-3, 0x1.77c3480000000p-3,
               0x1.63ad800000000p+0, 0x1.961a000000000p+0, 0x1.e481380000000p-1, -0x1.aff6660000000p-1,
               0x1.dd18600000000p-1});
  manual_seed(0);
  expect_bits(randn({20}),
              {-0x1.20370a0000000p+0, -0x1.2701140000000p+0, -0x1.0097ac0000000p-2, -0x1.bc4aba0000000p-2,
               0x1.329b160000000p-1, -0x1.8e1ab60000000p+0, -0x1.5d8d940000000p-2, 0x1.da5e9c0000000p+0,
               0x1.df54aa0000000p-2, -0x1.42febe0000000p-3, 0x1.7193b60000000p+0, 0x1.106f420000000p-2,
               0x1.63ad800000000p+0, 0x1.961a000000000p+0, 0x1.e481380000000p-1, -0x1.aff6660000000p-1,
               0x1.dd18600000000p-1, 0x1.424e6e0000000p+0, 0x1.00a3340000000p+1, 0x1.b836740000000p-5});
  manual_seed(0);
  expect_bits(randn({20}, kFloat64),
              {-0x1.27bb92e9262dcp+1, -0x1.7e35794939460p-2, -0x1.0f91ae8d685b6p+0, 0x1.ffbfb0ada994bp-1,
               -0x1.471a3c0e2f22ap-6, 0x1.aeb1b572b6a04p-3, 0x1.6ae2402b7b62bp-3, -0x1.a9389d082941dp-1,
               0x1.e8e503666016dp-3, 0x1.779107c3069d9p-1, -0x1.5266d8f957969p+0, 0x1.50977a45ee462p+0,
               -0x1.5fbef2bc4be3bp-1, 0x1.7cf270386ca66p+0, -0x1.cb2d8340fb171p-2, -0x1.c8318cc163de5p-1,
               0x1.5986ed8e63e98p-1, 0x1.0bff5e8d733a2p+0, 0x1.3bff1c51bd9a4p-3, -0x1.7ff1c81c48b11p-1});
}

TEST(RandomReference, StreamContinuesAcrossCalls) {
  manual_seed(0);
  randn({3});
  expect_bits(randn({3}), {0x1.23096c0000000p-1, -0x1.15a3420000000p+0, -0x1.660a5a0000000p+0});
  manual_seed(0);
  rand({3});
  expect_bits(randn({4}), {0x1.7515120000000p-2, 0x1.133e620000000p-3, 0x1.50509c0000000p-3,
                           0x1.39196a0000000p-2});
}

TEST(RandomReference, Randint) {
  manual_seed(0);
  const Tensor a = randint(0, 10, {8});
  EXPECT_EQ(a.dtype(), kInt64);
  EXPECT_EQ(a.to_vector<int64_t>(), (std::vector<int64_t>{4, 9, 3, 0, 3, 9, 7, 3}));
  manual_seed(0);
  const Tensor b = randint(-5, 5, {8}, kInt32);
  EXPECT_EQ(b.dtype(), kInt32);
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{-1, 4, -2, -5, -2, 4, 2, -2}));
  manual_seed(0);  // torch 1.13.1: randint(10, (5,))
  EXPECT_EQ(randint(10, {5}).to_vector<int64_t>(), (std::vector<int64_t>{4, 9, 3, 0, 3}));
  manual_seed(0);  // torch 1.13.1: randint(0, 100, (5,), dtype=float16)
  EXPECT_EQ(randint(0, 100, {5}, kFloat16).to_vector<double>(), (Doubles{44, 39, 33, 60, 63}));
}

TEST(RandomReference, Normal) {
  manual_seed(0);
  expect_bits(normal(0.0, 1.0, {8}), head(kRandn15, 8));
  manual_seed(0);
  expect_bits(normal(2.0, 3.0, {20}),
              {-0x1.60a51e0000000p+0, -0x1.75033c0000000p+0, 0x1.3f8e400000000p+0, 0x1.658fe80000000p-1,
               0x1.e5f4500000000p+1, -0x1.5528100000000p+1, 0x1.f3aba20000000p-1, 0x1.e3c6f40000000p+2,
               0x1.b3bfc00000000p+1, 0x1.86e0780000000p+0, 0x1.952ec80000000p+2, 0x1.6629b80000000p+1,
               0x1.8ac2200000000p+2, 0x1.b093800000000p+2, 0x1.35b0740000000p+2, -0x1.0fe3320000000p-1,
               0x1.32e9240000000p+2, 0x1.71bad20000000p+2, 0x1.007a680000000p+3, 0x1.14a28e0000000p+1});
  manual_seed(0);
  expect_bits(normal(zeros({4}), ones({4})), head(kRandn15, 4));
}

TEST(RandomReference, NormalWithTensorArguments) {
  manual_seed(0);  // torch 1.13.1: normal(arange(4.), 2.)
  expect_bits(normal(arange(4, kFloat32), 2.0),
              {0x1.8a7eb80000000p+1, 0x1.a70ec00000000p-2, -0x1.2dc5240000000p+1, 0x1.08c25c0000000p+2});
  manual_seed(0);  // torch 1.13.1: normal(1., arange(1., 5.))
  expect_bits(normal(1.0, arange(1, 5, 1, kFloat32)),
              {0x1.453f5c0000000p+1, 0x1.a70ec00000000p-2, -0x1.6253dc0000000p+2, 0x1.a3096c0000000p+1});
  manual_seed(0);  // torch 1.13.1: normal(tensor([[0.],[10.]]), tensor([1.,2.,3.]))
  const Tensor out = normal(tensor({{0.0}, {10.0}}, kFloat32), tensor({1.0, 2.0, 3.0}, kFloat32));
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 3}));
  expect_bits(out, {0x1.8a7eb80000000p+0, -0x1.2c78a00000000p-1, -0x1.a253dc0000000p+2, 0x1.5230960000000p+3,
                    0x1.f52e600000000p+2, 0x1.73783c0000000p+2});
}

TEST(RandomReference, UniformInPlaceAndLinearInit) {
  manual_seed(0);
  Tensor t = empty({8});
  Tensor& same = t.uniform_(-1, 1);
  EXPECT_TRUE(same.is_same(t));
  expect_bits(t, {-0x1.eaa8000000000p-8, 0x1.12a8bc0000000p-1, -0x1.a5662c0000000p-1, -0x1.78cd000000000p-1,
                  -0x1.8a65e80000000p-2, 0x1.1297d80000000p-2, -0x1.449e800000000p-6, 0x1.95f59c0000000p-1});
  // nn.Linear(4, 3).weight is kaiming_uniform(a=sqrt(5)) = uniform_(-0.5, 0.5) for fan_in 4.
  manual_seed(0);
  expect_bits(empty({3, 4}).uniform_(-0.5, 0.5),
              {-0x1.eaa8000000000p-9, 0x1.12a8bc0000000p-2, -0x1.a5662c0000000p-2, -0x1.78cd000000000p-2,
               -0x1.8a65e80000000p-3, 0x1.1297d80000000p-3, -0x1.449e800000000p-7, 0x1.95f59c0000000p-2,
               -0x1.6b7ee00000000p-5, 0x1.0ef6980000000p-3, -0x1.3577580000000p-3, -0x1.9290e00000000p-4});
}

TEST(RandomReference, RandpermAndBernoulli) {
  manual_seed(0);
  const Tensor p = randperm(10);
  EXPECT_EQ(p.dtype(), kInt64);
  EXPECT_EQ(p.to_vector<int64_t>(), (std::vector<int64_t>{4, 1, 7, 5, 3, 9, 0, 8, 6, 2}));
  manual_seed(0);  // torch 1.13.1: randperm(6, dtype=float16)
  EXPECT_EQ(randperm(6, kFloat16).to_vector<double>(), (Doubles{2, 5, 3, 0, 1, 4}));
  manual_seed(0);
  const Tensor b = bernoulli(full({8}, 0.5));
  EXPECT_EQ(b.dtype(), kFloat32);
  expect_bits(b, {1, 0, 1, 1, 1, 0, 1, 0});
  manual_seed(0);  // torch 1.13.1: bernoulli(zeros(6), 0.5)
  expect_bits(bernoulli(zeros({6}), 0.5), {0, 0, 1, 0, 0, 0});
  manual_seed(0);  // torch 1.13.1: empty(6, dtype=bool).bernoulli_(0.5)
  EXPECT_EQ(empty({6}, kBool).bernoulli_(0.5).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 1, 0, 0, 0}));
}

// ---- stream semantics -----------------------------------------------------------------------------

TEST(RandomStream, SplitCallsEqualOneCall) {
  manual_seed(0);
  const Doubles six = values(randn({6}));
  manual_seed(0);
  Doubles joined = values(randn({3}));
  const Doubles second = values(randn({3}));
  joined.insert(joined.end(), second.begin(), second.end());
  EXPECT_EQ(joined, six);
  manual_seed(0);
  const Doubles r32 = values(randn({32}));
  manual_seed(0);
  EXPECT_EQ(values(randn({16})), head(r32, 16));
}

TEST(RandomStream, OnlyLow32BitsOfTheSeedMatter) {
  manual_seed((uint64_t{1} << 32) + 5);
  EXPECT_EQ(initial_seed(), (uint64_t{1} << 32) + 5);
  const Doubles a = values(randn({20}));
  manual_seed(5);
  EXPECT_EQ(values(randn({20})), a);
}

TEST(RandomStream, StateRoundTripRestoresTheStream) {
  manual_seed(0);
  randn({3});  // leaves a cached normal sample in the state
  const Tensor state = get_rng_state();
  EXPECT_EQ(state.dtype(), kUInt8);
  EXPECT_EQ(state.numel(), 5056);
  const Doubles a = values(randn({5}));
  const Doubles b = values(rand({7}));
  set_rng_state(state);
  EXPECT_EQ(values(randn({5})), a);
  EXPECT_EQ(values(rand({7})), b);
  manual_seed(0);
  const std::vector<int64_t> head16 = get_rng_state().to_vector<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(head16.begin(), head16.begin() + 16),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
}

TEST(RandomStream, BadStatesThrowAndChangeNothing) {
  manual_seed(3);
  const Tensor before = get_rng_state();
  EXPECT_NE(error_of([] { set_rng_state(zeros({10}, kUInt8)); })
                .find("CPUGeneratorImplState of size 5056 but found the input RNG state size to be 10"),
            std::string::npos);
  EXPECT_EQ(error_of([] { set_rng_state(zeros({5056}, kUInt8)); }), "Invalid mt19937 state");
  EXPECT_THROW(set_rng_state(zeros({5056}, kInt8)), TypeError);
  EXPECT_EQ(get_rng_state().to_vector<int64_t>(), before.to_vector<int64_t>());
}

TEST(RandomStream, GeneratorsAreIndependentOfTheDefault) {
  Generator g;
  g.manual_seed(0);
  manual_seed(0);
  const Doubles from_g = values(rand({8}, {}, g));
  EXPECT_EQ(from_g, kRand8);
  expect_bits(rand({8}), kRand8);  // the default generator did not move
  Generator copy = g;  // copies share state: copy continues where g stopped
  Generator fresh;
  fresh.manual_seed(0);
  const Doubles twelve = values(rand({12}, {}, fresh));
  EXPECT_EQ(values(rand({4}, {}, copy)), Doubles(twelve.begin() + 8, twelve.end()));
}

TEST(RandomStream, GeneratorStateTensors) {
  Generator g;
  g.manual_seed(7);
  const Tensor s = g.get_state();
  const Doubles a = values(randn({20}, {}, g));
  g.manual_seed(1);
  g.set_state(s);
  EXPECT_EQ(values(randn({20}, {}, g)), a);
  EXPECT_EQ(g.initial_seed(), 7u);
}

// ---- layouts ----------------------------------------------------------------------------------------

TEST(RandomLayout, NonContiguousFillsInMemoryOrder) {
  manual_seed(0);
  Tensor base = empty({4, 5});
  Tensor transposed = base.as_strided({5, 4}, {1, 5});  // base.t()
  transposed.uniform_();
  manual_seed(0);
  EXPECT_EQ(values(base), values(rand({4, 5})));  // torch 1.13.1: equal(a.t(), rand(4, 5))
}

TEST(RandomLayout, NonContiguousNormalUsesScalarPath) {
  manual_seed(0);
  Tensor base = zeros({20, 2});
  Tensor column = base.as_strided({20}, {2}, 0);
  column.normal_();
  const Doubles got = values(column);
  EXPECT_EQ(head(got, 15), kRandn15);  // torch 1.13.1: empty(20, 2)[:, 0].normal_()
  const Doubles untouched = values(base.as_strided({20}, {2}, 1));
  EXPECT_EQ(untouched, Doubles(20, 0.0));
}

TEST(RandomLayout, EmptyTensorsDrawNothing) {
  manual_seed(0);
  EXPECT_EQ(rand({0}).numel(), 0);
  EXPECT_EQ(randn({2, 0}).numel(), 0);
  EXPECT_EQ(randperm(0).numel(), 0);
  expect_bits(rand({8}), kRand8);
}

// ---- errors ----------------------------------------------------------------------------------------

TEST(RandomErrors, PyTorchTextsAndNoDraws) {
  manual_seed(0);
  EXPECT_EQ(error_of([] { randint(5, 5, {3}); }),
            "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  EXPECT_THROW(randint(5, 5, {3}), ValueError);
  EXPECT_EQ(error_of([] { normal(0.0, -1.0, {3}); }), "normal expects std >= 0.0, but found std -1");
  EXPECT_EQ(error_of([] { empty({3}).normal_(0, -1); }), "normal expects std >= 0.0, but found std -1");
  EXPECT_EQ(error_of([] { normal(zeros({3}), full({3}, -1.0)); }), "normal expects all elements of std >= 0.0");
  EXPECT_EQ(error_of([] { rand({3}, kInt64); }), "\"check_uniform_bounds\" not implemented for 'Long'");
  EXPECT_EQ(error_of([] { randn({3}, kInt64); }), "\"normal_kernel_cpu\" not implemented for 'Long'");
  EXPECT_EQ(error_of([] { empty({3}).uniform_(1, 0); }),
            "uniform_ expects to return a [from, to) range, but found from=1 > to=0");
  EXPECT_EQ(error_of([] { empty({3}).bernoulli_(1.5); }), "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  EXPECT_EQ(error_of([] { randperm(-1); }), "Trying to create tensor with negative dimension -1: [-1]");
  EXPECT_EQ(error_of([] { randperm(5, kBool); }), "\"randperm\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { randint(0, 300, {3}, kUInt8); }), "to - 1 is out of bounds for unsigned char");
  EXPECT_EQ(error_of([] { bernoulli(full({3}, 0.5, kFloat16)); }),
            "\"bernoulli_tensor_cpu_self_\" not implemented for 'Half'");
  EXPECT_EQ(error_of([] { bernoulli(full({3}, 1.5)); }).rfind("Expected p_in >= 0 && p_in <= 1", 0), 0u);
  // None of the failures above consumed a draw.
  expect_bits(rand({8}), kRand8);
}

}  // namespace
}  // namespace ctorch
