// nn::DataParallel and nn::parallel on 2 and 4 cuda devices (emulated; real cuda skips below 2
// GPUs): a training step over N devices matches the one-device step, replicas run in parallel on
// their own device, gradients reach the original parameters, PyTorch's contract and errors.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>

#include "ctorch/ctorch.h"
#include "ctorch/distributed_store.h"
#include "device/device_test.h"

namespace ctorch::testing {
namespace {

class DataParallelTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    if (cuda::device_count() < 2) GTEST_SKIP() << "needs two cuda devices";
  }
  /// Makes `n` devices available (emulated) or skips.
  void need(int n) {
    if (GetParam() == Backend::Emulated) use_emulated_devices(n);
    if (cuda::device_count() < n) GTEST_SKIP() << "needs " << n << " cuda devices";
  }
  static Device dev(int i) { return Device(DeviceType::CUDA, static_cast<DeviceIndex>(i)); }
};

std::shared_ptr<nn::Sequential> make_mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(12, 32), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(32, 5)});
}

/// Parameters after `steps` SGD steps of a seed-0 MLP on cuda:0, wrapped in DataParallel over
/// `devices` devices (1: the plain module).
std::vector<Tensor> train(int devices, int steps, std::vector<double>* losses = nullptr) {
  manual_seed(0);
  auto net = make_mlp();
  const Tensor x = randn({24, 12});
  const Tensor y = randint(0, 5, {24});
  net->to(Device(DeviceType::CUDA, 0));
  std::shared_ptr<nn::UnaryModule> model = net;
  if (devices > 1) {
    std::vector<cuda::DeviceArg> ids;
    for (int i = 0; i < devices; ++i) ids.emplace_back(i);
    model = std::make_shared<nn::DataParallel>(net, ids);
  }
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    const Tensor out = model->forward(x.to(Device(DeviceType::CUDA, 0)));
    const Tensor loss = nn::functional::cross_entropy(out, y.to(out.device()));
    loss.backward();
    opt.step();
    if (losses) losses->push_back(loss.item<double>());
  }
  std::vector<Tensor> params;
  for (const Tensor& p : net->parameters()) params.push_back(p.detach().cpu());
  return params;
}

TEST_P(DataParallelTest, TrainingOnTwoAndFourDevicesMatchesOneDevice) {
  need(4);
  std::vector<double> one_losses, two_losses, four_losses;
  const std::vector<Tensor> one = train(1, 5, &one_losses);
  const std::vector<Tensor> two = train(2, 5, &two_losses);
  const std::vector<Tensor> four = train(4, 5, &four_losses);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_TRUE(two[i].allclose(one[i], 1e-5, 1e-6)) << "parameter " << i << " on 2 devices";
    EXPECT_TRUE(four[i].allclose(one[i], 1e-5, 1e-6)) << "parameter " << i << " on 4 devices";
  }
  for (size_t s = 0; s < one_losses.size(); ++s) {
    EXPECT_NEAR(two_losses[s], one_losses[s], 1e-5);
    EXPECT_NEAR(four_losses[s], one_losses[s], 1e-5);
  }
  EXPECT_LT(one_losses.back(), one_losses.front());  // it trained
}

TEST_P(DataParallelTest, GradientsReachTheOriginalParametersOnDeviceZero) {
  manual_seed(0);
  auto lin = std::make_shared<nn::Linear>(3, 2);
  lin->to(dev(0));
  nn::DataParallel dp(lin, {0, 1});
  const Tensor out = dp(ones({4, 3}, TensorOptions().device(dev(0))));
  EXPECT_EQ(out.device(), dev(0));
  EXPECT_EQ(out.size(0), 4);
  out.sum().backward();
  ASSERT_TRUE(lin->weight.grad().defined());
  EXPECT_EQ(lin->weight.grad().device(), dev(0));
  // d(sum)/dW = sum over the batch of x: 4 everywhere, whichever replica computed which rows.
  EXPECT_TRUE(lin->weight.grad().cpu().equal(full({2, 3}, 4.0)));
  EXPECT_TRUE(lin->bias.grad().cpu().equal(full({2}, 4.0)));
  EXPECT_TRUE(lin->weight.is_leaf());
}

