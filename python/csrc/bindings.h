// The binding functions each file of python/csrc contributes to the extension module ctorch._C.
#pragma once

#include "convert.h"

namespace ctorch::inline api::python {

/// Runs `f` (which returns a Tensor) without the GIL and wraps its result.
template <class F>
py::object no_gil(F&& f) {
  Tensor r;
  {
    py::gil_scoped_release release;
    r = f();
  }
  return wrap(std::move(r));
}

/// False for an op on small cpu tensors (a few hundred ns): releasing and retaking the GIL would
/// cost a third of it, and nothing in it can block; anything on a device, or large, releases it.
inline bool releases_gil(const Tensor& a, const Tensor* b = nullptr) {
  constexpr int64_t kSmallOp = 4096;
  auto small_cpu = [](const Tensor& t) { return t.is_cpu() && t.numel() < kSmallOp; };
  return !(small_cpu(a) && (b == nullptr || small_cpu(*b)));
}

/// Python's NotImplemented (a binary operator's "try the reflected one").
inline py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

/// A tuple of tensors as torch.return_types.`name`(values, indices).
py::object return_pair(const char* name, std::tuple<Tensor, Tensor> pair);

/// torch.Tensor(...) / torch.FloatTensor(...) / Tensor.new(...): the legacy constructors.
Tensor legacy_construct(ScalarType dtype, std::optional<Device> device, const py::args& args);

/// ctorch.Tensor: metadata, conversion, autograd and printing (tensor.cpp).
void bind_tensor(py::module_& m, py::class_<Tensor>& cls);
/// ctorch.Tensor's math methods and operators (tensor_ops.cpp).
void bind_tensor_ops(py::class_<Tensor>& cls);
/// DLPack exchange: Tensor.__dlpack__/__dlpack_device__, from_dlpack, to_dlpack (dlpack.cpp).
void bind_dlpack(py::module_& m, py::class_<Tensor>& cls);
/// torch.* functions: factories, random, math, shape (functions.cpp).
void bind_functions(py::module_& m);
/// torch.fft (fft.cpp).
void bind_fft(py::module_& m);
/// torch.distributed (distributed.cpp).
void bind_distributed(py::module_& m);
/// torch.cuda (cuda.cpp).
void bind_cuda(py::module_& m);
/// torch.nn.functional, nn.init helpers, optimizers and the data pieces written in C++ (nn.cpp).
void bind_nn(py::module_& m);
/// A Python object (None, bool, int, float, str, Tensor, list, tuple, dict, OrderedDict) as a
/// checkpoint value; other types raise TypeError (serialization.cpp).
serialization::Value to_checkpoint_value(py::handle h);
/// A checkpoint value as Python objects (containers shared in it come back as one object).
py::object from_checkpoint_value(const serialization::Value& v);
/// torch.save / torch.load's C++ half: Python objects to checkpoint bytes and back (serialization.cpp).
void bind_serialization(py::module_& m);

}  // namespace ctorch::api::python
