// Print options for Tensor::repr(), mirroring torch.set_printoptions / torch._tensor_str.PRINT_OPTS.
#pragma once

#include <cstdint>
#include <optional>

namespace ctorch::inline api {

/// Options for printing tensors (torch.set_printoptions); defaults match PyTorch's "default" profile.
struct PrintOptions {
  /// Digits after the decimal point for floating values.
  int precision = 4;
  /// Tensors with more than this many elements are summarised with "...".
  int threshold = 1000;
  /// Items shown at the start and end of each summarised dimension.
  int edgeitems = 3;
  /// Characters per line before wrapping.
  int linewidth = 80;
  /// Force (true) or forbid (false) scientific notation; unset chooses automatically.
  std::optional<bool> sci_mode;
};

/// What `std::cout << tensor` prints: PyTorch's Python repr (the native default) or libtorch's
/// format (" 1  1\n[ CPUFloatType{2} ]"), chosen for the whole program.
enum class TensorPrintStyle : int8_t { Python, Libtorch };
/// Sets the program-wide style of operator<< for tensors; including <ctorch/torch.h> anywhere in
/// a program selects Libtorch at static initialization. Thread-safe.
void set_tensor_print_style(TensorPrintStyle style);
/// The current style of operator<< for tensors.
TensorPrintStyle get_tensor_print_style();

/// Replaces the global print options (torch.set_printoptions); thread-safe.
void set_printoptions(const PrintOptions& options);
/// A copy of the global print options.
PrintOptions get_printoptions();

}  // namespace ctorch::api
