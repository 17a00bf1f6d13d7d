// The optimizers added for libtorch's torch::optim (Adagrad, LBFGS with and without the strong-Wolfe
// line search, AdamW through libtorch's spelling) against python3-torch 1.13's values; resumed
// training after torch::save/torch::load of an optimizer (and a native state_dict round trip)
// reproduces an uninterrupted run; torch::serialize archives round-trip and reject corrupt input.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ctorch/torch.h"
#include "test_util.h"

namespace {

using ctorch::Tensor;

const std::vector<double> kStart = {1.0, -2.0, 3.0};

Tensor start() { return ctorch::tensor(kStart, ctorch::kFloat64).requires_grad_(true); }
Tensor weights() { return ctorch::tensor(std::vector<double>{0.5, 1.5, 2.0}, ctorch::kFloat64); }
Tensor quad(const Tensor& p) { return (p * p * weights()).sum(); }
// (1 - p0)^2 + 100 (p1 - p0^2)^2 + (p2 - 1)^2
Tensor rosen(const Tensor& p) {
  Tensor a = 1 - p.select(0, 0);
  Tensor b = p.select(0, 1) - p.select(0, 0) * p.select(0, 0);
  Tensor c = p.select(0, 2) - 1;
  return a * a + 100 * b * b + c * c;
}

void expect_values(const Tensor& p, const std::vector<double>& expected) {
  const auto got = p.detach().to_vector<double>();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-9) << "element " << i;
}

// torch.optim.Adagrad(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.2), 3 steps.
TEST(OptimLibtorch, NativeAdagradMatchesPyTorch) {
  Tensor p = start();
  ctorch::optim::Adagrad opt({p}, ctorch::optim::AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.1).initial_accumulator_value(0.2));
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    quad(p).backward();
    opt.step();
  }
  expect_values(p, {0.7933231325583957, -1.7779677972465402, 2.7762399094144694});
  EXPECT_EQ(ctorch::testing::error_of<ctorch::ValueError>([] {
              ctorch::optim::Adagrad({start()}, ctorch::optim::AdagradOptions(0.1).lr_decay(-1.0));
            }),
            "Invalid lr_decay value: -1.0");
}

// torch.optim.RMSprop(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1, maximize=True), 3 steps.
TEST(OptimLibtorch, NativeRmspropMaximizeMatchesPyTorch) {
  Tensor p = start();
  ctorch::optim::RMSprop opt({p}, ctorch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true).weight_decay(0.1).maximize(true));
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    quad(p).backward();
    opt.step();
  }
  expect_values(p, {1.353113224764919, -2.347934997722371, 3.3460869047967656});
  EXPECT_TRUE(opt.state_dict().at("param_groups").elements().at(0).at("maximize").to_bool());
}

// torch.optim.LBFGS(lr=0.5, max_iter=5, history_size=3), 2 steps; and with line_search_fn="strong_wolfe".
TEST(OptimLibtorch, NativeLbfgsMatchesPyTorch) {
  Tensor p = start();
  ctorch::optim::LBFGS opt({p}, ctorch::optim::LBFGSOptions(0.5).max_iter(5).history_size(3));
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = rosen(p);
    loss.backward();
    return loss;
  };
  for (int i = 0; i < 2; ++i) opt.step(closure);
  expect_values(p, {0.16931205285188372, 0.019991285685620523, 2.8884984090089403});

  Tensor q = start();
  ctorch::optim::LBFGS wolfe({q}, ctorch::optim::LBFGSOptions(1).max_iter(10).line_search_fn("strong_wolfe"));
  wolfe.step([&] {
    wolfe.zero_grad();
    Tensor loss = rosen(q);
    loss.backward();
    return loss;
  });
  expect_values(q, {0.3768405418624955, 0.1343226735461113, 0.9325514089024157});
}

// torch.optim.AdamW(lr=0.1, weight_decay=0.05, amsgrad=True), 3 steps, through libtorch's spelling.
TEST(OptimLibtorch, AdamWMatchesPyTorch) {
  Tensor p = start();
  torch::optim::AdamW opt(std::vector<Tensor>{p}, torch::optim::AdamWOptions(0.1).weight_decay(0.05).amsgrad(true));
  for (int i = 0; i < 3; ++i) {
    opt.step([&] {
      opt.zero_grad();
      Tensor loss = quad(p);
      loss.backward();
      return loss;
    });
  }
  expect_values(p, {0.6882699991703867, -1.672347881945913, 2.657170857432209});
  const auto& state = static_cast<const torch::optim::AdamWParamState&>(*opt.state().at(c10::guts::to_string(p.unsafeGetTensorImpl())));
  EXPECT_EQ(state.step(), 3);
  EXPECT_TRUE(state.max_exp_avg_sq().defined());
}

// Losses of steps 4..6 after saving at step 3 and loading into a fresh optimizer equal those of an
// uninterrupted run (libtorch's torch::save / torch::load of each optimizer, through a stream).
template <class Opt, class Options>
void expect_resume_matches(Options options) {
  auto run = [&](bool interrupt) {
    Tensor p = start();
    auto opt = std::make_unique<Opt>(std::vector<Tensor>{p}, options);
    std::vector<double> losses;
    for (int i = 0; i < 6; ++i) {
      if (interrupt && i == 3) {
        std::stringstream stream;
        torch::save(*opt, stream);
        opt = std::make_unique<Opt>(std::vector<Tensor>{p}, options);
        torch::load(*opt, stream);
      }
      Tensor loss = opt->step([&] {
        opt->zero_grad();
        Tensor l = rosen(p);
        l.backward();
        return l;
      });
      losses.push_back(loss.template item<double>());
    }
    return losses;
  };
  EXPECT_EQ(run(true), run(false));
}

