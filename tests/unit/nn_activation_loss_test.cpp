// The composed activations and losses of nn_functional_activation.h / nn_functional_loss.h on the
// cpu: values against PyTorch 1.13.1 (float64, printed by python3 -c with torch.nn.functional),
// gradients against finite differences (gradcheck), and PyTorch's error texts.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;
namespace F = ctorch::nn::functional;
using ctorch::testing::error_of;
using ctorch::autograd::variable_list;

namespace {

const TensorOptions kF64 = TensorOptions().dtype(kDouble);

void expect_values(const Tensor& t, const std::vector<double>& expected, double tol = 1e-8) {
  const std::vector<double> got = t.to(kDouble).contiguous().reshape({-1}).to_vector<double>();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(expected[i])) {
      EXPECT_EQ(got[i], expected[i]) << i;
    } else {
      EXPECT_NEAR(got[i], expected[i], tol * std::max(1.0, std::abs(expected[i]))) << i;
    }
  }
}

Tensor x7() { return tensor(std::vector<double>{-3.0, -1.0, -0.25, 0.0, 0.5, 2.0, 25.0}, kF64); }
Tensor a24() { return tensor({{0.3, -1.2, 2.0, 0.7}, {1.5, 0.1, -0.4, -2.2}}, kF64); }
Tensor b24() { return tensor({{0.1, -0.2, 1.0, 0.9}, {0.5, 0.3, -1.4, -0.2}}, kF64); }
Tensor w4() { return tensor(std::vector<double>{0.1, 0.2, 0.3, 0.4}, kF64); }

TEST(NnActivation, ValuesMatchPyTorch) {
  const Tensor x = x7();
  expect_values(F::elu(x, 0.7), {-0.6651490521, -0.4424843912, -0.1548394519, 0, 0.5, 2, 25});
  expect_values(F::selu(x), {-1.670568729, -1.111330738, -0.3888901975, 0, 0.5253504937, 2.101401975, 26.26752468});
  expect_values(F::celu(x, 1.3), {-1.170662245, -0.69761982, -0.2274311429, 0, 0.5, 2, 25});
  expect_values(F::hardtanh(x, -0.5, 1.5), {-0.5, -0.5, -0.25, 0, 0.5, 1.5, 1.5});
  expect_values(F::relu6(x), {0, 0, 0, 0, 0.5, 2, 6});
  expect_values(F::hardshrink(x, 0.5), {-3, -1, 0, 0, 0, 2, 25});
  expect_values(F::softshrink(x, 0.5), {-2.5, -0.5, 0, 0, 0, 1.5, 24.5});
  expect_values(F::tanhshrink(x), {-2.004945246, -0.238405844, -0.005081337596, 0, 0.03788284274, 1.03597242, 24});
  expect_values(F::softsign(x), {-0.75, -0.5, -0.2, 0, 0.3333333333, 0.6666666667, 0.9615384615});
  expect_values(F::softplus(x, 2, 10),
                {0.001237842569, 0.06346400552, 0.2370384921, 0.3465735903, 0.6566308438, 2.009074964, 25});
  expect_values(F::logsigmoid(x), {-3.048587352, -1.313261688, -0.8259394199, -0.6931471806, -0.4740769842,
                                   -0.126928011, -1.388794386e-11});
  expect_values(F::silu(x), {-0.1422776195, -0.2689414214, -0.1094558748, 0, 0.3112296656, 1.761594156, 25});
  expect_values(F::mish(x), {-0.1456474613, -0.3034014614, -0.1299269637, 0, 0.3752452113, 1.94395896, 25});
  expect_values(F::hardsigmoid(x), {0, 0.3333333333, 0.4583333333, 0.5, 0.5833333333, 0.8333333333, 1});
  expect_values(F::hardswish(x), {0, -0.3333333333, -0.1145833333, 0, 0.2916666667, 1.666666667, 25});
  expect_values(F::threshold(x, 0.1, -2.0), {-2, -2, -2, -2, 0.5, 2, 25});
  expect_values(F::rrelu(x, 0.1, 0.3, /*training=*/false), {-0.6, -0.2, -0.05, 0, 0.5, 2, 25});
  expect_values(F::leaky_relu(x, 0.2, /*inplace=*/false), {-0.6, -0.2, -0.05, 0, 0.5, 2, 25});
  // Far tails stay finite (no exp overflow), and log1p keeps tiny arguments.
  expect_values(F::logsigmoid(tensor(std::vector<double>{-800.0, 800.0, -30.0}, kF64)), {-800, 0, -30});
  expect_values(tensor(std::vector<double>{1e-10, -0.5, 3.0}, kF64).log1p(), {1e-10, -0.6931471806, 1.386294361});

  const Tensor xx = tensor({{1.0, -2.0, 0.5, 3.0}, {0.25, 1.5, -1.0, 2.0}}, kF64);
  expect_values(F::glu(xx, 0), {0.5621765009, -1.635148952, 0.1344707107, 2.642391234});
  expect_values(F::glu(xx), {0.6224593312, -1.905148254, 0.06723535534, 1.321195617});
  expect_values(F::prelu(xx, w4()), {1, -0.4, 0.5, 3, 0.25, 1.5, -0.3, 2});
  const Tensor softmin = F::softmin(xx, 1, kFloat);
  EXPECT_EQ(softmin.dtype(), kFloat);
  expect_values(softmin, {0.04372617975, 0.8782638311, 0.07209228724, 0.005917695351, 0.2019948363, 0.05787248537,
                          0.7050312161, 0.03510143608},
                1e-6);
}

