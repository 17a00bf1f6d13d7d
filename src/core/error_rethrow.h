// Rethrowing an error caught in another thread as its own ctorch type, with a new message.
//
// Note [Rethrow with the original type]
// DataLoader workers and DataParallel replicas catch an error in their thread and the caller
// rethrows it with PyTorch's ExceptionWrapper text ("Caught ValueError in replica 1 on device 1.
// Original error: ..."). The caller must keep the error's type so that `catch (const
// distributed::DistBackendError&)` still works. Core cannot see the error types of the layers above
// it (DistBackendError, SafetensorError, the sanitizer's), so every error type is registered here
// with its Python name and how to throw it again: core registers its own, and each layer registers
// its types when the library loads, bases before the types derived from them. Lookup returns the
// most recently registered type that matches, so a derived type wins over its base. An exception
// that is no registered type is rethrown as ctorch::Error ("RuntimeError").
#pragma once

#include <exception>
#include <functional>
#include <string>

namespace ctorch::inline api::detail {

/// How to recognise one error type and throw it again with another message.
struct ErrorType {
  const char* python_name;                                            ///< PyTorch's name ("DistBackendError")
  bool (*matches)(const std::exception& e);                           ///< e is this type or derives from it
  void (*rethrow)(const std::exception& original, const std::string& what);  ///< throws this type; never returns
};

/// Registers an error type (after its bases; Note [Rethrow with the original type]).
void register_error_type(const ErrorType& type);

/// Registers E, constructible from a message, under `python_name`.
template <class E>
void register_error_type(const char* python_name) {
  register_error_type(ErrorType{python_name, [](const std::exception& e) { return dynamic_cast<const E*>(&e) != nullptr; },
                                [](const std::exception&, const std::string& what) { throw E(what); }});
}

/// The registered type `e` belongs to (the most derived one), or Error's ("RuntimeError").
ErrorType error_type_of(const std::exception& e);

/// Rethrows the exception held by `error` as the same registered type, with what() =
/// text(python name, original what()). Non-std exceptions become Error with what "unknown exception".
[[noreturn]] void rethrow_with_message(const std::exception_ptr& error,
                                       const std::function<std::string(const char* python_name, const char* what)>& text);

}  // namespace ctorch::api::detail
