// torch.nn.init against PyTorch 1.13.1 (values from python3-torch under the same seed) and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {

std::vector<float> values(const Tensor& t) { return t.to(kFloat).contiguous().to_vector<float>(); }

void expect_near(const Tensor& t, const std::vector<float>& expected, float tol = 2e-6f) {
  const std::vector<float> got = values(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol) << i;
}

template <class F>
std::string error_text(F f) {
  try {
    f();
  } catch (const ValueError& e) {
    return e.what();
  }
  return "no ValueError";
}

TEST(NnInit, RandomInitializersDrawPyTorchsStreams) {
  manual_seed(0);
  Tensor w = empty({3, 4});
  nn::init::kaiming_uniform_(w, std::sqrt(5.0));  // nn.Linear(4, 3)'s weight
  expect_near(w, {-0.0037434101f, 0.2682217956f, -0.4115225673f, -0.3679695129f, -0.1925771832f, 0.1340786815f,
                  -0.0099065900f, 0.3964447379f, -0.0443720222f, 0.1323062778f, -0.1511065364f, -0.0982826948f});
  manual_seed(0);
  w = empty({3, 5});
  nn::init::xavier_normal_(w, 2.0);
  expect_near(w, {1.5409960747f, -0.2934288979f, -2.1787893772f, 0.5684312582f, -1.0845223665f, -1.3985954523f,
                  0.4033468366f, 0.8380263448f, -0.7192575932f, -0.4033435285f, -0.5966353417f, 0.1820364892f,
                  -0.8566746116f, 1.1006041765f, -1.0711873770f});
  manual_seed(0);
  w = empty({2, 3, 3});
  nn::init::kaiming_normal_(w, 0, "fan_out", "relu");
  expect_near(w.flatten().slice(0, 0, 6),
              {-0.6500039101f, -0.6653154492f, 0.3271558881f, 0.4581322372f, 0.3457401097f, -0.8978345394f});
  manual_seed(0);
  w = empty({4, 3});
  nn::init::sparse_(w, 0.5, 1.0);
  expect_near(w, {0, 0, 0, 0.5684312582f, 0, 0, 0.4033468366f, 0.8380263448f, -0.7192575932f, 0, -0.5966353417f,
                  0.1820364892f});
  manual_seed(0);
  w = empty({2, 3});
  nn::init::trunc_normal_(w, 0, 0.5, -0.5, 0.5);
  expect_near(w, {-0.0032029748f, 0.2382097095f, -0.3876895010f, -0.3391494751f, -0.1678751558f, 0.1157465205f},
              1e-5f);
}

TEST(NnInit, OrthogonalMatchesPyTorchsQrWithPositiveDiagonal) {
  manual_seed(0);
  Tensor wide = empty({3, 5});
  nn::init::orthogonal_(wide, 1.5);
  expect_near(wide, {0.7833461165f, -0.1491609067f, -1.1075602770f, 0.2889549136f, -0.5513033867f, -0.8047192097f,
                     0.3158436418f, -0.2143413126f, -0.5381528139f, -1.0803328753f, -0.6613746881f, 0.0993908495f,
                     -0.0684826300f, 1.3346291780f, -0.1295368671f},
              1e-5f);
  manual_seed(0);
  Tensor tall = empty({5, 3});
  nn::init::orthogonal_(tall);
  expect_near(tall, {0.7950201035f, 0.1703100801f, -0.2785456777f, 0.2932611406f, -0.5022090673f, -0.5515486598f,
                     0.2080919296f, 0.5740421414f, 0.0162671134f, -0.2080902159f, -0.4343345761f, -0.2263001949f,
                     -0.4419696629f, 0.4478945732f, -0.7528147101f},
              1e-5f);
  EXPECT_TRUE(allclose(tall.t().matmul(tall), eye(3), 1e-5, 1e-5));
}

TEST(NnInit, DeterministicInitializersGainsAndErrors) {
  Tensor w = empty({4, 2, 3});
  nn::init::dirac_(w, 2);
  expect_near(w, {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  Tensor m = empty({2, 3}, TensorOptions().requires_grad(true));
  EXPECT_TRUE(equal(nn::init::eye_(m), eye(2, 3)));
  EXPECT_TRUE(m.requires_grad());
  EXPECT_EQ(nn::init::ones_(m).sum().item<float>(), 6);
  EXPECT_EQ(nn::init::constant_(m, 2.5).sum().item<float>(), 15);
  EXPECT_EQ(nn::init::zeros_(m).sum().item<float>(), 0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("leaky_relu", 0.2), 1.3867504905630728);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("selu"), 0.75);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("conv_transpose2d"), 1.0);
  EXPECT_NE(error_text([] { nn::init::calculate_gain("foo"); }).find("Unsupported nonlinearity foo"), std::string::npos);
  EXPECT_NE(error_text([] { nn::init::kaiming_uniform_(empty({2, 2}), 0, "fan"); })
                .find("Mode fan not supported, please use one of ['fan_in', 'fan_out']"),
            std::string::npos);
  EXPECT_NE(error_text([] { nn::init::eye_(empty({2, 2, 2})); }).find("Only tensors with 2 dimensions are supported"),
            std::string::npos);
  EXPECT_NE(error_text([] { nn::init::xavier_uniform_(empty({3})); })
                .find("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
            std::string::npos);
}

}  // namespace
