// The installed autograd recorder (Note [Recording hook]).
#include "ops/grad_hook.h"

#include <algorithm>
#include <atomic>

#include "core/wrap_dim.h"

namespace ctorch::inline api::ops {

namespace {
std::atomic<GradRecorder*> g_recorder{nullptr};
}  // namespace

void set_grad_recorder(GradRecorder* recorder) noexcept { g_recorder.store(recorder, std::memory_order_release); }

DimVector wrapped_dims(IntArrayRef dims, int64_t ndim) {
  DimVector out;
  for (int64_t d : dims) out.push_back(detail::wrap_dim(d, std::max<int64_t>(ndim, 1)));
  return out;
}

GradRecorder* grad_recorder() noexcept { return g_recorder.load(std::memory_order_acquire); }

}  // namespace ctorch::api::ops
