// The stream sanitizer on cuda devices (emulated, and real when present): each race pattern of
// PyTorch's sanitizer tests caught through the public API, the correct versions clean, and a
// racing launch that changes nothing.
#include <string>

#include "ctorch/cuda_event.h"
#include "ctorch/cuda_sanitizer.h"
#include "ctorch/cuda_stream.h"
#include "device/device_test.h"
#include "runtime/device_runtime.h"

namespace ctorch::testing {
namespace {

class CudaSanitizerTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    cuda::set_device(0);
    cuda::enable_cuda_sanitizer();
  }
  void TearDown() override {
    if (!IsSkipped()) cuda::synchronize();
    cuda::disable_cuda_sanitizer();
  }
};

// The errors `f` throws (empty when it does not throw).
template <class F>
std::vector<cuda::UnsynchronizedAccessError> races_of(F&& f) {
  try {
    f();
  } catch (const cuda::CUDASanitizerErrors& e) {
    EXPECT_EQ(std::string(e.what()), "detected " + std::to_string(e.errors().size()) + " errors");
    return e.errors();
  }
  return {};
}

// The seeds' example: sum() on a side stream may start before normal_() on the default stream finishes.
TEST_P(CudaSanitizerTest, SumOnASideStreamRacesTheDefaultStreamsNormal) {
  const cuda::Stream s;
  Tensor a = empty({100, 100}, on_device()).normal_(0.0, 1.0);
  const auto races = races_of([&] {
    cuda::StreamContext ctx(s);
    Tensor b = sum(a);
  });
  ASSERT_EQ(races.size(), 1u);
  const auto& r = races[0];
  EXPECT_EQ(r.current_op, "sum");
  EXPECT_EQ(r.previous_op, "normal_");
  EXPECT_EQ(r.current_stream, s.unwrap());
  EXPECT_EQ(r.previous_stream, cuda::default_stream().unwrap());
  EXPECT_EQ(r.data_ptr, reinterpret_cast<uintptr_t>(a.data_ptr()));
  EXPECT_FALSE(r.previous_in_freed_block);
  const std::string text = r.what();
  EXPECT_NE(text.find("CSAN detected a possible data race on tensor with data pointer " + std::to_string(r.data_ptr)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("during kernel:\nsum\nreading from argument(s) self\nWith stack trace:\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("during kernel:\nnormal_\nwriting to argument(s) self, and to the output\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Tensor was allocated with stack trace:\n"), std::string::npos) << text;
}

TEST_P(CudaSanitizerTest, StackTracesAreRecordedOnRequest) {
  const cuda::Stream s;
  const auto race_text = [&] {
    Tensor a = empty({16}, on_device()).normal_(0.0, 1.0);
    cuda::StreamContext ctx(s);
    const auto races = races_of([&] { a.add_(1); });
    EXPECT_EQ(races.size(), 1u);
    a.record_stream(s);
    return races.empty() ? std::string() : std::string(races[0].what());
  };
  const std::string plain = race_text();
  EXPECT_NE(plain.find("(not recorded: CTORCH_CUDA_SANITIZER=stacks"), std::string::npos) << plain;
  cuda::synchronize();
  cuda::enable_cuda_sanitizer(/*stack_traces=*/true);
  const std::string with_stacks = race_text();
  EXPECT_EQ(with_stacks.find("not recorded"), std::string::npos) << with_stacks;
  EXPECT_NE(with_stacks.find("ctorch::Tensor::normal_"), std::string::npos) << with_stacks;
  EXPECT_NE(with_stacks.find("ctorch::Tensor::add_"), std::string::npos) << with_stacks;
}

TEST_P(CudaSanitizerTest, WaitStreamFixesTheSeedsExample) {
  const cuda::Stream s;
  Tensor a = empty({100, 100}, on_device()).normal_(0.0, 1.0);
  cuda::StreamContext ctx(s);
  s.wait_stream(cuda::default_stream());
  EXPECT_NO_THROW({ Tensor b = sum(a); });
}

TEST_P(CudaSanitizerTest, EachHostSynchronizationFixesIt) {
  for (int how = 0; how < 5; ++how) {
    const cuda::Stream s;
    Tensor a = empty({64}, on_device()).normal_(0.0, 1.0);
    cuda::Event e;
    e.record();
    switch (how) {
      case 0: cuda::synchronize(); break;
      case 1: cuda::default_stream().synchronize(); break;
      case 2: e.synchronize(); break;
      case 3: while (!e.query()) {} break;
      case 4: while (!cuda::default_stream().query()) {} break;
    }
    cuda::StreamContext ctx(s);
    EXPECT_NO_THROW({ Tensor b = sum(a); }) << how;
    a.record_stream(s);  // without it, the next a's normal_ may overwrite this a while s reads it (caught)
  }
}

TEST_P(CudaSanitizerTest, EventWaitOrdersTheSideStream) {
  const cuda::Stream s;
  Tensor a = ones({8}, on_device());
  cuda::Event e;
  e.record();
  {
    cuda::StreamContext ctx(s);
    e.wait();
    EXPECT_NO_THROW(a.mul_(2));
  }
  // The default stream never waited for s: writing a there races s's write.
  const auto races = races_of([&] { a.add_(1); });
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].previous_stream, s.unwrap());
  EXPECT_EQ(races[0].previous_op, "mul");
}

// An interprocess event opened in the process that made it is the same event to the sanitizer:
// a record through one handle orders a wait through the other.
TEST_P(CudaSanitizerTest, SameProcessIpcCopiesAreOneEvent) {
  if (!impl::event_ipc(impl::require_runtime(DeviceType::CUDA))) GTEST_SKIP() << "runtime without event IPC";
  const cuda::Stream s;
  Tensor a = ones({8}, on_device());
  cuda::Event original(false, false, /*interprocess=*/true);
  const cuda::Event copy = cuda::Event::from_ipc_handle(Device("cuda:0"), original.ipc_handle());
  original.record();
  {
    cuda::StreamContext ctx(s);
    copy.wait();
    EXPECT_NO_THROW(a.mul_(2)) << "ordered after the default stream's fill through the copy";
  }
  copy.record(s);
  original.wait();
  EXPECT_NO_THROW(a.add_(1)) << "the default stream waits for s through the original";
  {
    // A copy of another (never recorded) event orders nothing.
    cuda::Event other(false, false, true);
    const cuda::Event unrelated = cuda::Event::from_ipc_handle(Device("cuda:0"), other.ipc_handle());
    cuda::StreamContext ctx(s);
    unrelated.wait();
    EXPECT_EQ(races_of([&] { a.mul_(2); }).size(), 1u) << "s never waited for the default stream's add_";
  }
  EXPECT_EQ(a.sum().item<double>(), 24.0) << "(1 * 2 + 1) * 8; the racing mul_ was not launched";
}

TEST_P(CudaSanitizerTest, WriteAfterReadOnAnotherStreamIsARace) {
  const cuda::Stream s;
  Tensor a = ones({8}, on_device());
  cuda::synchronize();
  {
    cuda::StreamContext ctx(s);
    Tensor b = a * 2;  // reads a on s
  }
  const auto races = races_of([&] { a.fill_(3); });
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].current_op, "fill_");
  EXPECT_EQ(races[0].previous_op, "mul");
}

