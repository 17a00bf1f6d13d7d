// CUDA graphs (ctorch/cuda_graph.h), after PyTorch's test/test_cuda.py graph tests: capture records
// work without running it, replays run it again (also on the default stream), pools are shared and
// outlive graphs as PyTorch's do, RNG replays continue the eager sequence, and what is illegal
// during capture fails with CUDA's or PyTorch's words in each capture mode.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "backends/emulated/runtime.h"
#include "ctorch/cuda.h"
#include "ctorch/cuda_event.h"
#include "ctorch/cuda_graph.h"
#include "ctorch/cuda_memory.h"
#include "ctorch/cuda_random.h"
#include "ctorch/cuda_sanitizer.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/random.h"
#include "ctorch/warning.h"
#include "device/device_test.h"
#include "memory/device_allocator.h"
#include "test_util.h"

namespace ctorch {
namespace {

using ::ctorch::testing::error_of;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

class CudaGraph : public testing::DeviceTest {
 protected:
  TensorOptions opts() const { return on_device(kFloat32); }
  void TearDown() override {
    if (cuda::is_initialized()) cuda::synchronize();
  }
};

TEST_P(CudaGraph, CaptureRecordsAndReplayRuns) {
  // test_graph_capture_simple, plus: nothing runs at capture time, each replay runs once more.
  Tensor x = zeros({1000}, opts());
  cuda::Stream s;
  s.wait_stream(cuda::current_stream());
  cuda::CUDAGraph g;
  {
    auto ctx = cuda::stream(s);
    g.capture_begin();
    EXPECT_TRUE(cuda::is_current_stream_capturing());
    for (int i = 0; i < 10; ++i) x.add_(1);
    g.capture_end();
    EXPECT_FALSE(cuda::is_current_stream_capturing());
  }
  cuda::current_stream().wait_stream(s);
  EXPECT_EQ(x.sum().item().to<double>(), 0.0);
  g.replay();
  EXPECT_EQ(x.sum().item().to<double>(), 10000.0);
  g.replay();
  g.replay();
  EXPECT_EQ(x.sum().item().to<double>(), 30000.0);
}

TEST_P(CudaGraph, GuardCapturesOnSideStreamAndReplaysOnDefaultStream) {
  Tensor a = full({256}, 2.0, opts());
  Tensor b;
  cuda::CUDAGraph g;
  const cuda::Stream before = cuda::current_stream();
  {
    cuda::graph scope(g);
    EXPECT_NE(cuda::current_stream(), cuda::default_stream());
    b = a * 3 + 1;
  }
  EXPECT_EQ(cuda::current_stream(), before);
  EXPECT_EQ(cuda::current_stream(), cuda::default_stream());
  a.fill_(5.0);  // static input refilled in place
  g.replay();    // on the default stream
  EXPECT_EQ(b.sum().item().to<double>(), 256.0 * 16);
  // Recapture into a reset graph.
  g.reset();
  {
    cuda::graph scope(g);
    b.mul_(2);
  }
  g.replay();
  EXPECT_EQ(b.sum().item().to<double>(), 256.0 * 32);
}

TEST_P(CudaGraph, ForkJoinOfASideStreamIsCaptured) {
  Tensor a = zeros({64}, opts()), c = zeros({64}, opts());
  cuda::CUDAGraph g;
  cuda::Stream s1, s2;
  {
    auto ctx = cuda::stream(s1);
    g.capture_begin();
    a.add_(1);
    s2.wait_stream(s1);  // fork: s2 joins the capture
    {
      auto inner = cuda::stream(s2);
      c.add_(a);
    }
    s1.wait_stream(s2);  // join
    g.capture_end();
  }
  g.replay();
  g.replay();
  cuda::synchronize();
  EXPECT_EQ(a.sum().item().to<double>(), 128.0);
  EXPECT_EQ(c.sum().item().to<double>(), 64.0 * 3);  // 1 then 2
  // A fork that is not joined back fails the capture.
  cuda::CUDAGraph bad;
  {
    auto ctx = cuda::stream(s1);
    bad.capture_begin();
    s2.wait_stream(s1);
    {
      auto inner = cuda::stream(s2);
      c.add_(1);
    }
    EXPECT_TRUE(contains(error_of([&] { bad.capture_end(); }), "CUDA error: capturing stream has unjoined work"));
  }
  EXPECT_TRUE(contains(error_of([&] { bad.replay(); }),
                       "Called CUDAGraph::replay without a preceding successful capture."));
}

TEST_P(CudaGraph, RngReplaysDifferAndMatchEager) {
  // test_graph_rng_functional: the replays continue the generator as eager calls would.
  constexpr int kReplays = 3;
  cuda::manual_seed(42);
  std::vector<std::vector<float>> eager;
  for (int i = 0; i < kReplays; ++i) {
    Tensor u = rand({1000}, opts());
    Tensor n = randn({333}, opts());
    std::vector<float> v = u.to_vector<float>();
    for (float f : n.to_vector<float>()) v.push_back(f);
    eager.push_back(v);
  }
  const Tensor eager_tail = rand({10}, opts());
  cuda::manual_seed(42);
  cuda::CUDAGraph g;
  Tensor u, n;
  {
    cuda::graph scope(g);
    u = rand({1000}, opts());
    n = randn({333}, opts());
  }
  for (int i = 0; i < kReplays; ++i) {
    g.replay();
    std::vector<float> v = u.to_vector<float>();
    for (float f : n.to_vector<float>()) v.push_back(f);
    EXPECT_EQ(v, eager[i]) << "replay " << i;
  }
  EXPECT_NE(eager[0], eager[1]);
  // After the replays the generator is where the eager calls left it.
  EXPECT_TRUE(rand({10}, opts()).equal(eager_tail));
}

TEST_P(CudaGraph, TwoGraphsShareAPool) {
  // test_graph_two_successive: the second graph reuses the first one's freed memory.
  Tensor x = ones({1 << 16}, opts());
  const cuda::MempoolId pool = cuda::graph_pool_handle();
  EXPECT_EQ(pool.first, 0u);
  EXPECT_GT(pool.second, 0u);
  const cuda::MempoolId next = cuda::graph_pool_handle();
  EXPECT_EQ(next.second, pool.second + 1);
  cuda::CUDAGraph g0, g1;
  Tensor y0, y1;
  {
    cuda::graph scope(g0, pool);
    Tensor t = x * 2;  // a temporary freed inside the capture
    y0 = t + 1;
  }
  {
    cuda::graph scope(g1, g0.pool());
    const int64_t reserved = cuda::memory_reserved();
    Tensor t = y0 * 2;
    y1 = t + 1;
    EXPECT_EQ(cuda::memory_reserved(), reserved);  // served by g0's segment, freed t included
  }
  EXPECT_EQ(g1.pool(), pool);
  EXPECT_EQ(memory::cuda_caching_allocator(0).private_pool_use_count(pool), 2);
  g0.replay();
  g1.replay();
  EXPECT_EQ(y1.sum().item().to<double>(), double(1 << 16) * 7);
  g0.reset();
  EXPECT_EQ(memory::cuda_caching_allocator(0).private_pool_use_count(pool), 1);
  g1.replay();  // the pool is still held by g1
  EXPECT_EQ(y1.sum().item().to<double>(), double(1 << 16) * 7);
}

TEST_P(CudaGraph, OutputsOutliveTheGraphAndStatsFollowThePool) {
  // test_graph_memory_stats_and_use_result_after_destroy_graph.
  cuda::empty_cache();
  const int64_t allocated0 = cuda::memory_allocated(), reserved0 = cuda::memory_reserved();
  Tensor x = full({1 << 18}, 3.0, opts());  // 1 MiB
  Tensor out;
  auto g = std::make_unique<cuda::CUDAGraph>();
  {
    cuda::graph scope(*g);
    const int64_t before = cuda::memory_allocated();
    out = x + 1;
    EXPECT_EQ(cuda::memory_allocated(), before + (1 << 20));  // allocated during capture, from the pool
  }
  g->replay();
  const cuda::MempoolId pool = g->pool();
  g.reset();  // destroys the graph
  EXPECT_EQ(memory::cuda_caching_allocator(0).private_pool_use_count(pool), 0);
  EXPECT_EQ(out.sum().item().to<double>(), 4.0 * (1 << 18));  // the result is still usable
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_allocated(), allocated0 + 2 * (1 << 20));
  out = Tensor();
  EXPECT_EQ(cuda::memory_allocated(), allocated0 + (1 << 20));
  cuda::empty_cache();  // the released pool's last segment goes back
  EXPECT_EQ(memory::cuda_caching_allocator(0).private_pool_use_count(pool), -1);
  x = Tensor();
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(), reserved0);
}

