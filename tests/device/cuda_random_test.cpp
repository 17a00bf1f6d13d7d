// Random ops on CUDA tensors and the torch.cuda random API, on two CUDA devices (emulated, or real):
// seeds give the same numbers on cuda:0 and cuda:1 and across runs (values PyTorch prints on
// NVIDIA GPUs), state round trips, offset bookkeeping, statistics, independence from the cpu
// generator, lazily queued seeding, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ctorch/cuda.h"
#include "ctorch/cuda_random.h"
#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/generator.h"
#include "ctorch/random.h"
#include "device/device_test.h"
#include "runtime/current.h"
#include "test_util.h"

namespace ctorch {
namespace {

using ::ctorch::testing::error_of;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<uint64_t> bits(const Tensor& t) {
  std::vector<uint64_t> out;
  for (double v : t.to_vector<double>()) out.push_back(std::bit_cast<uint64_t>(v));
  return out;
}

TensorOptions on(const char* device, ScalarType dtype = kFloat32) { return TensorOptions().device(device).dtype(dtype); }

// The Philox offset of a 16-byte CUDA state.
int64_t offset_of(const Tensor& state) {
  int64_t offset = 0;
  std::memcpy(&offset, static_cast<const uint8_t*>(state.data_ptr()) + 8, 8);
  return offset;
}

uint64_t seed_of(const Tensor& state) {
  uint64_t seed = 0;
  std::memcpy(&seed, state.data_ptr(), 8);
  return seed;
}

// Two CUDA devices: emulated ones (default properties: 108 SMs, 2048 threads per SM), or real
// ones when the process has two or more GPUs.
class CudaRandom : public testing::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
    const cuda::DeviceProperties p = cuda::get_device_properties(0);
    sms_ = p.multi_processor_count;
    threads_per_sm_ = p.max_threads_per_multi_processor;
  }
  int sms_ = 0;
  int threads_per_sm_ = 0;
};
CTORCH_INSTANTIATE_CUDA_TESTS(CudaRandom);

TEST_P(CudaRandom, ValuesPyTorchPrintsOnNvidiaGpus) {
  // torch.manual_seed(0); torch.rand(10, device="cuda") twice; torch.manual_seed(42);
  // torch.rand(3, 4, device="cuda"); torch.manual_seed(42); torch.randn(2, 5, device="cuda").
  const std::vector<double> seed0_first = {0.3990, 0.5167, 0.0249, 0.9401, 0.9459,
                                           0.7967, 0.4150, 0.8203, 0.2290, 0.9096};
  const std::vector<double> seed0_second = {0.9722, 0.7910, 0.4690, 0.3300, 0.3345,
                                            0.3783, 0.7640, 0.6405, 0.1103, 0.3594};
  const std::vector<double> seed42_rand = {0.6130, 0.0101, 0.3984, 0.0403, 0.1563, 0.4825,
                                           0.7362, 0.4060, 0.5189, 0.2867, 0.2416, 0.9228};
  const std::vector<double> seed42_randn = {0.1940,  2.1614,  -0.1721, 0.8491, -1.9244,
                                            0.6530, -0.6494, -0.8175, 0.5280, -1.2753};
  auto expect_close = [](const Tensor& t, const std::vector<double>& want) {
    const std::vector<double> got = t.to_vector<double>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 0.000051) << i;
  };
  for (const char* dev : {"cuda:0", "cuda:1"}) {
    manual_seed(0);
    expect_close(rand({10}, on(dev)), seed0_first);
    expect_close(rand({10}, on(dev)), seed0_second);
    manual_seed(42);
    expect_close(rand({3, 4}, on(dev)), seed42_rand);
    manual_seed(42);
    expect_close(randn({2, 5}, on(dev)), seed42_randn);
  }
}

