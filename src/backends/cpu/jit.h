// Jiterator kernels on the host (cpu and emulated devices): the user's code string wrapped in a
// generated translation unit, compiled by the system C++ compiler into a shared object cached on
// disk, loaded with dlopen (Note [Host jiterator]).
#pragma once

#include <cstdint>
#include <string>

#include "kernels/elementwise_plan.h"
#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::cpu {

/// The host kernel for `spec`: from this process's table, else the disk cache, else compiled
/// (throws JitCompileError with the compiler's output).
const ops::JitKernel* host_jit_compile(const ops::JitSpec& spec);
/// Runs elements [begin, end) of `plan` through `kernel` on the calling thread.
void run_host_jit(const ops::JitKernel& kernel, const kernels::JitPlan& plan, char* const* data,
                  const ops::JitValue* extra, int64_t begin, int64_t end);
/// The translation unit host_jit_compile builds for `spec`.
std::string host_jit_source(const ops::JitSpec& spec);
/// The folder of the disk cache: $CTORCH_JITERATOR_CACHE, else $XDG_CACHE_HOME/ctorch/jiterator,
/// else $HOME/.cache/ctorch/jiterator.
std::string host_jit_cache_dir();
/// Compiler runs this process has made (for tests of the caches).
int64_t host_jit_compile_count();
/// Forgets the kernels loaded so far (they stay mapped), so the next request reads the disk cache.
void host_jit_forget_loaded();

}  // namespace ctorch::api::backends::cpu
