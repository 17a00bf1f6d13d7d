// oneDNN runs its primitives on OpenMP (libgomp, loaded by libdnnl), whose thread count is
// per-thread state that other libraries in the process set too: libtorch sets 1 at its first op,
// after which every oneDNN primitive of the same thread ran on one core. A guard runs ctorch's
// primitives with ctorch's intra-op thread count and gives the caller's setting back after.
#pragma once

#include <dlfcn.h>

#include "backends/cpu/parallel.h"

namespace ctorch::inline api::backends::cpu {

/// Sets OpenMP's thread count to ctorch's for its lifetime (nothing when OpenMP is not loaded).
class OpenMpThreadsGuard {
 public:
  OpenMpThreadsGuard() {
    const Api& api = openmp();
    if (api.set == nullptr || api.get == nullptr) return;
    previous_ = api.get();
    const int wanted = num_threads();
    if (previous_ != wanted) api.set(wanted);
    else previous_ = 0;
  }
  ~OpenMpThreadsGuard() {
    if (previous_ > 0) openmp().set(previous_);
  }
  OpenMpThreadsGuard(const OpenMpThreadsGuard&) = delete;
  OpenMpThreadsGuard& operator=(const OpenMpThreadsGuard&) = delete;

 private:
  struct Api {
    void (*set)(int) = nullptr;
    int (*get)() = nullptr;
  };
  static const Api& openmp() {
    static const Api api = [] {
      // libgomp as libdnnl loaded it (also when a Python import loaded ctorch with RTLD_LOCAL).
      void* gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
      void* where = gomp != nullptr ? gomp : RTLD_DEFAULT;
      return Api{reinterpret_cast<void (*)(int)>(dlsym(where, "omp_set_num_threads")),
                 reinterpret_cast<int (*)()>(dlsym(where, "omp_get_max_threads"))};
    }();
    return api;
  }
  int previous_ = 0;  ///< the caller's count to restore (0: nothing changed)
};

}  // namespace ctorch::api::backends::cpu
