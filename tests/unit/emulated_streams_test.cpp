// The emulated CUDA runtime, part 2: streams (ids, pools, FIFO order, asynchrony, sticky errors,
// the legacy default stream), events (timing, waits across streams and devices), reorder mode,
// and concurrent use from several host threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <latch>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/emulated/runtime.h"
#include "ctorch/emulation.h"
#include "ctorch/error.h"

using namespace ctorch;
using ctorch::backends::emulated::EmulatedRuntime;
using namespace std::chrono_literals;

namespace {

cuda::EmulationConfig small(int devices = 2, bool reorder = false) {
  cuda::EmulationConfig c;
  c.devices = devices;
  c.memory = size_t{64} << 20;
  c.reorder = reorder;
  c.seed = 1234;
  return c;
}

template <class E, class F>
void expect_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an exception containing: " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type; message: " << e.what();
  }
}

// A gate a task can block on until the host opens it.
struct Gate {
  std::latch latch{1};
  void open() { latch.count_down(); }
  std::function<void()> task() {
    return [this] { latch.wait(); };
  }
};

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

// --- stream pool ---------------------------------------------------------------------------

TEST(EmulatedStreams, PoolIsRoundRobinWithPyTorchStreamIds) {
  EmulatedRuntime rt(small(2));
  std::vector<Stream> first;
  for (int i = 0; i < 32; ++i) {
    Stream s = rt.create_stream(0, 0);
    EXPECT_EQ(s.device(), Device(DeviceType::CUDA, 0));
    EXPECT_EQ(s.id(), (StreamId{i} << 5) | (1 << 1) | 1);
    first.push_back(s);
  }
  EXPECT_EQ(rt.create_stream(0, 0), first[0]);  // the 33rd aliases the 1st
  EXPECT_EQ(rt.create_stream(1, 0).id(), 3);   // counters are per device
  // Priority levels 0..-3: type = pri_idx + 1, clamped.
  Stream hi = rt.create_stream(0, -1);
  EXPECT_EQ(hi.id(), (0 << 5) | (2 << 1) | 1);
  EXPECT_EQ(rt.create_stream(0, -3).id(), (0 << 5) | (4 << 1) | 1);
  EXPECT_EQ(rt.create_stream(0, -100).id(), (1 << 5) | (4 << 1) | 1);
  EXPECT_EQ(rt.create_stream(0, 5).id(), (1 << 5) | (1 << 1) | 1);
  EXPECT_EQ(rt.stream_priority(hi), -1);
  EXPECT_EQ(rt.stream_priority(Stream::default_stream(Device(DeviceType::CUDA, 0))), 0);
  expect_error<Error>([&] { rt.create_stream(2, 0); }, "Device index value 2 is out of index range [0, 2)");
  expect_error<Error>([&] { rt.query_stream(Stream(Device(DeviceType::CUDA, 0), 2)); }, "was never created");
  expect_error<Error>([&] { rt.query_stream(Stream(Device(DeviceType::CUDA, 0), (40 << 5) | 3)); },
                      "was never created");
  Stream blocking = rt.create_blocking_stream(0);
  EXPECT_EQ(blocking.id() % 2, 0);
  EXPECT_NE(blocking.id(), 0);
  EXPECT_TRUE(rt.query_stream(blocking));
}

TEST(EmulatedStreams, TasksRunInFifoOrder) {
  EmulatedRuntime rt(small(1));
  Stream s = rt.create_stream(0, 0);
  std::vector<int> order;  // touched only by the stream's worker until synchronize
  for (int i = 0; i < 2000; ++i) rt.enqueue(s, [&order, i] { order.push_back(i); }, "push");
  rt.synchronize_stream(s);
  ASSERT_EQ(order.size(), 2000u);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(order[i], i);
}

