// ctorch::Future and Work::get_future() (c10d's Work::getFuture) of the Gloo process group, with
// 2 ranks as threads on cpu and emulated cuda devices.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "distributed/dist_test_util.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

namespace dist = ctorch::distributed;

TEST(Future, WaitValueThenAndCompletionOnce) {
  auto f = std::make_shared<Future>();
  EXPECT_FALSE(f->completed());
  EXPECT_NE(error_of([&] { (void)f->value(); }).find("Future::value() called before the future completed"),
            std::string::npos);
  std::thread::id ran_on;
  auto doubled = f->then([&](Future& parent) {
    ran_on = std::this_thread::get_id();
    return std::vector<Tensor>{parent.value()[0] * 2};
  });
  EXPECT_FALSE(doubled->completed());
  std::thread completer([&] { f->mark_completed({full({2}, 3.0)}); });
  const std::thread::id completer_id = completer.get_id();
  completer.join();
  EXPECT_EQ(ran_on, completer_id);  // a callback added before completion runs on the completing thread
  EXPECT_TRUE(f->completed());
  EXPECT_FALSE(f->has_error());
  EXPECT_TRUE(f->wait()[0].equal(full({2}, 3.0)));
  EXPECT_TRUE(doubled->wait()[0].equal(full({2}, 6.0)));
  // Added after completion: runs at once, on this thread.
  auto plus_one = doubled->then([&](Future& parent) {
    ran_on = std::this_thread::get_id();
    return std::vector<Tensor>{parent.value()[0] + 1};
  });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_TRUE(plus_one->completed());
  EXPECT_TRUE(plus_one->value()[0].equal(full({2}, 7.0)));
  EXPECT_NE(error_of([&] { f->mark_completed({}); })
                .find("Attempting to mark a completed Future as complete again. Note that a Future can only be "
                      "marked completed once."),
            std::string::npos);
}

TEST(Future, ErrorsKeepTheirTypeThroughCallbacks) {
  auto f = std::make_shared<Future>();
  auto seen = f->then([](Future& parent) {
    EXPECT_TRUE(parent.has_error());
    return parent.value();  // rethrows the parent's error: the child fails with it
  });
  auto recovered = f->then([](Future& parent) {
    try {
      parent.wait();
    } catch (const dist::DistBackendError&) {
      return std::vector<Tensor>{zeros({1})};
    }
    return std::vector<Tensor>{};
  });
  f->set_error(std::make_exception_ptr(dist::DistBackendError("peer closed")));
  EXPECT_TRUE(f->has_error());
  EXPECT_EQ(error_of<dist::DistBackendError>([&] { f->wait(); }), "peer closed");
  EXPECT_EQ(error_of<dist::DistBackendError>([&] { seen->wait(); }), "peer closed");
  ASSERT_EQ(recovered->wait().size(), 1u);
  auto thrower = recovered->then([](Future&) -> std::vector<Tensor> { throw IndexError("out of range"); });
  EXPECT_EQ(error_of<IndexError>([&] { thrower->wait(); }), "out of range");
}

class WorkFuture : public ::testing::TestWithParam<bool> {  // emulated cuda devices
 protected:
  void SetUp() override {
    if (GetParam()) use_emulated_devices(2);
  }
};

TEST_P(WorkFuture, HoldsTheOutputTensorsOnceTheCollectiveFinished) {
  const bool emulated = GetParam();
  RankStores stores(StoreKind::Tcp, 2);
  const std::string name = unique_group("future");
  run_ranks(2, [&](int rank) {
    if (emulated) cuda::set_device(rank);
    const Device dev = emulated ? Device(DeviceType::CUDA, rank) : Device(DeviceType::CPU);
    const TensorOptions on = TensorOptions().device(dev);
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, std::chrono::seconds(20), name);

    Tensor t = full({3}, rank + 1.0, on);
    auto work = pg->all_reduce(t);
    auto future = work->get_future();
    EXPECT_EQ(work->get_future(), future);  // one future per work
    auto halved = future->then([](Future& f) { return std::vector<Tensor>{f.value()[0] / 2}; });
    const std::vector<Tensor>& value = future->wait();
    ASSERT_EQ(value.size(), 1u);
    EXPECT_TRUE(value[0].is_same(t));  // the output tensor itself, holding the sum
    EXPECT_TRUE(value[0].cpu().equal(full({3}, 3.0)));
    EXPECT_TRUE(work->is_completed());
    EXPECT_TRUE(halved->wait()[0].cpu().equal(full({3}, 1.5)));

    Tensor b = full({2}, rank * 10.0, on);
    EXPECT_TRUE(pg->broadcast(b, 1)->get_future()->wait()[0].cpu().equal(full({2}, 10.0)));

    std::vector<Tensor> gathered = {zeros({2}, on), zeros({2}, on)};
    const std::vector<Tensor> all = pg->all_gather(gathered, full({2}, rank + 5.0, on))->get_future()->wait();
    ASSERT_EQ(all.size(), 2u);
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(all[static_cast<size_t>(i)].is_same(gathered[static_cast<size_t>(i)]));
      EXPECT_TRUE(all[static_cast<size_t>(i)].cpu().equal(full({2}, i + 5.0)));
    }

    Tensor out = zeros({2}, on);
    const std::vector<Tensor> scattered =
        pg->reduce_scatter(out, {full({2}, 1.0, on), full({2}, 2.0, on)})->get_future()->wait();
    ASSERT_EQ(scattered.size(), 1u);
    EXPECT_TRUE(scattered[0].is_same(out));
    EXPECT_TRUE(out.cpu().equal(full({2}, 2.0 * (rank + 1))));

    EXPECT_TRUE(pg->barrier()->get_future()->wait().empty());
  });
}

INSTANTIATE_TEST_SUITE_P(, WorkFuture, ::testing::Values(false, true),
                         [](const auto& info) { return std::string(info.param ? "emulated" : "cpu"); });

TEST(WorkFutureFailure, AFailedCollectiveFailsItsFutureWithDistBackendError) {
  RankStores stores(StoreKind::Tcp, 2, std::chrono::seconds(10));
  std::string waited, chained;
  std::atomic<bool> done{false};
  run_ranks(2, [&](int rank) {
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, std::chrono::milliseconds(1000), "future_fail");
    if (rank == 1) {  // joins, then never calls the collective
      while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return;
    }
    auto future = pg->all_reduce(ones({4}))->get_future();
    auto child = future->then([](Future& f) { return f.value(); });
    waited = error_of<dist::DistBackendError>([&] { future->wait(); });
    chained = error_of<dist::DistBackendError>([&] { child->wait(); });
    done = true;
  });
  EXPECT_NE(waited.find("[Rank 0]: Gloo all_reduce (SeqNum=1"), std::string::npos) << waited;
  EXPECT_EQ(chained, waited);
}

}  // namespace
}  // namespace ctorch::testing
