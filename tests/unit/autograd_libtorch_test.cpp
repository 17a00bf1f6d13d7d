// Autograd behaviour added for libtorch's autograd.cpp: anomaly mode's check_nan and traces of the
// nodes that induced a failing one, needs_input_grad for the running backward, remove_hook's
// "Invalid index", deep reentrant backward, the create_graph warning (once, or always under
// set_warn_always), UndefinedGrad, and in-place methods on a const Tensor&.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctorch/torch.h"
#include "test_util.h"

namespace {

using ctorch::Tensor;
using ctorch::autograd::AutogradContext;
using ctorch::autograd::variable_list;

struct Capture {
  std::vector<std::string> messages;
  ctorch::WarningHandlerGuard guard{[this](const std::string& m) { messages.push_back(m); }};
};

// d/dx of x^1.5 is 1.5 x^0.5; its gradient at 0 is 0 * inf = nan in the second backward.
TEST(AutogradLibtorch, AnomalyModeChecksNanUnlessToldNotTo) {
  ctorch::autograd::DetectAnomalyGuard anomaly;
  auto second_order = [] {
    Tensor x = ctorch::tensor(std::vector<double>{0.0}).requires_grad_(true);
    Tensor y = x.pow(1.5);
    auto g = ctorch::autograd::grad({y}, {x}, {}, true, true);
    ctorch::autograd::grad({g[0]}, {x}, {ctorch::tensor(std::vector<double>{0.0})});
  };
  {
    Capture c;
    EXPECT_NE(ctorch::testing::error_of(second_order).find("returned nan values"), std::string::npos);
    ASSERT_EQ(c.messages.size(), 2u);
    EXPECT_NE(c.messages[0].find("Traceback of forward call that caused the error"), std::string::npos);
    EXPECT_NE(c.messages[1].find("Traceback of forward call that induced the previous calculation"), std::string::npos);
  }
  ctorch::autograd::DetectAnomalyGuard no_nan_check(/*check_nan=*/false);
  EXPECT_EQ(ctorch::testing::error_of(second_order), "no error");
}

// Records which of its tensor arguments the caller wants (0: a, 1: b, 2: both) and checks in backward
// that needs_input_grad agrees for the grad() call that runs it.
struct Flags : ctorch::autograd::Function<Flags> {
  static Tensor forward(AutogradContext* ctx, const Tensor& a, const Tensor& b, int which) {
    if (which != 1) ctx->saved_data["want_a"] = 1;
    if (which != 0) ctx->saved_data["want_b"] = 1;
    ctx->save_for_backward({a, b});
    return a * b;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    EXPECT_EQ(ctx->needs_input_grad(0), ctx->saved_data.count("want_a") > 0);
    EXPECT_EQ(ctx->needs_input_grad(1), ctx->saved_data.count("want_b") > 0);
    EXPECT_TRUE(ctx->needs_input_grad({ctorch::autograd::IndexRange{0, 2}}));
    EXPECT_FALSE(ctx->needs_input_grad(2));  // the int argument
    auto s = ctx->get_saved_variables();
    return {g[0] * s[1], g[0] * s[0], Tensor()};
  }
};

TEST(AutogradLibtorch, NeedsInputGradFollowsTheRunningBackward) {
  Tensor a = ctorch::ones({2}).requires_grad_(true);
  Tensor b = ctorch::ones({2}).requires_grad_(true);
  for (int which = 0; which < 3; ++which) {
    const variable_list inputs = which == 0 ? variable_list{a} : which == 1 ? variable_list{b} : variable_list{a, b};
    auto grads = ctorch::autograd::grad({Flags::apply(a, b, which).sum()}, inputs);
    EXPECT_EQ(grads.size(), inputs.size());
  }
}

TEST(AutogradLibtorch, RemoveHookOfAnUnknownKeyRaises) {
  Tensor x = ctorch::ones({2}).requires_grad_(true);
  const unsigned key = x.register_hook([](const Tensor& g) { return g * 2; });
  x.remove_hook(key);
  x.remove_hook(key);  // removing again is a no-op
  EXPECT_NE(ctorch::testing::error_of([&] { x.remove_hook(key + 12345); }).find("Invalid index, no hook at position"),
            std::string::npos);
  x.sum().backward();
  EXPECT_TRUE(x.grad().equal(ctorch::ones({2})));  // the removed hook did not run
}

// Each level's backward runs a backward of the next level: 500 levels nest past the thread hand-off.
struct Deep : ctorch::autograd::Function<Deep> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    {
      ctorch::EnableGradGuard grad;
      ctx->saved_data["x"] = torch::autograd::make_variable(x.tensor_data(), true) - 1;
    }
    return ctx->saved_data["x"].toTensor().detach();
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const Tensor x = ctx->saved_data["x"].toTensor();
    if (x.item<double>() != 0) {
      ctorch::EnableGradGuard grad;
      apply(x).sum().backward();
    }
    return g;
  }
};

TEST(AutogradLibtorch, DeepReentrantBackward) {
  Tensor v = ctorch::tensor(std::vector<float>{500}).requires_grad_(true);
  Deep::apply(v).sum().backward();
  EXPECT_TRUE(v.grad().equal(ctorch::ones({1})));
}

TEST(AutogradLibtorch, CreateGraphWarningOnceOrAlways) {
  auto run = [] {
    Tensor x = ctorch::ones({2}).requires_grad_(true);
    (x * x).sum().backward(Tensor(), std::nullopt, /*create_graph=*/true);
    x.mutable_grad() = Tensor();  // the reference cycle the warning is about (x.grad's graph holds x)
  };
  {
    Capture first;  // the first one in the process may warn
    run();
  }
  {
    Capture c;
    run();
    EXPECT_TRUE(c.messages.empty());
  }
  c10::Warning::WarnAlways always;
  Capture c;
  run();
  ASSERT_EQ(c.messages.size(), 1u);
  EXPECT_NE(c.messages[0].find("Using backward() with create_graph=True"), std::string::npos);
}

TEST(AutogradLibtorch, UndefinedGradAndConstInPlace) {
  Tensor x = ctorch::ones({3}).requires_grad_(true);
  torch::autograd::UndefinedGrad().apply({x * 2})[0].sum().backward();
  EXPECT_FALSE(x.grad().defined());  // the gradient stopped, undefined, at UndefinedGrad
  (x * 3).sum().backward();
  const Tensor& g = x.grad();
  g.zero_();
  EXPECT_TRUE(x.grad().equal(ctorch::zeros({3})));
  x.backward(ctorch::ones({3}), false, false, {x});
  EXPECT_TRUE(x.grad().equal(ctorch::ones({3})));
}

}  // namespace
