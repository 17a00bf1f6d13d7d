// torch.cuda.set_sync_debug_mode: warnings and errors on operations that make the host wait.
#include <string>
#include <vector>

#include "ctorch/warning.h"
#include "device/device_test.h"

namespace ctorch::testing {
namespace {

constexpr const char* kSyncMessage = "called a synchronizing CUDA operation";

class CudaSyncDebugTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    cuda::set_device(0);
    guard_ = std::make_unique<WarningHandlerGuard>([this](const std::string& m) { warnings_.push_back(m); });
  }
  void TearDown() override {
    if (guard_) cuda::set_sync_debug_mode(0);
    guard_.reset();
  }
  /// Sync warnings seen since the last call (other warnings, e.g. the prototype notice, are dropped).
  int take_sync_warnings() {
    int n = 0;
    for (const std::string& m : warnings_) n += m == kSyncMessage;
    warnings_.clear();
    return n;
  }

 private:
  std::vector<std::string> warnings_;
  std::unique_ptr<WarningHandlerGuard> guard_;
};

TEST_P(CudaSyncDebugTest, ModesByNumberAndName) {
  EXPECT_EQ(cuda::get_sync_debug_mode(), 0);
  cuda::set_sync_debug_mode("warn");
  EXPECT_EQ(cuda::get_sync_debug_mode(), 1);
  cuda::set_sync_debug_mode("error");
  EXPECT_EQ(cuda::get_sync_debug_mode(), 2);
  cuda::set_sync_debug_mode("default");
  EXPECT_EQ(cuda::get_sync_debug_mode(), 0);
  cuda::set_sync_debug_mode(1);
  EXPECT_EQ(cuda::get_sync_debug_mode(), 1);
  try {
    cuda::set_sync_debug_mode(3);
    ADD_FAILURE() << "mode 3 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid value of debug_mode, expected one of 0,1,2");
  }
  try {
    cuda::set_sync_debug_mode("loud");
    ADD_FAILURE() << "mode 'loud' accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid value of debug_mode, expected one of `default`, `warn`, `error`");
  }
  EXPECT_EQ(cuda::get_sync_debug_mode(), 1) << "a rejected value changes nothing";
}

TEST_P(CudaSyncDebugTest, WarnModeReportsEachSynchronizingOperation) {
  Tensor x = full({8}, 2.0, on_device());  // H2D-free: a fill on the device
  Tensor host = ones({8});
  take_sync_warnings();
  cuda::set_sync_debug_mode("warn");
  EXPECT_EQ(x.sum().item<double>(), 16.0);
  EXPECT_EQ(take_sync_warnings(), 1) << "item()";
  Tensor back = x.cpu();
  EXPECT_EQ(take_sync_warnings(), 1) << "blocking D2H copy";
  Tensor up = host.to(device());
  EXPECT_EQ(take_sync_warnings(), 1) << "blocking H2D copy";
  Tensor pinned = ones({8}).pin_memory();
  Tensor async_up = pinned.to(device(), /*non_blocking=*/true);
  EXPECT_EQ(take_sync_warnings(), 0) << "non_blocking copies are not reported";
  cuda::current_stream().synchronize();
  EXPECT_EQ(take_sync_warnings(), 1) << "Stream.synchronize";
  cuda::synchronize();
  cuda::Event e;
  e.record();
  e.synchronize();
  EXPECT_EQ(take_sync_warnings(), 0) << "torch.cuda.synchronize and Event.synchronize are not reported";
  (void)x.add(1.0);
  EXPECT_EQ(take_sync_warnings(), 0) << "asynchronous ops are not reported";
  cuda::set_sync_debug_mode(0);
  (void)x.sum().item<double>();
  EXPECT_EQ(take_sync_warnings(), 0) << "default mode is silent";
}

TEST_P(CudaSyncDebugTest, ErrorModeThrowsBeforeTheCopy) {
  Tensor x = full({4}, 3.0, on_device());
  Tensor dst = zeros({4});
  cuda::set_sync_debug_mode("error");
  try {
    (void)x.sum().item<double>();
    ADD_FAILURE() << "item() did not throw";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), kSyncMessage);
  }
  EXPECT_THROW(dst.copy_(x), Error);
  EXPECT_THROW(cuda::current_stream().synchronize(), Error);
  cuda::set_sync_debug_mode(0);
  EXPECT_EQ(dst.sum().item<double>(), 0.0) << "the refused copy left dst as it was";
  dst.copy_(x);
  EXPECT_EQ(dst.sum().item<double>(), 12.0);
}

CTORCH_INSTANTIATE_CUDA_TESTS(CudaSyncDebugTest);

}  // namespace
}  // namespace ctorch::testing
