// Conversions between Python values and ctorch's C++ values, shared by every binding file.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <vector>

#include "ctorch/ctorch.h"

namespace py = pybind11;

namespace ctorch::inline api::python {

/// The Python type torch.dtype: one object per ScalarType.
struct DType {
  ScalarType type;  ///< the element type it names
};

/// Makes the Python objects the conversions use (torch.Size); called once while _C loads.
void init_python_objects();
/// The canonical Python object of a dtype (ctorch.float32 is ctorch.float32).
py::object dtype_object(ScalarType type);
/// A dtype object, or Python's float/int/bool/complex type, as a ScalarType (TypeError otherwise).
ScalarType to_dtype(py::handle h);
/// None -> nullopt, else to_dtype(h).
std::optional<ScalarType> to_opt_dtype(py::handle h);
/// A ctorch.device, a string ("cuda:1") or an int (cuda:N), as a Device.
Device to_device(py::handle h);
/// None -> nullopt, else to_device(h).
std::optional<Device> to_opt_device(py::handle h);
/// A Python device object for `device`.
py::object device_object(Device device);

/// True for a numpy.ndarray (false without numpy imported; never imports it).
bool is_numpy_array(py::handle h);
/// True for Python bool/int/float (and NumPy scalars): the values that become a Scalar.
bool is_number(py::handle h);
/// A Python bool/int/float (or NumPy scalar, or 1-element tensor) as a Scalar.
Scalar to_scalar(py::handle h);
/// A Scalar as a Python bool, int or float.
py::object scalar_object(const Scalar& s);

/// Sizes from `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `f(torch.Size([2, 3]))`.
std::vector<int64_t> to_shape(const py::args& args);
/// An int or a sequence of ints as a list of ints.
std::vector<int64_t> to_int_list(py::handle h);
/// A tuple of ints as a torch.Size.
py::object size_object(IntArrayRef sizes);

/// A Tensor in a Python object (None when undefined).
py::object wrap(Tensor t);
/// Records the Python type ctorch.Tensor (once, while _C loads) for is_tensor's fast check.
void set_tensor_type(py::handle type);
/// True when `h` is a ctorch.Tensor (or a subclass: Parameter).
bool is_tensor(py::handle h);
/// The Tensor in `h` (TypeError naming `what` when it is not one).
const Tensor& as_tensor(py::handle h, const char* what = "argument");
/// The Tensor in `h`, which must be a ctorch.Tensor, for an in-place method.
inline Tensor& as_mutable_tensor(py::handle h) { return const_cast<Tensor&>(as_tensor(h)); }
/// A Tensor operand: a tensor as is, a number as a 0-dim tensor (as PyTorch's wrapped numbers).
Tensor to_tensor_operand(py::handle h, const Tensor& like);

/// torch.tensor(data, ...): nested lists/tuples of numbers, NumPy arrays, tensors or scalars.
Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device,
                        bool requires_grad = false, bool pin_memory = false);
/// A NumPy array's memory as a cpu tensor that keeps the array alive (torch.from_numpy).
Tensor tensor_from_numpy(py::handle array);
/// The cpu tensor's memory as a NumPy array that keeps the tensor alive (Tensor.numpy()).
py::object tensor_to_numpy(const Tensor& t);
/// Tensor.tolist(): nested Python lists of numbers (a number for a 0-dim tensor).
py::object tensor_to_list(const Tensor& t);

/// Options from factory keywords (dtype=, device=, requires_grad=, pin_memory=).
TensorOptions options_from(const py::kwargs& kwargs);

/// Python indexing (t[1, :2, None, ..., idx]) as ctorch's indices.
std::vector<TensorIndex> to_indices(py::handle index);

}  // namespace ctorch::api::python
