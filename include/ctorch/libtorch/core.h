// libtorch's namespaces over ctorch: c10, at and torch name ctorch's own entities (c10 nominates
// ctorch, at nominates c10, torch nominates at, as libtorch's headers do), so `using namespace
// torch;` next to `using namespace at;` finds one kCPU, one Tensor, one ones(). Only names that
// ctorch spells differently are declared here, each as a thin map over the native API.
#pragma once

#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "ctorch/ctorch.h"

// c10 nominates ctorch's top-level API (the inline namespace ctorch::api), not ctorch's frontend
// namespaces: `using namespace torch;` then finds one `nn`, `optim`, `data` and `autograd`, libtorch's.
namespace c10 {
using namespace ::ctorch::api;  // NOLINT(google-build-using-namespace): c10 is an alias of ctorch by design

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

// c10::optional is std::optional (libtorch 1.13 has its own class with the same interface).
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
using std::optional;

/// c10::str: concatenates the printed form of every argument.
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace c10

namespace ctorch::inline api::libtorch_detail {
/// TORCH_CHECK's message: the caller's, or c10's text for a bare condition.
inline std::string check_message(const char* condition) {
  return std::string("Expected ") + condition +
         " to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement "
         "request to PyTorch.)";
}
template <class... Args>
std::string check_message(const char*, const Args&... args) {
  return ::ctorch::detail::str_cat(args...);
}
}  // namespace ctorch::api::libtorch_detail

/// c10's TORCH_CHECK(cond, message...): throws c10::Error (ctorch::Error) when cond is false.
#define TORCH_CHECK(cond, ...) \
  CTORCH_CHECK(cond, ::ctorch::libtorch_detail::check_message(#cond, ##__VA_ARGS__))
/// c10's typed checks: ValueError, IndexError, TypeError.
#define TORCH_CHECK_VALUE(cond, ...) CTORCH_CHECK_VALUE(cond, ::ctorch::libtorch_detail::check_message(#cond, ##__VA_ARGS__))
#define TORCH_CHECK_INDEX(cond, ...) CTORCH_CHECK_INDEX(cond, ::ctorch::libtorch_detail::check_message(#cond, ##__VA_ARGS__))
#define TORCH_CHECK_TYPE(cond, ...) CTORCH_CHECK_TYPE(cond, ::ctorch::libtorch_detail::check_message(#cond, ##__VA_ARGS__))
/// c10's TORCH_INTERNAL_ASSERT and its old spelling AT_ASSERT: an invariant of the program.
#define TORCH_INTERNAL_ASSERT(cond, ...) CTORCH_INTERNAL_ASSERT(cond, ##__VA_ARGS__)
#define AT_ASSERT(cond, ...) CTORCH_INTERNAL_ASSERT(cond, ##__VA_ARGS__)
/// c10's AT_ERROR(message...): throws c10::Error.
#define AT_ERROR(...) CTORCH_CHECK(false, ::ctorch::detail::str_cat(__VA_ARGS__))

/// libtorch's loss reductions (ATen/core/Reduction.h declares them outside any namespace), passed as int64_t.
namespace Reduction {
enum Reduction { None, Mean, Sum, END };
/// The native API's name of a reduction: "none", "mean", "sum".
inline std::string name(int64_t reduction) {
  CTORCH_CHECK_VALUE(reduction >= None && reduction < END, reduction, " is not a valid value for reduction");
  return reduction == None ? "none" : reduction == Mean ? "mean" : "sum";
}
}  // namespace Reduction

namespace at {
using namespace ::c10;  // NOLINT(google-build-using-namespace)

/// libtorch's TensorList: a non-owning list of tensors.
using TensorList = ArrayRef<Tensor>;

/// libtorch's loss reductions, spelled at::Reduction::Mean, torch::Reduction::Sum or, as in
/// libtorch (ATen/core/Reduction.h), unqualified Reduction::Sum.
namespace Reduction = ::Reduction;
}  // namespace at

namespace torch {
using namespace ::at;  // NOLINT(google-build-using-namespace)

namespace detail {
/// The dtype torch::tensor gives C++ values of type T (TensorDataContainer's compute_desired_dtype):
/// int and int64 become int64, float and double the default dtype, std::complex the default complex
/// dtype, other types keep theirs.
template <class T>
::ctorch::ScalarType frontend_dtype() {
  constexpr ::ctorch::ScalarType own = ::ctorch::scalar_type_of<T>;
  if constexpr (own == ::ctorch::kInt || own == ::ctorch::kLong) {
    return ::ctorch::kLong;
  } else if constexpr (own == ::ctorch::kFloat || own == ::ctorch::kDouble) {
    return ::ctorch::get_default_dtype();
  } else if constexpr (own == ::ctorch::kComplexFloat || own == ::ctorch::kComplexDouble) {
    return ::ctorch::to_complex_type(::ctorch::get_default_dtype());  // the default complex dtype
  } else {
    return own;
  }
}
}  // namespace detail

// torch::tensor is the C++ frontend's constructor: a list of C++ values becomes the dtype Python's
// torch.tensor would give (at::tensor, which is ctorch::tensor, keeps the C++ type).
/// torch::tensor({...}) of nested values.
inline Tensor tensor(const ::ctorch::NestedList& data, TensorOptions options = {}) {
  return ::ctorch::tensor(data, options);
}
/// torch::tensor(at::ArrayRef<T>): 1-d, dtype as frontend_dtype<T>() unless options give one.
template <class T>
Tensor tensor(::ctorch::ArrayRef<T> values, TensorOptions options = {}) {
  return ::ctorch::tensor(values.vec(), options.has_dtype() ? options : options.dtype(detail::frontend_dtype<T>()));
}
/// torch::tensor(std::vector<T>): as the ArrayRef form.
template <class T>
Tensor tensor(const std::vector<T>& values, TensorOptions options = {}) {
  return ::ctorch::tensor(values, options.has_dtype() ? options : options.dtype(detail::frontend_dtype<T>()));
}
namespace fft = ::ctorch::fft;
namespace indexing {
using ::ctorch::Ellipsis;
using ::ctorch::INDEX_MAX;
using ::ctorch::INDEX_MIN;
using ::ctorch::None;
using ::ctorch::Slice;
using ::ctorch::TensorIndex;
}  // namespace indexing
}  // namespace torch

#ifndef CTORCH_BUILDING_LIBRARY  // the library's own libtorch spellings (src/optim, src/serialize) do not choose
namespace ctorch::inline api::detail {
/// Set at static initialization by every program that includes <ctorch/torch.h>: `<<` prints
/// tensors in libtorch's format program-wide (see set_tensor_print_style).
inline const bool libtorch_print_style_selected = (set_tensor_print_style(TensorPrintStyle::Libtorch), true);
}  // namespace ctorch::api::detail
#endif
