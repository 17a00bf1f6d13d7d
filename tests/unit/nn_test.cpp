// nn::Module, layers, losses, optimizers and schedulers on the cpu (device runs: tests/device/nn_device_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;

namespace {

std::vector<float> values(const Tensor& t) { return t.to(kFloat).contiguous().to_vector<float>(); }

TEST(Nn, LinearInitializationMatchesPyTorch) {
  // torch.manual_seed(0); torch.nn.Linear(4, 3): weight ~ U(-1/2, 1/2) drawn from torch.rand's stream.
  manual_seed(0);
  nn::Linear linear(4, 3);
  const std::vector<float> w = values(linear.weight);
  const std::vector<float> expected = {-0.0037f, 0.2682f, -0.4115f, -0.3680f, -0.1926f, 0.1341f,
                                       -0.0099f, 0.3964f, -0.0444f, 0.1323f, -0.1511f, -0.0983f};
  ASSERT_EQ(w.size(), expected.size());
  for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(w[i], expected[i], 5e-5) << i;
  const std::vector<float> b = values(linear.bias);
  const std::vector<float> expected_bias = {-0.4777f, -0.3311f, -0.2061f};
  for (size_t i = 0; i < b.size(); ++i) EXPECT_NEAR(b[i], expected_bias[i], 5e-5) << i;
  EXPECT_TRUE(linear.weight.requires_grad());
  EXPECT_TRUE(linear.weight.is_leaf());
}

TEST(Nn, ForwardRecordsAddmmAndBackwardFillsParameterGradients) {
  manual_seed(0);
  nn::Linear linear(3, 2);
  const Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}).to(kFloat);
  const Tensor y = linear(x);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "AddmmBackward0");
  y.sum().backward();
  // d(sum(x W^T + b))/dW = column sums of x for every output row; /db = batch size.
  EXPECT_EQ(values(linear.weight.grad()), (std::vector<float>{5, 7, 9, 5, 7, 9}));
  EXPECT_EQ(values(linear.bias.grad()), (std::vector<float>{2, 2}));
}

TEST(Nn, SequentialIndexingParametersAndRepr) {
  auto net = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(3, 4), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(4, 1)});
  EXPECT_EQ(net->size(), 3u);
  EXPECT_EQ(net->at<nn::Linear>(0).out_features, 4);
  EXPECT_EQ(net->at<nn::Linear>(-1).in_features, 4);
  EXPECT_THROW(net->at<nn::Linear>(1), TypeError);
  EXPECT_THROW((*net)[3], IndexError);
  const auto named = net->named_parameters();
  ASSERT_EQ(named.size(), 4u);
  EXPECT_EQ(named[0].first, "0.weight");
  EXPECT_EQ(named[3].first, "2.bias");
  EXPECT_EQ(net->repr(),
            "Sequential(\n  (0): Linear(in_features=3, out_features=4, bias=True)\n  (1): ReLU()\n"
            "  (2): Linear(in_features=4, out_features=1, bias=True)\n)");
}

TEST(Nn, StateDictRoundTripAndStrictErrorsChangeNothing) {
  manual_seed(0);
  nn::Linear a(2, 2), b(2, 2);
  b.load_state_dict(a.state_dict());
  EXPECT_TRUE(b.weight.equal(a.weight));
  const Tensor before = b.weight.clone();
  nn::NamedTensors bad = {{"weight", zeros({2, 2})}, {"extra", zeros({1})}};
  try {
    b.load_state_dict(bad);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "
                                         "\"bias\". \n\tUnexpected key(s) in state_dict: \"extra\". "),
              0u)
        << e.what();
  }
  EXPECT_TRUE(b.weight.equal(before));  // nothing was copied
  nn::NamedTensors wrong_shape = {{"weight", zeros({3, 2})}, {"bias", zeros({2})}};
  EXPECT_THROW(b.load_state_dict(wrong_shape), Error);
  EXPECT_TRUE(b.weight.equal(before));
  b.load_state_dict({{"weight", zeros({2, 2})}}, /*strict=*/false);
  EXPECT_TRUE(b.weight.equal(zeros({2, 2})));
}