TEST(OptimLibtorch, ResumedRunEqualsUninterruptedRun) {
  expect_resume_matches<torch::optim::SGD>(torch::optim::SGDOptions(1e-3).momentum(0.9).nesterov(true));
  expect_resume_matches<torch::optim::Adam>(torch::optim::AdamOptions(0.05).amsgrad(true));
  expect_resume_matches<torch::optim::AdamW>(torch::optim::AdamWOptions(0.05));
  expect_resume_matches<torch::optim::Adagrad>(torch::optim::AdagradOptions(0.1));
  expect_resume_matches<torch::optim::RMSprop>(torch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true));
  expect_resume_matches<torch::optim::LBFGS>(torch::optim::LBFGSOptions(0.5).max_iter(3));
}

// The native Adagrad's state_dict survives torch.save's bytes, and resuming from it changes nothing.
TEST(OptimLibtorch, NativeAdagradStateDictRoundTrip) {
  auto run = [](bool interrupt) {
    Tensor p = start();
    const auto options = ctorch::optim::AdagradOptions(0.1).lr_decay(0.01);
    auto opt = std::make_unique<ctorch::optim::Adagrad>(std::vector<Tensor>{p}, options);
    std::vector<double> losses;
    for (int i = 0; i < 6; ++i) {
      if (interrupt && i == 3) {
        const std::string bytes = ctorch::serialization::save_to_bytes(opt->state_dict());
        opt = std::make_unique<ctorch::optim::Adagrad>(std::vector<Tensor>{p}, options);
        opt->load_state_dict(ctorch::serialization::load_from_bytes(bytes));
      }
      opt->zero_grad();
      Tensor loss = quad(p);
      loss.backward();
      opt->step();
      losses.push_back(loss.item<double>());
    }
    return losses;
  };
  EXPECT_EQ(run(true), run(false));
}

// The native LBFGS's state_dict (torch.optim.LBFGS's layout) through torch.save's bytes resumes exactly.
TEST(OptimLibtorch, NativeLbfgsStateDictRoundTrip) {
  auto run = [](bool interrupt) {
    Tensor p = start();
    const auto options = ctorch::optim::LBFGSOptions(1).max_iter(4).history_size(3).line_search_fn("strong_wolfe");
    auto opt = std::make_unique<ctorch::optim::LBFGS>(std::vector<Tensor>{p}, options);
    std::vector<double> losses;
    for (int i = 0; i < 3; ++i) {
      if (interrupt && i == 1) {
        const std::string bytes = ctorch::serialization::save_to_bytes(opt->state_dict());
        opt = std::make_unique<ctorch::optim::LBFGS>(std::vector<Tensor>{p}, options);
        opt->load_state_dict(ctorch::serialization::load_from_bytes(bytes));
      }
      losses.push_back(opt->step([&] {
                          opt->zero_grad();
                          Tensor loss = rosen(p);
                          loss.backward();
                          return loss;
                        }).item<double>());
    }
    return losses;
  };
  EXPECT_EQ(run(true), run(false));
}

TEST(OptimLibtorch, ArchiveRoundTrip) {
  torch::serialize::OutputArchive inner;
  inner.write("t", ctorch::arange(6).reshape({2, 3}), /*is_buffer=*/true);
  torch::serialize::OutputArchive outer;
  outer.write("n", c10::IValue(int64_t{7}));
  outer.write("name", c10::IValue("ctorch"));
  outer.write("inner", inner);
  std::stringstream stream;
  outer.save_to(stream);

  torch::serialize::InputArchive in;
  in.load_from(stream);
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"n", "name", "inner"}));
  c10::IValue v;
  in.read("n", v);
  EXPECT_EQ(v.toInt(), 7);
  torch::serialize::InputArchive nested;
  ASSERT_TRUE(in.try_read("inner", nested));
  Tensor t;
  nested.read("t", t);
  EXPECT_TRUE(t.equal(ctorch::arange(6).reshape({2, 3})));
  EXPECT_FALSE(in.try_read("missing", nested));
  try {
    nested.read("u", t);
    FAIL() << "expected an error";
  } catch (const ctorch::Error& e) {
    EXPECT_NE(std::string(e.what()).find("No such serialized tensor 'inner.u'"), std::string::npos) << e.what();
  }
}

TEST(OptimLibtorch, CorruptArchiveRaisesCheckpointError) {
  std::stringstream good;
  torch::save(ctorch::ones({4}), good);
  const std::string bytes = good.str();
  for (const std::string& bad : {std::string("not a checkpoint"), bytes.substr(0, bytes.size() / 2)}) {
    torch::serialize::InputArchive in;
    EXPECT_THROW(in.load_from(bad.data(), bad.size()), ctorch::serialization::CheckpointError);
  }
  Tensor t;
  torch::load(t, bytes.data(), bytes.size());
  EXPECT_TRUE(t.equal(ctorch::ones({4})));
}

}  // namespace
