// make_graphed_callables (ctorch/cuda_graphed_callables.h), after PyTorch's
// test_graph_make_graphed_callables: graphed forward and backward give the eager values and
// gradients, replays follow new inputs, modules train to the eager parameters, a module outside its
// captured training mode runs eagerly, and bad arguments get clear errors.
#include <gtest/gtest.h>

#include <vector>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch {
namespace {

using ::ctorch::testing::error_of;
namespace F = nn::functional;

class GraphedCallables : public testing::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (!is_cuda() && !IsSkipped()) GTEST_SKIP() << "CUDA graphs are a cuda feature";
  }
  void TearDown() override {
    if (cuda::is_initialized()) cuda::synchronize();
  }
};
CTORCH_INSTANTIATE_DEVICE_TESTS(GraphedCallables);

// f(x, w) = [relu(x @ w).sum(1), x * 2]
std::vector<Tensor> two_outputs(const std::vector<Tensor>& a) { return {relu(a[0].matmul(a[1])).sum(1), a[0] * 2}; }

TEST_P(GraphedCallables, ForwardAndBackwardEqualEager) {
  manual_seed(0);
  Tensor x = randn({8, 5}, on_device()).requires_grad_(true);
  Tensor w = randn({5, 3}, on_device()).requires_grad_(true);
  auto graphed = cuda::make_graphed_callables(cuda::TensorFunction(two_outputs), {x, w});

  for (int step = 0; step < 3; ++step) {
    Tensor xi = randn({8, 5}, on_device()).requires_grad_(true);
    Tensor wi = w.detach().clone().requires_grad_(true);  // a different tensor: copied into the static input
    std::vector<Tensor> got = graphed({xi, wi});
    ASSERT_EQ(got.size(), 2u);
    ASSERT_TRUE(got[0].grad_fn() != nullptr);
    EXPECT_EQ(got[0].grad_fn()->name(), "GraphedBackward");
    (got[0].sum() + got[1].pow(2).sum()).backward();

    Tensor xe = xi.detach().clone().requires_grad_(true), we = wi.detach().clone().requires_grad_(true);
    std::vector<Tensor> want = two_outputs({xe, we});
    (want[0].sum() + want[1].pow(2).sum()).backward();
    EXPECT_TRUE(got[0].detach().allclose(want[0].detach(), 1e-5, 1e-6)) << step;
    EXPECT_TRUE(got[1].detach().allclose(want[1].detach())) << step;
    EXPECT_TRUE(xi.grad().allclose(xe.grad(), 1e-5, 1e-6)) << step;
    EXPECT_TRUE(wi.grad().allclose(we.grad(), 1e-5, 1e-6)) << step;
  }
}

