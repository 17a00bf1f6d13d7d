// Training on each device: modules move with their gradients and optimizer state, losses match the
// cpu's, and checkpoints load across devices (written once; cpu, emulated cuda, real cuda).
#include <gtest/gtest.h>

#include <cmath>

#include "ctorch/ctorch.h"
#include "device/device_test.h"

namespace ctorch::testing {
namespace {

class NnDevice : public DeviceTest {};

std::shared_ptr<nn::Sequential> make_mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(8, 16), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(16, 3)});
}

// Trains a fresh seed-0 MLP on `device` with momentum SGD and returns the loss of each step.
std::vector<double> train_losses(Device device, int steps) {
  manual_seed(0);
  auto net = make_mlp();
  const Tensor x = rand({32, 8});
  const Tensor y = randint(0, 3, {32});
  net->to(device);
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.5).momentum(0.9));
  const Tensor xd = x.to(device), yd = y.to(device);
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    const Tensor loss = nn::functional::cross_entropy((*net)(xd), yd);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

TEST_P(NnDevice, ToMovesParametersInPlaceAndForwardRunsThere) {
  manual_seed(0);
  auto net = make_mlp();
  const Tensor weight = net->at<nn::Linear>(0).weight;  // a handle taken before the move
  net->to(device());
  EXPECT_EQ(weight.device(), device());
  EXPECT_TRUE(weight.is_leaf());
  EXPECT_TRUE(weight.requires_grad());
  const Tensor out = (*net)(ones({2, 8}, on_device()));
  EXPECT_EQ(out.device(), device());
  EXPECT_EQ(out.grad_fn()->name(), "AddmmBackward0");
  out.sum().backward();
  EXPECT_EQ(weight.grad().device(), device());
  // Gradients move with their parameters.
  net->cpu();
  EXPECT_TRUE(weight.is_cpu());
  EXPECT_TRUE(weight.grad().is_cpu());
}

TEST_P(NnDevice, TrainingLossesMatchTheCpu) {
  const std::vector<double> here = train_losses(device(), 15);
  const std::vector<double> cpu = train_losses(Device(DeviceType::CPU), 15);
  ASSERT_EQ(here.size(), cpu.size());
  for (size_t i = 0; i < here.size(); ++i) EXPECT_NEAR(here[i], cpu[i], 1e-4 * (1 + std::abs(cpu[i]))) << "step " << i;
  EXPECT_LT(here.back(), here.front());
}

TEST_P(NnDevice, OptimizerStateFollowsAMovedModel) {
  manual_seed(0);
  nn::Linear layer(4, 2);
  optim::Adam opt(layer.parameters(), optim::AdamOptions(0.01));
  const Tensor x = ones({3, 4});
  layer(x).sum().backward();
  opt.step();  // state made on the cpu
  layer.to(device());
  opt.zero_grad();
  layer(x.to(device())).sum().backward();
  opt.step();  // the state moves to the parameters' device
  EXPECT_EQ(layer.weight.device(), device());
}

TEST_P(NnDevice, StateDictLoadsAcrossDevices) {
  manual_seed(0);
  nn::Linear source(3, 2);
  source.to(device());
  nn::Linear target(3, 2);  // on the cpu: load_state_dict copies across devices
  target.load_state_dict(source.state_dict());
  EXPECT_TRUE(target.weight.equal(source.weight.cpu()));
  EXPECT_TRUE(target.weight.is_cpu());
}

TEST_P(NnDevice, BackwardRunsOnTheForwardStream) {
  if (!is_cuda()) GTEST_SKIP() << "streams are a cuda notion";
  manual_seed(0);
  nn::Linear layer(5, 5);
  layer.to(device());
  const cuda::Stream side(device());
  Tensor x = rand({4, 5}, on_device());
  side.wait_stream(cuda::current_stream(device()));
  Tensor loss;
  {
    auto block = cuda::stream(side);  // forward on the side stream: backward's nodes run there too
    loss = layer(x).pow(2).sum();
  }
  loss.backward();  // the caller's current stream waits for the side stream at the end
  const Tensor g = layer.weight.grad().cpu();
  // Reference on the cpu.
  nn::Linear ref(5, 5);
  ref.load_state_dict(layer.state_dict());
  ref(x.cpu()).pow(2).sum().backward();
  EXPECT_TRUE(g.allclose(ref.weight.grad(), 1e-4, 1e-5));
}

CTORCH_INSTANTIATE_DEVICE_TESTS(NnDevice);

}  // namespace
}  // namespace ctorch::testing
