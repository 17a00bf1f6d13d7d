// torch.save / torch.load on each device (written once; cpu, emulated cuda, real cuda): tensors come
// back where they were saved or where map_location sends them, and a model with its optimizer's
// state resumes training with the losses of an uninterrupted run.
#include <gtest/gtest.h>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

using serialization::Value;

class SerializationDevice : public DeviceTest {};

TEST_P(SerializationDevice, TensorsComeBackOnTheirDevice) {
  const Tensor x = arange(6, on_device()).reshape({2, 3});
  const std::string bytes = serialization::save_to_bytes(Value::dict({{"x", Value(x)}, {"row", Value(x[1])}}));
  const Value back = serialization::load_from_bytes(bytes);
  EXPECT_EQ(back.at("x").to_tensor().device(), device());
  EXPECT_TRUE(equal(back.at("x").to_tensor().cpu(), x.cpu()));
  EXPECT_TRUE(equal(back.at("row").to_tensor().cpu(), x[1].cpu()));
  const Value on_cpu = serialization::load_from_bytes(bytes, Device("cpu"));
  EXPECT_TRUE(on_cpu.at("x").to_tensor().is_cpu());
  EXPECT_TRUE(equal(on_cpu.at("x").to_tensor(), x.cpu()));
  if (is_cuda() && cuda::device_count() > 1) {
    const Value moved = serialization::load_from_bytes(bytes, std::map<std::string, std::string>{{device().str(), "cuda:1"}});
    EXPECT_EQ(moved.at("x").to_tensor().device(), Device("cuda:1"));
  }
}

std::shared_ptr<nn::Sequential> make_model() {
  manual_seed(3);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(4, 8), std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(8, 1)});
}

std::vector<double> train(nn::Module& model, optim::Optimizer& opt, Device device, int steps, uint64_t seed) {
  manual_seed(seed);
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    const Tensor x = randn({8, 4}).to(device);
    const Tensor y = x.sum(1, /*keepdim=*/true);
    opt.zero_grad();
    const Tensor loss = nn::functional::mse_loss(static_cast<nn::UnaryModule&>(model)(x), y);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

template <class Opt, class Options>
void check_resume(Device device, Options options) {
  auto model = make_model();
  model->to(device);
  Opt opt(model->parameters(), options);
  train(*model, opt, device, 3, 1);
  const std::string checkpoint = serialization::save_to_bytes(
      Value::dict({{"model", Value(model->state_dict())}, {"optimizer", opt.state_dict()}}));
  const std::vector<double> uninterrupted = train(*model, opt, device, 4, 2);

  auto resumed = make_model();
  resumed->to(device);
  Opt opt2(resumed->parameters(), Options(options).lr(1.0));  // the checkpoint's lr replaces this one
  const Value state = serialization::load_from_bytes(checkpoint, Device("cpu"));  // state moves to the parameters
  resumed->load_state_dict(state.at("model").to_state_dict());
  opt2.load_state_dict(state.at("optimizer"));
  EXPECT_EQ(opt2.lr(0), options.lr());
  EXPECT_EQ(train(*resumed, opt2, device, 4, 2), uninterrupted);
}

TEST_P(SerializationDevice, ResumedTrainingMatchesAnUninterruptedRun) {
  check_resume<optim::SGD>(device(), optim::SGDOptions(0.05).momentum(0.9).nesterov(true));
  check_resume<optim::Adam>(device(), optim::AdamOptions(0.01).amsgrad(true));
  check_resume<optim::AdamW>(device(), optim::AdamW::defaults().lr(0.01));
  check_resume<optim::RMSprop>(device(), optim::RMSpropOptions(0.01).momentum(0.5).centered(true));
}

TEST_P(SerializationDevice, OptimizerStateDictHasPyTorchsLayout) {
  auto model = make_model();
  model->to(device());
  optim::Adam opt(model->parameters(), optim::AdamOptions(0.01));
  EXPECT_EQ(opt.state_dict().at("state").items().size(), 0u);  // nothing before the first step
  train(*model, opt, device(), 2, 1);
  const Value sd = opt.state_dict();
  const Value& group = sd.at("param_groups").elements().at(0);
  std::vector<std::string> keys;
  for (const auto& [k, v] : group.items()) keys.push_back(k.to_string());
  EXPECT_EQ(keys, (std::vector<std::string>{"lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "foreach",
                                            "capturable", "differentiable", "fused", "params"}));
  EXPECT_EQ(group.at("params").elements().size(), 4u);
  const Value& s0 = sd.at("state").at(0);
  EXPECT_EQ(s0.at("step").to_tensor().item<float>(), 2.0f);  // a float32 cpu scalar, as 1.13's Adam
  EXPECT_TRUE(s0.at("step").to_tensor().is_cpu());
  EXPECT_EQ(s0.at("exp_avg").to_tensor().device(), device());
  // A group count or size that differs is PyTorch's ValueError, and nothing changes.
  Value bad = Value::dict({{"state", Value::dict()}, {"param_groups", Value::list({})}});
  EXPECT_EQ(error_of<ValueError>([&] { opt.load_state_dict(bad); }),
            "loaded state dict has a different number of parameter groups");
  EXPECT_EQ(opt.state_dict().at("state").items().size(), 4u);
}

CTORCH_INSTANTIATE_DEVICE_TESTS(SerializationDevice);

}  // namespace
}  // namespace ctorch::testing