TEST_P(DataParallelTest, ReplicasRunOnTheirOwnDeviceAndTheCallersStream) {
  struct Probe : nn::UnaryModule {
    CTORCH_MODULE_REPLICABLE(Probe)
   public:
    Probe(std::shared_ptr<std::mutex> m, std::shared_ptr<std::set<std::string>> seen)
        : nn::UnaryModule("Probe"), mutex(std::move(m)), seen(std::move(seen)) {}
    Tensor forward(const Tensor& x) override {
      std::lock_guard<std::mutex> lock(*mutex);
      seen->insert("device " + std::to_string(cuda::current_device()) + " input " + x.device().str() + " stream " +
                   std::to_string(cuda::current_stream().stream_id()));
      return x * 2;
    }
    std::shared_ptr<std::mutex> mutex;
    std::shared_ptr<std::set<std::string>> seen;
  };
  auto seen = std::make_shared<std::set<std::string>>();
  nn::DataParallel dp(std::make_shared<Probe>(std::make_shared<std::mutex>(), seen), {0, 1});
  // The caller's current stream on device 1 is a side stream: replica 1 must run on it.
  const cuda::Stream side(1);
  const int64_t default0 = cuda::current_stream(0).stream_id();
  Tensor out;
  {
    auto block = cuda::stream(side);
    out = dp(arange(6.0).view({3, 2}).to(dev(0)));
  }
  cuda::synchronize(1);
  EXPECT_TRUE(out.cpu().equal(arange(6.0).view({3, 2}) * 2));
  EXPECT_EQ(*seen, (std::set<std::string>{"device 0 input cuda:0 stream " + std::to_string(default0),
                                          "device 1 input cuda:1 stream " + std::to_string(side.stream_id())}));
}

TEST_P(DataParallelTest, ReplicaZeroSharesBuffersSoRunningStatsPersist) {
  manual_seed(0);
  auto bn = std::make_shared<nn::BatchNorm1d>(3);
  bn->to(dev(0));
  nn::DataParallel dp(bn, {0, 1});
  const Tensor x = randn({8, 3});
  dp(x.to(dev(0)));
  // PyTorch: only device 0's replica updates the original's running statistics (its first 4 rows).
  const Tensor expected = x.narrow(0, 0, 4).mean(0) * 0.1;
  EXPECT_TRUE(bn->running_mean.cpu().allclose(expected, 1e-5, 1e-6)) << bn->running_mean;
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
}

TEST_P(DataParallelTest, TheModuleMustLiveOnTheFirstDevice) {
  auto lin = std::make_shared<nn::Linear>(3, 2);  // still on the cpu
  nn::DataParallel dp(lin, {0, 1});
  try {
    dp(ones({4, 3}));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on "
                 "device: cpu");
  }
  // One device: the constructor moves the module there and no replica is made.
  auto single = std::make_shared<nn::Linear>(3, 2);
  nn::DataParallel one(single, {1}, /*output_device=*/0);
  EXPECT_EQ(single->weight.device(), dev(1));
  EXPECT_EQ(one(ones({4, 3})).device(), dev(1));  // output_device is ignored with one device, as PyTorch
}

TEST_P(DataParallelTest, AReplicaErrorIsRethrownNamingTheReplicaAndDevice) {
  struct Picky : nn::UnaryModule {
    CTORCH_MODULE_REPLICABLE(Picky)
   public:
    Picky() : nn::UnaryModule("Picky") {}
    Tensor forward(const Tensor& x) override {
      CTORCH_CHECK_VALUE(cuda::current_device() != 1, "no work on device 1");
      return x;
    }
  };
  nn::DataParallel dp(std::make_shared<Picky>(), {0, 1});
  try {
    dp(ones({4, 2}, TensorOptions().device(dev(0))));
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("Caught ValueError in replica 1 on device 1.", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("no work on device 1"), std::string::npos);
  }
}

