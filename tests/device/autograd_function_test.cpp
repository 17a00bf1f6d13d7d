// Custom autograd functions (ctorch/autograd_function.h) on every device: gradients equal those of
// the built-in ops (and gradcheck's), saved tensors and saved_data, needs_input_grad, dirty and
// non-differentiable outputs, materialized gradients, higher order, and PyTorch's errors.
#include <gtest/gtest.h>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

using autograd::AutogradContext;
using autograd::Function;
using autograd::variable_list;

// PyTorch's C++ example: a linear layer with an optional bias.
struct LinearFunction : Function<LinearFunction> {
  static Tensor forward(AutogradContext* ctx, Tensor input, Tensor weight, Tensor bias = Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    Tensor output = input.mm(weight.t());
    if (bias.defined()) output = output + bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor& g = grad_outputs[0];
    Tensor grad_input = ctx->needs_input_grad(0) ? g.mm(saved[1]) : Tensor();
    Tensor grad_weight = ctx->needs_input_grad(1) ? g.t().mm(saved[0]) : Tensor();
    Tensor grad_bias = saved[2].defined() && ctx->needs_input_grad(2) ? g.sum(0) : Tensor();
    return {grad_input, grad_weight, grad_bias};
  }
};

struct MulConstant : Function<MulConstant> {
  static Tensor forward(AutogradContext* ctx, Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["constant"].toDouble(), Tensor()};
  }
};

class AutogradFunction : public DeviceTest {};

TEST_P(AutogradFunction, GradientsEqualTheBuiltInOps) {
  manual_seed(0);
  const Tensor x = randn({2, 3}, on_device()).requires_grad_(true);
  const Tensor w = randn({4, 3}, on_device()).requires_grad_(true);
  const Tensor b = randn({4}, on_device()).requires_grad_(true);
  Tensor y = LinearFunction::apply(x, w, b);
  EXPECT_EQ(y.grad_fn()->name(), "ctorch::testing::(anonymous namespace)::LinearFunction");
  (y * y).sum().backward();
  const Tensor gx = x.grad().clone(), gw = w.grad().clone(), gb = b.grad().clone();
  x.mutable_grad() = Tensor();
  w.mutable_grad() = Tensor();
  b.mutable_grad() = Tensor();
  Tensor ref = x.mm(w.t()) + b;
  (ref * ref).sum().backward();
  EXPECT_TRUE(allclose(gx, x.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(gw, w.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(gb, b.grad(), 1e-5, 1e-6));

  const Tensor v = randn({2}, on_device()).requires_grad_(true);
  MulConstant::apply(v, 5.5).sum().backward();
  EXPECT_TRUE(allclose(v.grad().cpu(), full({2}, 5.5)));
}

TEST_P(AutogradFunction, PassesGradcheck) {
  const auto fn = [](const variable_list& in) { return variable_list{LinearFunction::apply(in[0], in[1], in[2])}; };
  manual_seed(1);
  const TensorOptions f64 = on_device(kDouble);
  EXPECT_TRUE(autograd::gradcheck(fn, {randn({3, 2}, f64).requires_grad_(true), randn({2, 2}, f64).requires_grad_(true),
                                       randn({2}, f64).requires_grad_(true)}));
}

struct Square : Function<Square> {  // backward written with ops: differentiable again
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) { return {g[0] * 2 * ctx->get_saved_variables()[0]}; }
};

TEST_P(AutogradFunction, HigherOrderGradients) {
  const Tensor x = tensor({3.0}, on_device()).requires_grad_(true);
  const Tensor y = Square::apply(x);
  const Tensor dx = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_EQ(dx.item<float>(), 6.0f);
  const Tensor ddx = autograd::grad({dx}, {x})[0];
  EXPECT_EQ(ddx.item<float>(), 2.0f);
}

struct TwoOutputs : Function<TwoOutputs> {  // one output unused downstream; an integer output
  static inline int second_grad_defined = -1;  // what backward saw for the unused output
  static variable_list forward(AutogradContext* ctx, Tensor x, bool materialize) {
    ctx->set_materialize_grads(materialize);
    Tensor idx = x.argmax();
    ctx->mark_non_differentiable({idx});
    return {x * 2, x * 3, idx};
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    (void)ctx;
    EXPECT_TRUE(g[0].defined());
    second_grad_defined = g[1].defined() ? 1 : 0;
    if (!g[1].defined()) return {g[0] * 2, Tensor()};
    EXPECT_EQ(g[1].abs().sum().item<float>(), 0.0f);  // materialized as zeros
    return {g[0] * 2 + g[1] * 3, Tensor()};
  }
};

TEST_P(AutogradFunction, UnusedOutputsAndNonDifferentiableOnes) {
  for (bool materialize : {true, false}) {
    const Tensor x = ones({3}, on_device()).requires_grad_(true);
    const variable_list out = TwoOutputs::apply(x, materialize);
    EXPECT_TRUE(out[1].requires_grad());
    EXPECT_FALSE(out[2].requires_grad());
    TwoOutputs::second_grad_defined = -1;
    out[0].sum().backward();
    EXPECT_EQ(TwoOutputs::second_grad_defined, materialize ? 1 : 0);
    EXPECT_TRUE(equal(x.grad().cpu(), full({3}, 2.0f)));
  }
}

struct ScaleInPlace : Function<ScaleInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2}; }
};

