// Grad mode: whether ops record autograd history on the calling thread (torch.no_grad,
// torch.enable_grad, torch.set_grad_enabled).
#pragma once

namespace ctorch::inline api {

/// The calling thread's grad mode (torch.is_grad_enabled / torch.set_grad_enabled).
struct GradMode {
  /// True when ops record history for tensors that require grad (the default).
  static bool is_enabled() noexcept;
  /// Turns recording on or off for the calling thread.
  static void set_enabled(bool enabled) noexcept;
};

/// Sets grad mode for a scope and restores the previous mode at exit (torch.set_grad_enabled).
class AutoGradMode {
 public:
  /// Switches grad mode to `enabled` until the guard is destroyed.
  explicit AutoGradMode(bool enabled) noexcept : previous_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
  /// The mode that was current when the guard was created.
  bool prev_mode() const noexcept { return previous_; }

 private:
  bool previous_;
};

/// Disables recording for a scope (torch.no_grad()).
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() noexcept : AutoGradMode(false) {}
};

/// Enables recording for a scope (torch.enable_grad()).
class EnableGradGuard : public AutoGradMode {
 public:
  EnableGradGuard() noexcept : AutoGradMode(true) {}
};

/// torch.is_grad_enabled().
inline bool is_grad_enabled() noexcept { return GradMode::is_enabled(); }
/// torch.set_grad_enabled(enabled) as a call (not a guard).
inline void set_grad_enabled(bool enabled) noexcept { GradMode::set_enabled(enabled); }

}  // namespace ctorch::api
