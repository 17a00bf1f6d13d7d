#include "runtime/sync_debug.h"

#include "ctorch/error.h"
#include "ctorch/warning.h"

namespace ctorch::inline api::impl {
namespace detail {

std::atomic<int> g_sync_debug_mode{0};

void report_sync() {
  const SyncDebugMode mode = sync_debug_mode();
  CTORCH_CHECK(mode != SyncDebugMode::Error, "called a synchronizing CUDA operation");
  if (mode == SyncDebugMode::Warn) warn("called a synchronizing CUDA operation");
}

}  // namespace detail

void set_sync_debug_mode(SyncDebugMode mode) noexcept {
  detail::g_sync_debug_mode.store(static_cast<int>(mode), std::memory_order_relaxed);
}

}  // namespace ctorch::api::impl