struct Identity : Function<Identity> {
  static Tensor forward(AutogradContext*, Tensor x) { return x; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

TEST_P(AutogradFunction, DirtyAndReturnedInputs) {
  const Tensor leaf = ones({2}, on_device()).requires_grad_(true);
  Tensor mid = leaf * 3;
  const Tensor out = ScaleInPlace::apply(mid);
  EXPECT_TRUE(out.is_same(mid));  // modified in place: the same tensor, now this function's output
  EXPECT_EQ(mid.grad_fn()->name(), "ctorch::testing::(anonymous namespace)::ScaleInPlace");
  out.sum().backward();
  EXPECT_TRUE(equal(leaf.grad().cpu(), full({2}, 6.0f)));
  EXPECT_EQ(error_of([&] { ScaleInPlace::apply(leaf); }),
            "a leaf Variable that requires grad has been used in an in-place operation.");

  const Tensor a = ones({2}, on_device()).requires_grad_(true);
  const Tensor same = Identity::apply(a);
  EXPECT_FALSE(same.is_same(a));  // a new view, so a keeps being a leaf
  EXPECT_TRUE(a.is_leaf());
  (same * 4).sum().backward();
  EXPECT_TRUE(equal(a.grad().cpu(), full({2}, 4.0f)));
}

struct WrongCount : Function<WrongCount> {
  static Tensor forward(AutogradContext*, Tensor x, double) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

TEST_P(AutogradFunction, PyTorchsErrors) {
  const Tensor x = ones({2}, on_device()).requires_grad_(true);
  const Tensor y = WrongCount::apply(x, 2.0);
  EXPECT_NE(error_of([&] { y.sum().backward(); }).find("returned an incorrect number of gradients (expected 2, got 1)"),
            std::string::npos);

  Tensor z = x * 1;
  const Tensor sq = Square::apply(z);
  {
    NoGradGuard no_grad;
    z.add_(1);
  }
  EXPECT_NE(error_of([&] { sq.sum().backward(); }).find("modified by an inplace operation"), std::string::npos);

  const Tensor r = Square::apply(x);
  r.sum().backward();
  EXPECT_NE(error_of([&] { r.sum().backward(); }).find("Trying to backward through the graph a second time"),
            std::string::npos);

  NoGradGuard no_grad;  // nothing recorded without grad mode
  EXPECT_FALSE(Square::apply(x).requires_grad());
}

struct SumProduct : Function<SumProduct> {  // a tensor list: one input (and one gradient) per tensor
  static Tensor forward(AutogradContext* ctx, variable_list tensors, double scale) {
    ctx->save_for_backward(tensors);
    ctx->saved_data["scale"] = scale;
    return (tensors[0] * tensors[1]) * scale;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const variable_list s = ctx->get_saved_variables();
    const double scale = ctx->saved_data["scale"].toDouble();
    EXPECT_TRUE(ctx->needs_input_grad(0));
    EXPECT_FALSE(ctx->needs_input_grad(1));
    return {g[0] * s[1] * scale, g[0] * s[0] * scale, Tensor()};
  }
};

TEST_P(AutogradFunction, TensorListArguments) {
  const Tensor x = full({3}, 2.0f, on_device()).requires_grad_(true);
  const Tensor y = full({3}, 5.0f, on_device());
  SumProduct::apply(variable_list{x, y}, 0.5).sum().backward();
  EXPECT_TRUE(equal(x.grad().cpu(), full({3}, 2.5f)));
}

CTORCH_INSTANTIATE_DEVICE_TESTS(AutogradFunction);

}  // namespace
}  // namespace ctorch::testing
