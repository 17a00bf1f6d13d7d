// nn::Module::clone checks that no member of a clone still refers to the original's tensors or
// children (Note [Clone checks members]): a class that forgets rebind() fails loudly, on cpu and
// on an emulated cuda device (clone(device)).
#include <gtest/gtest.h>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

// Keeps its weight in a member and forgets to override rebind().
class ForgetfulLinear : public nn::UnaryModule {
  CTORCH_MODULE_REPLICABLE(ForgetfulLinear)

 public:
  ForgetfulLinear() : UnaryModule("ForgetfulLinear") {
    weight = register_parameter("weight", ones({2, 2}));
    register_parameter("bias", zeros({2}));  // used through registered_parameter: no member to forget
  }
  Tensor forward(const Tensor& x) override { return x.matmul(weight.t()) + registered_parameter("bias"); }
  Tensor weight;
};

// Keeps a buffer in a member and forgets rebind().
class ForgetfulScale : public nn::UnaryModule {
  CTORCH_MODULE_REPLICABLE(ForgetfulScale)

 public:
  ForgetfulScale() : UnaryModule("ForgetfulScale") { scale = register_buffer("scale", full({2}, 3.0)); }
  Tensor forward(const Tensor& x) override { return x * scale; }
  Tensor scale;
};

// Keeps a child in a member and forgets rebind().
class ForgetfulParent : public nn::UnaryModule {
  CTORCH_MODULE_REPLICABLE(ForgetfulParent)

 public:
  ForgetfulParent() : UnaryModule("ForgetfulParent") { fc = register_module("fc", std::make_shared<nn::Linear>(2, 2)); }
  Tensor forward(const Tensor& x) override { return (*fc)(x); }
  std::shared_ptr<nn::Linear> fc;
};

// The same with rebind().
class CarefulParent : public nn::UnaryModule {
  CTORCH_MODULE_REPLICABLE(CarefulParent)

 public:
  CarefulParent() : UnaryModule("CarefulParent") {
    fc = register_module("fc", std::make_shared<nn::Linear>(2, 2));
    scale = register_buffer("scale", full({2}, 3.0));
  }
  Tensor forward(const Tensor& x) override { return (*fc)(x) * scale; }
  std::shared_ptr<nn::Linear> fc;
  Tensor scale;

 protected:
  void rebind() override {
    for (const auto& [name, child] : named_children()) {
      if (name == "fc") fc = std::dynamic_pointer_cast<nn::Linear>(child);
    }
    scale = registered_buffer("scale");
  }
};

class ModuleClone : public DeviceTest {};

TEST_P(ModuleClone, AForgottenRebindIsAnErrorNamingTheClassAndTheMember) {
  std::optional<Device> target;
  if (is_cuda()) target = device();
  auto cases = std::vector<std::tuple<std::shared_ptr<nn::Module>, std::string, std::string>>{
      {std::make_shared<ForgetfulLinear>(), "ForgetfulLinear", "parameter 'weight'"},
      {std::make_shared<ForgetfulScale>(), "ForgetfulScale", "buffer 'scale'"},
      {std::make_shared<ForgetfulParent>(), "ForgetfulParent", "child module 'fc'"},
      // Nested: the inner class is named.
      {std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
           std::make_shared<nn::Linear>(2, 2), std::make_shared<ForgetfulScale>()}),
       "ForgetfulScale", "buffer 'scale'"},
  };
  for (const auto& [module, cls, member] : cases) {
    const std::string e = error_of([&] { (void)module->clone(target); });
    EXPECT_NE(e.find(cls + ".clone(): the clone of ctorch::testing::(anonymous namespace)::" + cls +
                     " still refers to the original's " + member + " through a member of the class"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("override rebind() in ctorch::testing::(anonymous namespace)::" + cls), std::string::npos) << e;
  }
  // The original is untouched and still works.
  auto lin = std::make_shared<ForgetfulLinear>();
  (void)error_of([&] { (void)lin->clone(target); });
  EXPECT_TRUE((*lin)(ones({1, 2})).equal(full({1, 2}, 2.0)));
}

TEST_P(ModuleClone, ARebindingClassClonesIntoIndependentTensors) {
  std::optional<Device> target;
  if (is_cuda()) target = device();
  auto original = std::make_shared<CarefulParent>();
  auto copy = std::dynamic_pointer_cast<CarefulParent>(original->clone(target));
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy->fc, original->fc);
  EXPECT_TRUE(copy->fc->weight.is_same(copy->named_parameters()[0].second));
  EXPECT_TRUE(copy->scale.is_same(copy->named_buffers()[0].second));
  EXPECT_EQ(copy->scale.device(), target.value_or(Device(DeviceType::CPU)));
  const Tensor x = ones({1, 2});
  const Tensor before = (*original)(x).clone();
  {
    NoGradGuard no_grad;
    copy->fc->weight.fill_(5.0);
    copy->scale.fill_(7.0);
  }
  EXPECT_TRUE((*original)(x).equal(before)) << "the clone shares the original's tensors";
  // Built-in layers with members clone without an error.
  auto seq = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(2, 3), std::make_shared<nn::LayerNorm>(std::vector<int64_t>{3}),
      std::make_shared<nn::BatchNorm1d>(3)});
  EXPECT_EQ(error_of([&] { (void)seq->clone(target); }), "no error");
}

CTORCH_INSTANTIATE_DEVICE_TESTS(ModuleClone);

}  // namespace
}  // namespace ctorch::testing