TEST_P(CudaGraph, ApiErrors) {
  // test_graph_error and PyTorch's TORCH_CHECKs in CUDAGraph.cpp.
  cuda::CUDAGraph g;
  EXPECT_EQ(error_of([&] { g.replay(); }), "Called CUDAGraph::replay without a preceding successful capture.");
  EXPECT_EQ(error_of([&] { (void)g.pool(); }), "Called CUDAGraph::pool() without a preceding successful capture.");
  EXPECT_EQ(error_of([&] { g.capture_begin(); }),
            "CUDA graphs must be captured on a non-default stream. (However, after capture, it's ok to replay them on "
            "the default stream.)");
  EXPECT_FALSE(cuda::is_current_stream_capturing());
  Tensor x = zeros({8}, opts());
  cuda::Stream s, other;
  {
    auto ctx = cuda::stream(s);
    g.capture_begin();
    x.add_(1);
    {
      auto o = cuda::stream(other);
      EXPECT_EQ(error_of([&] { g.capture_end(); }), "Capture must end on the same stream it began on.");
    }
    g.capture_end();
  }
  EXPECT_EQ(error_of([&] { g.capture_begin(); }),
            "This CUDAGraph instance already owns a captured graph. To capture a new graph, create a new instance.");
  // Two captures recording to one pool at once.
  const cuda::MempoolId pool = cuda::graph_pool_handle();
  cuda::CUDAGraph a, b;
  {
    auto ctx = cuda::stream(s);
    a.capture_begin(pool);
    {
      auto o = cuda::stream(other);
      EXPECT_EQ(error_of([&] { b.capture_begin(pool); }), "beginAllocateToPool: already recording to mempool_id");
      EXPECT_FALSE(cuda::is_current_stream_capturing());
    }
    x.add_(1);
    a.capture_end();
  }
  EXPECT_EQ(cuda::capture_error_mode("thread_local"), cuda::CaptureErrorMode::thread_local_);
  EXPECT_TRUE(contains(error_of([] { (void)cuda::capture_error_mode("strict"); }), "Unknown capture error mode"));
}

