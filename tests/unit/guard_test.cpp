// Guards, current stream and lazy initialization, tested above the seam with a fake runtime.
#include <gtest/gtest.h>

#include <thread>

#include "fake_runtime.h"
#include "runtime/current.h"
#include "runtime/visible_devices.h"

using namespace ctorch;
using ctorch::testing::FakeRuntime;

namespace {

// Registers a fake CUDA runtime for one test and restores whatever was there before.
class WithFakeCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = impl::runtime_for(DeviceType::CUDA);
    impl::register_runtime(DeviceType::CUDA, &fake_);
    impl::reset_initialization(DeviceType::CUDA);
  }
  void TearDown() override {
    impl::set_current_stream(Stream(Device(DeviceType::CUDA, 0), 0));
    impl::set_current_stream(Stream(Device(DeviceType::CUDA, 1), 0));
    impl::register_runtime(DeviceType::CUDA, previous_);
    impl::reset_initialization(DeviceType::CUDA);
  }
  FakeRuntime fake_{3};
  impl::DeviceRuntime* previous_ = nullptr;
};

}  // namespace

TEST(DeviceGuard, RestoresOnExitAndOnThrow) {
  FakeRuntime fake(4);
  EXPECT_EQ(fake.current_device(), 0);
  {
    impl::DeviceGuard g(Device(DeviceType::CUDA, 2), &fake);
    EXPECT_EQ(fake.current_device(), 2);
    EXPECT_EQ(g.original_device(), Device(DeviceType::CUDA, 0));
    g.set_index(3);
    EXPECT_EQ(fake.current_device(), 3);
  }
  EXPECT_EQ(fake.current_device(), 0);
  try {
    impl::DeviceGuard g(Device(DeviceType::CUDA, 1), &fake);
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(fake.current_device(), 0);
}

TEST(DeviceGuard, NoIndexIsANoOpAndBadIndexThrows) {
  FakeRuntime fake(2);
  {
    impl::DeviceGuard g(Device(DeviceType::CUDA), &fake);
    EXPECT_EQ(fake.set_calls.load(), 0);
  }
  EXPECT_THROW(impl::DeviceGuard(Device(DeviceType::CUDA, 5), &fake), DeviceError);
  EXPECT_EQ(fake.current_device(), 0);
}

TEST(DeviceGuard, CurrentDeviceIsPerThread) {
  FakeRuntime fake(2);
  impl::DeviceGuard g(Device(DeviceType::CUDA, 1), &fake);
  DeviceIndex seen = -1;
  std::thread([&] { seen = fake.current_device(); }).join();
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(fake.current_device(), 1);
}

TEST_F(WithFakeCuda, CurrentStreamIsPerDeviceAndPerThread) {
  const Stream s(Device(DeviceType::CUDA, 1), 7);
  EXPECT_EQ(impl::current_stream(Device(DeviceType::CUDA, 1)).id(), 0);
  impl::set_current_stream(s);
  EXPECT_EQ(impl::current_stream(Device(DeviceType::CUDA, 1)), s);
  EXPECT_EQ(impl::current_stream(Device(DeviceType::CUDA, 0)).id(), 0);
  StreamId other_thread = -1;
  std::thread([&] { other_thread = impl::current_stream(Device(DeviceType::CUDA, 1)).id(); }).join();
  EXPECT_EQ(other_thread, 0);
  EXPECT_THROW(impl::current_stream(Device(DeviceType::CUDA, 5)), IndexError);
}

TEST_F(WithFakeCuda, StreamGuardSwitchesDeviceAndStreamAndRestoresBoth) {
  const Stream s(Device(DeviceType::CUDA, 2), 9);
  {
    impl::StreamGuard g(s);
    EXPECT_EQ(fake_.current_device(), 2);
    EXPECT_EQ(impl::current_stream(Device(DeviceType::CUDA)), s);
  }
  EXPECT_EQ(fake_.current_device(), 0);
  EXPECT_EQ(impl::current_stream(Device(DeviceType::CUDA, 2)).id(), 0);
}

namespace {
int g_seed_calls = 0;
int g_last_seed = 0;
void record_seed(void* arg) {
  ++g_seed_calls;
  g_last_seed = *static_cast<int*>(arg);
}
}  // namespace

TEST_F(WithFakeCuda, LazyCallsRunAtInitializationKeepingTheLatestPerKey) {
  static int first = 1, second = 2;
  g_seed_calls = 0;
  EXPECT_FALSE(impl::is_initialized(DeviceType::CUDA));
  impl::lazy_call(DeviceType::CUDA, "manual_seed", record_seed, &first);
  impl::lazy_call(DeviceType::CUDA, "manual_seed", record_seed, &second);
  EXPECT_EQ(g_seed_calls, 0);
  impl::lazy_init(DeviceType::CUDA);
  EXPECT_TRUE(impl::is_initialized(DeviceType::CUDA));
  EXPECT_EQ(g_seed_calls, 1);
  EXPECT_EQ(g_last_seed, 2);
  impl::lazy_call(DeviceType::CUDA, "manual_seed", record_seed, &first);  // now runs at once
  EXPECT_EQ(g_seed_calls, 2);
}

TEST_F(WithFakeCuda, EnsureHasIndexUsesTheCurrentDevice) {
  impl::DeviceGuard g(Device(DeviceType::CUDA, 1));
  EXPECT_EQ(impl::ensure_has_index(Device("cuda")), Device("cuda:1"));
  EXPECT_EQ(impl::ensure_has_index(Device("cuda:2")), Device("cuda:2"));
  EXPECT_EQ(impl::ensure_has_index(Device("cpu")), Device("cpu"));
}

TEST(VisibleDevices, ParsesAsPyTorch) {
  auto ords = [](const char* v) { return impl::parse_visible_devices(v).ordinals; };
  EXPECT_EQ(ords(nullptr).size(), 64u);
  EXPECT_EQ(ords("0,1,-1,2"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ords("0,,1"), (std::vector<int64_t>{0}));
  EXPECT_EQ(ords("0,0"), (std::vector<int64_t>{}));
  EXPECT_EQ(ords("1gpu2"), (std::vector<int64_t>{1}));
  EXPECT_EQ(ords(" 2 , 1"), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(ords(""), (std::vector<int64_t>{}));
  impl::VisibleDevices u = impl::parse_visible_devices("GPU-ab,GPU-cd,xyz,GPU-ef");
  EXPECT_TRUE(u.uuids);
  EXPECT_EQ(u.names, (std::vector<std::string>{"GPU-ab", "GPU-cd"}));
  EXPECT_TRUE(impl::parse_visible_devices("GPU-a,GPU-a").names.empty());
}

TEST(VisibleDevices, CountsAgainstPhysicalDevices) {
  EXPECT_EQ(impl::visible_ordinals(impl::parse_visible_devices("0,5,1"), 2, {}), (std::vector<int>{0}));
  EXPECT_EQ(impl::visible_ordinals(impl::parse_visible_devices("1,0"), 2, {}), (std::vector<int>{1, 0}));
  const std::vector<std::string> uuids = {"GPU-aaaa", "GPU-abbb", "GPU-cccc"};
  EXPECT_EQ(impl::visible_ordinals(impl::parse_visible_devices("GPU-c,GPU-aa"), 3, uuids), (std::vector<int>{2, 0}));
  EXPECT_EQ(impl::visible_ordinals(impl::parse_visible_devices("GPU-a"), 3, uuids), (std::vector<int>{}));  // ambiguous
}
