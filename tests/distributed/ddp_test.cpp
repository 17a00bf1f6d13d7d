// DistributedDataParallel with 2 ranks as threads: training equals one process on the full batch,
// buckets in reverse order, no_sync, buffer broadcast, and the checks of the constructor.
#include <gtest/gtest.h>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "distributed/dist_test_util.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

namespace dist = ctorch::distributed;
using DDP = nn::parallel::DistributedDataParallel;

std::shared_ptr<nn::Sequential> make_mlp(uint64_t seed) {
  manual_seed(seed);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(6, 16), std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(16, 3)});
}

// The full batch of the step `step`; rank r of w trains on rows [r*n/w, (r+1)*n/w).
std::pair<Tensor, Tensor> batch(int step) {
  Generator g;
  g.manual_seed(100 + static_cast<uint64_t>(step));
  return {randn({8, 6}, {}, g), randn({8, 3}, {}, g)};
}

std::vector<Tensor> train_reference(int steps, Device device) {
  auto model = make_mlp(0);
  model->to(device);
  optim::SGD opt(model->parameters(), 0.1);
  for (int s = 0; s < steps; ++s) {
    auto [x, y] = batch(s);
    opt.zero_grad();
    nn::functional::mse_loss((*model)(x.to(device)), y.to(device)).backward();
    opt.step();
  }
  std::vector<Tensor> out;
  for (const Tensor& p : model->parameters()) out.push_back(p.detach().cpu());
  return out;
}

class DDPTraining : public ::testing::TestWithParam<std::tuple<bool, double>> {};  // emulated, bucket_cap_mb

TEST_P(DDPTraining, EqualsOneProcessOnTheFullBatch) {
  const bool emulated = std::get<0>(GetParam());
  const double cap = std::get<1>(GetParam());
  if (emulated) use_emulated_devices(2);
  auto device_of = [&](int r) { return emulated ? Device(DeviceType::CUDA, r) : Device(DeviceType::CPU); };
  const int steps = 4;
  const std::vector<Tensor> expected = train_reference(steps, device_of(0));
  // Different initial weights per rank: the constructor must broadcast rank 0's.
  std::vector<std::shared_ptr<nn::Sequential>> models = {make_mlp(0), make_mlp(1)};
  std::vector<std::vector<Tensor>> got(2);
  RankStores stores(StoreKind::Tcp, 2);
  const std::string name = unique_group("ddp");
  run_ranks(2, [&](int rank) {
    if (emulated) cuda::set_device(rank);
    const Device dev = device_of(rank);
    models[static_cast<size_t>(rank)]->to(dev);
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, std::chrono::seconds(20), name);
    DDP ddp(models[static_cast<size_t>(rank)], pg, cap);
    if (cap < 0.001) {  // one bucket per parameter, last parameter first
      EXPECT_EQ(ddp.bucket_indices(), (std::vector<std::vector<size_t>>{{3}, {2}, {1}, {0}}));
    } else {
      EXPECT_EQ(ddp.bucket_indices(), (std::vector<std::vector<size_t>>{{3, 2, 1, 0}}));
    }
    EXPECT_EQ(ddp.named_parameters()[0].first, "module.0.weight");
    optim::SGD opt(ddp.parameters(), 0.1);
    for (int s = 0; s < steps; ++s) {
      auto [x, y] = batch(s);
      opt.zero_grad();
      Tensor out = ddp(x.narrow(0, rank * 4, 4).to(dev));
      nn::functional::mse_loss(out, y.narrow(0, rank * 4, 4).to(dev)).backward();
      opt.step();
    }
    for (const Tensor& p : ddp.module()->parameters()) got[static_cast<size_t>(rank)].push_back(p.detach().cpu());
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(got[static_cast<size_t>(r)].size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(got[static_cast<size_t>(r)][i].allclose(expected[i], 1e-5, 1e-6))
          << "rank " << r << " parameter " << i << "\n" << got[static_cast<size_t>(r)][i] << "\n" << expected[i];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(, DDPTraining,
                         ::testing::Combine(::testing::Values(false, true), ::testing::Values(25.0, 0.00001)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "emulated" : "cpu") +
                                  (std::get<1>(info.param) > 1 ? "_one_bucket" : "_bucket_per_parameter");
                         });

TEST(DDP, NoSyncAccumulatesLocallyAndTheNextStepAveragesTheSum) {
  // Reference: gradients of the full-batch losses of two micro-batches, accumulated.
  auto ref = make_mlp(0);
  auto [x0, y0] = batch(0);
  auto [x1, y1] = batch(1);
  nn::functional::mse_loss((*ref)(x0), y0).backward();
  nn::functional::mse_loss((*ref)(x1), y1).backward();
  std::vector<Tensor> expected;
  for (const Tensor& p : ref->parameters()) expected.push_back(p.grad().clone());

  std::vector<std::shared_ptr<nn::Sequential>> models = {make_mlp(0), make_mlp(0)};
  std::vector<Tensor> local_after_no_sync(2);
  std::vector<std::vector<Tensor>> got(2);
  RankStores stores(StoreKind::File, 2);
  run_ranks(2, [&](int rank) {
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, std::chrono::seconds(20), "nosync");
    DDP ddp(models[static_cast<size_t>(rank)], pg);
    {
      auto guard = ddp.no_sync();
      nn::functional::mse_loss(ddp(x0.narrow(0, rank * 4, 4)), y0.narrow(0, rank * 4, 4)).backward();
    }
    local_after_no_sync[static_cast<size_t>(rank)] = ddp.module()->parameters()[0].grad().clone();
    nn::functional::mse_loss(ddp(x1.narrow(0, rank * 4, 4)), y1.narrow(0, rank * 4, 4)).backward();
    for (const Tensor& p : ddp.module()->parameters()) got[static_cast<size_t>(rank)].push_back(p.grad().clone());
  });
  // Under no_sync each rank kept its own gradient.
  EXPECT_FALSE(local_after_no_sync[0].allclose(local_after_no_sync[1]));
  for (int r = 0; r < 2; ++r) {
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(got[static_cast<size_t>(r)][i].allclose(expected[i], 1e-5, 1e-6)) << "rank " << r << " param " << i;
    }
  }
}

