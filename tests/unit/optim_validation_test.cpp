// Optimizer arguments are checked as torch.optim's constructors check them: ValueError with PyTorch's
// texts, the value printed as Python prints a float; a rejected group leaves the optimizer unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;
using ctorch::testing::error_of;

namespace {

std::vector<Tensor> params() { return {ones({2}).requires_grad_(true)}; }

TEST(OptimValidation, SgdChecksLrMomentumWeightDecayAndNesterov) {
  using optim::SGD;
  using optim::SGDOptions;
  EXPECT_EQ(error_of<ValueError>([] { SGD(params(), SGDOptions(-1.0)); }), "Invalid learning rate: -1.0");
  EXPECT_EQ(error_of<ValueError>([] { SGD(params(), SGDOptions(0.1).momentum(-0.5)); }), "Invalid momentum value: -0.5");
  EXPECT_EQ(error_of<ValueError>([] { SGD(params(), SGDOptions(0.1).weight_decay(-1e-5)); }),
            "Invalid weight_decay value: -1e-05");
  const std::string nesterov = "Nesterov momentum requires a momentum and zero dampening";
  EXPECT_EQ(error_of<ValueError>([] { SGD(params(), SGDOptions(0.1).nesterov(true)); }), nesterov);
  EXPECT_EQ(error_of<ValueError>([] { SGD(params(), SGDOptions(0.1).nesterov(true).momentum(0.9).dampening(0.1)); }),
            nesterov);
  // Valid edges: lr 0, momentum 0 without Nesterov, Nesterov with momentum and no dampening.
  EXPECT_EQ(error_of([] { SGD(params(), SGDOptions(0.0)); }), "no error");
  EXPECT_EQ(error_of([] { SGD(params(), SGDOptions(0.1).momentum(0.9).nesterov(true)); }), "no error");
  EXPECT_EQ(error_of([] { SGD(params(), SGDOptions(0.1).dampening(0.5)); }), "no error");
}

TEST(OptimValidation, AdamAndAdamWCheckLrEpsBetasAndWeightDecay) {
  using optim::AdamOptions;
  for (int which = 0; which < 2; ++which) {
    auto make = [which](AdamOptions o) {
      if (which == 0) {
        optim::Adam(params(), o);
      } else {
        optim::AdamW(params(), o);
      }
    };
    EXPECT_EQ(error_of<ValueError>([&] { make(AdamOptions(-1.0)); }), "Invalid learning rate: -1.0");
    EXPECT_EQ(error_of<ValueError>([&] { make(AdamOptions(1e-3).eps(-1e-8)); }), "Invalid epsilon value: -1e-08");
    EXPECT_EQ(error_of<ValueError>([&] { make(AdamOptions(1e-3).betas({1.5, 0.999})); }),
              "Invalid beta parameter at index 0: 1.5");
    EXPECT_EQ(error_of<ValueError>([&] { make(AdamOptions(1e-3).beta2(1.0)); }),
              "Invalid beta parameter at index 1: 1.0");
    EXPECT_EQ(error_of<ValueError>([&] { make(AdamOptions(1e-3).beta1(-0.1)); }),
              "Invalid beta parameter at index 0: -0.1");
    EXPECT_EQ(error_of<ValueError>([&] { make(AdamOptions(1e-3).weight_decay(-0.01)); }),
              "Invalid weight_decay value: -0.01");
    // `not 0.0 <= nan` is true in Python: a NaN learning rate is refused.
    EXPECT_EQ(error_of<ValueError>([&] { make(AdamOptions(std::numeric_limits<double>::quiet_NaN())); }),
              "Invalid learning rate: nan");
    EXPECT_EQ(error_of([&] { make(AdamOptions(0.0).betas({0.0, 0.0}).eps(0.0)); }), "no error");
  }
}

TEST(OptimValidation, RmspropChecksEachArgument) {
  using optim::RMSprop;
  using optim::RMSpropOptions;
  EXPECT_EQ(error_of<ValueError>([] { RMSprop(params(), RMSpropOptions(-0.01)); }), "Invalid learning rate: -0.01");
  EXPECT_EQ(error_of<ValueError>([] { RMSprop(params(), RMSpropOptions().eps(-1.0)); }), "Invalid epsilon value: -1.0");
  EXPECT_EQ(error_of<ValueError>([] { RMSprop(params(), RMSpropOptions().momentum(-2)); }),
            "Invalid momentum value: -2.0");
  EXPECT_EQ(error_of<ValueError>([] { RMSprop(params(), RMSpropOptions().weight_decay(-3e20)); }),
            "Invalid weight_decay value: -3e+20");
  EXPECT_EQ(error_of<ValueError>([] { RMSprop(params(), RMSpropOptions().alpha(-0.5)); }), "Invalid alpha value: -0.5");
}

// Values print as Python's repr of a float: shortest round-trip digits, fixed in [1e-4, 1e16).
TEST(OptimValidation, ValuesPrintAsPythonFloats) {
  auto lr_text = [](double lr) { return error_of<ValueError>([lr] { optim::SGD(params(), lr); }); };
  EXPECT_EQ(lr_text(-0.1), "Invalid learning rate: -0.1");
  EXPECT_EQ(lr_text(-0.0001), "Invalid learning rate: -0.0001");
  EXPECT_EQ(lr_text(-0.00001), "Invalid learning rate: -1e-05");
  EXPECT_EQ(lr_text(-123.25), "Invalid learning rate: -123.25");
  EXPECT_EQ(lr_text(-1e15), "Invalid learning rate: -1000000000000000.0");
  EXPECT_EQ(lr_text(-1e16), "Invalid learning rate: -1e+16");
  EXPECT_EQ(lr_text(-1.5e-300), "Invalid learning rate: -1.5e-300");
  EXPECT_EQ(lr_text(-std::numeric_limits<double>::infinity()), "Invalid learning rate: -inf");
  EXPECT_EQ(lr_text(-1.0 / 3), "Invalid learning rate: -0.3333333333333333");
}

// Every group is checked when it is added; a refused group is not added.
TEST(OptimValidation, AddedGroupsAreCheckedAndARefusedOneIsNotAdded) {
  optim::SGD sgd(params(), 0.1);
  EXPECT_EQ(error_of<ValueError>([&] { sgd.add_param_group({params(), optim::SGDOptions(-2.5)}); }),
            "Invalid learning rate: -2.5");
  EXPECT_EQ(sgd.num_groups(), 1u);
  EXPECT_EQ(error_of<ValueError>([] {
              optim::Adam({{params(), optim::AdamOptions(1e-3)}, {params(), optim::AdamOptions(1e-3).beta1(1.0)}});
            }),
            "Invalid beta parameter at index 0: 1.0");
}

}  // namespace