// Errors of the layers above core keep their type too (core/error_rethrow.h), e.g. a collective's.
TEST_P(DataParallelTest, AReplicaDistBackendErrorKeepsItsType) {
  struct Collective : nn::UnaryModule {
    CTORCH_MODULE_REPLICABLE(Collective)
   public:
    Collective() : nn::UnaryModule("Collective") {}
    Tensor forward(const Tensor& x) override {
      if (cuda::current_device() == 1) throw distributed::DistBackendError("rank 1 did not answer");
      return x;
    }
  };
  nn::DataParallel dp(std::make_shared<Collective>(), {0, 1});
  try {
    dp(ones({4, 2}, TensorOptions().device(dev(0))));
    ADD_FAILURE() << "no error";
  } catch (const distributed::DistBackendError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("Caught DistBackendError in replica 1 on device 1.", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 1 did not answer"), std::string::npos);
  }
}

TEST_P(DataParallelTest, AModuleWithoutReplicationSupportIsRefused) {
  struct Plain : nn::UnaryModule {
    Plain() : nn::UnaryModule("Plain") {}
    Tensor forward(const Tensor& x) override { return x; }
  };
  nn::DataParallel dp(std::make_shared<Plain>(), {0, 1});
  EXPECT_THROW(dp(ones({4, 2}, TensorOptions().device(dev(0)))), NotImplementedError);
}

TEST_P(DataParallelTest, FewerRowsThanDevicesUseFewerReplicas) {
  need(4);
  manual_seed(0);
  auto lin = std::make_shared<nn::Linear>(3, 2);
  const Tensor x = randn({2, 3});
  const Tensor expected = (*lin)(x);
  lin->to(dev(0));
  nn::DataParallel dp(lin, {0, 1, 2, 3}, /*output_device=*/3);
  const Tensor out = dp(x.to(dev(0)));
  EXPECT_EQ(out.device(), dev(3));
  EXPECT_TRUE(out.cpu().allclose(expected, 1e-6, 1e-6));
}

TEST_P(DataParallelTest, FunctionalPiecesMirrorPyTorch) {
  namespace par = nn::parallel;
  // Differentiable scatter of a cpu tensor (PyTorch's DifferentiableScatter test).
  const Tensor input = ones({10}).requires_grad_(true);
  const std::vector<Tensor> pieces = par::scatter(input, {0, 1});
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[1].device(), dev(1));
  (pieces[0].to(dev(1)) + pieces[1]).sum().backward();
  ASSERT_TRUE(input.grad().defined());
  EXPECT_TRUE(input.grad().is_cpu());
  EXPECT_EQ(input.grad().sum().item<double>(), 10.0);
  // Differentiable gather (DifferentiableGather).
  const Tensor a = ones({5}, TensorOptions().device(dev(0))).requires_grad_(true);
  const Tensor b = ones({5}, TensorOptions().device(dev(1))).requires_grad_(true);
  const Tensor g = par::gather({a, b}, dev(1));
  EXPECT_EQ(g.device(), dev(1));
  EXPECT_EQ(g.size(0), 10);
  g.sum().backward();
  EXPECT_EQ(a.grad().device(), dev(0));
  EXPECT_EQ(b.grad().sum().item<double>(), 5.0);
  // Replicate (Replicate): replicas on their devices, equal values, distinct storage off device 0.
  auto lin = std::make_shared<nn::Linear>(3, 4);
  lin->to(dev(0));
  const auto replicas = par::replicate(lin, {0, 1});
  ASSERT_EQ(replicas.size(), 2u);
  EXPECT_TRUE(replicas[0]->weight.is_same(lin->weight));
  EXPECT_EQ(replicas[1]->weight.device(), dev(1));
  EXPECT_TRUE(replicas[1]->weight.cpu().equal(lin->weight.cpu()));
  EXPECT_EQ(replicas[1]->weight.grad_fn()->name(), "ToCopyBackward0");
  EXPECT_EQ(replicas[1]->parameters().size(), 2u);
  // Tuples scatter position by position and gather back.
  const auto tuples = par::scatter(std::vector<Tensor>{arange(4.0), arange(6.0).view({3, 2})}, {0, 1});
  ASSERT_EQ(tuples.size(), 2u);
  EXPECT_EQ(tuples[1][1].size(0), 1);
  const std::vector<Tensor> back = par::gather(tuples, Device("cpu"));
  EXPECT_TRUE(back[1].equal(arange(6.0).view({3, 2})));
  // Scalars gathered along dim 0 become a vector, with PyTorch's warning.
  std::vector<std::string> warnings;
  {
    WarningHandlerGuard capture([&](const std::string& m) { warnings.push_back(m); });
    const Tensor v = par::gather({full({}, 1.0, TensorOptions().device(dev(0))), full({}, 2.0, TensorOptions().device(dev(1)))},
                                 dev(0));
    EXPECT_TRUE(v.cpu().equal(tensor(std::vector<float>{1.0f, 2.0f})));
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("Was asked to gather along dimension 0", 0), 0u);
  // data_parallel() places the output on output_device.
  const Tensor y = par::data_parallel(lin, ones({6, 3}, TensorOptions().device(dev(0))), {0, 1}, dev(1));
  EXPECT_EQ(y.device(), dev(1));
  EXPECT_EQ(y.size(0), 6);
}

TEST_P(DataParallelTest, EvalUnderNoGradBuildsNoGraph) {
  auto lin = std::make_shared<nn::Linear>(3, 2);
  lin->to(dev(0));
  nn::DataParallel dp(lin, {0, 1});
  NoGradGuard no_grad;
  const Tensor out = dp(ones({4, 3}, TensorOptions().device(dev(0))));
  EXPECT_FALSE(out.requires_grad());
}

CTORCH_INSTANTIATE_CUDA_TESTS(DataParallelTest);

}  // namespace
}  // namespace ctorch::testing
