// torch.cuda.nvtx. Depth bookkeeping is ctorch's own, so range_push/range_pop return depths with
// or without a profiler attached (NVTX itself returns -2 when no tool is injected).
#include "ctorch/nvtx.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "trace/tracer.h"

#ifdef CTORCH_HAS_CUDA_BACKEND
#include <nvtx3/nvToolsExt.h>
#endif

namespace ctorch::cuda::nvtx {
namespace {

thread_local int t_depth = 0;
std::atomic<uint64_t> g_next_id{1};
std::mutex g_mu;
// Open start/end ranges: ctorch handle -> NVTX range id (0 without NVTX). Guarded by g_mu.
std::unordered_map<uint64_t, uint64_t>& open_ranges() {
  static auto* m = new std::unordered_map<uint64_t, uint64_t>();
  return *m;
}

}  // namespace

bool has_nvtx() noexcept {
#ifdef CTORCH_HAS_CUDA_BACKEND
  return true;
#else
  return false;
#endif
}

void mark(const std::string& msg) {
#ifdef CTORCH_HAS_CUDA_BACKEND
  nvtxMarkA(msg.c_str());
#endif
  tracing::nvtx_mark(msg);
}

int range_push(const std::string& msg) {
#ifdef CTORCH_HAS_CUDA_BACKEND
  nvtxRangePushA(msg.c_str());
#endif
  tracing::nvtx_push(msg);
  return t_depth++;
}

int range_pop() {
  if (t_depth == 0) return -1;
#ifdef CTORCH_HAS_CUDA_BACKEND
  nvtxRangePop();
#endif
  tracing::nvtx_pop();
  return --t_depth;
}

uint64_t range_start(const std::string& msg) {
  const uint64_t id = g_next_id.fetch_add(1);
  uint64_t native = 0;
#ifdef CTORCH_HAS_CUDA_BACKEND
  native = nvtxRangeStartA(msg.c_str());
#endif
  {
    std::lock_guard<std::mutex> lock(g_mu);
    open_ranges()[id] = native;
  }
  tracing::nvtx_start(id, msg);
  return id;
}

void range_end(uint64_t range_id) {
  uint64_t native = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = open_ranges().find(range_id);
    if (it == open_ranges().end()) return;
    native = it->second;
    open_ranges().erase(it);
  }
#ifdef CTORCH_HAS_CUDA_BACKEND
  nvtxRangeEnd(native);
#endif
  (void)native;
  tracing::nvtx_end(range_id);
}

}  // namespace ctorch::cuda::nvtx
