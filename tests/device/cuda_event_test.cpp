// torch.cuda.Event: lazy creation, record/wait/query/synchronize, elapsed_time and its errors.
#include <chrono>
#include <sstream>
#include <thread>

#include "ctorch/cuda_event.h"
#include "device/device_test.h"
#include "device/stream_test_util.h"

namespace ctorch::testing {
namespace {

class CudaEventTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    cuda::set_device(0);
  }
  bool emulated() const { return GetParam() == Backend::Emulated; }
};

std::string repr(const cuda::Event& e) {
  std::ostringstream os;
  os << e;
  return os.str();
}

template <class E, class F>
void expect_error(F&& f, const char* message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const E& e) {
    EXPECT_STREQ(e.what(), message);
  }
}

TEST_P(CudaEventTest, UnrecordedEventIsLazy) {
  cuda::Event e;
  EXPECT_FALSE(e.is_created());
  EXPECT_TRUE(e.query());
  e.synchronize();  // no-op
  e.wait();         // no-op
  EXPECT_FALSE(e.device().has_value());
  EXPECT_EQ(e.cuda_event(), 0u);
  EXPECT_EQ(repr(e), "<torch.cuda.Event uninitialized>");
}

TEST_P(CudaEventTest, RecordCreatesOnTheStreamsDevice) {
  const cuda::Stream s(1);
  cuda::Event e;
  e.record(s);
  EXPECT_TRUE(e.is_created());
  EXPECT_EQ(e.device(), Device("cuda:1"));
  std::ostringstream expected;
  expected << "<torch.cuda.Event 0x" << std::hex << e.cuda_event() << ">";
  EXPECT_EQ(repr(e), expected.str());
  e.synchronize();
  EXPECT_TRUE(e.query());
  e.record(cuda::Stream(1));  // re-recording on the same device is fine
  expect_error<Error>([&] { e.record(cuda::default_stream(0)); },
                      "Event device 1 does not match recording stream's device 0.");
  cuda::Event copy = e;  // copies name the same event
  EXPECT_EQ(copy, e);
  EXPECT_EQ(copy.cuda_event(), e.cuda_event());
}

TEST_P(CudaEventTest, RecordDefaultsToTheCurrentStream) {
  const cuda::Stream s(0);
  auto block = cuda::stream(s);
  cuda::Event e;
  e.record();
  EXPECT_EQ(e.device(), Device("cuda:0"));
  const cuda::Event r = s.record_event();
  EXPECT_TRUE(r.is_created());
  EXPECT_FALSE(r.enable_timing());
  const cuda::Event mine(true);
  EXPECT_EQ(s.record_event(mine), mine) << "record_event(e) records e and returns it";
  EXPECT_TRUE(mine.is_created());
}

TEST_P(CudaEventTest, QueryAndWaitFollowTheRecordedWork) {
  if (!emulated()) GTEST_SKIP() << "needs the emulated gate";
  const cuda::Stream producer(0), consumer(0);
  Gate gate;
  gate.block(producer);
  const cuda::Event e = producer.record_event();
  EXPECT_FALSE(e.query()) << "the recorded work is held by the gate";
  consumer.wait_event(e);  // the host does not block
  EXPECT_FALSE(consumer.query()) << "the consumer waits for the event on the device";
  gate.open();
  e.synchronize();
  EXPECT_TRUE(e.query());
  consumer.synchronize();
  EXPECT_TRUE(consumer.query());
}

TEST_P(CudaEventTest, ElapsedTimeMeasuresTheWorkBetweenEvents) {
  const cuda::Stream s(0);
  const cuda::Event start(true), end(true);
  start.record(s);
  if (emulated()) {
    backends::emulated::instance().enqueue(
        s.unwrap(), [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }, "sleep");
  } else {
    auto block = cuda::stream(s);
    Tensor t = ones({1 << 20}, on_device());
    (void)t.mul(2.0);
  }
  end.record(s);
  end.synchronize();
  const float ms = start.elapsed_time(end);
  EXPECT_GE(ms, 0.0f);
  if (emulated()) {
    EXPECT_GE(ms, 19.0f);
    EXPECT_LT(ms, 5000.0f);
  }
  EXPECT_LE(end.elapsed_time(start), 0.0f) << "negative the other way round";
}

TEST_P(CudaEventTest, ElapsedTimeErrors) {
  const cuda::Stream s(0);
  {
    const cuda::Event a, b;
    a.record(s);
    b.record(s);
    b.synchronize();
    expect_error<ValueError>([&] { (void)a.elapsed_time(b); },
                             "Both events must be created with argument 'enable_timing=True'.");
    const cuda::Event timed(true);
    timed.record(s);
    expect_error<ValueError>([&] { (void)timed.elapsed_time(b); },
                             "Both events must be created with argument 'enable_timing=True'.");
  }
  {
    const cuda::Event a(true), b(true);
    a.record(s);
    expect_error<ValueError>([&] { (void)a.elapsed_time(b); },
                             "Both events must be recorded before calculating elapsed time.");
    expect_error<ValueError>([&] { (void)b.elapsed_time(a); },
                             "Both events must be recorded before calculating elapsed time.");
  }
  if (emulated()) {
    const cuda::Event a(true), b(true);
    Gate gate;
    a.record(s);
    gate.block(s);
    b.record(s);
    expect_error<Error>([&] { (void)a.elapsed_time(b); },
                        "Both events must be completed before calculating elapsed time.");
    gate.open();
    b.synchronize();
    EXPECT_GE(a.elapsed_time(b), 0.0f);
  }
  {
    const cuda::Event a(true), b(true);
    a.record(cuda::Stream(0));
    b.record(cuda::Stream(1));
    a.synchronize();
    b.synchronize();
    try {
      (void)a.elapsed_time(b);
      ADD_FAILURE() << "events of different devices timed";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("invalid resource handle"), std::string::npos) << e.what();
    }
  }
}

TEST_P(CudaEventTest, WaitOnAnotherDevicesStream) {
  const cuda::Stream s0(0), s1(1);
  Gate gate;
  if (emulated()) gate.block(s0);
  cuda::Event done;
  done.record(s0);
  done.wait(s1);  // any device may wait; the host does not block
  if (emulated()) {
    EXPECT_FALSE(s1.query()) << "cuda:1's stream waits for cuda:0's work";
    gate.open();
  }
  s1.synchronize();
  EXPECT_TRUE(s1.query());
  EXPECT_TRUE(done.query()) << "s1 finished, so the event it waited for has completed";
}

CTORCH_INSTANTIATE_CUDA_TESTS(CudaEventTest);

}  // namespace
}  // namespace ctorch::testing