TEST(EmulatedStreams, WorkIsAsynchronousToTheHost) {
  EmulatedRuntime rt(small(1));
  Stream s = rt.create_stream(0, 0);
  Gate gate;
  std::atomic<bool> ran{false};
  rt.enqueue(s, gate.task(), "gate");
  rt.enqueue(s, [&] { ran = true; }, "after gate");
  EXPECT_FALSE(rt.query_stream(s));  // the host is not blocked
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(ran.load());
  EXPECT_FALSE(rt.query_stream(s));
  EXPECT_TRUE(rt.query_stream(rt.create_stream(0, 0)));  // another stream is idle
  gate.open();
  rt.synchronize_stream(s);
  EXPECT_TRUE(ran.load());
  EXPECT_TRUE(rt.query_stream(s));
}

TEST(EmulatedStreams, ErrorsAreStickyWithTheSite) {
  EmulatedRuntime rt(small(2));
  Stream s = rt.create_stream(0, 0);
  Stream other = rt.create_stream(0, 0);
  Stream remote = rt.create_stream(1, 0);
  impl::EventHandle before = rt.create_event(0, {});
  impl::EventHandle after = rt.create_event(0, {});
  std::atomic<bool> later_ran{false};
  rt.enqueue(s, [] {}, "fine");
  rt.record_event(before, s);
  rt.enqueue(s, [] { throw ValueError("index 7 is out of bounds"); }, "gather at ops/index.cpp:42");
  rt.enqueue(s, [&] { later_ran = true; }, "later");
  rt.record_event(after, s);
  expect_error<Error>([&] { rt.synchronize_stream(s); }, "index 7 is out of bounds");
  expect_error<Error>([&] { rt.synchronize_stream(s); }, "in 'gather at ops/index.cpp:42'");
  EXPECT_FALSE(later_ran.load());  // skipped
  expect_error<Error>([&] { rt.query_stream(s); }, "index 7 is out of bounds");  // still sticky
  expect_error<Error>([&] { rt.synchronize_device(0); }, "gather at ops/index.cpp:42");
  EXPECT_TRUE(rt.query_event(before));  // recorded before the failure
  expect_error<Error>([&] { rt.query_event(after); }, "index 7 is out of bounds");
  expect_error<Error>([&] { rt.synchronize_event(after); }, "index 7 is out of bounds");
  rt.enqueue(s, [&] { later_ran = true; }, "even later");
  expect_error<Error>([&] { rt.synchronize_stream(s); }, "emulated cuda:0 stream 3");
  EXPECT_FALSE(later_ran.load());
  // Other streams are unaffected until they wait on the failed work.
  rt.enqueue(other, [] {}, "unrelated");
  rt.synchronize_stream(other);
  rt.synchronize_device(1);
  rt.wait_event(remote, after);
  expect_error<Error>([&] { rt.synchronize_stream(remote); }, "index 7 is out of bounds");
  rt.destroy_event(before);
  rt.destroy_event(after);
}

TEST(EmulatedStreams, IllegalAccessInATaskIsStickyAndFreeWaitsForWork) {
  EmulatedRuntime rt(small(1));
  Stream s = rt.create_stream(0, 0);
  void* p = rt.raw_allocate(0, 256);
  std::atomic<int> seen{0};
  // raw_free waits for queued work, so this task still sees live memory.
  rt.enqueue(s, [&] {
    std::this_thread::sleep_for(30ms);
    auto* a = static_cast<unsigned char*>(rt.translate(p, 256, 0));
    seen = a[0];
  }, "slow reader");
  const auto t0 = std::chrono::steady_clock::now();
  rt.raw_free(0, p);
  EXPECT_GE(ms_since(t0), 25.0);
  EXPECT_EQ(seen.load(), 0xA5);
  rt.synchronize_stream(s);
  // After the free, a task that touches the memory fails with an illegal access.
  rt.enqueue(s, [&] { rt.translate(p, 4, 0); }, "use after free");
  expect_error<Error>([&] { rt.synchronize_stream(s); }, "an illegal memory access was encountered");
}