TEST_P(CudaRandom, SameSeedGivesTheSameBitsOnEveryDeviceAndRun) {
  for (ScalarType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    std::vector<std::vector<uint64_t>> runs;
    for (int run = 0; run < 2; ++run) {
      for (const char* dev : {"cuda:0", "cuda:1"}) {
        cuda::manual_seed_all(2024);
        const Tensor u = rand({3000}, on(dev, dtype));
        const Tensor n = randn({1001}, on(dev, dtype));
        std::vector<uint64_t> b = bits(u);
        for (uint64_t v : bits(n)) b.push_back(v);
        runs.push_back(b);
      }
    }
    for (size_t i = 1; i < runs.size(); ++i) EXPECT_EQ(runs[i], runs[0]) << dtype << " run " << i;
  }
  cuda::manual_seed_all(5);
  const Tensor a = randint(-3, 1000, {777}, on("cuda:0", kInt64));
  const Tensor b = randint(-3, 1000, {777}, on("cuda:1", kInt64));
  EXPECT_EQ(a.to_vector<int64_t>(), b.to_vector<int64_t>());
}

TEST_P(CudaRandom, NewGeneratorIsSeededWithTheDefaultSeed) {
  Generator g(Device("cuda:1"));
  EXPECT_EQ(g.device(), Device("cuda:1"));
  EXPECT_EQ(g.initial_seed(), 67280421310721ULL);
  const Tensor state = g.get_state();
  ASSERT_EQ(state.numel(), 16);
  EXPECT_EQ(state.dtype(), kUInt8);
  EXPECT_TRUE(state.is_cpu());
  EXPECT_EQ(seed_of(state), 67280421310721ULL);
  EXPECT_EQ(offset_of(state), 0);
  // Same seed, offset and device limits: a private generator reproduces the default one.
  Generator mine(Device("cuda:0"));
  mine.manual_seed(31);
  cuda::manual_seed(31);
  cuda::device guard(0);
  const Tensor x = rand({500}, on("cuda:0"), mine);
  const Tensor y = rand({500}, on("cuda:0"));
  EXPECT_EQ(bits(x), bits(y));
  EXPECT_TRUE(contains(error_of([] { Generator(Device("cuda:7")); }), "The device_index is invalid."));
}

TEST_P(CudaRandom, StateRoundTripAndOffsetBookkeeping) {
  cuda::manual_seed_all(77);
  const Tensor s0 = cuda::get_rng_state(0);
  EXPECT_EQ(seed_of(s0), 77u);
  EXPECT_EQ(offset_of(s0), 0);
  const Tensor x = rand({100}, on("cuda:0"));
  EXPECT_EQ(offset_of(cuda::get_rng_state(0)), 4);  // small tensors advance by 4
  EXPECT_EQ(offset_of(cuda::get_rng_state(1)), 0);  // other devices untouched
  cuda::set_rng_state(s0, 0);
  EXPECT_EQ(bits(rand({100}, on("cuda:0"))), bits(x));

  const int64_t before = offset_of(cuda::get_rng_state(0));
  randn({7}, on("cuda:0", kFloat64));
  EXPECT_EQ(offset_of(cuda::get_rng_state(0)), before + 4);
  empty({0}, on("cuda:0")).uniform_();
  EXPECT_EQ(offset_of(cuda::get_rng_state(0)), before + 4);  // empty tensors draw nothing
  bernoulli(full({5}, 0.5, on("cuda:0")));
  EXPECT_EQ(offset_of(cuda::get_rng_state(0)), before + 16);  // philox_cuda_state(10) -> 12
  const int64_t threads = 256 * std::min<int64_t>(sms_ * (threads_per_sm_ / 256), (1000000 + 255) / 256);
  rand({1000000}, on("cuda:0"));
  EXPECT_EQ(offset_of(cuda::get_rng_state(0)), before + 16 + ((1000000 - 1) / (threads * 4) + 1) * 4);

  // An 8-byte state sets the seed and a zero offset.
  Tensor seed_only = zeros({8}, TensorOptions().dtype(kUInt8));
  static_cast<uint8_t*>(seed_only.data_ptr())[0] = 9;
  cuda::set_rng_state(seed_only, "cuda:1");
  EXPECT_EQ(seed_of(cuda::get_rng_state("cuda:1")), 9u);
  EXPECT_EQ(offset_of(cuda::get_rng_state("cuda:1")), 0);

  const std::vector<Tensor> all = cuda::get_rng_state_all();
  ASSERT_EQ(static_cast<int>(all.size()), cuda::device_count());
  const Tensor a0 = rand({64}, on("cuda:0"));
  const Tensor a1 = rand({64}, on("cuda:1"));
  cuda::set_rng_state_all(all);
  EXPECT_EQ(bits(rand({64}, on("cuda:0"))), bits(a0));
  EXPECT_EQ(bits(rand({64}, on("cuda:1"))), bits(a1));

  Generator g = cuda::default_generator(1);
  EXPECT_EQ(g.device(), Device("cuda:1"));
  EXPECT_TRUE(g == cuda::default_generator(-1 + cuda::device_count()) || cuda::device_count() != 2);
}

