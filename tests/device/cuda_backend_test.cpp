// The real CUDA backend (src/backends/cuda): runtime, streams, events, copies, and elementwise
// kernels against the cpu backend. These tests need a GPU and the real runtime active; elsewhere
// (no driver, no device, emulated devices, CTORCH_BUILD_CUDA=OFF) they skip with the reason.
// The launch-shape tests (kernels/launch_config.h) need no device and always run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "kernels/launch_config.h"
#include "ops/elementwise.h"
#include "ops/kernel_table.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

#if defined(CTORCH_HAS_CUDA_BACKEND)
#include "backends/cuda/runtime.h"
#endif

using namespace ctorch;

TEST(CudaLaunchConfig, GridIsCappedAtOneWaveAndCoversTheTail) {
  const kernels::DeviceLimits a100{108, 2048};
  const kernels::LaunchConfig small = kernels::elementwise_launch_config(1000, a100);
  EXPECT_EQ(small.block, static_cast<uint32_t>(kernels::kElementwiseBlockSize));
  EXPECT_EQ(small.grid, (1000u + small.block - 1) / small.block);
  EXPECT_GE(static_cast<uint64_t>(small.grid) * small.block, 1000u);
  const kernels::LaunchConfig big = kernels::elementwise_launch_config(int64_t{1} << 30, a100);
  EXPECT_EQ(big.grid, 108u * 2048u / big.block);
  EXPECT_EQ(big.stride(), big.grid * big.block);
  EXPECT_EQ(kernels::elementwise_launch_config(1, a100).grid, 1u);
  // Unknown limits fall back to a fixed cap instead of a zero grid.
  EXPECT_EQ(kernels::elementwise_launch_config(int64_t{1} << 30, {}).grid,
            static_cast<uint32_t>(kernels::kFallbackMaxBlocks));
}

TEST(CudaLaunchConfig, EveryElementIsVisitedExactlyOnce) {
  const kernels::DeviceLimits tiny{2, 512};  // a two-wave-block device makes the tail loop run
  for (int64_t n : {1, 255, 256, 257, 1023, 1024, 1025, 5000}) {
    const kernels::LaunchConfig cfg = kernels::elementwise_launch_config(n, tiny);
    std::vector<int> hits(static_cast<size_t>(n), 0);
    for (uint32_t b = 0; b < cfg.grid; ++b) {
      for (uint32_t t = 0; t < cfg.block; ++t) {
        for (uint32_t i = cfg.first(b, t); i < cfg.n; i += cfg.stride()) ++hits[i];
      }
    }
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)], 1) << "n=" << n << " i=" << i;
  }
}

TEST(CudaLaunchConfig, LaunchesSplitAt32BitIndexing) {
  EXPECT_EQ(kernels::num_launches(0), 0);
  EXPECT_EQ(kernels::num_launches(1), 1);
  EXPECT_EQ(kernels::num_launches(kernels::kMaxElementsPerLaunch), 1);
  EXPECT_EQ(kernels::num_launches(kernels::kMaxElementsPerLaunch + 1), 2);
  // Inside a launch the grid-stride index never wraps 32 bits.
  const kernels::LaunchConfig cfg =
      kernels::elementwise_launch_config(kernels::kMaxElementsPerLaunch, kernels::DeviceLimits{200, 2048});
  EXPECT_LT(static_cast<uint64_t>(cfg.n) + cfg.stride(), uint64_t{1} << 32);
}

#if defined(CTORCH_HAS_CUDA_BACKEND)

