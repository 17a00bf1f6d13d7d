// Error classes and the CTORCH_CHECK family. Messages are built only on failure.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace ctorch::inline api {

/// Base class of every error ctorch throws (PyTorch's RuntimeError).
class Error : public std::runtime_error {
 public:
  /// Builds an error whose what() is `msg`.
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
  /// The message (libtorch's c10::Error spelling; ctorch's errors carry no C++ backtrace).
  const char* what_without_backtrace() const noexcept { return what(); }
};
/// A value is out of the accepted range (PyTorch's ValueError).
class ValueError : public Error { using Error::Error; };
/// An index or dimension is out of range (PyTorch's IndexError).
class IndexError : public Error { using Error::Error; };
/// An argument has the wrong type or dtype (PyTorch's TypeError).
class TypeError : public Error { using Error::Error; };
/// A feature exists in PyTorch but not (yet) in ctorch.
class NotImplementedError : public Error { using Error::Error; };
/// A device allocation failed (PyTorch's torch.cuda.OutOfMemoryError).
class OutOfMemoryError : public Error { using Error::Error; };
/// A device is unusable: missing, lost, or built without support.
class DeviceError : public Error { using Error::Error; };
/// A jiterator code string failed to compile; what() carries the compiler's diagnostics.
class JitCompileError : public Error { using Error::Error; };

namespace detail {

/// Joins arguments with operator<< into one string.
template <class... Args>
std::string str_cat(const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return std::string();
  } else {
    std::ostringstream ss;
    (ss << ... << args);
    return ss.str();
  }
}

enum class ErrorKind { kError, kValue, kIndex, kType, kNotImplemented, kDevice, kInternal };

/// Throws the error of `kind`; out of line so the check's fast path stays small.
[[noreturn]] void throw_error(ErrorKind kind, const char* file, int line, const char* func,
                              const std::string& msg);

}  // namespace detail
}  // namespace ctorch::api

#define CTORCH_CHECK_KIND_(kind, cond, ...)                                               \
  do {                                                                                     \
    if (__builtin_expect(!(cond), 0)) {                                                    \
      ::ctorch::detail::throw_error(kind, __FILE__, __LINE__, __func__,                    \
                                    ::ctorch::detail::str_cat(__VA_ARGS__));               \
    }                                                                                      \
  } while (0)

/// Throws ctorch::Error with the joined message when `cond` is false.
#define CTORCH_CHECK(cond, ...) CTORCH_CHECK_KIND_(::ctorch::detail::ErrorKind::kError, cond, __VA_ARGS__)
/// Throws ctorch::ValueError when `cond` is false.
#define CTORCH_CHECK_VALUE(cond, ...) CTORCH_CHECK_KIND_(::ctorch::detail::ErrorKind::kValue, cond, __VA_ARGS__)
/// Throws ctorch::IndexError when `cond` is false.
#define CTORCH_CHECK_INDEX(cond, ...) CTORCH_CHECK_KIND_(::ctorch::detail::ErrorKind::kIndex, cond, __VA_ARGS__)
/// Throws ctorch::TypeError when `cond` is false.
#define CTORCH_CHECK_TYPE(cond, ...) CTORCH_CHECK_KIND_(::ctorch::detail::ErrorKind::kType, cond, __VA_ARGS__)
/// Throws ctorch::NotImplementedError when `cond` is false.
#define CTORCH_CHECK_NOT_IMPLEMENTED(cond, ...) \
  CTORCH_CHECK_KIND_(::ctorch::detail::ErrorKind::kNotImplemented, cond, __VA_ARGS__)
/// Throws ctorch::DeviceError when `cond` is false.
#define CTORCH_CHECK_DEVICE(cond, ...) CTORCH_CHECK_KIND_(::ctorch::detail::ErrorKind::kDevice, cond, __VA_ARGS__)
/// An invariant of ctorch itself; failing it is a bug ("please report").
#define CTORCH_INTERNAL_ASSERT(cond, ...) \
  CTORCH_CHECK_KIND_(::ctorch::detail::ErrorKind::kInternal, cond, #cond " ", ##__VA_ARGS__)
