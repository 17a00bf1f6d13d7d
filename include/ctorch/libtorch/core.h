// libtorch's namespaces over ctorch: c10, at and torch name ctorch's own entities (c10 nominates
// ctorch, at nominates c10, torch nominates at, as libtorch's headers do), so `using namespace
// torch;` next to `using namespace at;` finds one kCPU, one Tensor, one ones(). Only names that
// ctorch spells differently are declared here, each as a thin map over the native API.
#pragma once

#include <sstream>
#include <string>

#include "ctorch/ctorch.h"

namespace c10 {
using namespace ::ctorch;  // NOLINT(google-build-using-namespace): c10 is an alias of ctorch by design

/// c10::str: concatenates the printed form of every argument.
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace c10

namespace at {
using namespace ::c10;  // NOLINT(google-build-using-namespace)
}  // namespace at

namespace torch {
using namespace ::at;  // NOLINT(google-build-using-namespace)
namespace indexing {
using ::ctorch::Ellipsis;
using ::ctorch::None;
using ::ctorch::Slice;
using ::ctorch::TensorIndex;
}  // namespace indexing
}  // namespace torch

namespace ctorch::detail {
/// Set at static initialization by every program that includes <ctorch/torch.h>: `<<` prints
/// tensors in libtorch's format program-wide (see set_tensor_print_style).
inline const bool libtorch_print_style_selected = (set_tensor_print_style(TensorPrintStyle::Libtorch), true);
}  // namespace ctorch::detail
