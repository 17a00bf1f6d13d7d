// torch.cuda streams: pools, priorities, current stream, stream blocks, external streams, ordering.
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_set>

#include "device/device_test.h"
#include "device/stream_test_util.h"

namespace ctorch::testing {
namespace {

class CudaStreamTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    cuda::set_device(0);
    cuda::set_stream(cuda::default_stream(0));
    cuda::set_stream(cuda::default_stream(1));
    cuda::set_device(0);
  }
  bool emulated() const { return GetParam() == Backend::Emulated; }
};

std::string repr(const cuda::Stream& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

TEST_P(CudaStreamTest, PoolIsRoundRobinOver32StreamsPerPriority) {
  const cuda::Stream first(0);
  std::set<int64_t> ids{first.stream_id()};
  for (int i = 1; i < 32; ++i) {
    const cuda::Stream s(0);
    EXPECT_EQ(s.device(), Device("cuda:0"));
    EXPECT_EQ(s.stream_id() & 1, 1) << "pool stream ids are odd";
    EXPECT_EQ((s.stream_id() >> 1) & 0xF, 1) << "priority-0 pool type";
    EXPECT_LT(s.stream_id() >> 5, 32);
    ids.insert(s.stream_id());
  }
  EXPECT_EQ(ids.size(), 32u) << "32 distinct streams before the pool wraps";
  EXPECT_EQ(cuda::Stream(0), first) << "the 33rd stream aliases the 1st";
  EXPECT_NE(cuda::Stream(0), cuda::default_stream(0));
  EXPECT_NE(first.cuda_stream(), 0u);
}

TEST_P(CudaStreamTest, PrioritiesAndTheirRange) {
  const auto [least, greatest] = cuda::Stream::priority_range();
  EXPECT_EQ(least, 0);
  EXPECT_LE(greatest, -1);
  EXPECT_GE(greatest, -3);
  if (emulated()) EXPECT_EQ(greatest, -3);
  EXPECT_EQ(cuda::Stream(0, 0).priority(), 0);
  EXPECT_EQ(cuda::Stream(0, -1).priority(), -1);
  EXPECT_EQ(cuda::Stream(0, -100).priority(), greatest) << "clamped to the highest level";
  EXPECT_EQ(cuda::default_stream(0).priority(), 0);
  const cuda::Stream high(0, greatest);
  EXPECT_EQ((high.stream_id() >> 1) & 0xF, 1 - greatest) << "type = pri_idx + 1";
  try {
    cuda::Stream bad(0, 1);
    FAIL() << "positive priority accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Expected cuda stream priority to be less than or equal to 0, got 1");
  }
}

TEST_P(CudaStreamTest, PrintsLikePyTorch) {
  EXPECT_EQ(repr(cuda::default_stream(1)), "<torch.cuda.Stream device=cuda:1 cuda_stream=0x0>");
  const cuda::Stream s(1);
  std::ostringstream expected;
  expected << "<torch.cuda.Stream device=cuda:1 cuda_stream=0x" << std::hex << s.cuda_stream() << ">";
  EXPECT_EQ(repr(s), expected.str());
  EXPECT_TRUE(std::regex_match(repr(s), std::regex("<torch\\.cuda\\.Stream device=cuda:1 cuda_stream=0x[0-9a-f]+>")));
}

TEST_P(CudaStreamTest, EqualityAndHashing) {
  const cuda::Stream a(0), b(0), a_again(a.unwrap());
  EXPECT_EQ(a, a_again);
  EXPECT_NE(a, b);
  EXPECT_EQ(std::hash<cuda::Stream>{}(a), std::hash<cuda::Stream>{}(a_again));
  std::unordered_set<cuda::Stream> set{a, b, a_again, cuda::default_stream(0), cuda::default_stream(1)};
  EXPECT_EQ(set.size(), 4u);
  EXPECT_NE(cuda::default_stream(0), cuda::default_stream(1)) << "same id, different devices";
  EXPECT_THROW(cuda::Stream(ctorch::Stream::default_stream(Device(DeviceType::CPU, 0))), ValueError);
}