TEST_P(CudaRandom, StatisticsOfAMillionSamples) {
  manual_seed(1);
  const int64_t n = 1000000;
  auto mean_std = [](const Tensor& t) {
    const std::vector<double> v = t.to_vector<double>();
    double sum = 0, sq = 0;
    for (double x : v) sum += x;
    const double mean = sum / static_cast<double>(v.size());
    for (double x : v) sq += (x - mean) * (x - mean);
    return std::pair<double, double>(mean, std::sqrt(sq / static_cast<double>(v.size())));
  };
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    const Tensor u = rand({n}, on("cuda:0", dtype));
    auto [um, us] = mean_std(u);
    EXPECT_NEAR(um, 0.5, 0.002);
    EXPECT_NEAR(us, std::sqrt(1.0 / 12.0), 0.002);
    for (double v : u.to_vector<double>()) ASSERT_TRUE(v >= 0.0 && v < 1.0);
    const Tensor g = randn({n}, on("cuda:1", dtype));
    auto [gm, gs] = mean_std(g);
    EXPECT_NEAR(gm, 0.0, 0.005);
    EXPECT_NEAR(gs, 1.0, 0.005);
    const Tensor shifted = normal(3.0, 2.0, {n}, on("cuda:0", dtype));
    auto [sm, ss] = mean_std(shifted);
    EXPECT_NEAR(sm, 3.0, 0.01);
    EXPECT_NEAR(ss, 2.0, 0.01);
  }
  const Tensor ints = randint(0, 10, {n}, on("cuda:0", kInt64));
  auto [im, is] = mean_std(ints);
  EXPECT_NEAR(im, 4.5, 0.01);
  EXPECT_NEAR(is, std::sqrt(99.0 / 12.0), 0.01);
  const Tensor coins = empty({n}, on("cuda:0")).bernoulli_(0.3);
  EXPECT_NEAR(mean_std(coins).first, 0.3, 0.002);
  const Tensor probs = full({n}, 0.7, on("cuda:1"));
  EXPECT_NEAR(mean_std(bernoulli(probs)).first, 0.7, 0.002);
  const Tensor halves = rand({n}, on("cuda:0", kFloat16));
  for (double v : halves.to_vector<double>()) ASSERT_TRUE(v >= 0.0 && v < 1.0);
}

TEST_P(CudaRandom, IndependentOfTheCpuGenerator) {
  manual_seed(3);
  const Tensor cpu_state = get_rng_state();
  rand({1000}, on("cuda:0"));
  randn({1000}, on("cuda:1"));
  EXPECT_EQ(get_rng_state().to_vector<uint8_t>(), cpu_state.to_vector<uint8_t>());
  const Tensor cuda_state = cuda::get_rng_state(0);
  rand({1000});
  EXPECT_EQ(cuda::get_rng_state(0).to_vector<uint8_t>(), cuda_state.to_vector<uint8_t>());
  EXPECT_TRUE(contains(error_of([] { rand({4}, on("cuda:0"), default_generator()); }),
                       "Expected a 'cuda' device type for generator but found 'cpu'"));
  EXPECT_TRUE(contains(error_of([] { rand({4}, TensorOptions(), Generator(Device("cuda:0"))); }),
                       "Expected a 'cpu' device type for generator but found 'cuda'"));
}