TEST(EmulatedStreams, SynchronizingFromOwnTaskIsAnError) {
  EmulatedRuntime rt(small(1));
  Stream s = rt.create_stream(0, 0);
  rt.enqueue(s, [&] { rt.synchronize_stream(s); }, "self sync");
  expect_error<Error>([&] { rt.synchronize_stream(s); }, "it would wait for itself");
}

// --- legacy default stream -----------------------------------------------------------------

TEST(EmulatedStreams, DefaultStreamDoesNotSynchronizeWithPoolStreams) {
  // Pool streams are non-blocking, as in PyTorch: the seeds' race example relies on this.
  EmulatedRuntime rt(small(1));
  Stream def = Stream::default_stream(Device(DeviceType::CUDA, 0));
  Stream pool = rt.create_stream(0, 0);
  Gate gate;
  rt.enqueue(def, gate.task(), "default blocked");
  std::atomic<bool> ran{false};
  rt.enqueue(pool, [&] { ran = true; }, "pool work");
  rt.synchronize_stream(pool);  // does not wait for the default stream
  EXPECT_TRUE(ran.load());
  EXPECT_FALSE(rt.query_stream(def));
  // And the default stream does not wait for pool streams either.
  Gate gate2;
  rt.enqueue(pool, gate2.task(), "pool blocked");
  gate.open();
  rt.enqueue(def, [] {}, "default after");
  rt.synchronize_stream(def);
  EXPECT_FALSE(rt.query_stream(pool));
  gate2.open();
  rt.synchronize_device(0);
}

TEST(EmulatedStreams, DefaultStreamSynchronizesWithBlockingStreams) {
  EmulatedRuntime rt(small(1));
  Stream def = Stream::default_stream(Device(DeviceType::CUDA, 0));
  Stream blocking = rt.create_blocking_stream(0);
  std::mutex mu;
  std::vector<std::string> order;
  auto log = [&](std::string what) {
    return [&, what] {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(what);
    };
  };
  // Later work on a blocking stream waits for earlier default-stream work...
  Gate gate;
  rt.enqueue(def, gate.task(), "default gate");
  rt.enqueue(def, log("default"), "default");
  rt.enqueue(blocking, log("blocking"), "blocking");
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(rt.query_stream(blocking));
  gate.open();
  rt.synchronize_stream(blocking);
  // ...and later default-stream work waits for earlier work on blocking streams.
  Gate gate2;
  rt.enqueue(blocking, gate2.task(), "blocking gate");
  rt.enqueue(blocking, log("blocking 2"), "blocking 2");
  rt.enqueue(def, log("default 2"), "default 2");
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(rt.query_stream(def));
  gate2.open();
  rt.synchronize_stream(def);
  EXPECT_EQ(order, (std::vector<std::string>{"default", "blocking", "blocking 2", "default 2"}));
}

// --- events --------------------------------------------------------------------------------