TEST_P(CudaGraph, EmptyGraphWarns) {
  std::vector<std::string> warnings;
  WarningHandlerGuard guard([&](const std::string& m) { warnings.push_back(m); });
  cuda::CUDAGraph g;
  { cuda::graph scope(g); }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "The CUDA Graph is empty. This usually means that the graph was attempted to be captured on wrong device or "
            "stream.");
  g.replay();  // nothing to do
}

// Each synchronizing call during a global capture fails with CUDA's error and invalidates the capture.
TEST_P(CudaGraph, SynchronizingCallsInvalidateTheCapture) {
  const std::string not_permitted = "CUDA error: operation not permitted when stream is capturing";
  const std::string invalidated = "CUDA error: operation failed due to a previous error during capture";
  Tensor x = ones({4}, opts());
  cuda::Event e;
  e.record();
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"synchronize", [] { cuda::synchronize(); }},
      {"stream.synchronize", [] { cuda::current_stream().synchronize(); }},
      {"stream.query", [] { (void)cuda::current_stream().query(); }},
      {"event.synchronize", [&] { e.synchronize(); }},
      {"event.query", [&] { (void)e.query(); }},
      {"item", [&] { (void)x.sum().item(); }},
  };
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    cuda::CUDAGraph g;
    cuda::Stream s;
    auto ctx = cuda::stream(s);
    g.capture_begin();
    x.add_(1);
    EXPECT_TRUE(contains(error_of(call), not_permitted));
    EXPECT_TRUE(contains(error_of([&] { x.add_(1); }), invalidated));
    EXPECT_TRUE(contains(error_of([&] { g.capture_end(); }), invalidated));
    EXPECT_FALSE(cuda::is_current_stream_capturing());
    EXPECT_EQ(error_of([&] { g.replay(); }), "Called CUDAGraph::replay without a preceding successful capture.");
  }
  cuda::synchronize();
  EXPECT_EQ(x.sum().item().to<double>(), 4.0);  // nothing captured ran
  // A failed capture left no pool recording: a new capture works.
  cuda::CUDAGraph g;
  {
    cuda::graph scope(g);
    x.add_(1);
  }
  g.replay();
  EXPECT_EQ(x.sum().item().to<double>(), 8.0);
}

TEST_P(CudaGraph, PageableCopiesAreRefusedPinnedOnesCaptured) {
  const std::string pageable =
      "Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU tensor is pinned. Please use "
      "tensor.pin_memory() or allocate the tensor with pin_memory=True.";
  Tensor dev = zeros({16}, opts());
  Tensor host = full({16}, 2.0);
  Tensor pinned = full({16}, 3.0).pin_memory();
  cuda::CUDAGraph g;
  {
    cuda::graph scope(g);
    EXPECT_EQ(error_of([&] { dev.copy_(host); }), pageable);
    EXPECT_EQ(error_of([&] { (void)dev.cpu(); }), pageable);
    dev.copy_(pinned, /*non_blocking=*/true);  // captured: reads the pinned buffer at each replay
  }
  pinned.fill_(4.0);
  g.replay();
  EXPECT_EQ(dev.sum().item().to<double>(), 64.0);
}

