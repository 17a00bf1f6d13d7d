// Pinned host memory through the caching host allocator on emulated devices: a block freed while
// a non-blocking copy still uses it is not handed out again until the copy's event completes.
// The copy is held back by a gate task on the stream (tests/device/stream_test_util.h).
#include <gtest/gtest.h>

#include "ctorch/cuda_memory.h"
#include "ctorch/emulation.h"
#include "ctorch/torch.h"
#include "device/stream_test_util.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch {
namespace {

class PinnedMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
    cuda::EmulationConfig c;
    c.devices = 1;
    c.memory = size_t{64} << 20;
    cuda::emulate(c);  // the reset hooks return the host cache and clear its statistics
  }
  void TearDown() override {
    if (cuda::is_emulated()) cuda::emulate(2);
  }
  static TensorOptions pinned() { return TensorOptions().pinned_memory(true); }
  static TensorOptions on_cuda() { return TensorOptions().device(Device(DeviceType::CUDA, 0)); }
  static int64_t host_stat(const char* key) { return cuda::host_memory_stats().at(key); }
};

TEST_F(PinnedMemory, BlockIsNotReusedWhileItsAsyncCopyIsPending) {
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const Stream stream = impl::current_stream(Device(DeviceType::CUDA, 0));
  Tensor dev = empty({1000}, on_cuda());
  Tensor src = empty({1000}, pinned());
  src.fill_(3.0);
  ASSERT_TRUE(src.is_pinned());
  void* const p = src.data_ptr();
  testing::Gate gate;
  gate.block(stream);
  dev.copy_(src, /*non_blocking=*/true);  // queued behind the gate: has not read src yet
  src = Tensor();                         // freed while the copy is pending
  EXPECT_EQ(host_stat("active_requests.current"), 1);
  Tensor other = empty({1000}, pinned());
  EXPECT_NE(other.data_ptr(), p);  // the pending block is not handed out
  other.fill_(7.0);
  EXPECT_EQ(host_stat("active_requests.current"), 2);
  EXPECT_EQ(host_stat("num_host_alloc"), 2);
  gate.open();
  rt.synchronize_stream(stream);
  EXPECT_TRUE(dev.eq(3.0).all().item<bool>());  // the copy read the original data
  Tensor again = empty({1000}, pinned());
  EXPECT_EQ(again.data_ptr(), p);  // its event completed: reused
  EXPECT_EQ(host_stat("num_host_alloc"), 2);
  EXPECT_EQ(host_stat("allocated_bytes.current"), 2 * 4096);  // 4000 bytes -> 4096
}

TEST_F(PinnedMemory, DeviceToHostCopyIntoPinnedMemoryHoldsTheBlock) {
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const Stream stream = impl::current_stream(Device(DeviceType::CUDA, 0));
  Tensor dev = full({256}, 5.0, on_cuda());
  Tensor dst = empty({256}, pinned());
  void* const p = dst.data_ptr();
  testing::Gate gate;
  gate.block(stream);
  dst.copy_(dev, /*non_blocking=*/true);
  dst = Tensor();
  Tensor other = empty({256}, pinned());
  EXPECT_NE(other.data_ptr(), p);  // the copy would still write into p
  gate.open();
  rt.synchronize_stream(stream);
  Tensor again = empty({256}, pinned());
  EXPECT_EQ(again.data_ptr(), p);
}

TEST_F(PinnedMemory, BlockingCopiesRecordNoEventSoTheBlockIsReusedAtOnce) {
  Tensor dev = empty({1000}, on_cuda());
  void* p = nullptr;
  {
    Tensor src = ones({1000}, pinned());
    p = src.data_ptr();
    dev.copy_(src);  // synchronous
  }
  Tensor again = empty({1000}, pinned());
  EXPECT_EQ(again.data_ptr(), p);
  EXPECT_EQ(host_stat("num_host_alloc"), 1);
}

TEST_F(PinnedMemory, PinMemoryUsesTheCacheAndEmptyCacheReturnsIt) {
  const auto before = cuda::host_memory_stats();
  EXPECT_EQ(before.at("allocations.current"), 0);
  {
    Tensor t = ones({3, 1000}).pin_memory();  // 12000 bytes -> 16 KiB
    EXPECT_TRUE(t.is_pinned());
    EXPECT_EQ(host_stat("allocated_bytes.current"), 16384);
    EXPECT_EQ(host_stat("active_bytes.current"), 16384);
    EXPECT_EQ(t.sum().item<float>(), 3000.0f);
  }
  EXPECT_EQ(host_stat("active_bytes.current"), 0);
  EXPECT_EQ(host_stat("allocations.current"), 1);  // cached
  cuda::host_empty_cache();
  EXPECT_EQ(host_stat("allocations.current"), 0);
  EXPECT_EQ(host_stat("num_host_free"), 1);
  EXPECT_EQ(host_stat("allocations.peak"), 1);
  cuda::reset_peak_host_memory_stats();
  EXPECT_EQ(host_stat("allocations.peak"), 0);
  cuda::reset_accumulated_host_memory_stats();
  EXPECT_EQ(host_stat("num_host_free"), 0);
  EXPECT_EQ(cuda::host_memory_stats().size(), 28u);
}

}  // namespace
}  // namespace ctorch