TEST(NnActivation, InplaceWritesTheInputAndRandomFormsStayInRange) {
  Tensor x = x7();
  const Tensor y = F::elu(x, 0.7, /*inplace=*/true);
  EXPECT_TRUE(y.is_same(x));
  expect_values(x, {-0.6651490521, -0.4424843912, -0.1548394519, 0, 0.5, 2, 25});
  Tensor r = x7();
  F::relu(r, /*inplace=*/true);
  expect_values(r, {0, 0, 0, 0, 0.5, 2, 25});

  manual_seed(0);
  const Tensor in = x7();
  const Tensor rr = F::rrelu(in, 0.1, 0.3, /*training=*/true);
  const Tensor neg = in < 0;
  EXPECT_TRUE(where(neg, rr <= in * 0.1, rr == in).all().item<bool>());
  EXPECT_TRUE(where(neg, rr >= in * 0.3, rr == in).all().item<bool>());

  const Tensor logits = randn({5, 4}, kF64);
  const Tensor hard = F::gumbel_softmax(logits, 0.5, /*hard=*/true, 1);
  expect_values(hard.sum(IntArrayRef{1}), {1, 1, 1, 1, 1});
  EXPECT_TRUE(((hard == 0).logical_or(hard == 1)).all().item<bool>());
}

TEST(NnActivation, GradientsMatchFiniteDifferences) {
  manual_seed(3);
  // Inputs away from the kinks (0, +-0.5, +-3, the thresholds), where the derivative jumps.
  const Tensor x = tensor({{-3.7, -1.3, -0.3, 0.2}, {0.7, 1.4, 2.6, 4.2}}, kF64).requires_grad_();
  const Tensor w = tensor(std::vector<double>{0.1, -0.3, 0.25, 0.4}, kF64).requires_grad_();
  auto fn = [](const variable_list& in) -> variable_list {
    const Tensor& v = in[0];
    return {F::elu(v, 0.7) + F::selu(v) + F::celu(v, 1.3) + F::hardtanh(v, -0.5, 1.5) + F::softshrink(v, 0.25) +
                F::hardshrink(v, 0.25) + F::tanhshrink(v) + F::softsign(v) + F::softplus(v, 2, 3) +
                F::logsigmoid(v) + F::silu(v) + F::mish(v) + F::hardsigmoid(v) + F::hardswish(v) +
                F::threshold(v, 0.1, -2.0) + F::relu6(v) + F::rrelu(v, 0.1, 0.3),
            F::glu(v, 1), F::softmin(v, 0), F::prelu(v, in[1])};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {x, w}));
}