TEST(Nn, ToDtypeKeepsParameterIdentity) {
  nn::Linear linear(2, 3);
  const Tensor handle = linear.weight;
  linear.to(kDouble);
  EXPECT_EQ(handle.dtype(), kDouble);
  EXPECT_TRUE(handle.requires_grad());
  EXPECT_TRUE(handle.is_leaf());
  EXPECT_THROW(linear.to(kLong), TypeError);
}

TEST(Nn, LossesMatchTheirDefinitions) {
  const Tensor input = tensor({{0.2, 0.8, -1.0}, {1.5, 0.1, 0.3}}).to(kDouble);
  const Tensor target = tensor(std::vector<int64_t>{1, 0});
  // cross_entropy = mean(-log_softmax(input)[i, target[i]])
  const Tensor logp = input.log_softmax(1);
  const double expected = -(logp[0][1].item<double>() + logp[1][0].item<double>()) / 2;
  EXPECT_NEAR(nn::CrossEntropyLoss()(input, target).item<double>(), expected, 1e-12);
  // ignore_index drops the ignored rows from sum and count.
  const Tensor ignored = tensor(std::vector<int64_t>{1, -100});
  EXPECT_NEAR(nn::functional::cross_entropy(input, ignored).item<double>(), -logp[0][1].item<double>(), 1e-12);
  // label smoothing: (1 - e) * nll + e / C * mean(-sum(logp))
  const double e = 0.1;
  const double smooth = -(logp.sum().item<double>()) / 2;
  EXPECT_NEAR(nn::functional::cross_entropy(input, target, Tensor(), -100, "mean", e).item<double>(),
              (1 - e) * expected + e / 3 * smooth, 1e-12);
  EXPECT_THROW(nn::functional::nll_loss(logp, tensor(std::vector<int64_t>{3, 0})), IndexError);
  EXPECT_THROW(nn::functional::mse_loss(input, input, "avg"), ValueError);
  const TensorOptions f64 = TensorOptions().dtype(kDouble);
  const Tensor p = tensor({0.25, 0.9}, f64), t = tensor({0.0, 1.0}, f64);
  EXPECT_NEAR(nn::BCELoss()(p, t).item<double>(), -(std::log(0.75) + std::log(0.9)) / 2, 1e-12);
  const Tensor logits = tensor({-30.0, 40.0}).to(kDouble);
  const double bce_logits = nn::BCEWithLogitsLoss()(logits, t).item<double>();
  EXPECT_NEAR(bce_logits, (std::log1p(std::exp(-30.0)) + std::log1p(std::exp(-40.0))) / 2, 1e-15);
  EXPECT_NEAR(nn::MSELoss("sum")(p, t).item<double>(), 0.25 * 0.25 + 0.1 * 0.1, 1e-12);
  EXPECT_NEAR(nn::L1Loss()(p, t).item<double>(), (0.25 + 0.1) / 2, 1e-12);
}

TEST(Nn, CrossEntropyGradientIsSoftmaxMinusOneHot) {
  const Tensor input = tensor({{0.2, 0.8, -1.0}, {1.5, 0.1, 0.3}}).to(kDouble).requires_grad_();
  nn::CrossEntropyLoss()(input, tensor(std::vector<int64_t>{1, 0})).backward();
  const Tensor expected = (input.detach().softmax(1) - tensor({{0.0, 1.0, 0.0}, {1.0, 0.0, 0.0}}).to(kDouble)) / 2;
  EXPECT_TRUE(input.grad().allclose(expected, 1e-12, 1e-12));
}

TEST(Nn, DropoutScalesKeptElementsAndIsIdentityInEval) {
  manual_seed(0);
  nn::Dropout drop(0.25);
  const Tensor x = ones({1000});
  const Tensor y = drop(x);
  for (float v : values(y)) EXPECT_TRUE(v == 0.0f || std::abs(v - 1 / 0.75f) < 1e-6f) << v;
  const double kept = y.ne(0).sum().item<double>();
  EXPECT_GT(kept, 650);
  EXPECT_LT(kept, 850);
  drop.eval();
  EXPECT_TRUE(drop(x).is_same(x));
  EXPECT_THROW(nn::Dropout(1.5), ValueError);
}

