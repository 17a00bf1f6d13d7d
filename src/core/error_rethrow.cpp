// The registry of error types behind rethrow_with_message (Note [Rethrow with the original type]).
#include "core/error_rethrow.h"

#include <mutex>
#include <type_traits>
#include <vector>

#include "ctorch/error.h"

namespace ctorch::inline api::detail {

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<ErrorType> types;  // bases first; guarded by mutex
};

// Core's own types, registered before any other layer's (the registry is made on first use).
Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // never destroyed: errors may be rethrown while the process exits
    auto add = [reg](auto tag, const char* name) {
      using E = typename decltype(tag)::type;
      reg->types.push_back(ErrorType{name, [](const std::exception& e) { return dynamic_cast<const E*>(&e) != nullptr; },
                                     [](const std::exception&, const std::string& what) { throw E(what); }});
    };
    add(std::type_identity<Error>{}, "RuntimeError");
    add(std::type_identity<ValueError>{}, "ValueError");
    add(std::type_identity<IndexError>{}, "IndexError");
    add(std::type_identity<TypeError>{}, "TypeError");
    add(std::type_identity<NotImplementedError>{}, "NotImplementedError");
    add(std::type_identity<OutOfMemoryError>{}, "OutOfMemoryError");
    // PyTorch raises RuntimeError where ctorch raises these two (CUDA/driver errors, jiterator compile errors).
    add(std::type_identity<DeviceError>{}, "RuntimeError");
    add(std::type_identity<JitCompileError>{}, "RuntimeError");
    return reg;
  }();
  return *r;
}

}  // namespace

void register_error_type(const ErrorType& type) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.types.push_back(type);
}

ErrorType error_type_of(const std::exception& e) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto it = r.types.rbegin(); it != r.types.rend(); ++it) {
    if (it->matches(e)) return *it;
  }
  return r.types.front();  // Error ("RuntimeError")
}

void rethrow_with_message(const std::exception_ptr& error,
                          const std::function<std::string(const char* python_name, const char* what)>& text) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    const ErrorType type = error_type_of(e);
    type.rethrow(e, text(type.python_name, e.what()));
  } catch (...) {
  }
  throw Error(text("RuntimeError", "unknown exception"));
}

}  // namespace ctorch::api::detail
