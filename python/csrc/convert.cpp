// Conversions between Python values and ctorch values (convert.h).
#include "convert.h"

#include <pybind11/numpy.h>

#include <array>
#include <cstring>

namespace ctorch::inline api::python {
namespace {

// Leaked on purpose: Python objects that live as long as the interpreter (no destructor runs
// after Py_Finalize).
std::array<py::object*, kNumScalarTypes>& dtype_table() {
  static std::array<py::object*, kNumScalarTypes> table{};
  return table;
}

// Python objects the conversions need, made once by init_python_objects() while the module
// loads (never in a function-local static on first use: a first use on two threads at once, with
// an import releasing the GIL inside the static's guard, deadlocks). Leaked with the interpreter.
py::object* g_size_type = nullptr;
PyObject* g_numpy_generic = nullptr;
PyObject* g_numpy_ndarray = nullptr;

// numpy.<name> when numpy is imported (its objects exist only then): looked up, never imported.
bool numpy_type(const char* name, PyObject*& cache) {
  if (cache != nullptr) return true;
  PyObject* numpy = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");
  if (numpy == nullptr) return false;
  cache = PyObject_GetAttrString(numpy, name);  // a new reference, kept
  if (cache == nullptr) PyErr_Clear();
  return cache != nullptr;
}

bool is_numpy_scalar(py::handle h) {
  return numpy_type("generic", g_numpy_generic) && PyObject_IsInstance(h.ptr(), g_numpy_generic) == 1;
}

}  // namespace

void init_python_objects() {
  g_size_type = new py::object(py::module_::import("ctorch._size").attr("Size"));
}

bool is_numpy_array(py::handle h) {
  return numpy_type("ndarray", g_numpy_ndarray) && PyObject_IsInstance(h.ptr(), g_numpy_ndarray) == 1;
}

py::object dtype_object(ScalarType type) {
  py::object*& slot = dtype_table()[static_cast<int>(type)];
  if (slot == nullptr) slot = new py::object(py::cast(DType{type}));
  return *slot;
}

ScalarType to_dtype(py::handle h) {
  if (py::isinstance<DType>(h)) return h.cast<DType>().type;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return kFloat64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return kInt64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return kBool;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyComplex_Type)) return kComplexDouble;
  throw py::type_error("expected a torch.dtype, but got " + std::string(py::str(py::type::of(h).attr("__name__"))));
}

std::optional<ScalarType> to_opt_dtype(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_dtype(h);
}

Device to_device(py::handle h) {
  if (py::isinstance<Device>(h)) return h.cast<Device>();
  if (py::isinstance<py::str>(h)) return Device(h.cast<std::string>());
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) return Device(h.cast<int>());
  throw py::type_error("expected a torch.device, a string or an int, but got " +
                       std::string(py::str(py::type::of(h).attr("__name__"))));
}

std::optional<Device> to_opt_device(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_device(h);
}

py::object device_object(Device device) { return py::cast(device); }

bool is_number(py::handle h) {
  return PyBool_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr()) || is_numpy_scalar(h);
}

Scalar to_scalar(py::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) throw py::value_error("Overflow when unpacking long");
    return Scalar(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (is_tensor(h)) {
    const Tensor& t = as_tensor(h);
    if (t.numel() != 1) throw py::value_error("only one element tensors can be converted to Python scalars");
    return t.item();
  }
  if (is_numpy_scalar(h)) {
    std::string kind = py::str(h.attr("dtype").attr("kind"));
    if (kind == "b") return Scalar(h.attr("item")().cast<bool>());
    if (kind == "i" || kind == "u") return Scalar(h.attr("item")().cast<int64_t>());
    return Scalar(h.attr("item")().cast<double>());
  }
  if (PyComplex_Check(o)) throw py::type_error("ctorch: complex Python scalars are not supported as operands");
  throw py::type_error("expected a number, but got " + std::string(py::str(py::type::of(h).attr("__name__"))));
}

py::object scalar_object(const Scalar& s) {
  if (s.is_bool()) return py::bool_(s.to_bool());
  if (s.is_integral(false)) return py::int_(s.to_long());
  return py::float_(s.to_double());
}

std::vector<int64_t> to_int_list(py::handle h) {
  if (PyLong_Check(h.ptr())) return {h.cast<int64_t>()};
  if (is_tensor(h)) return {as_tensor(h).item().to_long()};
  if (!py::isinstance<py::sequence>(h) || py::isinstance<py::str>(h))
    throw py::type_error("expected a sequence of integers or a single integer, got " +
                         std::string(py::str(py::type::of(h).attr("__name__"))));
  std::vector<int64_t> out;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(h)) {
    if (PyFloat_Check(item.ptr()) || PyBool_Check(item.ptr()))
      throw py::type_error("expected a sequence of integers, but it contains " +
                           std::string(py::str(py::type::of(item).attr("__name__"))));
    out.push_back(item.cast<int64_t>());
  }
  return out;
}