TEST(Optim, SgdWithMomentumFollowsPyTorchsUpdate) {
  // p = 1, grad = 2p each step (loss p^2): buf_1 = g_1; buf_t = m*buf + g_t; p -= lr * buf.
  Tensor p = tensor({1.0}).to(kDouble).requires_grad_();
  optim::SGD opt({p}, optim::SGDOptions(0.1).momentum(0.9));
  double pv = 1, buf = 0;
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    (p * p).sum().backward();
    opt.step();
    const double g = 2 * pv;
    buf = i == 0 ? g : 0.9 * buf + g;
    pv -= 0.1 * buf;
    EXPECT_NEAR(p.item<double>(), pv, 1e-12);
  }
  EXPECT_FALSE(p.requires_grad() == false);
}

TEST(Optim, AdamFirstStepMovesEachParameterByLr) {
  // Adam's first step is lr * sign(grad) (up to eps).
  Tensor p = tensor({1.0, -2.0, 3.0}).to(kDouble).requires_grad_();
  optim::Adam opt({p}, optim::AdamOptions(0.01));
  (p * p).sum().backward();
  opt.step();
  EXPECT_TRUE(p.detach().allclose(tensor({0.99, -1.99, 2.99}).to(kDouble), 0, 1e-7));
  optim::AdamW w({p}, optim::AdamW::defaults());
  EXPECT_DOUBLE_EQ(w.param_groups()[0].options.weight_decay(), 1e-2);
}

TEST(Optim, ZeroGradAndGroups) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  optim::SGD opt(std::vector<optim::ParamGroup<optim::SGDOptions>>{{{a}, optim::SGDOptions(0.1)},
                                                                    {{b}, optim::SGDOptions(0.5)}});
  (a + b).sum().backward();
  opt.step();
  EXPECT_TRUE(a.detach().equal(full({2}, 0.9f)));
  EXPECT_TRUE(b.detach().equal(full({2}, 0.5f)));
  opt.zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(a.grad().equal(zeros({2})));
  opt.zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(a.grad().defined());
  EXPECT_THROW(optim::SGD(std::vector<optim::ParamGroup<optim::SGDOptions>>{{{a}, optim::SGDOptions(0.1)},
                                                                             {{a}, optim::SGDOptions(0.2)}}),
               ValueError);
  const Tensor nonleaf = a * 2;
  EXPECT_THROW(optim::SGD({nonleaf}, optim::SGDOptions(0.1)), Error);
}

TEST(Optim, SchedulersFollowPyTorchsSchedules) {
  Tensor p = ones({1}).requires_grad_();
  optim::SGD opt({p}, optim::SGDOptions(1.0));
  optim::StepLR step(opt, 2, 0.5);
  std::vector<double> lrs;
  for (int i = 0; i < 5; ++i) {
    step.step();
    lrs.push_back(step.get_last_lr()[0]);
  }
  EXPECT_EQ(lrs, (std::vector<double>{1.0, 0.5, 0.5, 0.25, 0.25}));
  optim::SGD opt2({p}, optim::SGDOptions(1.0));
  optim::CosineAnnealingLR cos(opt2, 4, 0.0);
  for (int i = 1; i <= 4; ++i) {
    cos.step();
    EXPECT_NEAR(cos.get_last_lr()[0], (1 + std::cos(M_PI * i / 4)) / 2, 1e-12) << i;
  }
  optim::SGD opt3({p}, optim::SGDOptions(2.0));
  optim::LambdaLR lambda(opt3, [](int64_t e) { return 1.0 / (e + 1); });
  EXPECT_DOUBLE_EQ(opt3.lr(0), 2.0);
  lambda.step();
  EXPECT_DOUBLE_EQ(opt3.lr(0), 1.0);
}

}  // namespace

