// Autograd semantics on the cpu, as PyTorch 1.13 has them: leaves and grad_fn, accumulation,
// retain_graph, double backward, autograd::grad, the engine's errors, grad mode, in-place checks and
// version counters, hooks, retain_grad, detach, anomaly mode, and gradcheck failing when it should.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "ctorch/autograd.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ctorch/warning.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

using autograd::variable_list;
using ::testing::HasSubstr;

const TensorOptions kF64 = TensorOptions().dtype(kDouble);

Tensor leaf(std::initializer_list<double> values, ScalarType dtype = kDouble) {
  return tensor(std::vector<double>(values), TensorOptions().dtype(dtype)).requires_grad_();
}

std::vector<double> values(const Tensor& t) { return t.to(kDouble).contiguous().to_vector<double>(); }

std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : std::string("<leaf>"); }

void expect_near(const Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  ASSERT_TRUE(got.defined());
  const std::vector<double> g = values(got);
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], tol) << "element " << i;
}

const char* const kBackwardTwice =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.";

// ---- leaves, grad_fn and printing ----------------------------------------------------------------

TEST(AutogradLeaf, LeavesAndNonLeaves) {
  Tensor plain = ones({2});
  EXPECT_TRUE(plain.is_leaf());
  EXPECT_FALSE(plain.requires_grad());
  EXPECT_EQ(plain.grad_fn(), nullptr);

  Tensor x = leaf({1, 2});
  EXPECT_TRUE(x.is_leaf());
  EXPECT_TRUE(x.requires_grad());
  EXPECT_EQ(x.grad_fn(), nullptr);
  EXPECT_FALSE(x.grad().defined());

  Tensor y = x * 2;
  EXPECT_FALSE(y.is_leaf());
  EXPECT_TRUE(y.requires_grad());
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  EXPECT_EQ(y.output_nr(), 0);
  // MulBackward0 -> AccumulateGrad of x (the scalar has no edge).
  ASSERT_EQ(y.grad_fn()->next_edges().size(), 1u);
  ASSERT_TRUE(y.grad_fn()->next_edges()[0].is_valid());
  EXPECT_EQ(y.grad_fn()->next_edges()[0].function->name(), "torch::autograd::AccumulateGrad");

  // An op whose inputs do not require grad records nothing.
  Tensor z = plain * 2;
  EXPECT_TRUE(z.is_leaf());
  EXPECT_FALSE(z.requires_grad());
}

TEST(AutogradLeaf, NextEdgesFollowTheInputs) {
  Tensor a = leaf({1, 2}), b = ones({2}, kF64), c = leaf({3, 4});
  Tensor y = (a * b) + c.exp();
  ASSERT_EQ(y.grad_fn()->name(), "AddBackward0");
  const auto& edges = y.grad_fn()->next_edges();
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0].function->name(), "MulBackward0");
  EXPECT_EQ(edges[1].function->name(), "ExpBackward0");
  const auto& mul_edges = edges[0].function->next_edges();
  ASSERT_EQ(mul_edges.size(), 2u);
  EXPECT_TRUE(mul_edges[0].is_valid());
  EXPECT_FALSE(mul_edges[1].is_valid());  // b does not require grad
  // Both uses of a leaf share its AccumulateGrad.
  Tensor u = a * 3, v = a.sin();
  EXPECT_EQ(u.grad_fn()->next_edges()[0].function, v.grad_fn()->next_edges()[0].function);
}

TEST(AutogradLeaf, ReprShowsRequiresGradAndGradFn) {
  PrintStyleScope python(TensorPrintStyle::Python);
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  EXPECT_EQ(x.repr(), "tensor([1., 2.], requires_grad=True)");
  EXPECT_EQ((x * x).repr(), "tensor([1., 4.], grad_fn=<MulBackward0>)");
  EXPECT_EQ((x + x).repr(), "tensor([2., 4.], grad_fn=<AddBackward0>)");
  EXPECT_EQ(x.sum().repr(), "tensor(3., grad_fn=<SumBackward0>)");
  EXPECT_EQ(x.detach().repr(), "tensor([1., 2.])");
  NoGradGuard no_grad;
  EXPECT_EQ((x * 2).repr(), "tensor([2., 4.])");
}

struct NameCase {
  const char* expected;
  std::function<Tensor(const Tensor&)> fn;
};