TEST_P(CudaGraph, CaptureModesDecideWhoMayCallUnsafeApis) {
  const std::string not_permitted = "CUDA error: operation not permitted when stream is capturing";
  cuda::Stream unrelated;
  auto other_thread_syncs = [&] {
    std::string error;
    std::thread t([&] { error = error_of([&] { unrelated.synchronize(); }); });
    t.join();
    return error;
  };
  Tensor x = zeros({4}, opts());
  for (const char* mode : {"global", "thread_local", "relaxed"}) {
    SCOPED_TRACE(mode);
    cuda::CUDAGraph g;
    cuda::Stream s;
    auto ctx = cuda::stream(s);
    g.capture_begin({}, cuda::capture_error_mode(mode));
    x.add_(1);
    const std::string other = other_thread_syncs();
    if (std::string(mode) == "global") {
      EXPECT_TRUE(contains(other, not_permitted));
      EXPECT_THROW(g.capture_end(), Error);  // invalidated by the other thread's call
      continue;
    }
    EXPECT_EQ(other, "no error");
    const std::string mine = error_of([&] { unrelated.synchronize(); });
    if (std::string(mode) == "thread_local") {
      EXPECT_TRUE(contains(mine, not_permitted));
      EXPECT_THROW(g.capture_end(), Error);
    } else {
      EXPECT_EQ(mine, "no error");
      // Even relaxed: the capturing stream itself cannot be synchronized.
      EXPECT_TRUE(contains(error_of([&] { s.synchronize(); }), not_permitted));
      EXPECT_THROW(g.capture_end(), Error);
    }
  }
}

TEST_P(CudaGraph, GeneratorStateIsFrozenDuringCapture) {
  const std::string status = " during CUDA graph capture. If you need this call to be captured, please file an issue. "
                             "Current cudaStreamCaptureStatus: cudaStreamCaptureStatusActive";
  cuda::manual_seed(7);
  const Tensor state = cuda::get_rng_state();
  cuda::CUDAGraph g;
  {
    cuda::graph scope(g);
    EXPECT_EQ(error_of([] { cuda::manual_seed(3); }), "Cannot call CUDAGeneratorImpl::set_current_seed" + status);
    EXPECT_EQ(error_of([] { (void)cuda::get_rng_state(); }), "Cannot call CUDAGeneratorImpl::current_seed" + status);
    EXPECT_EQ(error_of([] { (void)cuda::initial_seed(); }), "Cannot call CUDAGeneratorImpl::current_seed" + status);
    EXPECT_EQ(error_of([] { cuda::seed(); }), "Cannot call CUDAGeneratorImpl::seed" + status);
    EXPECT_EQ(error_of([&] { cuda::default_generator(0).set_state(state); }),
              "Please ensure to utilize the CUDAGeneratorImpl::set_state_index method during capturing." + status);
  }
  EXPECT_TRUE(cuda::get_rng_state().equal(state));  // capture did not advance the generator
}

TEST_P(CudaGraph, LegacyStreamMayNotDependOnACapturingBlockingStream) {
  if (!cuda::is_emulated()) GTEST_SKIP() << "uses the emulated runtime's blocking streams";
  auto& rt = backends::emulated::instance();
  const cuda::Stream blocking(rt.create_blocking_stream(0));
  Tensor x = zeros({4}, opts());
  cuda::CUDAGraph g;
  {
    auto ctx = cuda::stream(blocking);
    g.capture_begin();
    x.add_(1);
    {
      auto legacy = cuda::stream(cuda::default_stream());
      EXPECT_TRUE(contains(error_of([&] { x.add_(1); }),
                           "CUDA error: operation would make the legacy stream depend on a capturing blocking stream"));
    }
    EXPECT_THROW(g.capture_end(), Error);
  }
  // A non-blocking capture does not involve the legacy stream.
  cuda::CUDAGraph ok;
  {
    cuda::graph scope(ok);
    x.add_(1);
    {
      auto legacy = cuda::stream(cuda::default_stream());
      x.add_(10);  // eager, on the default stream
    }
  }
  ok.replay();
  EXPECT_EQ(x.sum().item().to<double>(), 44.0);
}

TEST_P(CudaGraph, SanitizerSeesReplaysOnTheReplayStream) {
  cuda::enable_cuda_sanitizer();
  struct Off {
    ~Off() { cuda::disable_cuda_sanitizer(); }
  } off;
  Tensor a = ones({128}, opts());
  Tensor b;
  cuda::CUDAGraph g;
  {
    cuda::graph scope(g);  // captured on the side stream, not run there
    b = a * 2;
  }
  g.replay();  // on the default stream: reading b there needs no synchronization
  EXPECT_EQ(b.sum().item().to<double>(), 256.0);
  // A replay on another stream, then an unsynchronized write of its input on the default stream.
  cuda::Stream s;
  s.wait_stream(cuda::current_stream());
  {
    auto ctx = cuda::stream(s);
    g.replay();
  }
  EXPECT_THROW(a.add_(1), cuda::CUDASanitizerErrors);
  cuda::current_stream().wait_stream(s);
  a.add_(1);
}

CTORCH_INSTANTIATE_CUDA_TESTS(CudaGraph);

}  // namespace
}  // namespace ctorch