TEST_P(CudaRandom, NonContiguousOutputsFillInMemoryOrder) {
  cuda::manual_seed(8);
  cuda::device guard(0);
  const Tensor flat = rand({40, 50}, on("cuda:0"));
  cuda::manual_seed(8);
  Tensor t = empty({50, 40}, on("cuda:0")).t();  // a transposed view: memory order is t's column order
  t.uniform_();
  EXPECT_EQ(bits(t.t().contiguous()), bits(flat));
  Tensor base = zeros({10, 10}, on("cuda:0"));
  Tensor cols = base.slice(1, 0, 10, 2);  // every other column
  cuda::manual_seed(8);
  cols.normal_();
  cuda::manual_seed(8);
  const Tensor want = randn({10, 5}, on("cuda:0"));
  EXPECT_EQ(bits(cols.contiguous()), bits(want));
  EXPECT_EQ(base.slice(1, 1, 10, 2).to_vector<double>(), std::vector<double>(50, 0.0));
  EXPECT_TRUE(contains(error_of([] { empty({1}, on("cuda:0")).expand({4}).uniform_(); }),
                       "more than one element of the written-to tensor refers to a single memory location"));
}

TEST_P(CudaRandom, SeedingAndLazyQueueing) {
  manual_seed(7);  // torch.manual_seed seeds every CUDA device too
  EXPECT_EQ(seed_of(cuda::get_rng_state(0)), 7u);
  EXPECT_EQ(seed_of(cuda::get_rng_state(1)), 7u);
  const uint64_t s = seed();
  EXPECT_EQ(seed_of(cuda::get_rng_state(1)), s);
  cuda::seed_all();
  EXPECT_LT(seed_of(cuda::get_rng_state(0)), uint64_t{1} << 53);
  EXPECT_EQ(seed_of(cuda::get_rng_state(1)), seed_of(cuda::get_rng_state(0)));
  {
    cuda::device guard(1);
    cuda::manual_seed(12);
    EXPECT_EQ(cuda::initial_seed(), 12u);
    cuda::seed();
    EXPECT_LT(cuda::initial_seed(), uint64_t{1} << 53);
  }
  EXPECT_NE(seed_of(cuda::get_rng_state(0)), 12u);

  // Before initialization calls are queued; only the latest manual_seed_all is kept.
  impl::reset_initialization(DeviceType::CUDA);
  ASSERT_FALSE(cuda::is_initialized());
  cuda::manual_seed_all(100);
  cuda::manual_seed_all(101);
  Tensor state = zeros({16}, TensorOptions().dtype(kUInt8));
  static_cast<uint8_t*>(state.data_ptr())[0] = 55;
  static_cast<uint8_t*>(state.data_ptr())[8] = 8;
  cuda::set_rng_state(state, 1);
  EXPECT_FALSE(cuda::is_initialized());
  EXPECT_EQ(cuda::initial_seed(), 101u);  // initializes CUDA and runs the queue
  EXPECT_TRUE(cuda::is_initialized());
  EXPECT_EQ(seed_of(cuda::get_rng_state(1)), 55u);
  EXPECT_EQ(offset_of(cuda::get_rng_state(1)), 8);
}