TEST(AutogradLeaf, GradFnNamesArePyTorchs) {
  const Tensor m = ones({3, 3}, kF64);
  const std::vector<NameCase> cases = {
      {"NegBackward0", [](const Tensor& x) { return -x; }},
      {"AbsBackward0", [](const Tensor& x) { return x.abs(); }},
      {"ExpBackward0", [](const Tensor& x) { return x.exp(); }},
      {"LogBackward0", [](const Tensor& x) { return x.log(); }},
      {"SqrtBackward0", [](const Tensor& x) { return x.sqrt(); }},
      {"RsqrtBackward0", [](const Tensor& x) { return x.rsqrt(); }},
      {"SinBackward0", [](const Tensor& x) { return x.sin(); }},
      {"CosBackward0", [](const Tensor& x) { return x.cos(); }},
      {"TanhBackward0", [](const Tensor& x) { return x.tanh(); }},
      {"SigmoidBackward0", [](const Tensor& x) { return x.sigmoid(); }},
      {"ReluBackward0", [](const Tensor& x) { return x.relu(); }},
      {"ClampBackward1", [](const Tensor& x) { return x.clamp(0, 1); }},
      {"AddBackward0", [](const Tensor& x) { return x + x; }},
      {"SubBackward0", [](const Tensor& x) { return x - x; }},
      {"RsubBackward1", [](const Tensor& x) { return 2 - x; }},
      {"MulBackward0", [](const Tensor& x) { return x * x; }},
      {"DivBackward0", [](const Tensor& x) { return x / x; }},
      {"PowBackward0", [](const Tensor& x) { return x.pow(2); }},
      {"PowBackward1", [](const Tensor& x) { return x.pow(x); }},
      {"PowBackward2", [](const Tensor& x) { return pow(2, x); }},
      {"MaximumBackward0", [](const Tensor& x) { return x.maximum(x * 2); }},
      {"MinimumBackward0", [](const Tensor& x) { return x.minimum(x * 2); }},
      {"RemainderBackward1", [](const Tensor& x) { return x.remainder(x + 1); }},
      {"SumBackward0", [](const Tensor& x) { return x.sum(); }},
      {"SumBackward1", [](const Tensor& x) { return x.sum({0}); }},
      {"MeanBackward0", [](const Tensor& x) { return x.mean(); }},
      {"MeanBackward1", [](const Tensor& x) { return x.mean({1}, true); }},
      {"MaxBackward1", [](const Tensor& x) { return x.max(); }},
      {"MaxBackward0", [](const Tensor& x) { return std::get<0>(x.max(0)); }},
      {"MinBackward1", [](const Tensor& x) { return x.min(); }},
      {"MinBackward0", [](const Tensor& x) { return std::get<0>(x.min(1)); }},
      {"SoftmaxBackward0", [](const Tensor& x) { return x.softmax(1); }},
      {"LogSoftmaxBackward0", [](const Tensor& x) { return x.log_softmax(1); }},
      {"MmBackward0", [](const Tensor& x) { return x.mm(x); }},
      {"MmBackward0", [](const Tensor& x) { return x.matmul(x); }},
      {"BmmBackward0", [](const Tensor& x) { return x.unsqueeze(0).bmm(x.unsqueeze(0)); }},
      {"AddmmBackward0", [m](const Tensor& x) { return x.addmm(m, m); }},
      {"DotBackward0", [](const Tensor& x) { return x[0].matmul(x[1]); }},
      {"MvBackward0", [](const Tensor& x) { return x.matmul(x[1]); }},
      {"UnsafeViewBackward0", [](const Tensor& x) { return x.unsqueeze(0).expand({2, 3, 3}).matmul(x); }},
      {"ViewBackward0", [](const Tensor& x) { return x.view({9}); }},
      {"PermuteBackward0", [](const Tensor& x) { return x.permute({1, 0}); }},
      {"TransposeBackward0", [](const Tensor& x) { return x.transpose(0, 1); }},
      {"TBackward0", [](const Tensor& x) { return x.t(); }},
      {"SqueezeBackward0", [](const Tensor& x) { return x.unsqueeze(0).squeeze(); }},
      {"SqueezeBackward1", [](const Tensor& x) { return x.unsqueeze(0).squeeze(0); }},
      {"UnsqueezeBackward0", [](const Tensor& x) { return x.unsqueeze(0); }},
      {"ExpandBackward0", [](const Tensor& x) { return x.expand({2, 3, 3}); }},
      {"SelectBackward0", [](const Tensor& x) { return x.select(0, 1); }},
      {"SliceBackward0", [](const Tensor& x) { return x.slice(0, 0, 2); }},
      {"ToCopyBackward0", [](const Tensor& x) { return x.to(kFloat); }},
      {"CloneBackward0", [](const Tensor& x) { return x.clone(); }},
      {"CatBackward0", [](const Tensor& x) { return cat({x, x}); }},
      {"StackBackward0", [](const Tensor& x) { return stack({x, x}); }},
      {"WhereBackward0", [](const Tensor& x) { return where(x.gt(1), x, x * 2); }},
      {"NormBackward0", [](const Tensor& x) { return x.norm(); }},
      {"NormBackward1", [](const Tensor& x) { return x.norm(2, {0}); }},
  };
  for (const NameCase& c : cases) {
    Tensor x = ones({3, 3}, kF64).requires_grad_();
    Tensor y = c.fn(x);
    EXPECT_EQ(name_of(y), c.expected);
  }
}

// ---- backward: accumulation, retain_graph, explicit gradients --------------------------------------

TEST(AutogradBackward, GradientOfAProduct) {
  Tensor x = leaf({1, 2, 3}), w = leaf({4, 5, 6});
  (x * w).sum().backward();
  expect_near(x.grad(), {4, 5, 6});
  expect_near(w.grad(), {1, 2, 3});
  EXPECT_FALSE(x.grad().requires_grad());
  EXPECT_EQ(x.grad().dtype(), kDouble);
}

