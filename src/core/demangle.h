// A C++ symbol's readable name, as stack traces and custom-function node names show it.
#pragma once

#include <string>

namespace ctorch::inline api::detail {

/// The demangled `mangled` (itself when it does not demangle), with ctorch's inline namespace
/// `ctorch::api::` spelled `ctorch::`, as users write the names.
std::string demangle(const char* mangled);

}  // namespace ctorch::api::detail
