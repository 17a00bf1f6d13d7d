// ctorch.Tensor: construction, metadata, device and dtype conversion, autograd, indexing, printing.
#include <pybind11/functional.h>

#include "bindings.h"

namespace ctorch::inline api::python {

namespace {
py::object* g_return_types = nullptr;  // ctorch.return_types, imported while _C loads
}  // namespace

py::object return_pair(const char* name, std::tuple<Tensor, Tensor> pair) {
  if (g_return_types == nullptr) g_return_types = new py::object(py::module_::import("ctorch.return_types"));
  return g_return_types->attr(name)(wrap(std::move(std::get<0>(pair))), wrap(std::move(std::get<1>(pair))));
}

Tensor legacy_construct(ScalarType dtype, std::optional<Device> device, const py::args& args) {
  Device target = device.value_or(Device(kCPU));
  if (args.size() == 0) return empty({0}, TensorOptions().dtype(dtype).device(target));
  if (args.size() == 1 && is_tensor(args[0])) {
    const Tensor& t = as_tensor(args[0]);
    if (t.dtype() != dtype || t.device().type() != target.type())
      throw py::type_error("expected " + std::string(device_type_name(target.type())) + " (got " +
                           t.device().str() + ") with dtype " + dtype_name(dtype) + " (got " + dtype_name(t.dtype()) +
                           ")");
    return t;
  }
  bool sizes = true;
  for (py::handle a : args) sizes = sizes && PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr());
  if (args.size() == 1 && py::isinstance(args[0], py::type::of(size_object({})))) sizes = true;
  if (sizes) return empty(to_shape(args), TensorOptions().dtype(dtype).device(target));
  if (args.size() == 1) return tensor_from_data(args[0], dtype, target);
  throw py::type_error("new() received an invalid combination of arguments");
}

namespace {

// Tensor.to(...): every positional and keyword form of torch.Tensor.to.
Tensor tensor_to(const Tensor& self, const py::args& args, const py::kwargs& kwargs) {
  std::optional<Device> device;
  std::optional<ScalarType> dtype;
  bool non_blocking = false;
  bool copy = false;
  std::optional<Tensor> other;
  size_t i = 0;
  if (i < args.size() && is_tensor(args[i])) {
    other = as_tensor(args[i++]);
  } else {
    if (i < args.size() && !py::isinstance<DType>(args[i]) && !args[i].is_none() && !PyBool_Check(args[i].ptr()))
      device = to_device(args[i++]);
    else if (i < args.size() && args[i].is_none())
      ++i;
    if (i < args.size() && py::isinstance<DType>(args[i])) dtype = to_dtype(args[i++]);
  }
  if (i < args.size()) non_blocking = args[i++].cast<bool>();
  if (i < args.size()) copy = args[i++].cast<bool>();
  if (i < args.size()) throw py::type_error("to() received an invalid combination of arguments");
  for (auto [key, value] : kwargs) {
    std::string k = py::str(key);
    if (k == "device") device = to_opt_device(value);
    else if (k == "dtype") dtype = to_opt_dtype(value);
    else if (k == "non_blocking") non_blocking = value.cast<bool>();
    else if (k == "copy") copy = value.cast<bool>();
    else if (k == "other") other = as_tensor(value, "other");
    else if (k == "memory_format") continue;
    else throw py::type_error("to() got an unexpected keyword argument '" + k + "'");
  }
  py::gil_scoped_release release;
  if (other) return self.to(*other, non_blocking, copy);
  if (device && dtype) return self.to(*device, *dtype, non_blocking, copy);
  if (device) return self.to(*device, non_blocking, copy);
  if (dtype) return self.to(*dtype, non_blocking, copy);
  return copy ? self.clone() : self;
}

// A Python hook as a C++ gradient hook: called with the GIL, None keeps the gradient.
std::function<Tensor(const Tensor&)> python_hook(py::object fn) {
  auto holder = std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
  return [holder](const Tensor& grad) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = (*holder)(wrap(grad));
    if (r.is_none()) return Tensor();
    return as_tensor(r, "hook result");
  };
}

// The Python object of an autograd node (grad_fn): its name and the edges to the next nodes.
struct PyNode {
  std::shared_ptr<autograd::Node> node;
};

py::object node_object(const std::shared_ptr<autograd::Node>& node) {
  if (!node) return py::none();
  return py::cast(PyNode{node});
}

