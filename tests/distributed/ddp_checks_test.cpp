// DistributedDataParallel's checks and options with 2 ranks as threads, on cpu and emulated cuda:
// the unfinished-reduction error, find_unused_parameters and gradient_as_bucket_view.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "distributed/dist_test_util.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

namespace dist = ctorch::distributed;
using DDP = nn::parallel::DistributedDataParallel;

// Two linear branches summed; the forward skips a branch whose flag is off (parameters a.weight,
// a.bias, b.weight, b.bias are indices 0..3).
class TwoBranch : public nn::UnaryModule {
 public:
  explicit TwoBranch(uint64_t seed) : UnaryModule("TwoBranch") {
    manual_seed(seed);
    a = register_module("a", std::make_shared<nn::Linear>(4, 3));
    b = register_module("b", std::make_shared<nn::Linear>(4, 3));
  }
  Tensor forward(const Tensor& x) override {
    if (!use_a && !use_b) return x.narrow(1, 0, 3) * 2;  // no parameter at all
    if (!use_a) return (*b)(x);
    return use_b ? (*a)(x) + (*b)(x) : (*a)(x);
  }
  std::shared_ptr<nn::Linear> a;
  std::shared_ptr<nn::Linear> b;
  bool use_a = true;
  bool use_b = true;
};

// Two TwoBranch(0) made on the calling thread (ranks' threads would draw from the global generator at once).
std::vector<std::shared_ptr<TwoBranch>> two_models() {
  return {std::make_shared<TwoBranch>(0), std::make_shared<TwoBranch>(0)};
}

// The input of rank `rank` (different per rank, so averaged gradients differ from local ones).
Tensor input_of(int rank, int step = 0) {
  Generator g;
  g.manual_seed(10 + static_cast<uint64_t>(rank) * 7 + static_cast<uint64_t>(step));
  return randn({5, 4}, {}, g);
}

class DDPChecks : public ::testing::TestWithParam<bool> {  // emulated cuda devices
 protected:
  void SetUp() override {
    if (GetParam()) use_emulated_devices(2);
  }
  Device device_of(int rank) const { return GetParam() ? Device(DeviceType::CUDA, rank) : Device(DeviceType::CPU); }
  // Runs fn(rank, group, device) on 2 ranks with a fresh group.
  void run(const std::function<void(int, std::shared_ptr<dist::ProcessGroup>, Device)>& fn,
           std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    RankStores stores(StoreKind::Tcp, 2);
    const std::string name = unique_group("ddp_checks");
    run_ranks(2, [&](int rank) {
      if (GetParam()) cuda::set_device(rank);
      fn(rank, dist::new_gloo_group(stores.open(rank), rank, 2, timeout, name), device_of(rank));
    });
  }
};

const char* const kPriorIteration =
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs participate "
    "in calculating loss. \nIf you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` function. Please include the "
    "loss function and the structure of the return value of `forward` of your module when reporting this issue "
    "(e.g. list, dict, iterable).";

TEST_P(DDPChecks, UnusedParametersLeaveTheReductionUnfinishedAndTheNextForwardRaises) {
  for (double cap : {25.0, 0.00001}) {  // one bucket; one bucket per parameter (b's launch, a's wait)
    for (bool skip_a : {false, true}) {
      std::vector<std::string> first(2), second(2);
      std::vector<Tensor> no_grad_out(2);
      const auto models = two_models();  // seeded on this thread: the global generator is shared
      run([&](int rank, auto pg, Device dev) {
        auto model = models[static_cast<size_t>(rank)];
        model->to(dev);
        DDP ddp(model, pg, cap);
        Tensor x = input_of(rank).to(dev);
        (skip_a ? model->use_a : model->use_b) = false;
        ddp(x).sum().backward();  // one branch gets no gradient; backward itself completes
        first[static_cast<size_t>(rank)] = error_of([&] { (void)ddp(x); });
        second[static_cast<size_t>(rank)] = error_of([&] { (void)ddp(x); });
        NoGradGuard no_grad;
        no_grad_out[static_cast<size_t>(rank)] = ddp(x);
      });
      for (int r = 0; r < 2; ++r) {
        const std::string& e = first[static_cast<size_t>(r)];
        SCOPED_TRACE("cap " + std::to_string(cap) + " skip_a " + std::to_string(skip_a) + " rank " + std::to_string(r));
        EXPECT_NE(e.find(kPriorIteration), std::string::npos) << e;
        EXPECT_NE(e.find(std::string("\nParameter indices which did not receive grad for rank ") + std::to_string(r) +
                         (skip_a ? ": 0 1" : ": 2 3") +
                         "\n In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either "
                         "INFO or DETAIL to print out information about which particular parameters did not receive "
                         "gradient on this rank as part of this error"),
                  std::string::npos)
            << e;
        EXPECT_EQ(second[static_cast<size_t>(r)], e) << "the error is not sticky";
        EXPECT_TRUE(no_grad_out[static_cast<size_t>(r)].defined());
      }
    }
  }
}

