// ctorch/data/worker_queue.h: the blocking queue (order, timeout text, clear), the job/result
// shuttle (in-flight count, drain) and the ordered sequencer, with real threads.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "ctorch/data/worker_queue.h"
#include "ctorch/error.h"

namespace ctorch::data::detail {
namespace {

using namespace std::chrono_literals;

TEST(DataWorkerQueue, QueueIsFifoAcrossThreadsAndTimesOut) {
  Queue<int> q;
  std::thread producer([&] {
    for (int i = 0; i < 100; ++i) q.push(i);
  });
  for (int i = 0; i < 100; ++i) EXPECT_EQ(q.pop(), i);
  producer.join();
  try {
    (void)q.pop(5ms);
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Timeout in DataLoader queue while waiting for next batch (timeout was 5 ms)"),
              std::string::npos);
  }
  q.push(1);
  q.push(2);
  EXPECT_EQ(q.clear(), 2u);
}

TEST(DataWorkerQueue, ShuttleCountsJobsInFlightAndDrains) {
  DataShuttle<int, int> shuttle;
  EXPECT_FALSE(shuttle.pop_result().has_value());
  std::thread worker([&] {  // job 0 means quit
    for (int job = shuttle.pop_job(); job != 0; job = shuttle.pop_job()) shuttle.push_result(job * 10);
  });
  for (int i = 1; i <= 3; ++i) shuttle.push_job(i);
  EXPECT_EQ(shuttle.in_flight_jobs(), 3u);
  EXPECT_EQ(shuttle.pop_result().value(), 10);
  shuttle.drain();  // drops the jobs not taken yet, waits for the results of those taken
  EXPECT_EQ(shuttle.in_flight_jobs(), 0u);
  EXPECT_FALSE(shuttle.pop_result().has_value());
  shuttle.push_job(0);
  worker.join();
}

TEST(DataWorkerQueue, OrderedSequencerRestoresJobOrderFromThreads) {
  struct R {
    size_t sequence_number;
  };
  constexpr size_t kJobs = 8;
  Queue<R> results;
  std::vector<std::thread> workers;
  for (size_t i = 0; i < kJobs; ++i) {
    workers.emplace_back([&results, i] {
      std::this_thread::sleep_for(std::chrono::milliseconds((kJobs - i) * 2));  // later jobs finish first
      results.push(R{i});
    });
  }
  sequencers::OrderedSequencer<R> sequencer(kJobs);
  size_t produced = 0;
  for (size_t i = 0; i < kJobs; ++i) {
    auto r = sequencer.next([&]() -> std::optional<R> {
      if (produced == kJobs) return std::nullopt;
      ++produced;
      return results.pop();
    });
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->sequence_number, i);
  }
  EXPECT_TRUE(sequencer.buffer_is_empty());
  for (auto& t : workers) t.join();
}

}  // namespace
}  // namespace ctorch::data::detail