// `result` as a Python object: `self` itself when the op returned the same tensor (x.to(x.dtype) is x,
// as in PyTorch, whose tensors map one to one to Python objects).
py::object same_or_wrap(const py::object& self, Tensor result) {
  if (result.is_same(*self.cast<Tensor*>())) return self;
  return wrap(std::move(result));
}

py::object cast_to(const py::object& self, ScalarType type) {
  const Tensor& t = *self.cast<Tensor*>();
  Tensor r;
  {
    py::gil_scoped_release release;
    r = t.to(type);
  }
  return same_or_wrap(self, std::move(r));
}

}  // namespace

void bind_tensor(py::module_& m, py::class_<Tensor>& cls) {
  g_return_types = new py::object(py::module_::import("ctorch.return_types"));
  py::class_<PyNode>(m, "_Node")
      .def("name", [](const PyNode& n) { return n.node->name(); })
      .def_property_readonly("next_functions",
                             [](const PyNode& n) {
                               py::list out;
                               for (const auto& e : n.node->next_edges())
                                 out.append(py::make_tuple(node_object(e.function), e.input_nr));
                               return py::tuple(out);
                             })
      .def("__repr__", [](const PyNode& n) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%p", static_cast<void*>(n.node.get()));
        std::string name = n.node->name();  // Python's class name: AccumulateGrad, CopySlices
        if (name.starts_with("torch::autograd::")) name.erase(0, std::strlen("torch::autograd::"));
        return "<" + name + " object at " + buf + ">";
      });

  cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) {
        // Tensor(t) (and Parameter(t)): a new Python object over the same tensor.
        if (args.size() == 1 && kwargs.empty() && is_tensor(args[0])) return as_tensor(args[0]);
        std::optional<Device> device;
        for (auto [k, v] : kwargs) {
          if (std::string(py::str(k)) != "device") throw py::type_error("Tensor() got an unexpected keyword argument");
          device = to_opt_device(v);
        }
        if (device && !device->is_cpu())
          throw py::type_error("legacy constructor expects device type: cpu but device type: " +
                               std::string(device_type_name(device->type())) + " was passed");
        return legacy_construct(get_default_dtype(), device, args);
      }))
      // ---- metadata
      .def_property_readonly("shape", [](const Tensor& t) { return size_object(t.sizes()); })
      .def("size", [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return size_object(t.sizes());
            return py::int_(t.size(dim.cast<int64_t>()));
          }, py::arg("dim") = py::none())
      .def("stride", [](const Tensor& t, py::object dim) -> py::object {
            if (!dim.is_none()) return py::int_(t.stride(dim.cast<int64_t>()));
            py::tuple out(t.dim());
            for (int64_t i = 0; i < t.dim(); ++i) out[i] = py::int_(t.stride(i));
            return out;
          }, py::arg("dim") = py::none())
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def_property_readonly("itemsize", &Tensor::element_size)
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", [](const Tensor& t, py::kwargs) { return t.is_contiguous(); })
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device(); })
      .def_property_readonly("is_cuda", &Tensor::is_cuda)
      .def_property_readonly("is_cpu", &Tensor::is_cpu)
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("is_sparse", [](const Tensor&) { return false; })
      .def_property_readonly("is_quantized", [](const Tensor&) { return false; })
      .def_property_readonly("is_meta", [](const Tensor&) { return false; })
      .def_property_readonly("layout", [](const Tensor&) { return py::module_::import("ctorch").attr("strided"); })
      .def("get_device", &Tensor::get_device)
      .def("is_floating_point", &Tensor::is_floating_point)
      .def("is_complex", &Tensor::is_complex)
      .def("is_pinned", &Tensor::is_pinned)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("_version", &Tensor::_version)
      .def_property_readonly("_version", &Tensor::_version)
      .def("type", [](const py::object& self, py::object dtype, bool non_blocking) -> py::object {
            if (dtype.is_none()) return py::str(self.cast<Tensor*>()->type_string());
            if (py::isinstance<py::str>(dtype))
              throw py::type_error("ctorch: Tensor.type(str) is not supported; pass a dtype");
            return cast_to(self, to_dtype(dtype));
          }, py::arg("dtype") = py::none(), py::arg("non_blocking") = false)
      // ---- conversion and copies
      .def("to", [](const py::object& self, const py::args& args, const py::kwargs& kwargs) {
            return same_or_wrap(self, tensor_to(*self.cast<Tensor*>(), args, kwargs));
          })
      .def("cuda", [](const py::object& self, py::object device, bool non_blocking) {
            const Tensor& t = *self.cast<Tensor*>();
            std::optional<Device> d;
            if (!device.is_none()) d = to_device(device);
            if (d && !d->is_cuda()) throw py::value_error("Invalid device, must be cuda device");
            Tensor r;
            {
              py::gil_scoped_release release;
              r = t.cuda(d, non_blocking);
            }
            return same_or_wrap(self, std::move(r));
          }, py::arg("device") = py::none(), py::arg("non_blocking") = false)
      .def("cpu", [](const py::object& self) {
            const Tensor& t = *self.cast<Tensor*>();
            if (t.is_cpu()) return py::object(self);
            return no_gil([&] { return t.cpu(); });
          })
      .def("pin_memory", [](const Tensor& t) { return no_gil([&] { return t.pin_memory(); }); })
      .def("record_stream", [](const Tensor& t, const cuda::Stream& s) { t.record_stream(s.unwrap()); })
      .def("copy_", [](py::object self, const Tensor& src, bool non_blocking) {
            Tensor& t = *self.cast<Tensor*>();
            {
              py::gil_scoped_release release;
              t.copy_(src, non_blocking);
            }
            return self;
          }, py::arg("src"), py::arg("non_blocking") = false)
      .def("clone", [](const Tensor& t, py::kwargs) { return no_gil([&] { return t.clone(); }); })
      .def("contiguous", [](py::object self, py::kwargs) -> py::object {
            const Tensor& t = *self.cast<Tensor*>();
            if (t.is_contiguous()) return self;
            return no_gil([&] { return t.contiguous(); });
          })
      .def("detach", &Tensor::detach)
      .def("detach_", [](py::object self) { self.cast<Tensor*>()->detach_(); return self; })
      .def("float", [](const py::object& t) { return cast_to(t, kFloat32); })
      .def("double", [](const py::object& t) { return cast_to(t, kFloat64); })
      .def("half", [](const py::object& t) { return cast_to(t, kFloat16); })
      .def("bfloat16", [](const py::object& t) { return cast_to(t, kBFloat16); })
      .def("int", [](const py::object& t) { return cast_to(t, kInt32); })
      .def("long", [](const py::object& t) { return cast_to(t, kInt64); })
      .def("short", [](const py::object& t) { return cast_to(t, kInt16); })
      .def("char", [](const py::object& t) { return cast_to(t, kInt8); })
      .def("byte", [](const py::object& t) { return cast_to(t, kUInt8); })
      .def("bool", [](const py::object& t) { return cast_to(t, kBool); })
      .def("type_as", [](const py::object& t, const Tensor& o) { return cast_to(t, o.dtype()); })
      // ---- Python values
      .def("item", [](const Tensor& t) {
            if (t.numel() != 1) throw py::value_error("only one element tensors can be converted to Python scalars");
            Scalar s;
            {
              py::gil_scoped_release release;
              s = t.item();
            }
            return scalar_object(s);
          })
      .def("tolist", &tensor_to_list)
      .def("numpy", [](const Tensor& t) { return tensor_to_numpy(t); })
      .def("__array__", [](const Tensor& t, py::object dtype) {
            py::object a = tensor_to_numpy(t.detach().cpu());
            return dtype.is_none() ? a : a.attr("astype")(dtype);
          }, py::arg("dtype") = py::none())
      .def("__len__", [](const Tensor& t) {
            if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
            return t.size(0);
          })
      .def("__iter__", [](const Tensor& t) {
            if (t.dim() == 0) throw py::type_error("iteration over a 0-d tensor");
            return py::iter(py::cast(t.unbind(0)));
          })
      .def("__bool__", [](const Tensor& t) {
            if (t.numel() != 1) {
              if (t.numel() == 0) throw std::runtime_error("Boolean value of Tensor with no values is ambiguous");
              throw std::runtime_error("Boolean value of Tensor with more than one value is ambiguous");
            }
            py::gil_scoped_release release;
            return t.item().to_bool();
          })
      .def("__float__", [](const Tensor& t) {
            if (t.numel() != 1) throw py::value_error("only one element tensors can be converted to Python scalars");
            return t.item().to_double();
          })
      .def("__int__", [](const Tensor& t) {
            if (t.numel() != 1) throw py::value_error("only one element tensors can be converted to Python scalars");
            return t.item().to_long();
          })
      .def("__index__", [](const Tensor& t) {
            if (t.numel() != 1 || !is_integral(t.dtype(), true))
              throw py::type_error("only integer tensors of a single element can be converted to an index");
            return t.item().to_long();
          })
      .def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      .def("__repr__", [](const Tensor& t) {
            py::gil_scoped_release release;
            return t.repr();
          })
      .def("__format__", [](const Tensor& t, const std::string& spec) -> py::object {
            if (t.dim() == 0 && !spec.empty()) return py::reinterpret_steal<py::object>(PyObject_Format(scalar_object(t.item()).ptr(), py::str(spec).ptr()));
            return py::str(t.repr());
          })
      // ---- autograd
      .def_property("requires_grad", &Tensor::requires_grad,
                    [](Tensor& t, bool v) { t.requires_grad_(v); })
      .def("requires_grad_", [](py::object self, bool v) {
            self.cast<Tensor*>()->requires_grad_(v);
            return self;
          }, py::arg("requires_grad") = true)
      .def_property("grad", [](const Tensor& t) { return wrap(t.grad()); },
                    [](const Tensor& t, py::object g) {
                      if (g.is_none()) {
                        t.mutable_grad() = Tensor();
                        return;
                      }
                      const Tensor& v = as_tensor(g, "assigned grad");
                      if (v.device() != t.device())
                        throw py::value_error("assigned grad has data located on a different device");
                      if (v.dtype() != t.dtype())
                        throw py::type_error("assigned grad has data of a different type");
                      if (!v.sizes().equals(t.sizes()))
                        throw py::value_error("assigned grad has data of a different size");
                      t.mutable_grad() = v;
                    })
      .def_property("data", [](const Tensor& t) { return t.detach(); },
                    [](const Tensor& t, const Tensor& d) { t.set_data(d); })
      .def_property_readonly("grad_fn", [](const Tensor& t) { return node_object(t.grad_fn()); })
      .def("_is_view", &Tensor::is_view)
      .def_property_readonly("_base", [](const Tensor& t) -> py::object {
        return t.is_view() ? py::cast(t._base()) : py::none();
      })
      .def("retain_grad", &Tensor::retain_grad)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def("backward", [](const Tensor& t, py::object gradient, py::object retain_graph, bool create_graph,
                          py::object inputs) {
            Tensor g = gradient.is_none() ? Tensor() : as_tensor(gradient, "gradient");
            std::optional<bool> retain;
            if (!retain_graph.is_none()) retain = retain_graph.cast<bool>();
            std::optional<std::vector<Tensor>> in;
            if (!inputs.is_none()) {
              in.emplace();
              if (is_tensor(inputs)) in->push_back(as_tensor(inputs));
              else for (py::handle h : inputs) in->push_back(as_tensor(h, "inputs"));
            }
            py::gil_scoped_release release;
            t.backward(g, retain, create_graph, in);
          }, py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(),
          py::arg("create_graph") = false, py::arg("inputs") = py::none())
      .def("register_hook", [](const Tensor& t, py::object fn) {
            unsigned key = t.register_hook(python_hook(std::move(fn)));
            py::object handle = py::module_::import("ctorch.utils.hooks").attr("RemovableHandle");
            py::object self = py::cast(t);
            return handle(py::cpp_function([self, key]() { self.cast<Tensor*>()->remove_hook(key); }));
          })
      // ---- indexing
      .def("__getitem__", [](const Tensor& t, py::handle index) {
            if (PyLong_Check(index.ptr()) && !PyBool_Check(index.ptr())) {
              int64_t i = index.cast<int64_t>();
              if (t.dim() == 0)
                throw py::index_error("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                      "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
              if (i < -t.size(0) || i >= t.size(0))
                throw py::index_error("index " + std::to_string(i) + " is out of bounds for dimension 0 with size " +
                                      std::to_string(t.size(0)));
              return no_gil([&] { return t.select(0, i); });
            }
            std::vector<TensorIndex> indices = to_indices(index);
            return no_gil([&] { return t.index(indices); });
          })
      .def("__setitem__", [](Tensor& t, py::handle index, py::handle value) {
            std::vector<TensorIndex> indices = to_indices(index);
            if (is_tensor(value)) {
              Tensor v = as_tensor(value);
              py::gil_scoped_release release;
              t.index_put_(indices, v);
            } else {
              Scalar v = to_scalar(value);
              py::gil_scoped_release release;
              t.index_put_(indices, v);
            }
          })
      .def_property_readonly_static("__array_priority__", [](py::object) { return 1000; });
}

}  // namespace ctorch::api::python