TEST_P(CudaSanitizerTest, GatherAndScatterOpsAreSeenReadingAndWriting) {
  const cuda::Stream s;
  Tensor a = zeros({8}, on_device());
  const Tensor idx = tensor({0, 3}).to(device());
  const Tensor src = ones({2}, on_device());
  cuda::synchronize();
  {
    cuda::StreamContext ctx(s);
    a.scatter_add_(0, idx, src);  // writes a on s
  }
  auto races = races_of([&] { Tensor b = a * 2; });
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].previous_op, "scatter_add_");
  cuda::synchronize();
  {
    cuda::StreamContext ctx(s);
    Tensor b = a.index({idx});  // reads a on s
  }
  races = races_of([&] { a.fill_(3); });
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].current_op, "fill_");
  EXPECT_EQ(races[0].previous_op, "index");
}

TEST_P(CudaSanitizerTest, ReadsOnTwoStreamsDoNotRace) {
  const cuda::Stream s1, s2;
  Tensor a = ones({8}, on_device());
  cuda::synchronize();
  cuda::StreamContext c1(s1);
  Tensor b = a + 1;
  cuda::StreamContext c2(s2);
  EXPECT_NO_THROW({ Tensor c = a + 2; });
}

TEST_P(CudaSanitizerTest, ARacingKernelIsNotLaunchedAndChangesNothing) {
  const cuda::Stream s;
  Tensor a = full({4}, 5.0f, on_device());
  {
    cuda::StreamContext ctx(s);
    EXPECT_FALSE(races_of([&] { a.add_(1); }).empty());
  }
  cuda::synchronize();
  EXPECT_EQ(a.cpu().sum().item<float>(), 20.0f);
}