TEST_P(CudaRandom, DtypesAndOps) {
  cuda::manual_seed_all(4);
  const Tensor b = empty({1000}, on("cuda:0", kBool)).random_(0, std::nullopt);
  const std::vector<double> bv = b.to_vector<double>();
  EXPECT_NE(std::count(bv.begin(), bv.end(), 1.0), 0);
  EXPECT_NE(std::count(bv.begin(), bv.end(), 0.0), 0);
  const Tensor full64 = empty({100}, on("cuda:0", kInt64)).random_(INT64_MIN, std::nullopt);
  int negatives = 0;
  for (int64_t v : full64.to_vector<int64_t>()) negatives += v < 0;
  EXPECT_GT(negatives, 20);
  const Tensor u8 = randint(250, 256, {500}, on("cuda:1", kUInt8));
  for (double v : u8.to_vector<double>()) ASSERT_TRUE(v >= 250 && v <= 255);
  const Tensor hb = empty({300}, on("cuda:0", kFloat16)).bernoulli_(0.5);  // half works on CUDA
  for (double v : hb.to_vector<double>()) ASSERT_TRUE(v == 0.0 || v == 1.0);
  const Tensor bf = rand({300}, on("cuda:1", kBFloat16));
  for (double v : bf.to_vector<double>()) ASSERT_TRUE(v >= 0.0 && v < 1.0);
  const Tensor ranged = empty({1000}, on("cuda:0", kFloat64)).uniform_(-5, -4);
  for (double v : ranged.to_vector<double>()) ASSERT_TRUE(v >= -5 && v < -4);
  const Tensor mean = full({4}, 10.0, on("cuda:0"));
  const Tensor std = full({4}, 0.0, on("cuda:0"));
  EXPECT_EQ(normal(mean, std).to_vector<double>(), std::vector<double>(4, 10.0));
  const Tensor like = randn_like(mean);
  EXPECT_EQ(like.device(), Device("cuda:0"));
}

TEST_P(CudaRandom, Errors) {
  const Tensor ints = empty({4}, on("cuda:0", kInt64));
  EXPECT_TRUE(contains(error_of([&] { Tensor(ints).uniform_(); }), "\"check_uniform_bounds\" not implemented for 'Long'"));
  EXPECT_TRUE(contains(error_of([&] { Tensor(ints).normal_(); }), "\"normal_kernel_cuda\" not implemented for 'Long'"));
  EXPECT_TRUE(contains(error_of([] { empty({4}, on("cuda:0")).normal_(0, -1); }), "normal expects std >= 0.0"));
  EXPECT_TRUE(contains(error_of([] { empty({4}, on("cuda:0", kFloat16)).random_(INT64_MIN, std::nullopt); }),
                       "\"random_full_64_bits_range_kernel_cuda\" not implemented for 'Half'"));
  EXPECT_TRUE(contains(error_of([] { empty({4}, on("cuda:0", kInt32)).random_(INT64_MIN, std::nullopt); }),
                       "random_full_64_bits_range_kernel_cuda handles only int64, double, float and bfloat16"));
  EXPECT_TRUE(contains(error_of([] { empty({4}, on("cuda:0")).bernoulli_(1.5); }),
                       "bernoulli_ expects p to be in [0, 1], but got p=1.5"));
  EXPECT_TRUE(contains(error_of([] { bernoulli(ones({4}, on("cuda:0", kInt64))); }),
                       "expected probabilities tensor to have floating type, got Long"));
  EXPECT_TRUE(contains(error_of([] { cuda::set_rng_state(zeros({15}, TensorOptions().dtype(kUInt8))); }),
                       "RNG state is wrong size"));
  Tensor odd = zeros({16}, TensorOptions().dtype(kUInt8));
  static_cast<uint8_t*>(odd.data_ptr())[8] = 2;
  EXPECT_TRUE(contains(error_of([&] { cuda::set_rng_state(odd); }), "offset must be a multiple of 4"));
  EXPECT_TRUE(contains(error_of([] { cuda::set_rng_state(zeros({16})); }), "RNG state must be a torch.ByteTensor"));
  EXPECT_TRUE(contains(error_of([] { cuda::default_generator(9); }), "tuple index out of range"));
  EXPECT_TRUE(contains(error_of([] { randperm(5, on("cuda:0", kInt64)); }), "not implemented"));
  // A failed call leaves the generator where it was.
  const Tensor before = cuda::get_rng_state(0);
  error_of([] { empty({4}, on("cuda:0")).normal_(0, -1); });
  error_of([] { empty({4}, on("cuda:0")).uniform_(2, 1); });
  EXPECT_EQ(cuda::get_rng_state(0).to_vector<uint8_t>(), before.to_vector<uint8_t>());
}

}  // namespace
}  // namespace ctorch