namespace {

TEST(Nn, EmbeddingLooksUpRowsAndSkipsThePaddingGradient) {
  manual_seed(0);
  nn::Embedding emb(5, 3, /*padding_idx=*/0);
  EXPECT_TRUE(emb.weight[0].equal(zeros({3})));
  const Tensor idx = tensor(std::vector<int64_t>{1, 0, 1, 4}).reshape({2, 2});
  const Tensor out = emb(idx);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_TRUE(out[0][0].equal(emb.weight[1].detach()));
  out.sum().backward();
  // Row 1 was looked up twice, row 4 once, the padding row 0 gets nothing.
  EXPECT_TRUE(emb.weight.grad().equal(tensor({{0.f, 0.f, 0.f}, {2.f, 2.f, 2.f}, {0.f, 0.f, 0.f}, {0.f, 0.f, 0.f},
                                              {1.f, 1.f, 1.f}})));
  EXPECT_EQ(emb.repr(), "Embedding(5, 3, padding_idx=0)");
  EXPECT_THROW(emb(ones({2})), Error);
}

TEST(Nn, LayerNormNormalizesTheLastDims) {
  nn::LayerNorm norm({4});
  const Tensor x = tensor({{1.0, 2.0, 3.0, 4.0}, {2.0, 2.0, 2.0, 6.0}}, TensorOptions().dtype(kDouble));
  norm.to(kDouble);
  const Tensor y = norm(x);
  const Tensor mean = x.mean(IntArrayRef{1}, true), var = x.var(IntArrayRef{1}, 0, true);
  EXPECT_TRUE(y.allclose((x - mean) / (var + 1e-5).sqrt(), 1e-12, 1e-12));
  EXPECT_EQ(norm.repr(), "LayerNorm((4,), eps=1e-05, elementwise_affine=True)");
  const Tensor xr = x.clone().requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& v) { return autograd::variable_list{norm(v[0]).pow(3).sum()}; }, {xr}));
}

}  // namespace

namespace {

TEST(Nn, BatchNormUsesBatchStatisticsInTrainingAndRunningOnesInEval) {
  nn::BatchNorm1d bn(2);
  const Tensor x = tensor({{1.0f, 10.0f}, {3.0f, 20.0f}, {5.0f, 30.0f}});
  const Tensor y = bn(x);
  // Per-feature (x - mean) / sqrt(biased var + eps).
  const Tensor mean = x.mean(IntArrayRef{0}, true), var = x.var(IntArrayRef{0}, 0, true);
  EXPECT_TRUE(y.allclose((x - mean) / (var + 1e-5).sqrt(), 1e-5, 1e-6));
  // running = 0.9 * running + 0.1 * batch (unbiased variance).
  EXPECT_TRUE(bn.running_mean.allclose(tensor({0.3f, 2.0f}), 1e-6, 1e-6));
  EXPECT_TRUE(bn.running_var.allclose(tensor({0.9f + 0.1f * 4.0f, 0.9f + 0.1f * 100.0f}), 1e-5, 1e-6));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);
  bn.eval();
  const Tensor z = bn(x);
  EXPECT_TRUE(z.allclose((x - bn.running_mean) / (bn.running_var + 1e-5).sqrt(), 1e-5, 1e-6));
  EXPECT_EQ(bn.state_dict().size(), 5u);  // weight, bias, running_mean, running_var, num_batches_tracked
  EXPECT_EQ(bn.repr(), "BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
}

}  // namespace

namespace {

TEST(Nn, ClipGradNormScalesToTheMaxNorm) {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({1}).requires_grad_();
  a.mutable_grad() = tensor({3.0f, 0.0f});
  b.mutable_grad() = tensor({4.0f});
  const Tensor total = nn::utils::clip_grad_norm_({a, b}, 1.0);
  EXPECT_NEAR(total.item<double>(), 5.0, 1e-6);  // sqrt(3^2 + 4^2)
  EXPECT_NEAR(a.grad()[0].item<double>(), 3.0 / 5.0, 1e-6);
  EXPECT_NEAR(b.grad()[0].item<double>(), 4.0 / 5.0, 1e-6);
  // Under the max norm nothing changes.
  EXPECT_NEAR(nn::utils::clip_grad_norm_({a, b}, 10.0).item<double>(), 1.0, 1e-5);
  EXPECT_NEAR(a.grad()[0].item<double>(), 0.6, 1e-6);
  b.mutable_grad() = tensor({INFINITY});
  EXPECT_THROW(nn::utils::clip_grad_norm_({a, b}, 1.0, 2.0, /*error_if_nonfinite=*/true), Error);
  nn::utils::clip_grad_value_({a}, 0.5);
  EXPECT_NEAR(a.grad()[0].item<double>(), 0.5, 1e-6);
}

}  // namespace