TEST_P(CudaStreamTest, CurrentStreamStartsAsDefaultAndSetStreamSwitchesDevice) {
  EXPECT_EQ(cuda::current_stream(), cuda::default_stream());
  EXPECT_EQ(cuda::current_stream(1), cuda::default_stream(1));
  EXPECT_EQ(cuda::default_stream(1).stream_id(), 0);
  const cuda::Stream s(1);
  cuda::set_stream(s);
  EXPECT_EQ(cuda::current_device(), 1) << "set_stream makes the stream's device current";
  EXPECT_EQ(cuda::current_stream(), s);
  EXPECT_EQ(cuda::current_stream(0), cuda::default_stream(0)) << "per device";
  cuda::set_stream(std::nullopt);  // no-op
  EXPECT_EQ(cuda::current_stream(1), s);
  cuda::set_stream(cuda::default_stream(1));
  cuda::set_device(0);
  try {
    (void)cuda::current_stream(9);
    FAIL() << "index 9 accepted";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "Device index value 9 is out of index range [0, 2)");
  }
  EXPECT_THROW(cuda::Stream(9), DeviceError);
}

TEST_P(CudaStreamTest, StreamBlockSwitchesDeviceAndRestoresOnException) {
  const cuda::Stream here(0), there(1);
  cuda::set_stream(here);
  try {
    auto block = cuda::stream(there);
    EXPECT_EQ(cuda::current_device(), 1);
    EXPECT_EQ(cuda::current_stream(), there);
    EXPECT_EQ(cuda::current_stream(0), here);
    throw std::runtime_error("leave the block");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(cuda::current_device(), 0);
  EXPECT_EQ(cuda::current_stream(0), here);
  EXPECT_EQ(cuda::current_stream(1), cuda::default_stream(1));
  {
    cuda::StreamContext nothing(std::nullopt);
    EXPECT_FALSE(nothing.stream().has_value());
    EXPECT_EQ(cuda::current_stream(), here);
  }
  {
    const cuda::Stream same(0);
    cuda::StreamContext block(same);
    EXPECT_EQ(cuda::current_stream(), same);
    {
      auto inner = cuda::stream(there);
      EXPECT_EQ(cuda::current_stream(), there);
    }
    EXPECT_EQ(cuda::current_device(), 0);
    EXPECT_EQ(cuda::current_stream(), same);
  }
  EXPECT_EQ(cuda::current_stream(), here);
  cuda::set_stream(cuda::default_stream(0));
}

TEST_P(CudaStreamTest, CurrentStreamIsPerThread) {
  const cuda::Stream mine(0);
  cuda::set_stream(mine);
  cuda::Stream seen = mine, set_there = mine;
  std::thread t([&] {
    seen = cuda::current_stream(0);
    set_there = cuda::Stream(0);
    cuda::set_stream(set_there);
  });
  t.join();
  EXPECT_EQ(seen, cuda::default_stream(0)) << "a new thread starts on the default stream";
  EXPECT_NE(set_there, mine);
  EXPECT_EQ(cuda::current_stream(0), mine) << "another thread's set_stream does not leak here";
  cuda::set_stream(cuda::default_stream(0));
}

TEST_P(CudaStreamTest, OpsRunOnTheCurrentStream) {
  const cuda::Stream side(0);
  Tensor a = full({1000}, 2.0, on_device());
  side.wait_stream(cuda::current_stream());
  Tensor b;
  {
    auto block = cuda::stream(side);
    b = a.mul(3.0).add(1.0);
  }
  cuda::current_stream().wait_stream(side);
  EXPECT_EQ(b.sum().item<double>(), 7000.0);
  side.synchronize();
  EXPECT_TRUE(side.query());
}

TEST_P(CudaStreamTest, QueryIsFalseWhileWorkIsQueued) {
  if (!emulated()) GTEST_SKIP() << "needs the emulated gate";
  const cuda::Stream s(0);
  Gate gate;
  gate.block(s);
  EXPECT_FALSE(s.query());
  gate.open();
  s.synchronize();
  EXPECT_TRUE(s.query());
}

// The default stream reads x after the side stream has written it. With wait_stream the read
// sees the write even while the side stream is held back; without it the read races ahead.
// While a gate is closed no device memory may be freed: raw_free waits for the device's streams.
TEST_P(CudaStreamTest, WaitStreamOrdersWorkAcrossStreams) {
  if (!emulated()) GTEST_SKIP() << "needs the emulated gate";
  const cuda::Stream side(0);
  const cuda::Stream main = cuda::current_stream();
  for (const bool wait : {true, false}) {
    Tensor x = zeros({256}, on_device());
    side.wait_stream(main);  // x's zeros are written before the side stream touches x
    Gate gate;
    gate.block(side);
    {
      auto block = cuda::stream(side);
      x.fill_(1.0);
    }
    if (wait) main.wait_stream(side);
    Tensor y = x.mul(2.0);  // on main
    if (wait) {
      EXPECT_FALSE(main.query()) << "main must wait for the held side stream";
      gate.open();
      EXPECT_EQ(y.sum().item<double>(), 512.0);
    } else {
      main.synchronize();  // finishes although the side stream has not run: the race is real
      Tensor host = empty({256});
      host.copy_(y);  // no device memory is freed while the gate is closed (a free waits for the device)
      gate.open();
      EXPECT_EQ(host.sum().item<double>(), 0.0) << "without wait_stream main read x before the write";
    }
    side.synchronize();
    main.wait_stream(side);  // x is freed on main's timeline
  }
}

TEST_P(CudaStreamTest, ExternalStreamWrapsANativeHandle) {
  if (!emulated()) GTEST_SKIP() << "emulated handles; real CUDA needs a cudaStream_t from cudaStreamCreate";
  const ctorch::Stream native = backends::emulated::instance().create_blocking_stream(1);
  const uintptr_t handle = cuda::Stream(native).cuda_stream();
  ASSERT_NE(handle, 0u);
  const cuda::ExternalStream ext(handle, 1);
  EXPECT_EQ(ext.unwrap(), native);
  EXPECT_EQ(ext.cuda_stream(), handle);
  EXPECT_EQ(ext.priority(), 0);
  EXPECT_EQ(cuda::get_stream_from_external(handle, 1), ext);
  const cuda::Stream pool(1);
  EXPECT_EQ(cuda::ExternalStream(pool.cuda_stream(), 1), pool) << "a pool stream's handle names that stream";
  try {
    cuda::ExternalStream bad(handle, 1, -1);
    FAIL() << "priority accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Priority was explicitly set for an external stream");
  }
  EXPECT_THROW(cuda::ExternalStream(handle, 0), Error) << "the handle belongs to cuda:1";
  EXPECT_THROW(cuda::ExternalStream(12345, 1), Error);
  // Work on the external stream runs and completes there.
  Tensor t = zeros({16}, TensorOptions().device("cuda:1"));
  {
    auto block = cuda::stream(ext);
    t.add_(5.0);
  }
  ext.synchronize();
  EXPECT_EQ(t.sum().item<double>(), 80.0);
}

CTORCH_INSTANTIATE_CUDA_TESTS(CudaStreamTest);

// Reorder mode sleeps 0-2 ms before each stream task, so a missing wait shows as wrong sums (checked
// by hand: without main.wait_stream(side) this test fails).
TEST(CudaStreamReorderTest, WaitStreamKeepsResultsRightUnderRandomDelays) {
  cuda::EmulationConfig config;
  config.devices = 2;
  config.reorder = true;
  config.seed = 7;
  cuda::emulate(config);
  {
    const cuda::Stream main = cuda::current_stream(0), side(0);
    for (int i = 0; i < 8; ++i) {
      Tensor a = full({512}, static_cast<double>(i), TensorOptions().device("cuda:0"));
      side.wait_stream(main);
      Tensor b;
      {
        auto block = cuda::stream(side);
        b = a.mul(2.0);  // no temporaries: a device free would synchronize and hide a race
        b.add_(1.0);
      }
      main.wait_stream(side);
      Tensor c = b.add(a);
      EXPECT_EQ(c.sum().item<double>(), 512.0 * (3 * i + 1)) << "iteration " << i;
      side.synchronize();
    }
  }
  cuda::synchronize(0);
  cuda::emulate(2);
}

}  // namespace
}  // namespace ctorch::testing
