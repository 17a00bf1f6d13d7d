// Helpers shared by test files.
#pragma once

#include <exception>
#include <string>

#include "ctorch/error.h"

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

}  // namespace ctorch::testing
