// libtorch's namespaces over ctorch: c10, at and torch name ctorch's own entities (c10 nominates
// ctorch, at nominates c10, torch nominates at, as libtorch's headers do), so `using namespace
// torch;` next to `using namespace at;` finds one kCPU, one Tensor, one ones(). Only names that
// ctorch spells differently are declared here, each as a thin map over the native API.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>

#include "ctorch/ctorch.h"

namespace c10 {
using namespace ::ctorch;  // NOLINT(google-build-using-namespace): c10 is an alias of ctorch by design

/// c10::irange(end) / irange(begin, end): the integers of [begin, end) for range-for loops.
template <class I>
class IntegerRange {
 public:
  class iterator {
   public:
    using value_type = I;
    using difference_type = std::ptrdiff_t;
    explicit iterator(I v) : v_(v) {}
    I operator*() const { return v_; }
    iterator& operator++() { ++v_; return *this; }
    bool operator==(const iterator& o) const { return v_ == o.v_; }
    bool operator!=(const iterator& o) const { return v_ != o.v_; }

   private:
    I v_;
  };
  IntegerRange(I begin, I end) : begin_(begin), end_(end < begin ? begin : end) {}
  iterator begin() const { return iterator(begin_); }
  iterator end() const { return iterator(end_); }

 private:
  I begin_;
  I end_;
};
/// The integers of [0, end) (empty for end <= 0).
template <class I>
  requires std::is_integral_v<I>
IntegerRange<I> irange(I end) { return IntegerRange<I>(I(0), end); }
/// The integers of [begin, end), in the wider of the two types.
template <class I1, class I2>
  requires(std::is_integral_v<I1> && std::is_integral_v<I2>)
IntegerRange<std::common_type_t<I1, I2>> irange(I1 begin, I2 end) {
  using I = std::common_type_t<I1, I2>;
  return IntegerRange<I>(static_cast<I>(begin), static_cast<I>(end));
}

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