namespace {

// Empty when the real CUDA runtime serves DeviceType::CUDA, else why the tests skip.
std::string skip_reason() {
  if (backends::cuda::device_count() == 0) {
    return "no usable CUDA device (cudaGetDeviceCount: " + backends::cuda::device_count_error() + ")";
  }
  impl::DeviceRuntime* active = impl::runtime_for(DeviceType::CUDA);
  if (active == nullptr || active != backends::cuda::active_runtime()) {
    return "another CUDA runtime (emulated devices or a test fake) is active";
  }
  return "";
}

class CudaBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = skip_reason();
    if (!reason.empty()) GTEST_SKIP() << reason;
    rt_ = &impl::lazy_init(DeviceType::CUDA);
  }
  impl::DeviceRuntime& rt() { return *rt_; }

 private:
  impl::DeviceRuntime* rt_ = nullptr;
};

const Device kCuda0(DeviceType::CUDA, 0);

// Elementwise |a - b| <= atol + rtol * |b| in float64, NaN == NaN (main has no allclose yet).
::testing::AssertionResult close(const Tensor& a, const Tensor& b, double tol) {
  if (a.sizes() != b.sizes()) return ::testing::AssertionFailure() << "shapes differ";
  const std::vector<double> x = a.contiguous().to(kFloat64).to_vector<double>();
  const std::vector<double> y = b.contiguous().to(kFloat64).to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (x[i] == y[i]) continue;
    if (!(std::abs(x[i] - y[i]) <= tol + tol * std::abs(y[i]))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << x[i] << " vs " << y[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// `gpu` equals `cpu` in dtype, shape and values (exactly, or within `tol` for floating dtypes).
void expect_matches(const Tensor& gpu, const Tensor& cpu, double tol = 0.0) {
  ASSERT_TRUE(gpu.is_cuda());
  const Tensor back = gpu.cpu();
  ASSERT_EQ(back.dtype(), cpu.dtype());
  EXPECT_TRUE(close(back, cpu, cpu.is_floating_point() ? tol : 0.0));
}

// Values with negatives, zero, fractions and large magnitudes, in `dtype`.
Tensor sample(ScalarType dtype, int64_t n = 97) {
  Tensor t = linspace(-40.0, 40.0, n, TensorOptions().dtype(kFloat64));
  if (dtype == kBool) return t.gt(0.0);
  if (dtype == kUInt8) t = t.abs();
  return t.to(dtype);
}

const std::vector<ScalarType> kAllTypes = {kUInt8, kInt8,    kInt16, kInt32, kInt64,
                                           kFloat16, kFloat32, kFloat64, kBool, kBFloat16};
const std::vector<ScalarType> kFloatTypes = {kFloat16, kFloat32, kFloat64, kBFloat16};

double tolerance(ScalarType t) {
  switch (t) {
    case kFloat16: return 1e-3;
    case kBFloat16: return 1e-2;
    case kFloat32: return 1e-5;
    default: return 1e-12;
  }
}

}  // namespace

TEST_F(CudaBackend, PropertiesComeFromTheDevice) {
  const impl::DeviceProperties p = rt().properties(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.major, 7);  // CUDA 13 supports sm_75 and newer
  EXPECT_GT(p.total_memory, 0u);
  EXPECT_GT(p.multi_processor_count, 0);
  EXPECT_GT(p.max_threads_per_multi_processor, 0);
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(p.uuid.rfind("GPU-", 0), 0u) << p.uuid;
  EXPECT_EQ(p.uuid.size(), 40u) << p.uuid;
  const cuda::DeviceProperties q = cuda::get_device_properties(0);
  EXPECT_EQ(q.name, p.name);
  EXPECT_EQ(q.uuid, p.uuid);
  EXPECT_FALSE(cuda::get_arch_list().empty());
  EXPECT_THROW(rt().properties(static_cast<DeviceIndex>(rt().device_count())), DeviceError);
  size_t free_bytes = 0, total_bytes = 0;
  rt().memory_info(0, &free_bytes, &total_bytes);
  EXPECT_GT(total_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
}

TEST_F(CudaBackend, CurrentDeviceIsCudas) {
  const int count = rt().device_count();
  EXPECT_EQ(cuda::device_count(), count);
  rt().set_current_device(static_cast<DeviceIndex>(count - 1));
  EXPECT_EQ(rt().current_device(), count - 1);
  rt().set_current_device(0);
  EXPECT_EQ(rt().current_device(), 0);
  EXPECT_THROW(rt().set_current_device(static_cast<DeviceIndex>(count)), DeviceError);
}

TEST_F(CudaBackend, PoolStreamsUsePyTorchIdsRoundRobin) {
  const Stream first = rt().create_stream(0, 0);
  EXPECT_EQ(first.device(), kCuda0);
  EXPECT_EQ(first.id() & 1, 1);
  EXPECT_EQ((first.id() >> 1) & 0xf, 1);  // priority level 0
  std::vector<Stream> more;
  for (int i = 0; i < 31; ++i) more.push_back(rt().create_stream(0, 0));
  for (const Stream& s : more) EXPECT_NE(s, first);
  EXPECT_EQ(rt().create_stream(0, 0), first);  // the 33rd aliases the 1st
  const Stream high = rt().create_stream(0, -1);
  EXPECT_GE((high.id() >> 1) & 0xf, 1);
  EXPECT_TRUE(rt().query_stream(first));
  rt().synchronize_stream(first);
  rt().synchronize_stream(Stream::default_stream(kCuda0));
  rt().synchronize_device(0);
  EXPECT_THROW(rt().create_stream(static_cast<DeviceIndex>(rt().device_count()), 0), IndexError);
}

TEST_F(CudaBackend, EventsRecordWaitAndTime) {
  const Stream s = rt().create_stream(0, 0);
  impl::EventHandle start = rt().create_event(0, {.enable_timing = true});
  impl::EventHandle end = rt().create_event(0, {.enable_timing = true});
  impl::EventHandle plain = rt().create_event(0, {});
  EXPECT_TRUE(rt().query_event(start));  // never recorded
  rt().synchronize_event(start);         // no-op
  EXPECT_THROW(rt().elapsed_ms(start, end), ValueError);
  rt().record_event(start, s);
  Tensor t = zeros({1 << 20}, TensorOptions().device(kCuda0));
  rt().record_event(end, s);
  rt().record_event(plain, s);
  rt().wait_event(Stream::default_stream(kCuda0), end);
  rt().synchronize_event(end);
  EXPECT_TRUE(rt().query_event(end));
  EXPECT_GE(rt().elapsed_ms(start, end), 0.0f);
  EXPECT_THROW(rt().elapsed_ms(start, plain), ValueError);
  if (rt().device_count() > 1) {
    EXPECT_THROW(rt().record_event(plain, rt().create_stream(1, 0)), Error);
  }
  rt().destroy_event(start);
  rt().destroy_event(end);
  rt().destroy_event(plain);
}

TEST_F(CudaBackend, RawMemoryRoundTrip) {
  const size_t n = 4096;
  std::vector<unsigned char> host(n), back(n, 0);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<unsigned char>(i * 7);
  void* dev = rt().raw_allocate(0, n);
  ASSERT_NE(dev, nullptr);
  const Stream s = rt().create_stream(0, 0);
  rt().copy_async(dev, 0, host.data(), -1, n, s);
  rt().copy_async(back.data(), -1, dev, 0, n, s);
  rt().synchronize_stream(s);
  EXPECT_EQ(host, back);
  rt().memset_async(dev, 0x5a, n, s);
  rt().copy_async(back.data(), -1, dev, 0, n, s);
  rt().synchronize_stream(s);
  EXPECT_EQ(back, std::vector<unsigned char>(n, 0x5a));
  rt().raw_free(0, dev);
  EXPECT_EQ(rt().raw_allocate(0, 0), nullptr);
  void* pinned = rt().pinned_allocate(n);
  ASSERT_NE(pinned, nullptr);
  rt().pinned_free(pinned);
}

TEST_F(CudaBackend, OutOfMemoryIsTypedAndRecoverable) {
  try {
    rt().raw_allocate(0, size_t{1} << 50);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("CUDA out of memory. Tried to allocate ", 0), 0u) << e.what();
  }
  void* p = rt().raw_allocate(0, 256);  // the error was cleared
  rt().raw_free(0, p);
}

TEST_F(CudaBackend, TensorsRoundTripThroughTheDevice) {
  for (ScalarType t : kAllTypes) {
    const Tensor cpu = sample(t);
    const Tensor gpu = cpu.to(kCuda0);
    EXPECT_TRUE(gpu.is_cuda());
    EXPECT_TRUE(close(gpu.cpu(), cpu, 0.0)) << t;
    const Tensor pinned = cpu.pin_memory();
    Tensor back = empty(cpu.sizes(), TensorOptions().dtype(t).pinned_memory(true));
    back.copy_(pinned.to(kCuda0, /*non_blocking=*/true), /*non_blocking=*/true);
    cuda::synchronize();
    EXPECT_TRUE(close(back, cpu, 0.0)) << t;
  }
}

TEST_F(CudaBackend, UnaryOpsMatchCpu) {
  for (ScalarType t : kAllTypes) {
    const Tensor x = sample(t);
    const Tensor g = x.to(kCuda0);
    if (t != kBool) {
      expect_matches(g.abs(), x.abs());
      expect_matches(g.floor(), x.floor());
      expect_matches(g.ceil(), x.ceil());
      expect_matches(g.round(), x.round());
      expect_matches(g.sign(), x.sign());
      expect_matches(g.relu(), x.relu());
      expect_matches(g.clamp(Scalar(-3), Scalar(5)), x.clamp(Scalar(-3), Scalar(5)));
    }
    if (t != kBool && t != kUInt8) expect_matches(g.neg(), x.neg());
    expect_matches(g.logical_not(), x.logical_not());
    const double tol = tolerance(is_floating_point(t) ? t : get_default_dtype());
    const Tensor pos = x.to(kFloat64).abs().add(1.0).to(is_floating_point(t) ? t : kFloat32);
    const Tensor gpos = pos.to(kCuda0);
    expect_matches(gpos.log(), pos.log(), tol);
    expect_matches(gpos.sqrt(), pos.sqrt(), tol);
    expect_matches(gpos.rsqrt(), pos.rsqrt(), tol);
    expect_matches(g.sin(), x.sin(), tol);
    expect_matches(g.cos(), x.cos(), tol);
    expect_matches(g.tanh(), x.tanh(), tol);
    expect_matches(g.sigmoid(), x.sigmoid(), tol);
    expect_matches(g.div(Scalar(10)).exp(), x.div(Scalar(10)).exp(), tol);
  }
}

TEST_F(CudaBackend, BinaryOpsMatchCpu) {
  for (ScalarType t : kAllTypes) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor a = sample(t);
    // A divisor without zeros (integer division by zero raises before any kernel runs).
    Tensor b = linspace(-7.3, 9.1, a.numel(), TensorOptions().dtype(kFloat64));
    if (t == kUInt8) b = b.abs();
    b = b.to(t);
    if (t != kBool) b = where(b.eq(0), Scalar(3), b);
    const Tensor ga = a.to(kCuda0), gb = b.to(kCuda0);
    const double tol = tolerance(is_floating_point(t) ? t : get_default_dtype());
    expect_matches(ga.add(gb, 2), a.add(b, 2));
    expect_matches(ga.mul(gb), a.mul(b));
    expect_matches(ga.maximum(gb), a.maximum(b));
    expect_matches(ga.minimum(gb), a.minimum(b));
    expect_matches(ga.eq(gb), a.eq(b));
    expect_matches(ga.ne(gb), a.ne(b));
    expect_matches(ga.lt(gb), a.lt(b));
    expect_matches(ga.le(gb), a.le(b));
    expect_matches(ga.gt(gb), a.gt(b));
    expect_matches(ga.ge(gb), a.ge(b));
    expect_matches(ga.logical_and(gb), a.logical_and(b));
    expect_matches(ga.logical_or(gb), a.logical_or(b));
    expect_matches(ga.logical_xor(gb), a.logical_xor(b));
    expect_matches(ga.div(gb), a.div(b), tol);
    expect_matches(ga.gt(Scalar(2)), a.gt(Scalar(2)));
    expect_matches(ga.add(Scalar(3)), a.add(Scalar(3)));
    if (t == kBool) continue;
    expect_matches(ga.sub(gb), a.sub(b));
    expect_matches(ga.div(gb, "trunc"), a.div(b, "trunc"), tol);
    expect_matches(ga.div(gb, "floor"), a.div(b, "floor"), tol);
    expect_matches(ga.remainder(gb), a.remainder(b), tol);
    expect_matches(ga.remainder(Scalar(3)), a.remainder(Scalar(3)), tol);
    expect_matches(ga.mul(Scalar(3)), a.mul(Scalar(3)));
    expect_matches(ga.sub(Scalar(2), 3), a.sub(Scalar(2), 3));
    expect_matches(Scalar(5) - ga, Scalar(5) - a);                  // scalar on the left
    expect_matches(Scalar(5) / gb, Scalar(5) / b, tol);             // scalar on the left, promoted
    const Tensor e = b.abs().remainder(Scalar(4));                  // small exponents
    expect_matches(ga.pow(e.to(kCuda0)), a.pow(e), tol);
    expect_matches(ga.pow(Scalar(2)), a.pow(Scalar(2)), tol);
    expect_matches(pow(Scalar(2), e.to(kCuda0)), pow(Scalar(2), e), tol);
  }
}

TEST_F(CudaBackend, StridedAndBroadcastOperandsMatchCpu) {
  const Tensor x = arange(0, 60, 1, TensorOptions().dtype(kFloat32)).view({3, 4, 5});
  const Tensor y = linspace(-2.0, 2.0, 5, TensorOptions().dtype(kFloat32));
  const Tensor gx = x.to(kCuda0), gy = y.to(kCuda0);
  expect_matches(gx.permute({2, 0, 1}).mul(gy.view({5, 1, 1})), x.permute({2, 0, 1}).mul(y.view({5, 1, 1})));
  expect_matches(gx.transpose(0, 2).add(gx.transpose(0, 2)), x.transpose(0, 2).add(x.transpose(0, 2)));
  expect_matches(gx.slice(2, 1, 5, 2).exp(), x.slice(2, 1, 5, 2).exp(), 1e-5);
  expect_matches(gx.add(gy), x.add(y));
  expect_matches(gx.select(1, 2).contiguous(), x.select(1, 2).contiguous());
  Tensor out = zeros({5, 4, 3}, TensorOptions().device(kCuda0));
  Tensor ref = zeros({5, 4, 3});
  out.copy_(gx.permute({2, 1, 0}));
  ref.copy_(x.permute({2, 1, 0}));
  expect_matches(out, ref);
  Tensor inplace = gx.clone();
  inplace.transpose(0, 1).add_(Scalar(1));
  Tensor inplace_ref = x.clone();
  inplace_ref.transpose(0, 1).add_(Scalar(1));
  expect_matches(inplace, inplace_ref);
}

TEST_F(CudaBackend, CastFillAndWhereMatchCpu) {
  for (ScalarType from : kAllTypes) {
    const Tensor x = sample(from);
    const Tensor g = x.to(kCuda0);
    for (ScalarType to : kAllTypes) {
      SCOPED_TRACE(dtype_name(from) + " -> " + dtype_name(to));
      expect_matches(g.to(to), x.to(to));
      expect_matches(g.slice(0, 0, 97, 3).to(to), x.slice(0, 0, 97, 3).to(to));
    }
    Tensor filled = empty({7, 3}, TensorOptions().dtype(from).device(kCuda0));
    filled.fill_(Scalar(2.75));
    expect_matches(filled, full({7, 3}, Scalar(2.75), TensorOptions().dtype(from)));
    filled.fill_(Scalar(int64_t{-1}));
    expect_matches(filled, full({7, 3}, Scalar(int64_t{-1}), TensorOptions().dtype(from)));
    const Tensor cond = linspace(-1.0, 1.0, 97, TensorOptions().dtype(kFloat64)).gt(0.1);
    expect_matches(where(cond.to(kCuda0), g, zeros_like(g)), where(cond, x, zeros_like(x)));
  }
}

TEST_F(CudaBackend, MatrixProductsMatchCpu) {
  for (ScalarType t : kAllTypes) {
    SCOPED_TRACE(dtype_name(t));
    const double tol = t == kFloat16 ? 1e-2 : t == kBFloat16 ? 5e-2 : t == kFloat32 ? 1e-4 : 1e-10;
    const auto make = [&](std::vector<int64_t> shape, double lo, double hi) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      Tensor x = linspace(lo, hi, n, TensorOptions().dtype(kFloat64)).view(shape);
      if (t == kBool) return x.gt(0.0);
      if (t == kUInt8) x = x.abs();
      return x.to(t);
    };
    const Tensor a = make({5, 7}, -3.0, 4.0), b = make({7, 6}, -2.0, 5.0);
    const Tensor ga = a.to(kCuda0), gb = b.to(kCuda0);
    expect_matches(ga.mm(gb), a.mm(b), tol);
    expect_matches(gb.t().mm(ga.t()), b.t().mm(a.t()), tol);  // both operands transposed
    const Tensor x = make({3, 4, 5}, -2.0, 2.0), y = make({3, 5, 2}, -1.0, 3.0);
    expect_matches(x.to(kCuda0).bmm(y.to(kCuda0)), x.bmm(y), tol);
    expect_matches(x.to(kCuda0).matmul(b.slice(0, 0, 5).to(kCuda0)), x.matmul(b.slice(0, 0, 5)), tol);
    expect_matches(make({7}, -1.0, 1.0).to(kCuda0).matmul(gb), make({7}, -1.0, 1.0).matmul(b), tol);
    const Tensor empty_k = make({5, 0}, 0.0, 0.0), empty_k2 = make({0, 6}, 0.0, 0.0);
    expect_matches(empty_k.to(kCuda0).mm(empty_k2.to(kCuda0)), empty_k.mm(empty_k2));  // k == 0: zeros
    if (is_floating_point(t)) {
      const Tensor c = make({5, 6}, 1.0, 2.0);
      expect_matches(c.to(kCuda0).addmm(ga, gb, 0.5, 2), c.addmm(a, b, 0.5, 2), tol);
      expect_matches(c.to(kCuda0).addmm(ga, gb, 0.5, 0), c.addmm(a, b, 0.5, 0), tol);  // alpha == 0
    }
  }
}

