// ctorch::warn: a thread-local handler, stderr by default (c10's ThreadWarningHandler).
#include "ctorch/warning.h"

#include <cstdio>
#include <utility>

namespace ctorch::inline api {
namespace {
thread_local WarningHandler t_handler;
std::atomic<bool> g_warn_always{false};
}  // namespace

void set_warn_always(bool enabled) { g_warn_always.store(enabled); }

bool is_warn_always_enabled() { return g_warn_always.load(); }

void warn_once(std::atomic<bool>& shown, const std::string& message) {
  if (is_warn_always_enabled() || !shown.exchange(true)) warn(message);
}

void warn(const std::string& message) {
  if (t_handler) {
    t_handler(message);
  } else {
    std::fprintf(stderr, "Warning: %s\n", message.c_str());
  }
}

WarningHandler set_warning_handler(WarningHandler handler) { return std::exchange(t_handler, std::move(handler)); }

}  // namespace ctorch::api
