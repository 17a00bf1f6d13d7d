// Helpers shared by test files.
#pragma once

#include <exception>
#include <string>

#include "ctorch/error.h"
#include "ctorch/print_options.h"

namespace ctorch::testing {

/// what() of the E (or a subclass) that `f` throws; "no error" when it throws nothing and
/// "wrong exception type: <what>" when it throws another exception.
template <class E = Error, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no error";
}

/// Sets the program-wide tensor print style for a scope (this test binary includes
/// <ctorch/torch.h>, which selects libtorch's; native-API tests of `<<` select Python's).
class PrintStyleScope {
 public:
  explicit PrintStyleScope(TensorPrintStyle style) : saved_(get_tensor_print_style()) { set_tensor_print_style(style); }
  ~PrintStyleScope() { set_tensor_print_style(saved_); }
  PrintStyleScope(const PrintStyleScope&) = delete;
  PrintStyleScope& operator=(const PrintStyleScope&) = delete;

 private:
  TensorPrintStyle saved_;
};

}  // namespace ctorch::testing