std::vector<int64_t> to_shape(const py::args& args) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return to_int_list(args[0]);
  std::vector<int64_t> out;
  out.reserve(args.size());
  for (py::handle a : args) {
    if (!PyLong_Check(a.ptr()) || PyBool_Check(a.ptr()))
      throw py::type_error("expected ints as sizes, but got " + std::string(py::str(py::type::of(a).attr("__name__"))));
    out.push_back(a.cast<int64_t>());
  }
  return out;
}

py::object size_object(IntArrayRef sizes) {
  py::tuple t(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) t[i] = py::int_(sizes[i]);
  return (*g_size_type)(t);
}

py::object wrap(Tensor t) {
  if (!t.defined()) return py::none();
  return py::cast(std::move(t));
}

namespace {
PyTypeObject* g_tensor_type = nullptr;  // ctorch.Tensor, set when the class is bound
}  // namespace

void set_tensor_type(py::handle type) { g_tensor_type = reinterpret_cast<PyTypeObject*>(type.ptr()); }

bool is_tensor(py::handle h) { return PyObject_TypeCheck(h.ptr(), g_tensor_type) != 0; }

const Tensor& as_tensor(py::handle h, const char* what) {
  if (!is_tensor(h))
    throw py::type_error(std::string(what) + " must be Tensor, not " +
                         std::string(py::str(py::type::of(h).attr("__name__"))));
  // A ctorch.Tensor instance holds exactly one C++ Tensor (pybind11's simple layout).
  auto* inst = reinterpret_cast<py::detail::instance*>(h.ptr());
  return *static_cast<Tensor*>(inst->simple_layout ? inst->simple_value_holder[0]
                                                   : py::detail::values_and_holders(inst).begin()->value_ptr());
}

Tensor to_tensor_operand(py::handle h, const Tensor& like) {
  if (is_tensor(h)) return as_tensor(h);
  Scalar s = to_scalar(h);
  // A wrapped number: a 0-dim cpu tensor of the number's default type (PyTorch's scalar_to_tensor).
  ScalarType t = s.is_bool() ? kBool : s.is_integral(false) ? kInt64 : kFloat64;
  return full({}, s, TensorOptions().dtype(t));
}

// ---- torch.tensor(data) -----------------------------------------------------------------------

namespace {

// Where a Python value falls in the bool < int < float order of inferred dtypes.
enum class Category { Bool = 0, Int = 1, Float = 2 };

struct Flattened {
  std::vector<int64_t> shape;
  std::vector<double> values;   // every leaf as a double (exact for bool and float)
  std::vector<int64_t> ints;    // every leaf as an int64 (exact for ints)
  Category category = Category::Bool;
  bool any_leaf = false;
};

void flatten(py::handle h, size_t depth, Flattened& out) {
  PyObject* o = h.ptr();
  bool seq = (PyList_Check(o) || PyTuple_Check(o)) || (is_tensor(h) && as_tensor(h).dim() > 0);
  if (!seq && !is_number(h) && !is_tensor(h) && py::isinstance<py::sequence>(h) && !py::isinstance<py::str>(h))
    seq = true;
  if (seq) {
    if (is_tensor(h)) {  // a tensor inside a list: its values, row by row
      const Tensor& t = as_tensor(h);
      for (int64_t i = 0; i < t.size(0); ++i) {
        if (depth >= out.shape.size()) out.shape.push_back(t.size(0));
        flatten(py::cast(t.select(0, i)), depth + 1, out);
      }
      return;
    }
    auto items = py::reinterpret_borrow<py::sequence>(h);
    int64_t n = static_cast<int64_t>(py::len(items));
    if (depth == out.shape.size()) {
      if (out.any_leaf) throw py::value_error("expected sequence of length " + std::to_string(0) + " at dim " +
                                              std::to_string(depth) + " (got " + std::to_string(n) + ")");
      out.shape.push_back(n);
    } else if (depth > out.shape.size() || out.shape[depth] != n) {
      throw py::value_error("expected sequence of length " +
                            std::to_string(depth < out.shape.size() ? out.shape[depth] : 0) + " at dim " +
                            std::to_string(depth) + " (got " + std::to_string(n) + ")");
    }
    for (py::handle item : items) flatten(item, depth + 1, out);
    return;
  }
  if (depth != out.shape.size())
    throw py::type_error("new(): invalid data type '" + std::string(py::str(py::type::of(h).attr("__name__"))) + "'");
  out.any_leaf = true;
  Scalar s;
  try {
    s = to_scalar(h);
  } catch (py::type_error&) {
    throw py::type_error("new(): invalid data type '" + std::string(py::str(py::type::of(h).attr("__name__"))) + "'");
  }
  Category c = s.is_bool() ? Category::Bool : s.is_integral(false) ? Category::Int : Category::Float;
  out.category = out.values.empty() ? c : std::max(out.category, c);
  out.values.push_back(s.to_double());
  out.ints.push_back(s.to_long());
}

ScalarType numpy_dtype(const py::array& a) {
  char kind = a.dtype().kind();
  auto size = a.dtype().itemsize();
  if (kind == 'b') return kBool;
  if (kind == 'u' && size == 1) return kUInt8;
  if (kind == 'i') return size == 1 ? kInt8 : size == 2 ? kInt16 : size == 4 ? kInt32 : kInt64;
  if (kind == 'f') return size == 2 ? kFloat16 : size == 4 ? kFloat32 : kFloat64;
  if (kind == 'c') return size == 8 ? kComplexFloat : kComplexDouble;
  throw py::type_error("can't convert np.ndarray of type numpy." +
                       std::string(py::str(a.dtype().attr("type").attr("__name__"))) +
                       ". The only supported types are: float64, float32, float16, complex64, complex128, int64, "
                       "int32, int16, int8, uint8, and bool.");
}

}  // namespace

