// The task hooks now live at the runtime level (runtime/task_hooks.h). This header keeps their
// old tracing:: names for code not yet moved over (the backends); it goes once none includes it.
#pragma once

#include "runtime/task_hooks.h"

namespace ctorch::tracing {

using impl::add_task_observer;
using impl::observe_task;
using impl::remove_task_observer;
using impl::task_kind_name;
using impl::TaskInfo;
using impl::TaskKind;
using impl::TaskObserver;

}  // namespace ctorch::tracing