namespace {

TEST(Nn, GeluAndErfMatchTheirDefinitions) {
  const Tensor x = tensor({-2.0, -0.5, 0.0, 0.7, 3.0}, TensorOptions().dtype(kDouble));
  const std::vector<double> v = x.to_vector<double>();
  const std::vector<double> e = x.erf().to_vector<double>();
  const std::vector<double> g = nn::GELU()(x).to_vector<double>();
  const std::vector<double> gt = nn::GELU("tanh")(x).to_vector<double>();
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_NEAR(e[i], std::erf(v[i]), 1e-15);
    EXPECT_NEAR(g[i], 0.5 * v[i] * (1 + std::erf(v[i] / std::sqrt(2.0))), 1e-15);
    const double inner = std::sqrt(2 / M_PI) * (v[i] + 0.044715 * v[i] * v[i] * v[i]);
    EXPECT_NEAR(gt[i], 0.5 * v[i] * (1 + std::tanh(inner)), 1e-15);
  }
  const Tensor xr = x.clone().requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{nn::functional::gelu(in[0]).sum()}; },
      {xr}));
  EXPECT_EQ(xr.erf().grad_fn()->name(), "ErfBackward0");
  EXPECT_EQ(nn::GELU("tanh").repr(), "GELU(approximate='tanh')");
  EXPECT_THROW(nn::functional::gelu(x, "fast"), Error);
  // Integer inputs compute in the default float dtype, as torch.erf.
  EXPECT_EQ(tensor(std::vector<int64_t>{1}).erf().dtype(), kFloat);
}

}  // namespace

namespace {

TEST(AutogradMore, ProdGradientAndRandomInPlaceOps) {
  const Tensor x = tensor({{1.5, -2.0, 0.5}, {3.0, 1.25, -0.75}}, TensorOptions().dtype(kDouble)).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& v) {
        return autograd::variable_list{v[0].prod() + v[0].prod(1).sum() + v[0].prod(0, true).pow(2).sum()};
      },
      {x}));
  EXPECT_EQ(x.prod().grad_fn()->name(), "ProdBackward0");
  const Tensor z = tensor({1.0, 0.0}, TensorOptions().dtype(kDouble)).requires_grad_();
  z.prod().backward();  // a zero factor: the product of the others, never NaN
  EXPECT_TRUE(z.grad().equal(tensor({0.0, 1.0}, TensorOptions().dtype(kDouble))));
  // Random fills: refused on a leaf that requires grad; a zero gradient on a non-leaf.
  Tensor leaf = zeros({3}).requires_grad_();
  EXPECT_THROW(leaf.uniform_(), Error);
  EXPECT_TRUE(leaf.detach().equal(zeros({3})));
  Tensor y = leaf * 2;
  y.normal_();
  (y * 3).sum().backward();
  EXPECT_TRUE(leaf.grad().equal(zeros({3})));
}

}  // namespace

namespace {

TEST(AutogradMore, WritingAGradValueIntoASliceOfAPlainTensorIsRefused) {
  // A view of a plain tensor made outside set_item does not know its base: PyTorch would give `buffer`
  // the history (CopySlices); ctorch refuses rather than lose it (buffer.index_put_ records it).
  Tensor y = ones({2}).requires_grad_();
  Tensor buffer = zeros({4});
  EXPECT_THROW(buffer.narrow(0, 1, 2).copy_(y * 2), NotImplementedError);
  EXPECT_TRUE(buffer.equal(zeros({4})));
  // The whole tensor may be written: it then records the copy.
  Tensor whole = zeros({2});
  whole.copy_(y * 2);
  whole.sum().backward();
  EXPECT_TRUE(y.grad().equal(full({2}, 2.0f)));
  // Select and slice backward stay differentiable (create_graph): d2/dx2 of sum(x[1:]^3) = 6x there.
  Tensor x = tensor({1.0, 2.0, 3.0}, TensorOptions().dtype(kDouble)).requires_grad_();
  const Tensor g = autograd::grad({x.slice(0, 1).pow(3).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  const Tensor h = autograd::grad({(g * x.select(0, 2)).sum()}, {x})[0];
  // g = [0, 3*4, 3*9]; (g * x2).sum() = 3 x1^2 x2 + 3 x2^3: d/dx = [0, 6 x1 x2, 3 x1^2 + 9 x2^2] + select's term.
  EXPECT_NEAR(h[1].item<double>(), 6 * 2 * 3, 1e-12);
  EXPECT_NEAR(h[2].item<double>(), 3 * 4 + 9 * 9, 1e-12);
}

}  // namespace