// backward(inputs=...) fills .grad of every input, a non-leaf too (PyTorch's run_backward retains
// its grad), and nothing else (PyTorch's BackwardWithNonLeafInputs).
TEST(AutogradBackward, InputsThatAreNotLeavesGetTheirGrad) {
  Tensor x = leaf({1, 2}), y = leaf({3, -1});
  Tensor z = x * x;
  Tensor w = y * z + x * y + y * y;
  autograd::backward({w}, {ones({2}, TensorOptions().dtype(kDouble))}, std::nullopt, false, {x, z});
  expect_near(x.grad(), {2 * 1 * 3 + 3, 2 * 2 * -1 - 1});
  ASSERT_TRUE(z.grad().defined());
  expect_near(z.grad(), {3, -1});
  EXPECT_FALSE(y.grad().defined());
}

// An undefined tensor's metadata is an error, not a crash (libtorch's text).
TEST(AutogradBackward, UndefinedTensorsRaiseInsteadOfCrashing) {
  const Tensor undefined;
  EXPECT_EQ(error_of([&] { (void)undefined.sizes(); }), "sizes() called on an undefined Tensor");
  EXPECT_EQ(error_of([&] { (void)allclose(undefined, ones({2})); }), "dtype() called on an undefined Tensor");
  EXPECT_FALSE(undefined.requires_grad());
}

TEST(AutogradBackward, TensorUsedTwiceSumsItsGradients) {
  Tensor x = leaf({1, -2, 3});
  (x * x + x.exp() + x).sum().backward();
  expect_near(x.grad(), {2 * 1 + std::exp(1.0) + 1, 2 * -2 + std::exp(-2.0) + 1, 2 * 3 + std::exp(3.0) + 1});
}

TEST(AutogradBackward, DiamondGraph) {
  Tensor x = leaf({0.5, 1.5});
  Tensor a = x * 3;
  Tensor b = a.sin();
  Tensor c = a.cos();
  (b * c).sum().backward();  // d/dx sin(3x)cos(3x) = 3 cos(6x)
  expect_near(x.grad(), {3 * std::cos(3.0), 3 * std::cos(9.0)});
}

TEST(AutogradBackward, GradientsAccumulateOverTwoBackwardCalls) {
  Tensor x = leaf({1, 2});
  (x * 3).sum().backward();
  expect_near(x.grad(), {3, 3});
  (x * x).sum().backward();
  expect_near(x.grad(), {3 + 2, 3 + 4});
  x.mutable_grad() = Tensor();  // x.grad = None
  (x * 5).sum().backward();
  expect_near(x.grad(), {5, 5});
}

TEST(AutogradBackward, AccumulatedGradIsNotAliasedToTheIncomingOne) {
  Tensor x = leaf({1, 2});
  Tensor g = tensor({10.0, 20.0}, kF64);
  (x * 1).backward(g);
  expect_near(x.grad(), {10, 20});
  g.fill_(0);  // the caller's gradient tensor is not x.grad
  expect_near(x.grad(), {10, 20});
  (x * 1).backward(tensor({1.0, 1.0}, kF64));
  expect_near(x.grad(), {11, 21});
  expect_near(g, {0, 0});
}

TEST(AutogradBackward, SecondBackwardWithoutRetainGraphThrows) {
  Tensor x = leaf({1, 2});
  Tensor y = (x * x).sum();
  y.backward();
  EXPECT_THAT(error_of([&] { y.backward(); }), HasSubstr(kBackwardTwice));
  expect_near(x.grad(), {2, 4});  // unchanged by the failed call
}

TEST(AutogradBackward, RetainGraphAllowsASecondBackward) {
  Tensor x = leaf({1, 2});
  Tensor y = (x * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward(Tensor(), /*retain_graph=*/true);
  expect_near(x.grad(), {4, 8});
  y.backward();
  expect_near(x.grad(), {6, 12});
  EXPECT_THAT(error_of([&] { y.backward(); }), HasSubstr("Trying to backward through the graph a second time"));
}

TEST(AutogradBackward, GraphWithoutSavedTensorsCanBeRunTwice) {
  // PyTorch frees saved tensors only; AddBackward0 and SumBackward0 save none.
  Tensor x = leaf({1, 2});
  Tensor y = (x + 1).sum();
  y.backward();
  y.backward();
  expect_near(x.grad(), {2, 2});
}

TEST(AutogradBackward, ImplicitGradientOnlyForScalarOutputs) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  EXPECT_THAT(error_of([&] { y.backward(); }), HasSubstr("grad can be implicitly created only for scalar outputs"));
  // A one-element tensor of any rank is fine.
  Tensor one = leaf({3});
  (one * 2).view({1, 1}).backward();
  expect_near(one.grad(), {2});
}

TEST(AutogradBackward, ExplicitGradientForANonScalarOutput) {
  Tensor x = leaf({1, 2, 3});
  (x * x).backward(tensor({1.0, 0.5, -1.0}, kF64));
  expect_near(x.grad(), {2, 2, -6});
}

TEST(AutogradBackward, GradientOfTheWrongShapeIsRejected) {
  Tensor x = leaf({1, 2, 3});
  const std::string e = error_of([&] { (x * 2).backward(ones({2}, kF64)); });
  EXPECT_THAT(e, HasSubstr("Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a "
                           "shape of torch.Size([3])."));
}