TEST_P(DDPChecks, DebugLevelNamesTheParameters) {
  ::setenv("TORCH_DISTRIBUTED_DEBUG", "INFO", 1);
  std::vector<std::string> errors(2);
  const auto models = two_models();  // seeded on this thread: the global generator is shared
  run([&](int rank, auto pg, Device dev) {
    auto model = models[static_cast<size_t>(rank)];
    model->to(dev);
    DDP ddp(model, pg);
    model->use_b = false;
    ddp(input_of(rank).to(dev)).sum().backward();
    errors[static_cast<size_t>(rank)] = error_of([&] { (void)ddp(input_of(rank).to(dev)); });
  });
  ::unsetenv("TORCH_DISTRIBUTED_DEBUG");
  for (int r = 0; r < 2; ++r) {
    EXPECT_NE(errors[static_cast<size_t>(r)].find("\nParameters which did not receive grad for rank " +
                                                  std::to_string(r) + ": b.weight, b.bias\nParameter indices which "
                                                  "did not receive grad for rank " + std::to_string(r) + ": 2 3"),
              std::string::npos)
        << errors[static_cast<size_t>(r)];
  }
}

TEST_P(DDPChecks, ALaterBackwardOfTheSameIterationFinishesTheReduction) {
  // Two backward passes after one forward, each reaching half of the parameters: the buckets the first
  // launched are kept, the second completes the iteration, and every gradient is the ranks' average.
  std::vector<std::vector<Tensor>> local(2), averaged(2);
  std::vector<std::string> next_forward(2);
  const auto references = two_models();
  const auto models = two_models();  // seeded on this thread: the global generator is shared
  run([&](int rank, auto pg, Device dev) {
    auto model = models[static_cast<size_t>(rank)];
    auto reference = references[static_cast<size_t>(rank)];
    model->to(dev);
    reference->to(dev);
    DDP ddp(model, pg, 0.00001);
    Tensor x = input_of(rank).to(dev);
    model->use_a = false;
    ddp(x).sum().backward();                 // b only: its buckets launch, a's wait
    (*model->a)(x).pow(2).sum().backward();  // a only (outside the DDP output, same iteration)
    for (const Tensor& p : model->parameters()) averaged[static_cast<size_t>(rank)].push_back(p.grad().cpu());
    (*reference->b)(x).sum().backward();
    (*reference->a)(x).pow(2).sum().backward();
    for (const Tensor& p : reference->parameters()) local[static_cast<size_t>(rank)].push_back(p.grad().cpu());
    next_forward[static_cast<size_t>(rank)] = error_of([&] { (void)ddp(x); });
  });
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(next_forward[static_cast<size_t>(r)], "no error");
    for (size_t i = 0; i < 4; ++i) {
      const Tensor expected = (local[0][i] + local[1][i]) / 2;
      EXPECT_TRUE(averaged[static_cast<size_t>(r)][i].allclose(expected, 1e-5, 1e-6))
          << "rank " << r << " parameter " << i << "\n" << averaged[static_cast<size_t>(r)][i] << "\n" << expected;
    }
  }
  EXPECT_FALSE(local[0][0].allclose(local[1][0]));  // the ranks' own gradients differ
}

// The local gradients of TwoBranch(0) on rank `rank`'s input with the given branches (zeros when unused).
std::vector<Tensor> local_grads(int rank, bool use_a, bool use_b) {
  auto model = std::make_shared<TwoBranch>(0);
  model->use_a = use_a;
  model->use_b = use_b;
  (*model)(input_of(rank).requires_grad_()).pow(2).sum().backward();
  std::vector<Tensor> out;
  for (const Tensor& p : model->parameters()) out.push_back(p.grad().defined() ? p.grad() : zeros_like(p));
  return out;
}