TEST_P(CudaSanitizerTest, NonBlockingCopyOnASideStreamMustBeWaitedFor) {
  const cuda::Stream s;
  const Tensor host = ones({1024}, TensorOptions().pinned_memory(true));
  Tensor dev = empty({1024}, on_device());
  cuda::synchronize();
  {
    cuda::StreamContext ctx(s);
    dev.copy_(host, /*non_blocking=*/true);
  }
  const auto races = races_of([&] { Tensor t = dev.sum(); });
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].previous_op, "copy_");
  cuda::current_stream().wait_stream(s);
  EXPECT_NO_THROW({ Tensor t = dev.sum(); });
}

TEST_P(CudaSanitizerTest, FreedBlockReusedWithoutRecordStreamIsCaught) {
  const cuda::Stream s;
  Tensor a = ones({256}, on_device());  // allocated on the default stream
  const uintptr_t address = reinterpret_cast<uintptr_t>(a.data_ptr());
  {
    cuda::StreamContext ctx(s);
    s.wait_stream(cuda::default_stream());
    Tensor b = a * 2;  // a used on s
  }
  a = Tensor();  // freed while s may still read it: the block goes back to the default stream's pool
  Tensor c = empty({256}, on_device());
  ASSERT_EQ(reinterpret_cast<uintptr_t>(c.data_ptr()), address) << "the caching allocator should reuse the block";
  const auto races = races_of([&] { c.fill_(7); });
  ASSERT_EQ(races.size(), 1u);
  EXPECT_TRUE(races[0].previous_in_freed_block);
  EXPECT_EQ(races[0].previous_stream, s.unwrap());
  EXPECT_EQ(races[0].previous_op, "mul");
  EXPECT_NE(std::string(races[0].what()).find("Call record_stream()"), std::string::npos);
}

TEST_P(CudaSanitizerTest, RecordStreamMakesTheReuseSafe) {
  const cuda::Stream s;
  Tensor a = ones({256}, on_device());
  {
    cuda::StreamContext ctx(s);
    s.wait_stream(cuda::default_stream());
    Tensor b = a * 2;
    a.record_stream(s);
  }
  a = Tensor();
  Tensor c = empty({256}, on_device());  // a different block while s may still run; either way safe
  EXPECT_NO_THROW(c.fill_(7));
}

TEST_P(CudaSanitizerTest, CopiesBetweenDevicesAreOrderedWithBothStreams) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two devices";
  Tensor a = ones({64}, on_device());
  Tensor b = a.to(Device("cuda:1"));
  {
    cuda::device g(1);
    EXPECT_NO_THROW(b.mul_(3));
  }
  EXPECT_NO_THROW(a.add_(1));
  cuda::synchronize(1);
}

TEST_P(CudaSanitizerTest, ACorrectWorkloadOnOneStreamIsClean) {
  manual_seed(0);
  Tensor x = randn({32, 16}, on_device());
  Tensor w = rand({16, 8}, on_device());
  for (int i = 0; i < 3; ++i) {
    Tensor y = softmax(matmul(x, w).relu(), 1);
    x = x * 0.5 + y.sum(1, true);
    w.add_(0.01);
  }
  EXPECT_EQ(x.cpu().numel(), 32 * 16);
}

// A synchronization the sanitizer cannot see (the runtime's own, below its hooks) makes a program
// it reports; with the sanitizer off the same program runs without a report.
TEST_P(CudaSanitizerTest, DisabledItSeesNothing) {
  const cuda::Stream s;
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  for (const bool enabled : {true, false}) {
    if (!enabled) cuda::disable_cuda_sanitizer();
    EXPECT_EQ(cuda::is_cuda_sanitizer_enabled(), enabled);
    Tensor a = empty({16}, on_device()).normal_(0.0, 1.0);
    rt.synchronize_device(0);  // no real race: the host waited for normal_
    cuda::StreamContext ctx(s);
    EXPECT_EQ(races_of([&] { Tensor b = sum(a); }).size(), enabled ? 1u : 0u);
    rt.synchronize_device(0);
  }
}

CTORCH_INSTANTIATE_CUDA_TESTS(CudaSanitizerTest);

}  // namespace
}  // namespace ctorch::testing