TEST(AutogradBackward, OutputThatDoesNotRequireGradIsRejected) {
  Tensor x = ones({2}, kF64);
  EXPECT_THAT(error_of([&] { x.sum().backward(); }),
              HasSubstr("element 0 of tensors does not require grad and does not have a grad_fn"));
  Tensor a = leaf({1});
  EXPECT_THAT(error_of([&] { autograd::backward({a * 2, x.sum()}); }),
              HasSubstr("element 1 of tensors does not require grad and does not have a grad_fn"));
}

TEST(AutogradBackward, BackwardOnALeafAccumulatesIntoIt) {
  Tensor x = leaf({2});
  x.backward();
  expect_near(x.grad(), {1});
}

TEST(AutogradBackward, BackwardWithInputsAccumulatesOnlyThere) {
  Tensor x = leaf({1, 2}), w = leaf({3, 4});
  Tensor y = (x * w).sum();
  y.backward(Tensor(), std::nullopt, false, std::vector<Tensor>{x});
  expect_near(x.grad(), {3, 4});
  EXPECT_FALSE(w.grad().defined());
}

TEST(AutogradBackward, SeveralRoots) {
  Tensor x = leaf({1, 2});
  autograd::backward({(x * 2).sum(), x * x}, {Tensor(), tensor({1.0, 1.0}, kF64)});
  expect_near(x.grad(), {2 + 2, 2 + 4});
}

TEST(AutogradBackward, MixedDtypesGiveEachLeafItsOwnDtype) {
  Tensor xf = leaf({1, 2}, kFloat);
  Tensor wd = leaf({3, 4}, kDouble);
  Tensor y = xf * wd;
  EXPECT_EQ(y.dtype(), kDouble);
  y.sum().backward();
  EXPECT_EQ(xf.grad().dtype(), kFloat);
  EXPECT_EQ(wd.grad().dtype(), kDouble);
  expect_near(xf.grad(), {3, 4});
  expect_near(wd.grad(), {1, 2});
}

TEST(AutogradBackward, BroadcastGradientsAreSummedToTheInputShape) {
  Tensor a = tensor({{1.0}, {2.0}}, kF64).requires_grad_();  // [2, 1]
  Tensor b = tensor({10.0, 20.0, 30.0}, kF64).requires_grad_();  // [3]
  (a * b).sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(b.grad().sizes(), IntArrayRef({3}));
  expect_near(a.grad(), {60, 60});
  expect_near(b.grad(), {3, 3, 3});
}

TEST(AutogradBackward, NonDifferentiableOutputsDoNotRequireGrad) {
  Tensor x = leaf({1, -2, 3});
  EXPECT_FALSE(x.gt(0).requires_grad());
  EXPECT_FALSE(x.argmax().requires_grad());
  EXPECT_FALSE(std::get<1>(x.max(0)).requires_grad());
  EXPECT_FALSE(x.to(kLong).requires_grad());
  EXPECT_TRUE(x.to(kFloat).requires_grad());
}

TEST(AutogradBackward, ZeroGradientThroughNonDifferentiableStep) {
  Tensor x = leaf({1.5, -2.5});
  (x.floor() + x.sign() + x.round()).sum().backward();
  expect_near(x.grad(), {0, 0});
}

// ---- create_graph and autograd::grad ---------------------------------------------------------------