TEST(EmulatedEvents, TimingMeasuresWorkOnTheStream) {
  EmulatedRuntime rt(small(2));
  Stream s = rt.create_stream(0, 0);
  impl::EventHandle a = rt.create_event(0, {.enable_timing = true});
  impl::EventHandle b = rt.create_event(0, {.enable_timing = true});
  impl::EventHandle plain = rt.create_event(0, {});
  expect_error<ValueError>([&] { rt.elapsed_ms(a, b); },
                           "Both events must be recorded before calculating elapsed time.");
  expect_error<ValueError>([&] { rt.elapsed_ms(a, plain); },
                           "Both events must be created with argument 'enable_timing=True'.");
  EXPECT_TRUE(rt.query_event(a));  // never recorded
  rt.synchronize_event(a);
  Gate gate;
  rt.enqueue(s, gate.task(), "gate");
  rt.record_event(a, s);
  rt.enqueue(s, [] { std::this_thread::sleep_for(20ms); }, "sleep");
  rt.record_event(b, s);
  EXPECT_FALSE(rt.query_event(a));
  expect_error<Error>([&] { rt.elapsed_ms(a, b); }, "Both events must be completed before calculating elapsed time.");
  std::this_thread::sleep_for(15ms);  // host time before the gate opens is not counted
  gate.open();
  rt.synchronize_event(b);
  EXPECT_TRUE(rt.query_event(a));
  const float ms = rt.elapsed_ms(a, b);
  EXPECT_GE(ms, 20.0f);
  EXPECT_LT(ms, 2000.0f);
  // Recording on another device's stream is refused.
  expect_error<Error>([&] { rt.record_event(a, rt.create_stream(1, 0)); },
                      "Event device 0 does not match recording stream's device 1.");
  // Re-recording replaces the captured position.
  rt.record_event(a, s);
  rt.synchronize_event(a);
  EXPECT_LT(rt.elapsed_ms(b, a), 1000.0f);
  rt.destroy_event(a);
  rt.destroy_event(b);
  rt.destroy_event(plain);
  rt.destroy_event(plain);  // unknown handle: ignored
  expect_error<Error>([&] { rt.query_event(a); }, "invalid resource handle");
}

TEST(EmulatedEvents, WaitEventAcrossStreamsAndDevices) {
  EmulatedRuntime rt(small(2));
  Stream producer = rt.create_stream(0, 0);
  Stream consumer = rt.create_stream(1, 0);
  Stream same_device = rt.create_stream(0, 0);
  impl::EventHandle e = rt.create_event(0, {});
  int value = 0;
  int seen_remote = -1, seen_local = -1;
  Gate gate;
  rt.enqueue(producer, gate.task(), "gate");
  rt.enqueue(producer, [&] { value = 42; }, "produce");
  rt.record_event(e, producer);
  rt.wait_event(consumer, e);  // returns at once: the wait is on the device side
  rt.wait_event(same_device, e);
  rt.enqueue(consumer, [&] { seen_remote = value; }, "consume on cuda:1");
  rt.enqueue(same_device, [&] { seen_local = value; }, "consume on cuda:0");
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(rt.query_stream(consumer));
  EXPECT_FALSE(rt.query_stream(same_device));
  gate.open();
  rt.synchronize_stream(consumer);
  rt.synchronize_stream(same_device);
  EXPECT_EQ(seen_remote, 42);
  EXPECT_EQ(seen_local, 42);
  // Waiting on an event that was never recorded is a no-op.
  impl::EventHandle fresh = rt.create_event(1, {});
  rt.wait_event(consumer, fresh);
  EXPECT_TRUE(rt.query_stream(consumer));
  rt.destroy_event(e);
  rt.destroy_event(fresh);
}

// --- reorder mode --------------------------------------------------------------------------

TEST(EmulatedReorder, RespectsStreamOrderAndEvents) {
  EmulatedRuntime rt(small(2, /*reorder=*/true));
  Stream a = rt.create_stream(0, 0);
  Stream b = rt.create_stream(1, 0);
  // Stream a fills slot i, then records event i; stream b waits for event i and reads slot i.
  // Later writes on a touch other slots, so b's reads are ordered by the events alone.
  std::vector<int> slots(20, 0), seen(20, -1), order;
  std::vector<impl::EventHandle> events;
  for (int i = 0; i < 20; ++i) {
    rt.enqueue(a, [&slots, &order, i] {
      slots[i] = i + 1;
      order.push_back(i);
    }, "a");
    impl::EventHandle e = rt.create_event(0, {});
    rt.record_event(e, a);
    rt.wait_event(b, e);
    rt.enqueue(b, [&slots, &seen, i] { seen[i] = slots[i]; }, "b");
    events.push_back(e);
  }
  rt.synchronize_device(1);
  rt.synchronize_device(0);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(order[i], i);
    EXPECT_EQ(seen[i], i + 1);
  }
  for (auto e : events) rt.destroy_event(e);
}

