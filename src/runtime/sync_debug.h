// The synchronization debug mode (c10::cuda::warning_state): warn or throw when an operation
// makes the host wait for a device (blocking copies, item(), Stream::synchronize).
#pragma once

#include <atomic>

namespace ctorch::inline api::impl {

/// 0: disabled, 1: warn, 2: error (torch.cuda.set_sync_debug_mode values).
enum class SyncDebugMode : int { Disabled = 0, Warn = 1, Error = 2 };

namespace detail {
extern std::atomic<int> g_sync_debug_mode;
/// Slow path of warn_or_error_on_sync.
void report_sync();
}  // namespace detail

/// The process-wide mode.
inline SyncDebugMode sync_debug_mode() noexcept {
  return static_cast<SyncDebugMode>(detail::g_sync_debug_mode.load(std::memory_order_relaxed));
}
/// Sets the process-wide mode.
void set_sync_debug_mode(SyncDebugMode mode) noexcept;
/// Call before an operation that makes the host wait for a device: warns ("called a
/// synchronizing CUDA operation") or throws ctorch::Error, as the mode says.
inline void warn_or_error_on_sync() {
  if (__builtin_expect(detail::g_sync_debug_mode.load(std::memory_order_relaxed) != 0, 0)) detail::report_sync();
}

}  // namespace ctorch::api::impl