TEST(AutogradHigherOrder, SecondDerivativeOfACube) {
  Tensor x = leaf({1, 2, -3});
  const variable_list g = autograd::grad({x.pow(3).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(g[0].requires_grad());
  expect_near(g[0], {3, 12, 27});
  g[0].sum().backward();
  expect_near(x.grad(), {6, 12, -18});  // d²/dx² x³ = 6x
}

TEST(AutogradHigherOrder, SecondDerivativeThroughProducts) {
  Tensor x = leaf({1, 2, -3});
  Tensor y = (x * x * x).sum();
  y.backward(Tensor(), std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(x.grad().requires_grad());
  expect_near(x.grad(), {3, 12, 27});
  const variable_list h = autograd::grad({x.grad().sum()}, {x});
  expect_near(h[0], {6, 12, -18});
  // backward(create_graph=True) makes the reference cycle PyTorch documents (x -> x.grad ->
  // its graph -> the saved x); clearing the gradient breaks it, as PyTorch recommends.
  x.mutable_grad() = Tensor();
}

TEST(AutogradHigherOrder, SecondDerivativeThroughSavedOutputs) {
  Tensor x = leaf({0.5, -1.0});
  // exp saves its result: the first derivative is exp(x) again, differentiable.
  variable_list g = autograd::grad({x.exp().sum()}, {x}, {}, std::nullopt, true);
  variable_list h = autograd::grad({g[0].sum()}, {x});
  expect_near(h[0], {std::exp(0.5), std::exp(-1.0)});
  // tanh'' = -2 tanh (1 - tanh²).
  g = autograd::grad({x.tanh().sum()}, {x}, {}, std::nullopt, true);
  h = autograd::grad({g[0].sum()}, {x});
  auto tanh2 = [](double v) { return -2 * std::tanh(v) * (1 - std::tanh(v) * std::tanh(v)); };
  expect_near(h[0], {tanh2(0.5), tanh2(-1.0)});
  // sigmoid'' = s (1 - s)(1 - 2s).
  g = autograd::grad({x.sigmoid().sum()}, {x}, {}, std::nullopt, true);
  h = autograd::grad({g[0].sum()}, {x});
  auto sig2 = [](double v) {
    const double s = 1 / (1 + std::exp(-v));
    return s * (1 - s) * (1 - 2 * s);
  };
  expect_near(h[0], {sig2(0.5), sig2(-1.0)});
}

TEST(AutogradHigherOrder, ThirdDerivative) {
  Tensor x = leaf({2});
  const variable_list g1 = autograd::grad({x.pow(4)}, {x}, {}, std::nullopt, true);
  const variable_list g2 = autograd::grad({g1[0]}, {x}, {}, std::nullopt, true);
  const variable_list g3 = autograd::grad({g2[0]}, {x});
  expect_near(g1[0], {32});  // 4x³
  expect_near(g2[0], {48});  // 12x²
  expect_near(g3[0], {48});  // 24x
}

TEST(AutogradGrad, ReturnsGradientsWithoutTouchingDotGrad) {
  Tensor x = leaf({1, 2}), w = leaf({3, 4});
  const variable_list g = autograd::grad({(x * w).sum()}, {x, w});
  expect_near(g[0], {3, 4});
  expect_near(g[1], {1, 2});
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
  EXPECT_FALSE(g[0].requires_grad());
}

TEST(AutogradGrad, WithRespectToANonLeaf) {
  Tensor x = leaf({1, 2});
  Tensor h = x * 3;
  Tensor y = (h * h).sum();
  const variable_list g = autograd::grad({y}, {h});
  expect_near(g[0], {6, 12});
  EXPECT_FALSE(x.grad().defined());
}

TEST(AutogradGrad, UnusedInputNeedsAllowUnused) {
  Tensor x = leaf({1, 2}), unused = leaf({5});
  Tensor y = (x * x).sum();
  EXPECT_THAT(error_of([&] { autograd::grad({y}, {x, unused}, {}, true); }),
              HasSubstr("One of the differentiated Tensors appears to not have been used in the graph. Set "
                        "allow_unused=True if this is the desired behavior."));
  const variable_list g = autograd::grad({y}, {x, unused}, {}, std::nullopt, false, /*allow_unused=*/true);
  ASSERT_EQ(g.size(), 2u);
  expect_near(g[0], {2, 4});
  EXPECT_FALSE(g[1].defined());
}

TEST(AutogradGrad, InputThatDoesNotRequireGradIsRejected) {
  Tensor x = leaf({1, 2});
  Tensor c = ones({2}, kF64);
  EXPECT_THAT(error_of([&] { autograd::grad({(x * c).sum()}, {c}); }),
              HasSubstr("One of the differentiated Tensors does not require grad"));
}

TEST(AutogradGrad, GradOutputsWeightTheOutputs) {
  Tensor x = leaf({1, 2, 3});
  const variable_list g = autograd::grad({x * x}, {x}, {tensor({1.0, 0.0, 2.0}, kF64)});
  expect_near(g[0], {2, 0, 12});
}

// ---- grad mode -----------------------------------------------------------------------------------

TEST(AutogradGradMode, NoGradGuardStopsRecording) {
  Tensor x = leaf({1, 2});
  EXPECT_TRUE(GradMode::is_enabled());
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(GradMode::is_enabled());
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(y.is_leaf());
    EXPECT_EQ(y.grad_fn(), nullptr);
    {
      EnableGradGuard enable;
      EXPECT_TRUE((x * 2).requires_grad());
    }
    EXPECT_FALSE((x.exp()).requires_grad());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  EXPECT_TRUE((x * 2).requires_grad());
}

TEST(AutogradGradMode, IsPerThread) {
  NoGradGuard no_grad;
  bool other_thread_enabled = false;
  std::thread([&] { other_thread_enabled = GradMode::is_enabled(); }).join();
  EXPECT_TRUE(other_thread_enabled);
  EXPECT_FALSE(GradMode::is_enabled());
}

TEST(AutogradGradMode, InPlaceOnALeafIsAllowedWithoutGrad) {
  Tensor x = leaf({1, 2});
  {
    NoGradGuard no_grad;
    x.mul_(2);
  }
  EXPECT_TRUE(x.is_leaf());
  EXPECT_TRUE(x.requires_grad());
  expect_near(x.detach(), {2, 4});
  (x * x).sum().backward();
  expect_near(x.grad(), {4, 8});
}

// ---- in place and version counters ---------------------------------------------------------------

TEST(AutogradInPlace, OnALeafThatRequiresGradThrowsAndLeavesItUnchanged) {
  Tensor x = leaf({1, 2});
  const uint32_t version = x._version();
  const char* kText = "a leaf Variable that requires grad is being used in an in-place operation.";
  EXPECT_THAT(error_of([&] { x.add_(1); }), HasSubstr(kText));
  EXPECT_THAT(error_of([&] { x.mul_(x); }), HasSubstr(kText));
  EXPECT_THAT(error_of([&] { x.exp_(); }), HasSubstr(kText));
  EXPECT_THAT(error_of([&] { x.fill_(3); }), HasSubstr(kText));
  EXPECT_THAT(error_of([&] { x.copy_(ones({2}, kF64)); }), HasSubstr(kText));
  EXPECT_THAT(error_of([&] { x.zero_(); }), HasSubstr(kText));
  expect_near(x.detach(), {1, 2});
  EXPECT_EQ(x._version(), version);
  EXPECT_TRUE(x.is_leaf());
}

TEST(AutogradInPlace, OnANonLeaf) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  const uint32_t v0 = y._version();
  y.mul_(3);
  EXPECT_EQ(y._version(), v0 + 1);
  EXPECT_EQ(name_of(y), "MulBackward0");
  EXPECT_FALSE(y.is_leaf());
  y.sum().backward();
  expect_near(x.grad(), {6, 6});
}

TEST(AutogradInPlace, NeedingTheOriginalValue) {
  Tensor x = leaf({0.5, 1.0});
  Tensor y = x * 1;
  y.sin_();  // d/dx sin(x) needs x, which sin_ overwrites
  EXPECT_EQ(name_of(y), "SinBackward0");
  (y * y).sum().backward();
  // d/dx sin²(x) = 2 sin(x) cos(x)
  expect_near(x.grad(), {std::sin(1.0), std::sin(2.0)});
}

TEST(AutogradInPlace, InPlaceWithItselfAsTheOtherOperandRefusesTheBackwardAsPyTorchDoes) {
  // PyTorch 1.13 saves `other` (here self) before mul_ writes it, then refuses the backward.
  Tensor x = leaf({0.5, 1.0});
  Tensor y = x * 1;
  y.mul_(y);
  EXPECT_EQ(name_of(y), "MulBackward0");
  EXPECT_EQ(error_of([&] { y.sum().backward(); }),
                    "one of the variables needed for gradient computation has been modified by an inplace operation: "
                    "[torch.DoubleTensor [2]], which is output 0 of MulBackward0, is at version 1; expected version 0 "
                    "instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                    "gradient, with torch.autograd.set_detect_anomaly(True).");
  // An operand aliasing another part of self's storage is refused the same way: x[0] *= x[1].
  Tensor z = x * 1;
  z.select(0, 0).mul_(z.select(0, 1));
  EXPECT_THROW(z.sum().backward(), Error);
}

TEST(AutogradInPlace, CopyIntoANonLeafRoutesTheGradientToTheSource) {
  Tensor x = leaf({1, 2}), src = leaf({5, 7});
  Tensor y = x * 2;
  y.copy_(src);
  (y * y).sum().backward();
  expect_near(src.grad(), {10, 14});
  // CopyBackwards gives self zeros_like(grad) (torch/csrc/autograd/functions/tensor.cpp).
  expect_near(x.grad(), {0, 0});
}

TEST(AutogradInPlace, FillOnANonLeafGivesAZeroGradient) {
  // derivatives.yaml: fill_.Scalar and zero_ have self: zeros_like(grad).
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  y.fill_(3);
  EXPECT_EQ(name_of(y), "FillBackward0");
  (y * x).sum().backward();
  expect_near(x.grad(), {3, 3});  // only through the second factor
  Tensor w = leaf({1, 2});
  Tensor z = w * 2;
  z.zero_();
  EXPECT_EQ(name_of(z), "ZeroBackward0");
  z.sum().backward();
  expect_near(w.grad(), {0, 0});
}

TEST(AutogradInPlace, ModifiedSavedOutputIsDetected) {
  Tensor x = tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  Tensor y = x.exp();
  y.add_(1);
  const std::string e = error_of([&] { y.sum().backward(); });
  EXPECT_THAT(e, HasSubstr("one of the variables needed for gradient computation has been modified by an inplace "
                           "operation: [torch.FloatTensor [3]], which is output 0 of ExpBackward0, is at version 1; "
                           "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
                           "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."));
}

TEST(AutogradInPlace, ModifiedSavedLeafInputIsDetected) {
  Tensor x = tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  Tensor y = x.sin();
  {
    NoGradGuard no_grad;
    x.add_(1);
  }
  const std::string e = error_of([&] { y.sum().backward(); });
  EXPECT_THAT(e, HasSubstr("one of the variables needed for gradient computation has been modified by an inplace "
                           "operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead."));
}

TEST(AutogradInPlace, ModifiedSavedNonLeafInputNamesItsCurrentGradFn) {
  // PyTorch's SavedVariable::unpack names the saved input's grad_fn at unpack time (AddBackward0
  // after add_), as "which is output 0 of AddBackward0,".
  Tensor x = tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  Tensor h = x * 2;
  Tensor y = h.sin();
  h.add_(1);
  const std::string e = error_of([&] { y.sum().backward(); });
  EXPECT_THAT(e, HasSubstr("one of the variables needed for gradient computation has been modified by an inplace "
                           "operation: [torch.FloatTensor [3]], which is output 0 of AddBackward0, is at version 1; "
                           "expected version 0 instead."));
}

TEST(AutogradInPlace, ModifiedThroughADetachedAliasIsDetected) {
  Tensor x = leaf({1, 2});
  Tensor y = x.exp();
  y.detach().zero_();  // shares y's version counter
  EXPECT_THAT(error_of([&] { y.sum().backward(); }),
              HasSubstr("one of the variables needed for gradient computation has been modified by an inplace "
                        "operation"));
}

TEST(AutogradInPlace, AnomalyModeChangesTheHint) {
  Tensor x = leaf({1, 2});
  Tensor y = x.exp();
  y.add_(1);
  autograd::DetectAnomalyGuard anomaly;
  EXPECT_THAT(error_of([&] { y.sum().backward(); }),
              HasSubstr("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                        "The variable in question was changed in there or anywhere later. Good luck!"));
}

TEST(AutogradInPlace, UnmodifiedSavedTensorPasses) {
  Tensor x = leaf({1, 2});
  Tensor y = x.exp();
  Tensor z = y * 1;
  z.add_(1);  // z is not saved by anything
  z.sum().backward();
  expect_near(x.grad(), {std::exp(1.0), std::exp(2.0)});
}

// ---- hooks and retain_grad -----------------------------------------------------------------------

TEST(AutogradHooks, LeafHookReplacesTheGradient) {
  Tensor x = leaf({1, 2});
  std::vector<double> seen;
  x.register_hook([&](const Tensor& g) { seen = values(g); });
  x.register_hook([](const Tensor& g) { return g * 10; });
  (x * x).sum().backward();
  EXPECT_EQ(seen, (std::vector<double>{2, 4}));
  expect_near(x.grad(), {20, 40});
}

TEST(AutogradHooks, NonLeafHookChangesWhatFlowsBelow) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  y.register_hook([](const Tensor& g) { return g * 3; });
  y.sum().backward();
  expect_near(x.grad(), {6, 6});
}

TEST(AutogradHooks, HooksRunInRegistrationOrder) {
  Tensor x = leaf({1});
  Tensor y = x * 1;
  y.register_hook([](const Tensor& g) { return g + 1; });
  y.register_hook([](const Tensor& g) { return g * 10; });
  y.backward();
  expect_near(x.grad(), {20});  // (1 + 1) * 10
}

TEST(AutogradHooks, RemoveHook) {
  Tensor x = leaf({1, 2});
  const unsigned leaf_key = x.register_hook([](const Tensor& g) { return g * 100; });
  Tensor y = x * 2;
  const unsigned key = y.register_hook([](const Tensor& g) { return g * 3; });
  y.remove_hook(key);
  x.remove_hook(leaf_key);
  y.sum().backward();
  expect_near(x.grad(), {2, 2});
}

TEST(AutogradHooks, HookOnATensorThatDoesNotRequireGradThrows) {
  Tensor c = ones({2});
  EXPECT_THAT(error_of([&] { c.register_hook([](const Tensor& g) { return g; }); }),
              HasSubstr("cannot register a hook on a tensor that doesn't require gradient"));
}

TEST(AutogradHooks, HooksAlsoRunForAutogradGrad) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  y.register_hook([](const Tensor& g) { return g * 5; });
  const variable_list g = autograd::grad({y.sum()}, {x});
  expect_near(g[0], {10, 10});
}

TEST(AutogradRetainGrad, NonLeafKeepsItsGradient) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3;
  EXPECT_FALSE(y.retains_grad());
  EXPECT_TRUE(x.retains_grad());
  y.retain_grad();
  EXPECT_TRUE(y.retains_grad());
  Tensor z = (y * y).sum();
  z.backward(Tensor(), true);
  expect_near(y.grad(), {6, 12});
  expect_near(x.grad(), {18, 36});
  z.backward();
  expect_near(y.grad(), {12, 24});  // accumulates like a leaf's
  expect_near(x.grad(), {36, 72});
}

TEST(AutogradRetainGrad, WithoutItANonLeafHasNoGradAndAWarning) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3;
  y.sum().backward();
  std::vector<std::string> warnings;
  WarningHandlerGuard guard([&](const std::string& m) { warnings.push_back(m); });
  EXPECT_FALSE(y.grad().defined());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."));
}

TEST(AutogradRetainGrad, OnATensorThatDoesNotRequireGradThrows) {
  EXPECT_THAT(error_of([&] { ones({2}).retain_grad(); }),
              HasSubstr("can't retain_grad on Tensor that has requires_grad=False"));
}

TEST(AutogradRetainGrad, SeesTheGradientAfterEarlierHooks) {
  Tensor x = leaf({1});
  Tensor y = x * 2;
  y.register_hook([](const Tensor& g) { return g * 7; });
  y.retain_grad();
  y.backward();
  expect_near(y.grad(), {7});
  expect_near(x.grad(), {14});
}

// ---- requires_grad, detach -----------------------------------------------------------------------

TEST(AutogradRequiresGrad, IntegerTensorsCannotRequireGrad) {
  for (ScalarType t : {kLong, kInt, kBool}) {
    Tensor i = ones({2}, TensorOptions().dtype(t));
    EXPECT_THAT(error_of([&] { i.requires_grad_(); }), HasSubstr("can require gradients"));
    EXPECT_FALSE(i.requires_grad());
    i.requires_grad_(false);  // turning it off is fine
  }
}

TEST(AutogradRequiresGrad, ChangingItOnANonLeafThrows) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  EXPECT_THAT(error_of([&] { y.requires_grad_(false); }),
              HasSubstr("you can only change requires_grad flags of leaf variables. If you want to use a computed "
                        "variable in a subgraph that doesn't require differentiation use var_no_grad = "
                        "var.detach()."));
  EXPECT_TRUE(y.requires_grad());
  y.requires_grad_(true);  // a no-op on a non-leaf
  EXPECT_TRUE(y.requires_grad());
}