TEST_F(CudaBackend, ReductionsMatchCpu) {
  for (ScalarType t : kAllTypes) {
    SCOPED_TRACE(dtype_name(t));
    const double tol = t == kFloat16 ? 1e-2 : t == kBFloat16 ? 5e-2 : t == kFloat32 ? 1e-4 : 1e-10;
    Tensor x = linspace(-9.5, 11.0, 3 * 50 * 7, TensorOptions().dtype(kFloat64)).view({3, 50, 7});
    x = t == kBool ? x.gt(0.0) : (t == kUInt8 ? x.abs() : x).to(t);
    const Tensor g = x.to(kCuda0);
    expect_matches(g.sum(), x.sum(), tol);
    expect_matches(g.sum({1}), x.sum({1}), tol);                 // along a middle dim
    expect_matches(g.sum({0, 2}, true), x.sum({0, 2}, true), tol);
    expect_matches(g.transpose(0, 2).sum({2}), x.transpose(0, 2).sum({2}), tol);
    expect_matches(g.argmax(), x.argmax());
    expect_matches(g.argmin(1), x.argmin(1));
    expect_matches(g.argmax(0, true), x.argmax(0, true));
    expect_matches(g.max(), x.max());
    expect_matches(g.min(), x.min());
    expect_matches(g.any(), x.any());
    expect_matches(g.all(2), x.all(2));
    if (t == kBool) continue;
    expect_matches(g.slice(1, 0, 3).prod(1), x.slice(1, 0, 3).prod(1), tol);
    if (!is_floating_point(t)) continue;
    expect_matches(g.mean(), x.mean(), tol);
    expect_matches(g.mean({2}), x.mean({2}), tol);
    expect_matches(g.norm(), x.norm(), tol);
    expect_matches(g.norm(1, {1}), x.norm(1, {1}), tol);
    expect_matches(g.norm(3, {0}), x.norm(3, {0}), tol);
    expect_matches(g.var(), x.var(), tol);
    expect_matches(g.std(std::vector<int64_t>{1}, 0), x.std(std::vector<int64_t>{1}, 0), tol);
    expect_matches(g.softmax(2), x.softmax(2), tol);
    expect_matches(g.softmax(1), x.softmax(1), tol);
    expect_matches(g.log_softmax(0), x.log_softmax(0), tol);
  }
  // Many outputs along the fastest dim take the thread-per-output kernel.
  const Tensor wide = linspace(-1.0, 1.0, 8 * 10000, TensorOptions().dtype(kFloat32)).view({8, 10000});
  expect_matches(wide.to(kCuda0).sum({0}), wide.sum({0}), 1e-5);
  expect_matches(wide.to(kCuda0).argmax(0), wide.argmax(0));
  // An empty reduction gives the identity.
  const Tensor none = zeros({4, 0});
  expect_matches(none.to(kCuda0).sum({1}), none.sum({1}));
}