TEST_P(DDPChecks, FindUnusedParametersCompletesWhenARankSkipsPartOrAllOfTheModel) {
  // Per step, the branches each rank uses: {rank 0 a, rank 0 b, rank 1 a, rank 1 b}.
  const std::vector<std::array<bool, 4>> steps = {
      {true, true, true, false},    // rank 1 skips b
      {true, false, true, false},   // nobody uses b: its .grad stays untouched (None)
      {true, true, false, false},   // rank 1's output depends on no parameter
      {false, false, false, false}  // no rank uses a parameter
  };
  for (double cap : {25.0, 0.00001}) {
    std::vector<std::vector<std::vector<Tensor>>> got(2, std::vector<std::vector<Tensor>>(steps.size()));
    const auto models = two_models();  // seeded on this thread: the global generator is shared
    run(
        [&](int rank, auto pg, Device dev) {
          auto model = models[static_cast<size_t>(rank)];
          model->to(dev);
          DDP ddp(model, pg, cap, true, /*find_unused_parameters=*/true);
          for (size_t s = 0; s < steps.size(); ++s) {
            ddp.zero_grad(/*set_to_none=*/true);
            model->use_a = steps[s][static_cast<size_t>(rank) * 2];
            model->use_b = steps[s][static_cast<size_t>(rank) * 2 + 1];
            ddp(input_of(rank).to(dev).requires_grad_()).pow(2).sum().backward();
            for (const Tensor& p : model->parameters()) {
              got[static_cast<size_t>(rank)][s].push_back(p.grad().defined() ? p.grad().cpu() : Tensor());
            }
          }
        },
        std::chrono::seconds(5));  // a rank left waiting fails within 5 s instead of passing
    for (size_t s = 0; s < steps.size(); ++s) {
      const std::vector<Tensor> g0 = local_grads(0, steps[s][0], steps[s][1]);
      const std::vector<Tensor> g1 = local_grads(1, steps[s][2], steps[s][3]);
      for (int r = 0; r < 2; ++r) {
        for (size_t i = 0; i < 4; ++i) {
          const bool a_param = i < 2;
          const bool used_anywhere = a_param ? (steps[s][0] || steps[s][2]) : (steps[s][1] || steps[s][3]);
          const Tensor& g = got[static_cast<size_t>(r)][s][i];
          SCOPED_TRACE("cap " + std::to_string(cap) + " step " + std::to_string(s) + " rank " + std::to_string(r) +
                       " parameter " + std::to_string(i));
          if (!used_anywhere) {
            EXPECT_FALSE(g.defined()) << g;
            continue;
          }
          ASSERT_TRUE(g.defined());
          const Tensor expected = (g0[i] + g1[i]) / 2;
          EXPECT_TRUE(g.allclose(expected, 1e-5, 1e-6)) << g << "\n" << expected;
        }
      }
    }
  }
}

TEST_P(DDPChecks, WithoutFindUnusedParametersARankThatSkipsPartRaisesAtTheNextForward) {
  std::vector<std::string> backward_error(2), forward_error(2);
  const auto models = two_models();  // seeded on this thread: the global generator is shared
  run(
      [&](int rank, auto pg, Device dev) {
        auto model = models[static_cast<size_t>(rank)];
        model->to(dev);
        DDP ddp(model, pg);
        model->use_b = rank == 0;
        Tensor x = input_of(rank).to(dev);
        // Rank 0 waits for rank 1's bucket, which never comes: its backward fails at the timeout.
        backward_error[static_cast<size_t>(rank)] =
            error_of<dist::DistBackendError>([&] { ddp(x).sum().backward(); });
        if (rank == 1) forward_error[1] = error_of([&] { (void)ddp(x); });
      },
      std::chrono::milliseconds(1500));
  EXPECT_EQ(backward_error[1], "no error");
  EXPECT_NE(forward_error[1].find(kPriorIteration), std::string::npos) << forward_error[1];
  EXPECT_NE(forward_error[1].find("Parameter indices which did not receive grad for rank 1: 2 3"), std::string::npos);
  EXPECT_NE(backward_error[0].find("[Rank 0]: Gloo all_reduce"), std::string::npos) << backward_error[0];
}

// Trains TwoBranch(0) copies on 2 ranks for 3 steps of SGD with momentum; per rank, the final
// parameters and, per step, each parameter's .grad right after backward.
struct Trained {
  std::vector<std::vector<Tensor>> params{2};
  std::vector<std::vector<std::vector<Tensor>>> grads{2};   // [rank][step][parameter], the tensors themselves
  std::vector<std::vector<std::vector<Tensor>>> values{2};  // their values right after backward (copies)
};

