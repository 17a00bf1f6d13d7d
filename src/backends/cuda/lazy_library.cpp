// dlopen/dlsym for the lazily loaded CUDA libraries (lazy_library.h).
#include "backends/cuda/lazy_library.h"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <unordered_map>

#include "ctorch/error.h"

namespace ctorch::inline api::backends::cuda {

void* open_cuda_library(const char* soname) {
  static std::mutex mutex;
  static auto* opened = new std::unordered_map<std::string, void*>();  // never closed, as linked libraries
  std::lock_guard<std::mutex> lock(mutex);
  auto it = opened->find(soname);
  if (it != opened->end()) return it->second;
  void* library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  std::string why = library ? "" : (dlerror() ? dlerror() : "dlopen failed");
#ifdef CTORCH_CUDA_LIBRARY_DIR
  if (!library) {
    const std::string path = std::string(CTORCH_CUDA_LIBRARY_DIR) + "/" + soname;
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* second = dlerror();
      why += std::string("; ") + (second ? second : path + ": dlopen failed");
    }
  }
#endif
  CTORCH_CHECK_DEVICE(library != nullptr, "CUDA library ", soname, " could not be loaded: ", why,
                      " (ctorch loads it on first use; is the CUDA toolkit's library folder on the loader path?)");
  opened->emplace(soname, library);
  return library;
}

void* cuda_library_symbol(void* library, const char* soname, const char* symbol) {
  dlerror();
  void* address = dlsym(library, symbol);
  CTORCH_CHECK_DEVICE(address != nullptr, "CUDA library ", soname, " has no symbol ", symbol,
                      ": it is older than the toolkit ctorch was built with");
  return address;
}

}  // namespace ctorch::api::backends::cuda
