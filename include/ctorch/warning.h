// Warnings (PyTorch's TORCH_WARN and c10::WarningHandler): ctorch::warn sends a message to the
// calling thread's handler; the default handler prints "Warning: <message>" to stderr.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <utility>

namespace ctorch::inline api {

/// Receives warnings (e.g. to collect them in a test or turn them into errors).
using WarningHandler = std::function<void(const std::string& message)>;

/// Reports `message` to the calling thread's warning handler.
void warn(const std::string& message);
/// Sets the calling thread's handler (an empty one restores the default); returns the previous.
WarningHandler set_warning_handler(WarningHandler handler);

/// torch.set_warn_always: when on, warnings PyTorch shows once per process are shown every time.
void set_warn_always(bool enabled);
/// torch.is_warn_always_enabled().
bool is_warn_always_enabled();
/// Reports `message` unless `shown` was already set (TORCH_WARN_ONCE); always when warn_always is on.
void warn_once(std::atomic<bool>& shown, const std::string& message);

/// Installs a handler for the scope and restores the previous one at exit.
class WarningHandlerGuard {
 public:
  /// Makes `handler` the calling thread's handler.
  explicit WarningHandlerGuard(WarningHandler handler) : previous_(set_warning_handler(std::move(handler))) {}
  ~WarningHandlerGuard() { set_warning_handler(std::move(previous_)); }
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler previous_;
};

}  // namespace ctorch::api