TEST(EmulatedReorder, DelaysExposeMissingSynchronization) {
  // Without an event wait, stream b's read races with stream a's write; reorder mode makes the
  // outcome vary. With the wait it is always right.
  EmulatedRuntime rt(small(1, /*reorder=*/true));
  Stream a = rt.create_stream(0, 0);
  Stream b = rt.create_stream(0, 0);
  int racy_misses = 0;
  for (int i = 0; i < 30; ++i) {
    std::atomic<int> value{0};
    std::atomic<int> seen{-1};
    rt.enqueue(a, [&] { value = 1; }, "write");
    rt.enqueue(b, [&] { seen = value.load(); }, "racy read");
    rt.synchronize_stream(a);
    rt.synchronize_stream(b);
    racy_misses += seen.load() == 0;
  }
  EXPECT_GT(racy_misses, 0);
  EXPECT_LT(racy_misses, 30);
}

// --- concurrency ---------------------------------------------------------------------------

TEST(EmulatedConcurrency, ManyHostThreads) {
  EmulatedRuntime rt(small(2));
  static constexpr int kThreads = 4, kIterations = 40, kInts = 4096;
  std::atomic<int> failures{0};
  auto body = [&](int t) {
    try {
      for (int it = 0; it < kIterations; ++it) {
        const DeviceIndex dev = static_cast<DeviceIndex>((t + it) % 2);
        rt.set_current_device(dev);
        Stream s = rt.create_stream(dev, -(it % 4));
        std::vector<int> host(kInts), back(kInts);
        for (int i = 0; i < kInts; ++i) host[i] = t * 100000 + it * 1000 + i;
        void* d = rt.raw_allocate(dev, kInts * sizeof(int));
        rt.copy_async(d, dev, host.data(), -1, kInts * sizeof(int), s);
        rt.enqueue(s, [&rt, d, dev] {
          auto* p = static_cast<int*>(rt.translate(d, kInts * sizeof(int), dev));
          for (int i = 0; i < kInts; ++i) p[i] *= 2;
        }, "double");
        impl::EventHandle e = rt.create_event(dev, {.enable_timing = true});
        rt.record_event(e, s);
        Stream other = rt.create_stream(1 - dev, 0);
        rt.wait_event(other, e);
        rt.copy_async(back.data(), -1, d, dev, kInts * sizeof(int), other);  // peer read from cuda:1-dev
        for (int i = 0; i < kInts; ++i) {
          if (back[i] != 2 * host[i]) {
            ++failures;
            break;
          }
        }
        rt.synchronize_event(e);
        rt.destroy_event(e);
        rt.raw_free(dev, d);
        if (rt.current_device() != dev) ++failures;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      ++failures;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  rt.synchronize_device(0);
  rt.synchronize_device(1);
  EXPECT_EQ(rt.live_allocations(0) + rt.live_allocations(1), 0u);
}

TEST(EmulatedLifetime, DestructionWaitsForQueuedWork) {
  std::atomic<int> done{0};
  {
    EmulatedRuntime rt(small(1));
    Stream s = rt.create_stream(0, 0);
    for (int i = 0; i < 10; ++i) {
      rt.enqueue(s, [&] {
        std::this_thread::sleep_for(1ms);
        ++done;
      }, "work");
    }
  }
  EXPECT_EQ(done.load(), 10);
}

TEST(EmulatedLifetime, ProcessExitWithAStuckTaskDoesNotHang) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto& rt = backends::emulated::instance();
        rt.configure(small(1));
        Stream s = rt.create_stream(0, 0);
        static std::latch never(1);
        static std::latch running(1);
        rt.enqueue(s, [] {
          running.count_down();
          never.wait();
        }, "stuck");
        rt.enqueue(s, [] { std::fprintf(stderr, "queued task ran\n"); }, "queued behind it");
        running.wait();
        std::exit(3);  // the worker is stuck: exit waits about 2 s for it, then leaves it
      },
      testing::ExitedWithCode(3), "^$");
}
