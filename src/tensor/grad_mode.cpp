// The calling thread's grad mode.
#include "ctorch/grad_mode.h"

namespace ctorch::inline api {

namespace {
thread_local bool t_grad_enabled = true;
}  // namespace

bool GradMode::is_enabled() noexcept { return t_grad_enabled; }

void GradMode::set_enabled(bool enabled) noexcept { t_grad_enabled = enabled; }

}  // namespace ctorch::api
