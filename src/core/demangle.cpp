#include "core/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <string_view>

namespace ctorch::inline api::detail {

std::string demangle(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && d != nullptr ? d : mangled;
  std::free(d);
  constexpr std::string_view inline_ns = "ctorch::api::";
  for (size_t at = name.find(inline_ns); at != std::string::npos; at = name.find(inline_ns, at)) {
    name.replace(at, inline_ns.size(), "ctorch::");
  }
  return name;
}

}  // namespace ctorch::api::detail