TEST(AutogradRequiresGrad, LeafCanBeTurnedOff) {
  Tensor x = leaf({1, 2});
  x.requires_grad_(false);
  EXPECT_FALSE(x.requires_grad());
  EXPECT_FALSE((x * 2).requires_grad());
}

TEST(AutogradDetach, DetachSharesStorageButNotHistory) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  Tensor d = y.detach();
  EXPECT_TRUE(d.is_leaf());
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());
  EXPECT_FALSE((d * 3).requires_grad());
  // A gradient does not flow through the detached branch.
  (y.sum() + (d * x).sum()).backward();
  expect_near(x.grad(), {2 + 2, 2 + 4});
}

TEST(AutogradDetach, DetachInPlace) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  y.detach_();
  EXPECT_TRUE(y.is_leaf());
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.grad_fn(), nullptr);
  EXPECT_FALSE((y * x).sum().grad_fn() == nullptr);
  (y * x).sum().backward();
  expect_near(x.grad(), {2, 4});
}

// ---- anomaly mode ------------------------------------------------------------------------------------

TEST(AutogradAnomaly, NamesTheNodeThatReturnedNan) {
  Tensor x = tensor({0.0, 1.0}, kF64).requires_grad_();
  Tensor y = (x.sqrt() * 0).sum();  // sqrt'(0) = inf, times 0: NaN
  EXPECT_FALSE(autograd::AnomalyMode::is_enabled());
  {
    autograd::DetectAnomalyGuard anomaly;
    EXPECT_TRUE(autograd::AnomalyMode::is_enabled());
    const std::string e = error_of([&] { y.backward(Tensor(), true); });
    EXPECT_THAT(e, HasSubstr("Function 'SqrtBackward0' returned nan values in its 0th output."));
  }
  EXPECT_FALSE(autograd::AnomalyMode::is_enabled());
  // Without anomaly mode the NaN simply lands in .grad.
  y.backward();
  const std::vector<double> g = values(x.grad());
  EXPECT_TRUE(std::isnan(g[0]));
  EXPECT_EQ(g[1], 0.0);
}

