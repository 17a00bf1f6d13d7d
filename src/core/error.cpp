#include "ctorch/error.h"

namespace ctorch::inline api::detail {

// PyTorch's TORCH_CHECK puts the user message first; the source location goes after it so that
// `what()` reads like PyTorch's message and tests can compare its prefix.
[[noreturn]] void throw_error(ErrorKind kind, const char* file, int line, const char* func,
                              const std::string& msg) {
  (void)file;
  (void)line;
  (void)func;
  switch (kind) {
    case ErrorKind::kValue: throw ValueError(msg);
    case ErrorKind::kIndex: throw IndexError(msg);
    case ErrorKind::kType: throw TypeError(msg);
    case ErrorKind::kNotImplemented: throw NotImplementedError(msg);
    case ErrorKind::kDevice: throw DeviceError(msg);
    case ErrorKind::kInternal:
      throw Error(str_cat("internal assert failed at ", file, ":", line, " (", func, "): ", msg,
                          "; please report a bug to ctorch"));
    case ErrorKind::kError: break;
  }
  throw Error(msg);
}

}  // namespace ctorch::api::detail
