// torch.cuda.CUDAGraph and torch.cuda.graph (ctorch/cuda_graph.h), after PyTorch's
// aten/src/ATen/cuda/CUDAGraph.cpp and torch/cuda/graphs.py, over the runtime's optional
// impl::StreamCapture. Memory: the caching allocator's private pools (Note [Private pools]);
// RNG: the default CUDA generator's graph state (Note [CUDA Graph-safe RNG states] in
// kernels/random_op.h); the stream sanitizer sees a replay as the captured accesses on the replay stream.
#include "ctorch/cuda_graph.h"

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>

#include "ctorch/cuda_memory.h"
#include "ctorch/error.h"
#include "ctorch/warning.h"
#include "memory/device_allocator.h"
#include "random/cuda_generator.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "sanitizer/hooks.h"

namespace ctorch::cuda {
namespace {

std::atomic<uint64_t> g_capture_sequence{1};  // CUDAGraph ids (capture_sequence_id)
std::atomic<uint64_t> g_pool_handles{1};      // graph_pool_handle ids

impl::CaptureMode runtime_mode(CaptureErrorMode mode) {
  switch (mode) {
    case CaptureErrorMode::global: return impl::CaptureMode::Global;
    case CaptureErrorMode::thread_local_: return impl::CaptureMode::ThreadLocal;
    case CaptureErrorMode::relaxed: return impl::CaptureMode::Relaxed;
  }
  return impl::CaptureMode::Global;
}

impl::StreamCapture& capture_runtime() {
  impl::DeviceRuntime& rt = impl::lazy_init(DeviceType::CUDA);
  impl::StreamCapture* sc = impl::stream_capture(rt);
  CTORCH_CHECK(sc != nullptr, "CUDA graphs are not supported by this CUDA runtime");
  return *sc;
}

}  // namespace

struct CUDAGraph::State {
  impl::StreamCapture* rt = nullptr;
  impl::GraphHandle graph = nullptr;
  impl::GraphExecHandle exec = nullptr;
  bool capturing = false;  // between capture_begin and capture_end
  bool debug = false;
  uint64_t id = 0;
  std::atomic<uint64_t> capture_id{0};  // the runtime's id of the capture (read by the allocator's filter)
  MempoolId mempool_id{0, 0};
  ::ctorch::Stream capture_stream = ::ctorch::Stream::default_stream(Device(DeviceType::CPU, 0));
  DeviceIndex capture_dev = -1;
  std::shared_ptr<impl::CUDAGeneratorImpl> gen;
  uint64_t wholegraph_increment = 0;
  uint64_t sanitizer_token = 0;