Tensor tensor_from_numpy(py::handle h) {
  py::array a = py::reinterpret_borrow<py::array>(h);
  ScalarType type = numpy_dtype(a);
  std::vector<int64_t> sizes(a.shape(), a.shape() + a.ndim());
  std::vector<int64_t> strides(a.ndim());
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (a.strides(i) % a.itemsize() != 0)
      throw py::value_error("given numpy array strides not a multiple of the element byte size. Copy the numpy "
                            "array to reallocate the memory.");
    if (a.strides(i) < 0)
      throw py::value_error("At least one stride in the given numpy array is negative, and tensors with negative "
                            "strides are not currently supported. (You can probably work around this by making a "
                            "copy of your array  with array.copy().) ");
    strides[i] = a.strides(i) / a.itemsize();
  }
  auto* keep = new py::object(a);
  return from_blob(const_cast<void*>(a.data()), sizes, strides, TensorOptions().dtype(type), [keep](void*) {
    py::gil_scoped_acquire gil;
    delete keep;
  });
}

Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device,
                        bool requires_grad, bool pin_memory) {
  Tensor cpu;
  if (is_tensor(data)) {
    cpu = as_tensor(data).detach().clone();
    if (!dtype) dtype = cpu.dtype();
  } else if (is_numpy_array(data)) {
    cpu = tensor_from_numpy(data).clone();
    if (!dtype) dtype = cpu.dtype();
  } else {
    Flattened flat;
    flatten(data, 0, flat);
    ScalarType inferred = flat.category == Category::Bool && flat.any_leaf ? kBool
                          : flat.category == Category::Int && flat.any_leaf ? kInt64
                                                                             : get_default_dtype();
    if (!flat.any_leaf && !flat.shape.empty()) inferred = get_default_dtype();
    ScalarType target = dtype.value_or(inferred);
    if (is_integral(target, true) && flat.category != Category::Float) {
      cpu = empty(flat.shape, TensorOptions().dtype(kInt64));
      if (!flat.ints.empty()) std::memcpy(cpu.data_ptr(), flat.ints.data(), flat.ints.size() * sizeof(int64_t));
    } else {
      cpu = empty(flat.shape, TensorOptions().dtype(kFloat64));
      if (!flat.values.empty()) std::memcpy(cpu.data_ptr(), flat.values.data(), flat.values.size() * sizeof(double));
    }
    dtype = target;
  }
  if (requires_grad && !is_floating_point(*dtype) && !is_complex(*dtype))
    throw std::runtime_error("Only Tensors of floating point and complex dtype can require gradients");
  Tensor out = cpu.to(*dtype);
  if (pin_memory) out = out.pin_memory();
  if (device) out = out.to(*device);
  if (requires_grad) out.requires_grad_(true);
  return out;
}

