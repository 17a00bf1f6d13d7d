// The extension module ctorch._C: errors, dtypes, devices, then each binding file's part.
#include "bindings.h"

namespace ctorch::inline api::python {
namespace {

// ctorch's error types as PyTorch's Python exceptions (the texts are already PyTorch's).
void register_errors(py::module_& m) {
  static py::exception<OutOfMemoryError> oom(m, "OutOfMemoryError", PyExc_RuntimeError);
  static py::exception<JitCompileError> jit(m, "JitCompileError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(oom.ptr(), e.what());
    } catch (const JitCompileError& e) {
      PyErr_SetString(jit.ptr(), e.what());
    } catch (const serialization::UnpicklingError& e) {  // torch.load's errors are pickle's
      PyErr_SetString(py::module_::import("pickle").attr("UnpicklingError").ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

void bind_dtype(py::module_& m) {
  py::class_<DType>(m, "dtype")
      .def("__repr__", [](const DType& d) { return dtype_name(d.type); })
      .def("__str__", [](const DType& d) { return dtype_name(d.type); })
      .def_property_readonly("is_floating_point", [](const DType& d) { return is_floating_point(d.type); })
      .def_property_readonly("is_complex", [](const DType& d) { return is_complex(d.type); })
      .def_property_readonly("is_signed", [](const DType& d) { return d.type != kUInt8 && d.type != kBool; })
      .def("__eq__", [](const DType& a, py::handle b) { return py::isinstance<DType>(b) && b.cast<DType>().type == a.type; })
      .def("__hash__", [](const DType& d) { return static_cast<int>(d.type); })
      .def("__reduce__", [](const DType& d) { return py::str(scalar_type_name(d.type)); });
  const std::pair<const char*, ScalarType> names[] = {
      {"uint8", kUInt8},     {"int8", kInt8},       {"int16", kInt16},     {"short", kInt16},
      {"int32", kInt32},     {"int", kInt32},       {"int64", kInt64},     {"long", kInt64},
      {"float16", kFloat16}, {"half", kFloat16},    {"float32", kFloat32}, {"float", kFloat32},
      {"float64", kFloat64}, {"double", kFloat64},  {"bool", kBool},       {"bfloat16", kBFloat16},
      {"complex64", kComplexFloat}, {"cfloat", kComplexFloat}, {"complex128", kComplexDouble},
      {"cdouble", kComplexDouble}};
  for (const auto& [name, type] : names) m.attr(name) = dtype_object(type);
}

void bind_device(py::module_& m) {
  py::class_<Device>(m, "device")
      .def(py::init([](py::handle type, py::object index) {
             if (index.is_none()) return to_device(type);
             if (!py::isinstance<py::str>(type))
               throw py::type_error("device(): expected the type as a string when an index is given");
             std::string t = type.cast<std::string>();
             if (t.find(':') != std::string::npos)
               throw py::value_error("type (string) must not include an index because index was passed explicitly: " + t);
             int64_t i = index.cast<int64_t>();
             if (i < 0) throw py::value_error("Device index must not be negative");
             return Device(Device(t).type(), static_cast<DeviceIndex>(i));
           }),
           py::arg("type"), py::arg("index") = py::none())
      .def_property_readonly("type", [](const Device& d) { return device_type_name(d.type()); })
      .def_property_readonly("index", [](const Device& d) -> py::object {
        if (!d.has_index()) return py::none();
        return py::int_(d.index());
      })
      .def("__repr__", &Device::repr)
      .def("__str__", &Device::str)
      .def("__eq__", [](const Device& a, py::handle b) { return py::isinstance<Device>(b) && b.cast<Device>() == a; })
      .def("__hash__", [](const Device& d) { return std::hash<Device>{}(d); })
      .def("__reduce__", [](const Device& d) {
        return py::make_tuple(py::module_::import("ctorch").attr("device"), py::make_tuple(d.str()));
      });
  py::implicitly_convertible<py::str, Device>();
  py::implicitly_convertible<py::int_, Device>();
}

// ctorch::warn -> Python's warnings.warn(UserWarning) on the thread that imported ctorch.
void route_warnings() {
  set_warning_handler([](const std::string& message) {
    py::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) PyErr_Clear();
  });
}

}  // namespace
}  // namespace ctorch::api::python

PYBIND11_MODULE(_C, m) {
  using namespace ctorch::python;
  m.doc() = "ctorch: PyTorch's tensor core and torch.cuda in C++ (the extension module of import ctorch)";
  register_errors(m);
  init_python_objects();
  bind_dtype(m);
  bind_device(m);
  py::class_<ctorch::Tensor> tensor(m, "Tensor", py::dynamic_attr());
  set_tensor_type(tensor);
  bind_tensor(m, tensor);
  bind_tensor_ops(tensor);
  bind_dlpack(m, tensor);
  bind_functions(m);
  py::module_ fft = m.def_submodule("_fft", "torch.fft's C++ side");
  bind_fft(fft);
  py::module_ dist = m.def_submodule("_distributed", "torch.distributed's C++ side");
  bind_distributed(dist);
  py::module_ cuda = m.def_submodule("_cuda", "torch.cuda's C++ side");
  bind_cuda(cuda);
  py::module_ nn = m.def_submodule("_nn", "torch.nn's C++ side");
  bind_nn(nn);
  py::module_ ser = m.def_submodule("_serialization", "torch.save / torch.load's C++ side");
  bind_serialization(ser);
  m.def("set_warn_always", &ctorch::set_warn_always, py::arg("b"), "torch.set_warn_always: warn-once warnings always show");
  m.def("is_warn_always_enabled", &ctorch::is_warn_always_enabled);
  route_warnings();
  m.attr("__version__") = ctorch::version();
}
