// Concurrent backward passes over shared leaves and shared graphs (Note [Thread safety of autograd
// state], src/autograd/meta.h): gradients accumulate exactly, whatever the interleaving. Run under
// ThreadSanitizer too (README: the TSan build), where these tests also show the absence of data races.
#include <gtest/gtest.h>

#include <functional>
#include <latch>
#include <thread>
#include <vector>

#include "ctorch/ctorch.h"

namespace ctorch {
namespace {

constexpr int kThreads = 4;

// Runs body(i) on kThreads threads released together.
void run_together(const std::function<void(int)>& body) {
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        body(i);
      } catch (...) {
        errors[static_cast<size_t>(i)] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

Tensor fresh_leaf(Device device) {
  return tensor({0.5f, -1.0f, 2.0f, 0.25f}).to(device).requires_grad_(true);
}

// The case: four threads, each its own loss over the same fresh leaf (its autograd state and
// accumulator are made by whichever thread gets there first), 200 rounds. The gradient equals four
// backward passes run one after the other, bit for bit (four equal addends sum the same in any order).
void expect_concurrent_backward_accumulates(Device device, int rounds) {
  const Tensor ref = fresh_leaf(device);
  for (int i = 0; i < kThreads; ++i) (ref * 3).exp().sum().backward();
  const Tensor want = ref.grad().cpu();
  for (int round = 0; round < rounds; ++round) {
    const Tensor w = fresh_leaf(device);
    run_together([&](int) { (w * 3).exp().sum().backward(); });
    ASSERT_TRUE(w.grad().defined()) << "round " << round;
    ASSERT_TRUE(w.grad().cpu().equal(want)) << "round " << round << ": " << w.grad().cpu() << " vs " << want;
  }
}

TEST(AutogradThreads, ConcurrentBackwardOverASharedFreshLeafAccumulatesExactly) {
  expect_concurrent_backward_accumulates(Device(DeviceType::CPU), 200);
}

TEST(AutogradThreads, ConcurrentBackwardOnAnEmulatedDevice) {
  if (!cuda::is_emulated() || cuda::device_count() < 1) cuda::emulate(2);
  expect_concurrent_backward_accumulates(Device(DeviceType::CUDA, 0), 50);
}

// Threads backward through one shared graph (retain_graph): the shared nodes' apply runs in several
// threads at once, and the retain_grad hook of a shared non-leaf writes its .grad from each of them.
TEST(AutogradThreads, SharedGraphAndRetainGradAccumulateExactly) {
  for (int round = 0; round < 50; ++round) {
    const Tensor w = fresh_leaf(Device(DeviceType::CPU));
    const Tensor h = (w * 2).exp();
    h.retain_grad();
    run_together([&](int) { (h * h).sum().backward({}, /*retain_graph=*/true); });
    const Tensor g = h.detach() * 2;  // d(sum h^2)/dh
    ASSERT_TRUE(h.grad().equal(g + g + g + g)) << "round " << round;
    const Tensor gw = g * h.detach() * 2;  // through exp(2w)
    ASSERT_TRUE(w.grad().equal(gw + gw + gw + gw)) << "round " << round;
  }
}

// Hooks registered on a shared leaf run once per backward pass, in every thread.
TEST(AutogradThreads, LeafHookRunsOncePerConcurrentBackward) {
  const Tensor w = fresh_leaf(Device(DeviceType::CPU));
  std::atomic<int> calls{0};
  w.register_hook([&](const Tensor&) {
    calls.fetch_add(1);
    return Tensor();
  });
  run_together([&](int) {
    for (int i = 0; i < 25; ++i) (w * 1).sum().backward();
  });
  EXPECT_EQ(calls.load(), kThreads * 25);
  EXPECT_TRUE(w.grad().equal(full({4}, kThreads * 25.0f)));
}

}  // namespace
}  // namespace ctorch