py::object tensor_to_numpy(const Tensor& t) {
  if (t.requires_grad())
    throw py::type_error("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  if (!t.is_cpu())
    throw py::type_error("can't convert " + t.device().str() +
                         " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  std::string format;
  switch (t.dtype()) {
    case kBool: format = "?"; break;
    case kUInt8: format = "B"; break;
    case kInt8: format = "b"; break;
    case kInt16: format = "h"; break;
    case kInt32: format = "i"; break;
    case kInt64: format = "q"; break;
    case kFloat16: format = "e"; break;
    case kFloat32: format = "f"; break;
    case kFloat64: format = "d"; break;
    case kComplexFloat: format = "F"; break;  // numpy's type characters (a buffer's "Zf" is not a dtype string)
    case kComplexDouble: format = "D"; break;
    case kBFloat16: throw py::type_error("Got unsupported ScalarType BFloat16");
  }
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides;
  for (int64_t s : t.strides()) strides.push_back(s * t.element_size());
  py::capsule owner(new Tensor(t), [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(py::dtype(format), shape, strides, t.data_ptr(), owner);
}

namespace {

py::object list_at(const Tensor& t, int64_t dim, int64_t offset) {
  if (dim == t.dim()) {
    const char* base = static_cast<const char*>(t.data_ptr()) + offset * t.element_size();
    switch (t.dtype()) {
      case kBool: return py::bool_(*reinterpret_cast<const bool*>(base));
      case kInt64: return py::int_(*reinterpret_cast<const int64_t*>(base));
      default: return py::float_(*reinterpret_cast<const double*>(base));
    }
  }
  py::list out(t.size(dim));
  for (int64_t i = 0; i < t.size(dim); ++i) out[i] = list_at(t, dim + 1, offset + i * t.stride(dim));
  return out;
}

}  // namespace

py::object tensor_to_list(const Tensor& t) {
  if (t.is_complex()) throw py::type_error("ctorch: tolist() of complex tensors is not supported");
  ScalarType wide = t.dtype() == kBool ? kBool : is_integral(t.dtype(), false) ? kInt64 : kFloat64;
  Tensor host;
  {
    py::gil_scoped_release no_gil;
    host = t.detach().to(Device(kCPU)).to(wide);
  }
  return list_at(host, 0, 0);
}

TensorOptions options_from(const py::kwargs& kwargs) {
  TensorOptions o;
  for (auto [key, value] : kwargs) {
    std::string k = py::str(key);
    if (k == "dtype") {
      o = o.dtype(to_opt_dtype(value));
    } else if (k == "device") {
      o = o.device(to_opt_device(value));
    } else if (k == "requires_grad") {
      o = o.requires_grad(value.cast<bool>());
    } else if (k == "pin_memory") {
      o = o.pinned_memory(value.cast<bool>());
    } else if (k == "layout") {
      if (!value.is_none() && std::string(py::str(value)) != "torch.strided")
        throw py::value_error("ctorch supports only the strided layout");
    } else if (k == "out" || k == "generator" || k == "memory_format") {
      if (!value.is_none()) throw py::type_error("ctorch: the keyword argument '" + k + "' is not supported here");
    } else {
      throw py::type_error("got an unexpected keyword argument '" + k + "'");
    }
  }
  if (o.requires_grad() && !is_floating_point(o.dtype()) && !is_complex(o.dtype()))
    throw std::runtime_error("Only Tensors of floating point and complex dtype can require gradients");
  return o;
}

std::vector<TensorIndex> to_indices(py::handle index) {
  std::vector<TensorIndex> out;
  auto one = [&](py::handle h) {
    PyObject* o = h.ptr();
    if (PyBool_Check(o)) {
      out.emplace_back(o == Py_True);
    } else if (PyLong_Check(o)) {
      out.emplace_back(h.cast<int64_t>());
    } else if (PySlice_Check(o)) {
      auto* s = reinterpret_cast<PySliceObject*>(o);
      auto bound = [](PyObject* v) -> SliceBound {
        if (v == Py_None) return SliceBound();
        return SliceBound(py::reinterpret_borrow<py::object>(v).cast<int64_t>());
      };
      SliceBound step = bound(s->step);
      if (step.value() && *step.value() <= 0) throw py::value_error("step must be greater than zero");
      out.emplace_back(Slice(bound(s->start), bound(s->stop), step));
    } else if (o == Py_None) {
      out.emplace_back(None);
    } else if (o == Py_Ellipsis) {
      out.emplace_back(Ellipsis);
    } else if (is_tensor(h)) {
      out.emplace_back(as_tensor(h));
    } else if (PyList_Check(o) || is_numpy_array(h)) {
      out.emplace_back(tensor_from_data(h, std::nullopt, std::nullopt));
    } else if (PyIndex_Check(o)) {
      out.emplace_back(py::reinterpret_steal<py::object>(PyNumber_Index(o)).cast<int64_t>());
    } else {
      throw py::index_error("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                            "indices (got " + std::string(py::str(py::type::of(h).attr("__name__"))) + ")");
    }
  };
  if (PyTuple_Check(index.ptr())) {
    for (py::handle h : py::reinterpret_borrow<py::tuple>(index)) one(h);
  } else {
    one(index);
  }
  return out;
}

}  // namespace ctorch::api::python