TEST_P(GraphedCallables, ChainedCallablesShareAPoolAndBackpropagateThroughBoth) {
  manual_seed(1);
  Tensor x = randn({4, 6}, on_device()).requires_grad_(true);
  Tensor w1 = randn({6, 6}, on_device()).requires_grad_(true), w2 = randn({6, 2}, on_device()).requires_grad_(true);
  cuda::TensorFunction f1 = [](const std::vector<Tensor>& a) { return std::vector<Tensor>{tanh(a[0].matmul(a[1]))}; };
  cuda::TensorFunction f2 = [](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0].matmul(a[1])}; };
  Tensor y_sample = f1({x, w1})[0].detach().requires_grad_(true);
  auto graphed = cuda::make_graphed_callables({f1, f2}, {{x, w1}, {y_sample, w2}});
  Tensor xi = randn({4, 6}, on_device()).requires_grad_(true);
  Tensor out = graphed[1]({graphed[0]({xi, w1})[0], w2})[0];
  out.sum().backward();
  Tensor xe = xi.detach().clone().requires_grad_(true);
  Tensor w1e = w1.detach().clone().requires_grad_(true), w2e = w2.detach().clone().requires_grad_(true);
  Tensor ref = tanh(xe.matmul(w1e)).matmul(w2e);
  ref.sum().backward();
  EXPECT_TRUE(out.detach().allclose(ref.detach(), 1e-5, 1e-6));
  EXPECT_TRUE(xi.grad().allclose(xe.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(w1.grad().allclose(w1e.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(w2.grad().allclose(w2e.grad(), 1e-5, 1e-6));
}

TEST_P(GraphedCallables, AModuleTrainsToTheEagerParameters) {
  manual_seed(2);
  nn::Sequential eager_model, graphed_model;
  for (nn::Sequential* m : {&eager_model, &graphed_model}) {
    manual_seed(2);
    m->push_back(std::make_shared<nn::Linear>(6, 8));
    m->push_back(std::make_shared<nn::ReLU>());
    m->push_back(std::make_shared<nn::Linear>(8, 2));
    m->to(device());
  }
  cuda::TensorFunction fwd = [&](const std::vector<Tensor>& a) { return std::vector<Tensor>{graphed_model.forward(a[0])}; };
  Tensor sample = randn({16, 6}, on_device());
  auto step_fn = cuda::make_graphed_callables(cuda::GraphableCallable(graphed_model, fwd), {sample});
  optim::SGD eager_opt(eager_model.parameters(), optim::SGDOptions(0.1));
  optim::SGD graphed_opt(graphed_model.parameters(), optim::SGDOptions(0.1));
  for (int step = 0; step < 4; ++step) {
    Tensor batch = randn({16, 6}, on_device()), target = randn({16, 2}, on_device());
    // set_to_none, as PyTorch's documented usage: the first backward makes each .grad alias the
    // static gradient memory, which a zeroed-then-accumulated .grad would add to itself.
    graphed_opt.zero_grad(true);
    F::mse_loss(step_fn({batch})[0], target).backward();
    graphed_opt.step();
    eager_opt.zero_grad();
    F::mse_loss(eager_model.forward(batch), target).backward();
    eager_opt.step();
  }
  const auto pe = eager_model.parameters(), pg = graphed_model.parameters();
  ASSERT_EQ(pe.size(), pg.size());
  for (size_t i = 0; i < pe.size(); ++i) EXPECT_TRUE(pg[i].allclose(pe[i], 1e-5, 1e-6)) << i;

  // Outside the captured training mode the module runs eagerly.
  graphed_model.eval();
  Tensor y = step_fn({sample})[0];
  ASSERT_TRUE(y.grad_fn() != nullptr);
  EXPECT_NE(y.grad_fn()->name(), "GraphedBackward");
  EXPECT_TRUE(y.allclose(graphed_model.forward(sample)));
}

TEST_P(GraphedCallables, BadArgumentsGetClearErrors) {
  Tensor x = randn({3, 4}, on_device()).requires_grad_(true);
  cuda::TensorFunction f = [](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * 3}; };
  EXPECT_NE(error_of<ValueError>([&] { (void)cuda::make_graphed_callables(f, {x.cpu()}); })
                .find("sample_args must be CUDA tensors, got a tensor on cpu"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([&] { (void)cuda::make_graphed_callables({f, f}, {{x}}); })
                .find("got 2 callables and 1 sample argument lists"),
            std::string::npos);
  auto g = cuda::make_graphed_callables(f, {x}, 1);
  EXPECT_NE(error_of<ValueError>([&] { (void)g({x, x}); }).find("captured with 1 arguments, got 2"), std::string::npos);
  const std::string shape = error_of<ValueError>([&] { (void)g({randn({4, 4}, on_device())}); });
  EXPECT_NE(shape.find("argument 0 must match the sample argument it was captured with ([3, 4]"), std::string::npos)
      << shape;
  Tensor y = g({x})[0];
  EXPECT_TRUE(y.allclose(x * 3));

  nn::BatchNorm1d bn(4);
  bn.to(device());
  bn.running_mean.requires_grad_(true);
  cuda::TensorFunction bf = [&](const std::vector<Tensor>& a) { return std::vector<Tensor>{bn.forward(a[0])}; };
  EXPECT_NE(error_of<ValueError>([&] { (void)cuda::make_graphed_callables({bn, bf}, {x}); })
                .find("All buffers must have requires_grad=false"),
            std::string::npos);
}

}  // namespace
}  // namespace ctorch

namespace ctorch {
namespace {

// The CUDA-semantics page's whole-network capture: forward, backward and optimizer step in one
// graph, static input and target refilled in place, replays train as eager steps do.
TEST_P(GraphedCallables, WholeNetworkCaptureTrainsAsEager) {
  auto make = [&] {
    manual_seed(3);
    auto m = std::make_shared<nn::Sequential>();
    m->push_back(std::make_shared<nn::Linear>(5, 7));
    m->push_back(std::make_shared<nn::Tanh>());
    m->push_back(std::make_shared<nn::Linear>(7, 1));
    m->to(device());
    return m;
  };
  auto eager_model = make(), graphed_model = make();
  optim::SGD eager_opt(eager_model->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  optim::SGD graphed_opt(graphed_model->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  Tensor static_x = zeros({16, 5}, on_device()), static_y = zeros({16, 1}, on_device());

  manual_seed(4);
  std::vector<std::pair<Tensor, Tensor>> batches;
  for (int i = 0; i < 6; ++i) batches.emplace_back(randn({16, 5}, on_device()), randn({16, 1}, on_device()));

  // Warm-up on a side stream (the first steps: momentum buffers are created outside the capture).
  cuda::Stream side;
  side.wait_stream(cuda::current_stream());
  {
    auto block = cuda::stream(side);
    for (int i = 0; i < 3; ++i) {
      static_x.copy_(batches[i].first);
      static_y.copy_(batches[i].second);
      graphed_opt.zero_grad(true);
      F::mse_loss(graphed_model->forward(static_x), static_y).backward();
      graphed_opt.step();
    }
  }
  cuda::current_stream().wait_stream(side);
  for (int i = 0; i < 3; ++i) {
    eager_opt.zero_grad(true);
    F::mse_loss(eager_model->forward(batches[i].first), batches[i].second).backward();
    eager_opt.step();
  }

  cuda::CUDAGraph g;
  graphed_opt.zero_grad(true);
  Tensor static_loss;
  {
    cuda::graph scope(g);
    static_loss = F::mse_loss(graphed_model->forward(static_x), static_y);
    static_loss.backward();
    graphed_opt.step();
  }
  for (int i = 3; i < 6; ++i) {
    static_x.copy_(batches[i].first);
    static_y.copy_(batches[i].second);
    g.replay();
    eager_opt.zero_grad(true);
    Tensor loss = F::mse_loss(eager_model->forward(batches[i].first), batches[i].second);
    loss.backward();
    eager_opt.step();
    EXPECT_TRUE(static_loss.allclose(loss.detach(), 1e-5, 1e-6)) << i;
  }
  const auto pe = eager_model->parameters(), pg = graphed_model->parameters();
  for (size_t i = 0; i < pe.size(); ++i) EXPECT_TRUE(pg[i].allclose(pe[i], 1e-5, 1e-6)) << i;
}

}  // namespace
}  // namespace ctorch