TEST(NnActivation, ErrorTextsArePyTorchs) {
  const Tensor a = a24();
  EXPECT_EQ(error_of([&] { F::celu(a, 0.0); }), "ZeroDivisionError: alpha cannot be 0 for CELU");
  EXPECT_EQ(error_of([&] { F::softshrink(a, -1.0); }), "lambda must be greater or equal to 0, but found to be -1.");
  EXPECT_EQ(error_of([&] { F::glu(a.narrow(1, 0, 3)); }), "Halving dimension must be even, but dimension 1 is size 3");
  EXPECT_EQ(error_of([&] { F::prelu(a, ones({3}, kF64)); }),
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and channel size = 4.");
  EXPECT_EQ(error_of([&] { F::rrelu(a, 0.5, 0.1); }), "Lower bound should be less than or equal to the upper bound");
}

TEST(NnLoss, ValuesMatchPyTorch) {
  const Tensor a = a24(), b = b24(), w = w4();
  const Tensor sgn = tensor({{1., -1., 1., -1.}, {-1., -1., 1., 1.}}, kF64);
  expect_values(F::huber_loss(a, b, "none", 0.5), {0.02, 0.375, 0.375, 0.02, 0.375, 0.02, 0.375, 0.875});
  expect_values(F::soft_margin_loss(a, sgn), {0.9639575352});
  const Tensor y01 = tensor({{1., 0., 1., 0.}, {0., 0., 1., 1.}}, kF64);
  expect_values(F::multilabel_soft_margin_loss(a, y01, w, "none"), {0.1468612102, 0.3787396409});
  const Tensor mlt = tensor({{2, 0, -1, 1}, {3, 3, 1, -1}}, TensorOptions().dtype(kLong));
  expect_values(F::multilabel_margin_loss(a, mlt, "none"), {0.35, 4.475});
  const Tensor mlm_1d = F::multilabel_margin_loss(a[0], mlt[0], "none");
  EXPECT_EQ(mlm_1d.dim(), 0);
  expect_values(mlm_1d, {0.35});
  const Tensor cls = tensor(std::vector<int64_t>{1, 3});
  expect_values(F::multi_margin_loss(a, cls, 2, 0.7, w, "none"), {1.3405, 3.461});
  expect_values(F::multi_margin_loss(a, cls), {2.55});
  expect_values(F::hinge_embedding_loss(a, sgn, 0.8, "none"), {0.3, 2, 2, 0.1, 0, 0.7, -0.4, -2.2});
  expect_values(F::cosine_embedding_loss(a, b, tensor(std::vector<int64_t>{1, -1}), 0.1, "none"),
                {0.1333509203, 0.3318607784});
  expect_values(F::margin_ranking_loss(a[0], b[0], sgn[0], 0.3, "none"), {0.1, 0, 0, 0.1});
  const Tensor lp = a.log_softmax(1);
  expect_values(F::kl_div(lp, b.softmax(1), "batchmean"), {0.3326103522});
  expect_values(F::kl_div(lp, b.log_softmax(1), "none", /*log_target=*/true),
                {0.0377271848, 0.1662912028, -0.2134143225, 0.2224977231, -0.2234839698, 0.2156162009,
                 -0.03342618879, 0.493412874});
  const Tensor counts = tensor({{0., 1., 2., 5.}, {3., 0., 1., 7.}}, kF64);
  expect_values(F::poisson_nll_loss(a.abs() + 0.1, counts, /*log_input=*/false, /*full=*/true, 1e-8, "none"),
                {0.4, 1.037635728, 1.267931786, 6.686564746, 1.954070637, 0.2, 1.193147161, 4.98290076});
  expect_values(F::poisson_nll_loss(a, counts), {2.802730627});
  const Tensor var = tensor({{0.5, 1e-9, 2.0, 1.0}, {0.3, 0.7, 1.1, 0.2}}, kF64);
  expect_values(F::gaussian_nll_loss(a, b, var, /*full=*/true, 1e-6, "none"),
                {0.6123649429, 499994.0112, 1.515512123, 0.9389385332, 1.983618798, 0.7691724898, 1.421139078,
                 10.11421958});
  expect_values(F::gaussian_nll_loss(a, b, var.select(1, 0)), {1.044053337});
  const Tensor n = tensor({{0.0, 1.0, 2.0, -1.0}, {1.0, 1.0, 0.0, 0.5}}, kF64);
  expect_values(F::triplet_margin_loss(a, b, n, 1.5, 1.5, 1e-6, /*swap=*/true, "none"), {0.270292243, 2.228809877});
  expect_values(pairwise_distance(a, b), {1.44222051, 2.457641064});
  expect_values(cosine_similarity(a, b), {0.8666490797, 0.4318607784});
  const Tensor probs = tensor({{0.1, 0.2, 0.3, 0.4}, {0.7, 0.1, 0.1, 0.1}}, kF64);
  expect_values(F::cross_entropy(a, probs, Tensor(), -100, "mean", 0.2), {1.519031331});
  expect_values(F::cross_entropy(a, probs, w, -100, "none"), {0.473833956, 0.2892052495});
  const Tensor x3 = arange(24, kF64).reshape({2, 3, 4}).sin();
  const Tensor t3 = tensor({{0, 2, 1, 1}, {2, 2, 0, 1}}, TensorOptions().dtype(kLong));
  expect_values(F::nll_loss(x3, t3, tensor(std::vector<double>{0.2, 0.3, 0.5}, kF64)), {-0.5132913041});
  expect_values(F::nll_loss(x3, t3, Tensor(), -100, "none"), {0, -0.4121184852, 0.2794154982, -0.6569865987,
                                                              -0.9129452507, -0.8366556385, -0.9906073557,
                                                              -0.1498772097});
}

// torch.manual_seed(0); torch.randn(6, 2, 4, dtype=torch.float64).log_softmax(2)
Tensor ctc_log_probs() {
  return tensor(std::vector<double>{
                    -3.6587016278296014, -1.7215406888531897, -2.4091065061417116, -0.34878047281424929,
                    -1.3842259048120447, -1.7757478304435845, -1.1234254800948584, -1.3666425021413566,
                    -3.9178265047404812, -1.0985677413063455, -2.2985387979143219, -0.604473332926587,
                    -0.63629947063754111, -2.9989231496599751, -1.7006533394537748, -1.4340244076081539,
                    -0.74808569202704822, -1.5348791362099983, -2.1625291830619271, -1.6285555894078996,
                    -1.3664692342218745, -1.1362045932124172, -1.169315131920446, -2.1770145343225611,
                    -0.4233913010234478, -1.6772598909483243, -2.2075917857852847, -3.0297619965677729,
                    -2.4755118218816548, -0.30043381202743608, -2.2369239325495593, -2.6795111630088457,
                    -1.4637087622367637, -0.8156442488802893, -1.3814132992211077, -2.5896548004354702,
                    -3.113007466611486, -2.9670773416101213, -0.68105643805750993, -0.92130970128611767,
                    -1.6393213596077278, -2.1450304108547078, -3.4393550795404102, -0.42046947948746716,
                    -1.5744379726306035, -1.0243427643510314, -2.6132840254852336, -1.0201239050059878},
                kF64)
      .reshape({6, 2, 4});
}

TEST(NnLoss, CtcLossMatchesPyTorch) {
  const Tensor lp = ctc_log_probs();
  const TensorOptions i64 = TensorOptions().dtype(kLong);
  const Tensor targets = tensor({{1, 2, 2}, {3, 1, 0}}, i64);
  const Tensor in_len = tensor(std::vector<int64_t>{6, 5}), tg_len = tensor(std::vector<int64_t>{3, 2});
  expect_values(F::ctc_loss(lp, targets, in_len, tg_len, 0, "none"), {6.975155558, 4.287509278});
  expect_values(F::ctc_loss(lp, targets, in_len, tg_len), {2.234403246});
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor two = tensor(std::vector<int64_t>{2, 2});
  expect_values(F::ctc_loss(lp.narrow(0, 0, 2), targets, two, tg_len, 0, "none"), {inf, 4.365565652});
  expect_values(F::ctc_loss(lp.narrow(0, 0, 2), targets, two, tg_len, 0, "none", /*zero_infinity=*/true),
                {0, 4.365565652});
  expect_values(F::ctc_loss(lp, tensor(std::vector<int64_t>{1, 2, 2, 3, 1}), in_len, tg_len, 0, "sum"), {11.26266484});
  EXPECT_EQ(error_of([&] { F::ctc_loss(lp, targets, in_len, tg_len, 4); }), "blank must be in label range");
}

TEST(NnLoss, GradientsMatchFiniteDifferences) {
  const Tensor a = a24().requires_grad_(), b = b24().requires_grad_();
  const Tensor sgn = tensor({{1., -1., 1., -1.}, {-1., -1., 1., 1.}}, kF64);
  const Tensor mlt = tensor({{2, 0, -1, 1}, {3, 3, 1, -1}}, TensorOptions().dtype(kLong));
  const Tensor counts = tensor({{0., 1., 2., 5.}, {3., 0., 1., 7.}}, kF64);
  auto fn = [&](const variable_list& in) -> variable_list {
    const Tensor& x = in[0];
    const Tensor& y = in[1];
    return {F::huber_loss(x, y, "none", 0.5), F::soft_margin_loss(x, sgn, "none"),
            F::multilabel_soft_margin_loss(x, y.sigmoid(), w4(), "none"), F::multilabel_margin_loss(x, mlt, "none"),
            F::multi_margin_loss(x, tensor(std::vector<int64_t>{1, 3}), 2, 0.7, w4(), "none"),
            F::hinge_embedding_loss(x, sgn, 0.8, "none"),
            F::cosine_embedding_loss(x, y, tensor(std::vector<int64_t>{1, -1}), 0.1, "none"),
            F::margin_ranking_loss(x, y, sgn, 0.3, "none"), F::kl_div(x.log_softmax(1), y.softmax(1), "batchmean"),
            F::poisson_nll_loss(x, counts, true, true, 1e-8, "none"),
            F::gaussian_nll_loss(x, y, x * x + 0.5, true, 1e-6, "none"),
            F::triplet_margin_loss(x, y, x * 0.5 - 1, 1.5, 1.5, 1e-6, true, "none"),
            F::cross_entropy(x, y.softmax(1), Tensor(), -100, "mean", 0.2), cosine_similarity(x, y)};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {a, b}));
  const Tensor lp = ctc_log_probs().requires_grad_();
  auto ctc = [](const variable_list& in) -> variable_list {
    return {F::ctc_loss(in[0].log_softmax(2), tensor({{1, 2, 2}, {3, 1, 0}}, TensorOptions().dtype(kLong)),
                        tensor(std::vector<int64_t>{6, 5}), tensor(std::vector<int64_t>{3, 2}), 0, "none")};
  };
  EXPECT_TRUE(autograd::gradcheck(ctc, {lp}));
}

TEST(NnLoss, ErrorTextsArePyTorchs) {
  const Tensor a = a24();
  EXPECT_EQ(error_of([&] { F::huber_loss(a, a, "mean", 0.0); }),
            "huber_loss does not support non-positive values for delta.");
  EXPECT_EQ(error_of<ValueError>([&] { F::multi_margin_loss(a, tensor(std::vector<int64_t>{1, 3}), 3); }),
            "only p == 1 and p == 2 supported");
  EXPECT_EQ(error_of<ValueError>([&] { F::kl_div(a, a, "avg"); }), "avg is not a valid value for reduction");
  EXPECT_EQ(error_of([&] { F::cross_entropy(a, a.to(kInt)); }),
            "Expected floating point type for target with class probabilities, got Int");
  EXPECT_EQ(error_of<ValueError>([&] { F::gaussian_nll_loss(a, a, a.abs().neg()); }),
            "var has negative entry/entries");
  EXPECT_EQ(error_of([&] { F::multilabel_margin_loss(a, tensor({{4, 0, -1, 1}, {0, -1, 0, 0}},
                                                              TensorOptions().dtype(kLong))); }),
            "argument #2 'target' is out of range");
}

}  // namespace