TEST_F(CudaBackend, KernelSlotsRunOnTheGivenStream) {
  const Stream side = rt().create_stream(0, 0);
  Tensor t = empty({1 << 16}, TensorOptions().device(kCuda0));
  const kernels::ElementwisePlan plan = ops::make_plan(t, {});
  char* data[kernels::kMaxOperands] = {static_cast<char*>(t.data_ptr())};
  ops::kernels_for(kCuda0).fill(kFloat32, plan, data, Scalar(3.5), side);
  rt().synchronize_stream(side);
  expect_matches(t, full({1 << 16}, Scalar(3.5)));
}

TEST_F(CudaBackend, LaunchesSplitBeyond32BitIndexing) {
  const int64_t n = kernels::kMaxElementsPerLaunch + 4096;
  size_t free_bytes = 0, total_bytes = 0;
  rt().memory_info(0, &free_bytes, &total_bytes);
  if (free_bytes < static_cast<size_t>(n) * 2 + (size_t{1} << 28)) GTEST_SKIP() << "needs ~4.3 GB of free device memory";
  Tensor big = empty({n}, TensorOptions().dtype(kUInt8).device(kCuda0));
  big.fill_(Scalar(7));
  Tensor twice = big.add(big);  // two launches per op
  const Tensor tail = twice.slice(0, n - 8, n).cpu();
  EXPECT_TRUE(close(tail, full({8}, Scalar(14), TensorOptions().dtype(kUInt8)), 0.0));
  EXPECT_EQ(twice.slice(0, 0, 1).cpu().item<uint8_t>(), 14);
}

#else  // !CTORCH_HAS_CUDA_BACKEND

TEST(CudaBackend, Skipped) { GTEST_SKIP() << "built without the CUDA backend (CTORCH_BUILD_CUDA=OFF)"; }

#endif