  // Undoes what capture_begin did before the runtime's capture (or after a failed end).
  void abandon(bool allocating, bool holds_pool) noexcept {
    try {
      if (allocating) ::ctorch::memory::end_allocate_to_pool(capture_dev, mempool_id);
      if (holds_pool) ::ctorch::memory::release_pool(capture_dev, mempool_id);
    } catch (...) {
    }
    if (gen) {
      std::lock_guard<std::mutex> lock(gen->mutex());
      (void)gen->capture_epilogue();
      gen->unregister_graph(this);
    }
    gen.reset();
    capturing = false;
  }
};

CaptureErrorMode capture_error_mode(const std::string& name) {
  if (name == "global") return CaptureErrorMode::global;
  if (name == "thread_local") return CaptureErrorMode::thread_local_;
  if (name == "relaxed") return CaptureErrorMode::relaxed;
  CTORCH_CHECK_VALUE(false, "Unknown capture error mode. Expected `global`, `thread_local`, or `relaxed`, got ",
                     name);
  __builtin_unreachable();
}

MempoolId graph_pool_handle() { return {0, g_pool_handles.fetch_add(1)}; }

bool is_current_stream_capturing() {
  return impl::current_stream_capture_status(DeviceType::CUDA) != impl::CaptureStatus::None;
}

CUDAGraph::CUDAGraph() : state_(new State) {}

CUDAGraph::~CUDAGraph() {
  reset();
  delete state_;
}

void CUDAGraph::capture_begin(MempoolId pool, CaptureErrorMode mode) {
  State& st = *state_;
  CTORCH_CHECK(st.exec == nullptr && !st.capturing,
               "This CUDAGraph instance already owns a captured graph. To capture a new graph, create a new instance.");
  impl::StreamCapture& rt = capture_runtime();
  const DeviceIndex dev = static_cast<DeviceIndex>(current_device());
  const ::ctorch::Stream stream = impl::current_stream(Device(DeviceType::CUDA, dev));
  CTORCH_CHECK(stream.id() != 0,
               "CUDA graphs must be captured on a non-default stream. (However, after capture, it's ok to replay them "
               "on the default stream.)");
  CTORCH_CHECK_VALUE(pool.first == 0 || pool.second == 0, "pool must be a (capture id, 0) or (0, handle id) pair");
  std::shared_ptr<impl::CUDAGeneratorImpl> gen = impl::default_cuda_generator(dev);
  st.rt = &rt;
  st.capture_stream = stream;
  st.capture_dev = dev;
  st.id = g_capture_sequence.fetch_add(1);
  st.mempool_id = (pool.first != 0 || pool.second != 0) ? pool : MempoolId{st.id, 0};
  st.capture_id.store(0);
  st.capturing = true;
  try {
    State* self = &st;
    ::ctorch::memory::begin_allocate_to_pool(dev, st.mempool_id, [self](::ctorch::Stream s) {
      const uint64_t want = self->capture_id.load(std::memory_order_acquire);
      uint64_t id = 0;
      return want != 0 && self->rt->capture_status(s, &id) == impl::CaptureStatus::Active && id == want;
    });
  } catch (...) {
    st.capturing = false;  // nothing was added to the allocator
    throw;
  }
  try {
    // The default generator's graph state (registered and reset before the capture starts).
    {
      std::lock_guard<std::mutex> lock(gen->mutex());
      gen->register_graph(&st);
      st.gen = gen;
      gen->capture_prologue();
    }
    rt.begin_capture(stream, runtime_mode(mode));
    uint64_t id = 0;
    (void)rt.capture_status(stream, &id);
    st.capture_id.store(id, std::memory_order_release);
  } catch (...) {
    st.abandon(true, true);
    throw;
  }
}

void CUDAGraph::capture_end() {
  State& st = *state_;
  CTORCH_CHECK(st.capturing, "Called CUDAGraph::capture_end without a preceding capture_begin.");
  const ::ctorch::Stream stream = impl::current_stream(Device(DeviceType::CUDA, st.capture_dev));
  CTORCH_CHECK(stream == st.capture_stream, "Capture must end on the same stream it began on.");
  impl::GraphHandle g = nullptr;
  const uint64_t capture_id = st.capture_id.load();
  try {
    g = st.rt->end_capture(stream);
  } catch (...) {
    sanitizer::graph_destroyed(sanitizer::graph_captured(capture_id));
    st.abandon(true, true);
    throw;
  }
  ::ctorch::memory::end_allocate_to_pool(st.capture_dev, st.mempool_id);
  st.sanitizer_token = sanitizer::graph_captured(capture_id);
  if (g == nullptr) {
    st.abandon(false, true);
    CTORCH_CHECK(false, "Invalid capture.");
  }
  size_t nodes = 0;
  try {
    nodes = st.rt->graph_node_count(g);
    st.exec = st.rt->instantiate_graph(g);
  } catch (...) {
    st.rt->destroy_graph(g);
    st.abandon(false, true);
    throw;
  }
  st.graph = g;
  st.capturing = false;
  {
    std::lock_guard<std::mutex> lock(st.gen->mutex());
    st.wholegraph_increment = st.gen->capture_epilogue();
  }
  if (nodes == 0) {
    warn("The CUDA Graph is empty. This usually means that the graph was attempted to be captured on wrong device "
         "or stream.");
  }
  if (!st.debug) {
    st.rt->destroy_graph(st.graph);
    st.graph = nullptr;
  }
}

void CUDAGraph::replay() {
  State& st = *state_;
  CTORCH_CHECK(st.exec != nullptr, "Called CUDAGraph::replay without a preceding successful capture.");
  impl::DeviceGuard guard(Device(DeviceType::CUDA, st.capture_dev));
  const ::ctorch::Stream stream = impl::current_stream(Device(DeviceType::CUDA, st.capture_dev));
  if (sanitizer::active()) sanitizer::graph_replayed(st.sanitizer_token, stream);
  {
    std::lock_guard<std::mutex> lock(st.gen->mutex());
    st.gen->replay_prologue(st.wholegraph_increment);
  }
  st.rt->launch_graph(st.exec, stream);
}

void CUDAGraph::reset() noexcept {
  State& st = *state_;
  if (st.capturing) return;  // a capture in progress is ended (or abandoned) by capture_end
  if (st.exec != nullptr || st.graph != nullptr) {
    try {
      ::ctorch::memory::release_pool(st.capture_dev, st.mempool_id);
    } catch (const std::exception& e) {
      try {
        warn(std::string("CUDAGraph::reset: releasing the memory pool failed: ") + e.what());
      } catch (...) {
      }
    }
  }
  if (st.graph) st.rt->destroy_graph(st.graph);
  if (st.exec) st.rt->destroy_graph_exec(st.exec);
  st.graph = st.exec = nullptr;
  if (st.sanitizer_token) sanitizer::graph_destroyed(st.sanitizer_token);
  st.sanitizer_token = 0;
  if (st.gen) {
    std::lock_guard<std::mutex> lock(st.gen->mutex());
    st.gen->unregister_graph(&st);
  }
  st.gen.reset();
}

MempoolId CUDAGraph::pool() const {
  CTORCH_CHECK(state_->exec != nullptr, "Called CUDAGraph::pool() without a preceding successful capture.");
  return state_->mempool_id;
}

void CUDAGraph::enable_debug_mode() { state_->debug = true; }

void CUDAGraph::debug_dump(const std::string& path) {
  State& st = *state_;
  if (!st.debug) {
    warn("CUDA Graphs debug not enabled, set with [graph].enable_debug_mode()");
    return;
  }
  CTORCH_CHECK(st.graph != nullptr, "CUDAGraph::debug_dump: no captured graph (capture with debug mode enabled first)");
  st.rt->debug_dump_graph(st.graph, path);
}

// ---------------------------------------------------------------------------------------------
// torch.cuda.graph

namespace {
// graph.default_capture_stream: one side stream shared by all graph scopes, created lazily.
Stream default_capture_stream() {
  static std::mutex mu;
  static std::optional<Stream> stream;
  std::lock_guard<std::mutex> lock(mu);
  if (!stream) stream.emplace();
  return *stream;
}
}  // namespace

graph::graph(CUDAGraph& cuda_graph, std::optional<MempoolId> pool, std::optional<Stream> stream,
             const std::string& capture_error_mode)
    : graph_(cuda_graph), uncaught_(std::uncaught_exceptions()) {
  const CaptureErrorMode mode = cuda::capture_error_mode(capture_error_mode);
  synchronize();
  empty_cache();
  context_.emplace(stream ? *stream : default_capture_stream());
  try {
    graph_.capture_begin(pool.value_or(MempoolId{0, 0}), mode);
  } catch (...) {
    context_.reset();
    throw;
  }
}

graph::~graph() noexcept(false) {
  if (std::uncaught_exceptions() > uncaught_) {
    // Unwinding: end the capture if possible, never throw over the pending exception.
    try {
      graph_.capture_end();
    } catch (...) {
    }
    context_.reset();
    return;
  }
  try {
    graph_.capture_end();
  } catch (...) {
    context_.reset();
    throw;
  }
  context_.reset();
}

}  // namespace ctorch::cuda
