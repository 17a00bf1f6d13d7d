// Internals of tensor printing: element access by offset and PyTorch's Python repr algorithm.
#pragma once

#include <cstdint>
#include <string>

#include "ctorch/print_options.h"
#include "ctorch/tensor.h"

namespace ctorch::inline api::print_detail {

/// Reads elements of a cpu tensor of any dtype, addressed by offset (in elements) from data_ptr().
class ElementReader {
 public:
  /// Reader over `host`, which must be a defined cpu tensor.
  explicit ElementReader(const Tensor& host)
      : data_(static_cast<const char*>(host.data_ptr())), dtype_(host.dtype()) {}
  /// Reader of one part of a complex `host`'s elements: 0 the real parts, 1 the imaginary parts.
  ElementReader(const Tensor& host, int part) : ElementReader(host) { part_ = part; }
  /// The element as a double (bool: 0 or 1; half and bfloat16 widened exactly; complex: the part read).
  double as_double(int64_t offset) const;
  /// The element as an int64 (integral and bool dtypes).
  int64_t as_int(int64_t offset) const;
  /// The dtype being read.
  ScalarType dtype() const { return dtype_; }

 private:
  const char* data_;
  ScalarType dtype_;
  int part_ = 0;
};

/// torch._tensor_str._str for a defined cpu tensor `host`; `original` supplies device and autograd state.
std::string python_repr(const Tensor& original, const Tensor& host, const PrintOptions& options);

/// Python's "{:.{precision}e}".format(v): nan and inf print as "nan", "inf", "-inf".
std::string py_format_e(double v, int precision);
/// Python's "{:.{precision}f}".format(v), with the same nan/inf spelling.
std::string py_format_f(double v, int precision);

/// Returns the autograd node name of a tensor ("MulBackward0"), or "" when it has none.
using GradFnNameProvider = std::string (*)(const Tensor&);
/// Installs the grad_fn name lookup used for the "grad_fn=<...>" suffix (the autograd layer calls this).
void set_grad_fn_name_provider(GradFnNameProvider provider);
/// The installed grad_fn name lookup, or nullptr.
GradFnNameProvider grad_fn_name_provider();

}  // namespace ctorch::api::print_detail