TEST_P(DDPChecks, GradientAsBucketViewAliasesTheBucketsAndMatchesTheCopyPath) {
  for (double cap : {25.0, 0.00001}) {
    for (bool set_to_none : {false, true}) {
      std::vector<Trained> runs(2);  // copy path, bucket view
      for (int as_view = 0; as_view < 2; ++as_view) {
        const auto models = two_models();
        Trained& out = runs[static_cast<size_t>(as_view)];
        run([&](int rank, auto pg, Device dev) {
          auto model = models[static_cast<size_t>(rank)];
          model->to(dev);
          DDP ddp(model, pg, cap, true, false, /*gradient_as_bucket_view=*/as_view == 1);
          optim::SGD opt(ddp.parameters(), optim::SGDOptions(0.1).momentum(0.9));
          for (int step = 0; step < 3; ++step) {
            opt.zero_grad(set_to_none);
            ddp(input_of(rank, step).to(dev)).pow(2).sum().backward();
            std::vector<Tensor> grads, values;
            for (const Tensor& p : model->parameters()) {
              grads.push_back(p.grad());
              values.push_back(p.grad().cpu().clone());
            }
            out.grads[static_cast<size_t>(rank)].push_back(grads);
            out.values[static_cast<size_t>(rank)].push_back(values);
            opt.step();
          }
          for (const Tensor& p : model->parameters()) out.params[static_cast<size_t>(rank)].push_back(p.detach().cpu());
        });
      }
      for (int r = 0; r < 2; ++r) {
        SCOPED_TRACE("cap " + std::to_string(cap) + " set_to_none " + std::to_string(set_to_none) + " rank " +
                     std::to_string(r));
        const auto& copy_grads = runs[0].grads[static_cast<size_t>(r)];
        const auto& view_grads = runs[1].grads[static_cast<size_t>(r)];
        for (size_t i = 0; i < 4; ++i) {
          EXPECT_TRUE(runs[1].params[static_cast<size_t>(r)][i].allclose(runs[0].params[static_cast<size_t>(r)][i],
                                                                         1e-6, 1e-7))
              << "parameter " << i;
        }
        for (size_t step = 0; step < 3; ++step) {
          for (size_t i = 0; i < 4; ++i) {
            EXPECT_TRUE(runs[1].values[static_cast<size_t>(r)][step][i].allclose(
                runs[0].values[static_cast<size_t>(r)][step][i], 1e-6, 1e-7))
                << "step " << step << " parameter " << i;
            // Bucket order is 3, 2, 1, 0: the slot of parameter i starts after those of i+1..3.
            int64_t slot_start = 0;
            for (size_t j = i + 1; j < 4; ++j) slot_start += view_grads[step][j].numel();
            if (cap > 1) {  // one bucket: every gradient is a view into one flat buffer
              EXPECT_EQ(view_grads[step][i].impl()->storage().get(), view_grads[step][0].impl()->storage().get());
              EXPECT_EQ(view_grads[step][i].storage_offset(), slot_start);
              EXPECT_EQ(view_grads[step][i].impl()->storage()->nbytes(), 30 * sizeof(float));
              EXPECT_NE(copy_grads[step][i].impl()->storage().get(),
                        copy_grads[step][(i + 1) % 4].impl()->storage().get())
                  << "the copy path's gradients are separate tensors";
            } else {
              EXPECT_EQ(view_grads[step][i].impl()->storage()->nbytes(), view_grads[step][i].numel() * sizeof(float));
            }
            // The same bucket every step: nothing is reallocated or copied back.
            EXPECT_EQ(view_grads[step][i].data_ptr(), view_grads[0][i].data_ptr());
          }
        }
      }
    }
  }
}

TEST_P(DDPChecks, GradientAsBucketViewMovesExistingGradientsIntoTheBuckets) {
  std::vector<std::vector<Tensor>> before(2), after(2);
  std::vector<char> aliased(2);  // not vector<bool>: its bits share a word across the rank threads
  const auto models = two_models();
  run([&](int rank, auto pg, Device dev) {
    auto model = models[static_cast<size_t>(rank)];
    model->to(dev);
    (*model)(input_of(rank).to(dev)).sum().backward();  // gradients before wrapping
    for (const Tensor& p : model->parameters()) before[static_cast<size_t>(rank)].push_back(p.grad().cpu());
    DDP ddp(model, pg, 25.0, true, false, /*gradient_as_bucket_view=*/true);
    const auto params = model->parameters();
    aliased[static_cast<size_t>(rank)] = true;
    for (const Tensor& p : params) {
      after[static_cast<size_t>(rank)].push_back(p.grad().cpu());
      aliased[static_cast<size_t>(rank)] = aliased[static_cast<size_t>(rank)] &&
                                           p.grad().impl()->storage().get() == params[0].grad().impl()->storage().get();
    }
  });
  for (int r = 0; r < 2; ++r) {
    EXPECT_TRUE(aliased[static_cast<size_t>(r)]);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_TRUE(after[static_cast<size_t>(r)][i].equal(before[static_cast<size_t>(r)][i]));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(, DDPChecks, ::testing::Values(false, true),
                         [](const auto& info) { return std::string(info.param ? "emulated" : "cpu"); });

}  // namespace
}  // namespace ctorch::testing
