// torch.save / torch.load for Python objects (python/ctorch/serialization.py calls these): Python
// values <-> serialization::Value, the checkpoint format itself being libctorch's.
#include <unordered_map>

#include "bindings.h"

namespace ctorch::inline api::python {
namespace {

using serialization::Value;

py::object parameter_type() { return py::module_::import("ctorch.nn.parameter").attr("Parameter"); }
py::object ordered_dict_type() { return py::module_::import("collections").attr("OrderedDict"); }

Value to_value(py::handle h, int depth) {
  if (depth > 1000) throw ValueError("ctorch.save: the object is nested more than 1000 levels deep");
  if (h.is_none()) return Value();
  if (PyBool_Check(h.ptr())) return Value(h.ptr() == Py_True);
  if (PyLong_Check(h.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow != 0) throw ValueError("ctorch.save: an int does not fit in 64 bits");
    return Value(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(h.ptr())) return Value(PyFloat_AS_DOUBLE(h.ptr()));
  if (PyUnicode_Check(h.ptr())) return Value(h.cast<std::string>());
  if (is_tensor(h)) return Value(as_tensor(h), py::isinstance(h, parameter_type()));
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    std::vector<Value> items;
    for (py::handle x : h) items.push_back(to_value(x, depth + 1));
    return PyTuple_Check(h.ptr()) ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  if (PyDict_Check(h.ptr())) {
    const bool ordered = py::isinstance(h, ordered_dict_type());
    Value::Items items;
    for (auto [k, x] : py::reinterpret_borrow<py::dict>(h)) items.emplace_back(to_value(k, depth + 1), to_value(x, depth + 1));
    Value d = Value::dict(std::move(items), ordered);
    if (ordered && py::hasattr(h, "__dict__")) {  // a state_dict's _metadata
      py::dict attrs = h.attr("__dict__");
      if (!attrs.empty()) d.set_attributes(to_value(attrs, depth + 1));
    }
    return d;
  }
  throw TypeError("ctorch.save: cannot save an object of type '" + std::string(py::str(h.get_type().attr("__name__"))) +
                  "' (ctorch saves tensors, numbers, strings, None, and lists, tuples and dicts of them)");
}

// Containers shared in the checkpoint come back as one Python object, as pickle's memo does.
py::object from_value(const Value& v, std::unordered_map<const void*, py::object>& seen) {
  switch (v.kind()) {
    case Value::Kind::None: return py::none();
    case Value::Kind::Bool: return py::bool_(v.to_bool());
    case Value::Kind::Int: return py::int_(v.to_int());
    case Value::Kind::Float: return py::float_(v.to_double());
    case Value::Kind::String: return py::str(v.to_string());
    case Value::Kind::Tensor: {
      if (!v.is_parameter()) return wrap(v.to_tensor());
      return parameter_type()(wrap(v.to_tensor()), v.to_tensor().requires_grad());
    }
    default: break;
  }
  if (auto it = seen.find(v.container_id()); it != seen.end()) return it->second;
  py::object out;
  if (v.kind() == Value::Kind::Dict) {
    out = v.is_ordered_dict() ? ordered_dict_type()() : py::dict();
    for (const auto& [k, x] : v.items()) out[from_value(k, seen)] = from_value(x, seen);
    if (const Value* attrs = v.attributes()) {
      for (const auto& [name, x] : attrs->items()) {
        if (name.kind() == Value::Kind::String) py::setattr(out, name.to_string().c_str(), from_value(x, seen));
      }
    }
  } else {
    py::list items;
    for (const Value& x : v.elements()) items.append(from_value(x, seen));
    out = v.kind() == Value::Kind::Tuple ? py::object(py::tuple(items)) : py::object(items);
  }
  seen.emplace(v.container_id(), out);
  return out;
}

// map_location: None, a device (or its string), {"cuda:1": "cuda:0"}, or f(storage, location)
// (called with a 0-element cpu tensor standing in for the storage; the device of what it returns).
serialization::MapLocation to_map_location(py::object m) {
  if (m.is_none()) return std::monostate{};
  if (py::isinstance<py::dict>(m)) {
    std::map<std::string, std::string> names;
    for (auto [k, x] : py::reinterpret_borrow<py::dict>(m)) names[py::str(k)] = py::str(x);
    return names;
  }
  if (py::isinstance<py::str>(m) || py::isinstance<Device>(m)) return to_device(m);
  if (PyCallable_Check(m.ptr())) {
    return std::function<Device(const std::string&)>([m](const std::string& location) {
      py::gil_scoped_acquire gil;
      py::object stand_in = wrap(empty({0}));
      py::object r = m(stand_in, location);
      if (r.is_none()) return Device(location);  // PyTorch: None means "the default location"
      if (!is_tensor(r)) throw TypeError("map_location's function must return a storage (a tensor here) or None");
      return as_tensor(r).device();
    });
  }
  throw TypeError("map_location: expected None, a device, a string, a dict or a function, got " +
                  std::string(py::str(m.get_type().attr("__name__"))));
}

py::object load(std::string_view bytes, py::object map_location) {
  Value v;
  const serialization::MapLocation where = to_map_location(std::move(map_location));
  {
    py::gil_scoped_release release;
    v = serialization::load_from_bytes(bytes, where);
  }
  std::unordered_map<const void*, py::object> seen;
  return from_value(v, seen);
}

}  // namespace

serialization::Value to_checkpoint_value(py::handle h) { return to_value(h, 0); }

py::object from_checkpoint_value(const serialization::Value& v) {
  std::unordered_map<const void*, py::object> seen;
  return from_value(v, seen);
}

void bind_serialization(py::module_& m) {
  m.def("save_to_bytes", [](py::handle obj) {
    const Value v = to_value(obj, 0);
    std::string bytes;
    {
      py::gil_scoped_release release;
      bytes = serialization::save_to_bytes(v);
    }
    return py::bytes(bytes);
  });
  m.def("save_file", [](py::handle obj, const std::string& path) {
    const Value v = to_value(obj, 0);
    py::gil_scoped_release release;
    ctorch::save(v, path);
  });
  m.def("load_from_bytes", [](py::bytes data, py::object map_location) {
    char* p = nullptr;
    Py_ssize_t n = 0;
    PyBytes_AsStringAndSize(data.ptr(), &p, &n);
    return load(std::string_view(p, static_cast<size_t>(n)), std::move(map_location));
  }, py::arg("data"), py::arg("map_location") = py::none());
}

}  // namespace ctorch::api::python