TEST(AutogradAnomaly, NamesTheRightInputIndex) {
  Tensor a = tensor({1.0}, kF64);  // no gradient: output 0 is undefined, not NaN
  Tensor b = tensor({0.0}, kF64).requires_grad_();
  Tensor y = a / b;  // d/db = -g a / b² with g = 0 and b = 0: NaN
  autograd::DetectAnomalyGuard anomaly;
  EXPECT_THAT(error_of([&] { (y * 0).sum().backward(); }),
              HasSubstr("Function 'DivBackward0' returned nan values in its 1th output."));
}

// ---- gradcheck itself ----------------------------------------------------------------------------

TEST(AutogradGradcheckItself, FailsOnAWrongGradient) {
  // A hook that triples the gradient makes the analytical Jacobian wrong.
  auto wrong = [](const variable_list& in) {
    Tensor y = in[0] * 2;
    if (y.requires_grad()) y.register_hook([](const Tensor& g) { return g * 3; });
    return variable_list{y};
  };
  Tensor x = tensor({0.5, -1.0, 2.0}, kF64).requires_grad_();
  autograd::GradcheckOptions quiet;
  quiet.raise_exception = false;
  EXPECT_FALSE(autograd::gradcheck(wrong, {x}, quiet));
  EXPECT_THAT(error_of([&] { autograd::gradcheck(wrong, {x}); }), HasSubstr("Jacobian mismatch"));
  auto right = [](const variable_list& in) { return variable_list{in[0] * 2}; };
  EXPECT_TRUE(autograd::gradcheck(right, {x}));
}

TEST(AutogradGradcheckItself, OpThatSavesItsInput) {
  // gradcheck must leave the recorded graph usable while it perturbs the inputs (PyTorch perturbs
  // x.data, which has its own version counter).
  Tensor x = tensor({0.5, -1.0, 2.0}, kF64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck([](const variable_list& in) { return variable_list{in[0] * in[0]}; }, {x}));
  EXPECT_TRUE(autograd::gradcheck([](const variable_list& in) { return variable_list{in[0].sin()}; }, {x}));
}

TEST(AutogradGradcheckItself, SeveralOutputs) {
  auto fn = [](const variable_list& in) { return variable_list{in[0] * in[1], in[0].exp() + in[1].sum()}; };
  Tensor a = tensor({0.5, -1.0}, kF64).requires_grad_();
  Tensor b = tensor({1.5, 2.0}, kF64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(fn, {a, b}));
}

}  // namespace
}  // namespace ctorch::testing