// A linear layer scaled by a buffer the forward only reads.
class Scaled : public nn::UnaryModule {
 public:
  Scaled() : UnaryModule("Scaled"), lin(register_module("lin", std::make_shared<nn::Linear>(2, 2))) {
    register_buffer("scale", ones({2}));
  }
  Tensor forward(const Tensor& x) override { return (*lin)(x) * buffers_[0].second; }
  std::shared_ptr<nn::Linear> lin;
};

TEST(DDP, BroadcastBuffersAtEachForward) {
  for (bool broadcast : {true, false}) {
    std::vector<std::shared_ptr<Scaled>> models = {std::make_shared<Scaled>(), std::make_shared<Scaled>()};
    std::vector<Tensor> scale(2);
    RankStores stores(StoreKind::Tcp, 2);
    const std::string name = unique_group("buffers");
    run_ranks(2, [&](int rank) {
      auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, std::chrono::seconds(20), name);
      DDP ddp(models[static_cast<size_t>(rank)], pg, 25.0, broadcast);
      ddp.module()->buffers()[0].fill_(rank + 2.0);  // diverge after construction
      (void)ddp(ones({1, 2})).sum().backward();
      scale[static_cast<size_t>(rank)] = ddp.module()->buffers()[0].clone();
    });
    EXPECT_TRUE(scale[0].equal(full({2}, 2.0)));
    EXPECT_TRUE(scale[1].equal(full({2}, broadcast ? 2.0 : 3.0))) << "broadcast_buffers=" << broadcast;
  }
}

TEST(DDP, ConstructorChecks) {
  std::vector<std::shared_ptr<nn::UnaryModule>> models = {make_mlp(0),
                                                          std::make_shared<nn::Linear>(6, 3)};
  std::vector<std::string> errors(2);
  RankStores stores(StoreKind::File, 2);
  run_ranks(2, [&](int rank) {
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, std::chrono::seconds(20), "checks");
    errors[static_cast<size_t>(rank)] = error_of([&] { DDP ddp(models[static_cast<size_t>(rank)], pg); });
  });
  EXPECT_NE(errors[0].find("DDP expects same model across all ranks, but Rank 0 has 4 params, while rank 1 has "
                           "inconsistent 2 params."),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("DDP expects same model across all ranks, but Rank 1 has 2 params, while rank 0 has "
                           "inconsistent 4 params."),
            std::string::npos)
      << errors[1];
  // Same number of parameters, other sizes.
  std::vector<std::shared_ptr<nn::UnaryModule>> resized = {std::make_shared<nn::Linear>(6, 4),
                                                           std::make_shared<nn::Linear>(6, 3)};
  RankStores stores2(StoreKind::Tcp, 2);
  run_ranks(2, [&](int rank) {
    auto pg = dist::new_gloo_group(stores2.open(rank), rank, 2, std::chrono::seconds(20), "checks2");
    errors[static_cast<size_t>(rank)] = error_of([&] { DDP ddp(resized[static_cast<size_t>(rank)], pg); });
  });
  for (int r = 0; r < 2; ++r) {
    EXPECT_NE(errors[static_cast<size_t>(r)].find(
                  "[" + std::to_string(r) + "]: the 2 params of process 1 hold 21 elements, which appears not to "
                  "match the 28 elements of the same params in process 0."),
              std::string::npos)
        << errors[static_cast<size_t>(r)];
  }
  auto no_params = std::make_shared<nn::ReLU>();
  RankStores one(StoreKind::File, 1);
  auto pg = dist::new_gloo_group(one.open(0), 0, 1, std::chrono::seconds(5), "one");
  EXPECT_NE(error_of([&] { DDP ddp(no_params, pg); }).find("DistributedDataParallel is not needed"), std::string::npos);
  EXPECT_NE(error_of<ValueError>([&] { DDP ddp(make_mlp(0), pg, 0.0); }).find("bucket_cap_mb must be positive"),
            std::string::npos);
}

TEST(Autograd, QueueCallbackRunsAfterBackwardAndOnlyInsideOne) {
  EXPECT_NE(error_of([] { autograd::queue_callback([] {}); }).find("during backward pass"), std::string::npos);
  Tensor w = ones({3}).requires_grad_();
  std::vector<std::string> events;
  w.register_hook([&](const Tensor&) {
    events.push_back("hook");
    autograd::queue_callback([&] {
      events.push_back(w.grad().defined() ? "callback after accumulation" : "callback before accumulation");
    });
  });
  (w * 2).sum().backward();
  EXPECT_EQ(events, (std::vector<std::string>{"hook", "callback after accumulation"}));
}

}  // namespace
}  // namespace ctorch::testing
