// torch.* functions: factories, random numbers and generators, joins, dtype utilities, autograd.
#include "bindings.h"

namespace ctorch::inline api::python {
namespace {

// A factory's arguments: sizes (positional or size=), options and generator keywords.
struct FactoryArgs {
  std::vector<int64_t> size;
  TensorOptions options;
  std::optional<Generator> generator;
};

std::optional<Generator> pop_generator(py::kwargs& kw) {
  if (!kw.contains("generator")) return std::nullopt;
  py::object g = kw["generator"];
  PyDict_DelItemString(kw.ptr(), "generator");
  if (g.is_none()) return std::nullopt;
  return g.cast<Generator>();
}

FactoryArgs factory_args(const py::args& args, py::kwargs kw) {
  FactoryArgs out;
  out.generator = pop_generator(kw);
  if (kw.contains("size")) {
    if (args.size() != 0) throw py::type_error("size given both positionally and as a keyword");
    out.size = to_int_list(kw["size"]);
    PyDict_DelItemString(kw.ptr(), "size");
  } else {
    out.size = to_shape(args);
  }
  out.options = options_from(kw);
  return out;
}

std::vector<Tensor> tensor_list(py::handle seq, const char* what) {
  std::vector<Tensor> out;
  if (is_tensor(seq)) {
    out.push_back(as_tensor(seq));
    return out;
  }
  for (py::handle h : seq) out.push_back(as_tensor(h, what));
  return out;
}

// A list of tensors in which None stands for an undefined tensor.
std::vector<Tensor> optional_tensor_list(py::handle seq) {
  std::vector<Tensor> out;
  if (seq.is_none()) return out;
  if (is_tensor(seq)) return {as_tensor(seq)};
  for (py::handle h : seq) out.push_back(h.is_none() ? Tensor() : as_tensor(h, "grad_outputs"));
  return out;
}

}  // namespace

void bind_functions(py::module_& m) {
  // ---- generators and the global random state
  py::class_<Generator>(m, "Generator")
      .def(py::init([](py::object device) { return Generator(to_device(device)); }), py::arg("device") = "cpu")
      .def("manual_seed", [](py::object self, py::int_ seed) {
        // PyTorch reduces negative seeds modulo 2**64.
        uint64_t s = PyLong_AsUnsignedLongLongMask(seed.ptr());
        self.cast<Generator&>().manual_seed(s);
        return self;
      })
      .def("seed", &Generator::seed)
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", &Generator::get_state)
      .def("set_state", [](py::object self, const Tensor& state) {
        self.cast<Generator&>().set_state(state);
        return self;
      })
      .def_property_readonly("device", &Generator::device);
  m.def("manual_seed", [](py::int_ seed) { return ctorch::manual_seed(PyLong_AsUnsignedLongLongMask(seed.ptr())); });
  m.def("seed", &ctorch::seed);
  m.def("initial_seed", &ctorch::initial_seed);
  m.def("get_rng_state", &ctorch::get_rng_state);
  m.def("set_rng_state", &ctorch::set_rng_state);
  m.def("default_generator", &ctorch::default_generator);

  // ---- factories
  m.def("empty", [](const py::args& a, const py::kwargs& k) {
    auto f = factory_args(a, k);
    return no_gil([&] { return ctorch::empty(f.size, f.options); });
  });
  m.def("zeros", [](const py::args& a, const py::kwargs& k) {
    auto f = factory_args(a, k);
    return no_gil([&] { return ctorch::zeros(f.size, f.options); });
  });
  m.def("ones", [](const py::args& a, const py::kwargs& k) {
    auto f = factory_args(a, k);
    return no_gil([&] { return ctorch::ones(f.size, f.options); });
  });
  m.def("full", [](py::handle size, py::handle value, const py::kwargs& k) {
    auto o = options_from(k);
    auto s = to_int_list(size);
    Scalar v = to_scalar(value);
    return no_gil([&] { return ctorch::full(s, v, o); });
  }, py::arg("size"), py::arg("fill_value"));
  m.def("rand", [](const py::args& a, const py::kwargs& k) {
    auto f = factory_args(a, k);
    return no_gil([&] { return ctorch::rand(f.size, f.options, f.generator); });
  });
  m.def("randn", [](const py::args& a, const py::kwargs& k) {
    auto f = factory_args(a, k);
    return no_gil([&] { return ctorch::randn(f.size, f.options, f.generator); });
  });
  m.def("randint", [](const py::args& a, py::kwargs k) {
    auto g = pop_generator(k);
    std::vector<py::handle> pos(a.begin(), a.end());
    if (k.contains("size")) {
      pos.push_back(k["size"]);
      PyDict_DelItemString(k.ptr(), "size");
    }
    if (k.contains("high")) {
      pos.insert(pos.end() - (pos.empty() ? 0 : 1), k["high"]);
      PyDict_DelItemString(k.ptr(), "high");
    }
    if (pos.size() < 2 || pos.size() > 3) throw py::type_error("randint() received an invalid combination of arguments");
    int64_t low = pos.size() == 3 ? pos[0].cast<int64_t>() : 0;
    int64_t high = pos[pos.size() - 2].cast<int64_t>();
    auto size = to_int_list(pos.back());
    auto o = options_from(k);
    return no_gil([&] { return ctorch::randint(low, high, size, o, g); });
  });
  m.def("randperm", [](int64_t n, py::kwargs k) {
    auto g = pop_generator(k);
    auto o = options_from(k);
    return no_gil([&] { return ctorch::randperm(n, o, g); });
  });
  m.def("normal", [](py::handle mean, py::handle std, py::object size, py::kwargs k) {
    auto g = pop_generator(k);
    if (is_tensor(mean) && is_tensor(std)) return no_gil([&] { return ctorch::normal(as_tensor(mean), as_tensor(std), g); });
    if (is_tensor(mean)) return no_gil([&] { return ctorch::normal(as_tensor(mean), std.cast<double>(), g); });
    if (is_tensor(std)) return no_gil([&] { return ctorch::normal(mean.cast<double>(), as_tensor(std), g); });
    auto s = to_int_list(size);
    auto o = options_from(k);
    return no_gil([&] { return ctorch::normal(mean.cast<double>(), std.cast<double>(), s, o, g); });
  }, py::arg("mean"), py::arg("std") = 1.0, py::arg("size") = py::none());
  m.def("bernoulli", [](const Tensor& p, py::kwargs k) {
    auto g = pop_generator(k);
    return no_gil([&] { return ctorch::bernoulli(p, g); });
  });
  m.def("arange", [](const py::args& a, const py::kwargs& k) {
    if (a.size() < 1 || a.size() > 3) throw py::type_error("arange() received an invalid combination of arguments");
    auto o = options_from(k);
    if (a.size() == 1) {
      Scalar end = to_scalar(a[0]);
      return no_gil([&] { return ctorch::arange(end, o); });
    }
    Scalar start = to_scalar(a[0]), end = to_scalar(a[1]), step = a.size() == 3 ? to_scalar(a[2]) : Scalar(1);
    return no_gil([&] { return ctorch::arange(start, end, step, o); });
  });
  m.def("linspace", [](py::handle start, py::handle end, int64_t steps, const py::kwargs& k) {
    auto o = options_from(k);
    Scalar s = to_scalar(start), e = to_scalar(end);
    return no_gil([&] { return ctorch::linspace(s, e, steps, o); });
  }, py::arg("start"), py::arg("end"), py::arg("steps"));
  m.def("eye", [](int64_t n, std::optional<int64_t> mm, const py::kwargs& k) {
    auto o = options_from(k);
    return no_gil([&] { return ctorch::eye(n, mm, o); });
  }, py::arg("n"), py::arg("m") = py::none());
  m.def("tensor", [](py::handle data, py::object dtype, py::object device, bool requires_grad, bool pin_memory) {
    auto t = to_opt_dtype(dtype);
    auto d = to_opt_device(device);
    return tensor_from_data(data, t, d, requires_grad, pin_memory);
  }, py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
     py::arg("requires_grad") = false, py::arg("pin_memory") = false);
  m.def("as_tensor", [](py::handle data, py::object dtype, py::object device) -> Tensor {
    auto t = to_opt_dtype(dtype);
    auto d = to_opt_device(device);
    if (is_tensor(data)) {
      Tensor x = as_tensor(data);
      if (d) x = x.to(*d);
      if (t) x = x.to(*t);
      return x;
    }
    if (is_numpy_array(data)) {
      Tensor x = tensor_from_numpy(data);
      if (d) x = x.to(*d);
      if (t) x = x.to(*t);
      return x;
    }
    return tensor_from_data(data, t, d);
  }, py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def("from_numpy", [](py::handle a) {
    if (!is_numpy_array(a))
      throw py::type_error("expected np.ndarray (got " + std::string(py::str(py::type::of(a).attr("__name__"))) + ")");
    return tensor_from_numpy(a);
  });
  m.def("_legacy_new", [](py::object dtype, py::object device, const py::args& args) {
    return legacy_construct(to_dtype(dtype), to_opt_device(device), args);
  });

#define CTORCH_LIKE(name)                                                        \
  m.def(#name, [](const Tensor& t, const py::kwargs& k) {                        \
    auto o = options_from(k);                                                    \
    return no_gil([&] { return ctorch::name(t, o); });                           \
  });
  CTORCH_LIKE(empty_like) CTORCH_LIKE(zeros_like) CTORCH_LIKE(ones_like) CTORCH_LIKE(rand_like)
  CTORCH_LIKE(randn_like)
#undef CTORCH_LIKE
  m.def("full_like", [](const Tensor& t, py::handle v, const py::kwargs& k) {
    auto o = options_from(k);
    Scalar s = to_scalar(v);
    return no_gil([&] { return ctorch::full_like(t, s, o); });
  });

  // ---- joins and selection
  m.def("cat", [](py::handle tensors, int64_t dim) {
    auto ts = tensor_list(tensors, "expected Tensor as element in argument 0");
    return no_gil([&] { return ctorch::cat(ts, dim); });
  }, py::arg("tensors"), py::arg("dim") = 0);
  m.attr("concat") = m.attr("cat");
  m.def("stack", [](py::handle tensors, int64_t dim) {
    auto ts = tensor_list(tensors, "expected Tensor as element in argument 0");
    return no_gil([&] { return ctorch::stack(ts, dim); });
  }, py::arg("tensors"), py::arg("dim") = 0);
  m.def("where", [](const Tensor& cond, py::object x, py::object y) -> py::object {
    if (x.is_none() && y.is_none()) return py::tuple(py::cast(cond.nonzero().unbind(1)));
    if (is_tensor(x) && is_tensor(y)) return no_gil([&] { return ctorch::where(cond, as_tensor(x), as_tensor(y)); });
    if (is_tensor(x)) {
      Scalar s = to_scalar(y);
      return no_gil([&] { return ctorch::where(cond, as_tensor(x), s); });
    }
    if (is_tensor(y)) {
      Scalar s = to_scalar(x);
      return no_gil([&] { return ctorch::where(cond, s, as_tensor(y)); });
    }
    Scalar a = to_scalar(x), b = to_scalar(y);
    return no_gil([&] { return ctorch::where(cond, a, b); });
  }, py::arg("condition"), py::arg("input") = py::none(), py::arg("other") = py::none());
  m.def("pow", [](py::handle self, py::handle exponent) -> py::object {
    if (is_tensor(self) && is_tensor(exponent)) return no_gil([&] { return as_tensor(self).pow(as_tensor(exponent)); });
    if (is_tensor(self)) {
      Scalar e = to_scalar(exponent);
      return no_gil([&] { return as_tensor(self).pow(e); });
    }
    Scalar s = to_scalar(self);
    return no_gil([&] { return ctorch::pow(s, as_tensor(exponent, "exponent")); });
  });

  // ---- dtypes
  m.def("result_type", [](py::handle a, py::handle b) {
    if (is_tensor(a) && is_tensor(b)) return dtype_object(ctorch::result_type(as_tensor(a), as_tensor(b)));
    if (is_tensor(a)) return dtype_object(ctorch::result_type(as_tensor(a), to_scalar(b)));
    if (is_tensor(b)) return dtype_object(ctorch::result_type(to_scalar(a), as_tensor(b)));
    return dtype_object(ctorch::result_type(to_scalar(a), to_scalar(b)));
  });
  m.def("promote_types", [](py::handle a, py::handle b) { return dtype_object(promote_types(to_dtype(a), to_dtype(b))); });
  m.def("can_cast", [](py::handle from, py::handle to) { return can_cast(to_dtype(from), to_dtype(to)); });
  m.def("get_default_dtype", [] { return dtype_object(get_default_dtype()); });
  m.def("set_default_dtype", [](py::handle d) { set_default_dtype(to_dtype(d)); });

  // ---- autograd
  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("_set_grad_enabled", &set_grad_enabled);
  m.def("_autograd_backward", [](py::handle tensors, py::handle grad_tensors, py::object retain_graph,
                                 bool create_graph, py::handle inputs) {
    auto ts = tensor_list(tensors, "tensors");
    auto gs = optional_tensor_list(grad_tensors);
    auto in = inputs.is_none() ? std::vector<Tensor>() : tensor_list(inputs, "inputs");
    std::optional<bool> retain;
    if (!retain_graph.is_none()) retain = retain_graph.cast<bool>();
    py::gil_scoped_release release;
    autograd::backward(ts, gs, retain, create_graph, in);
  });
  m.def("_autograd_grad", [](py::handle outputs, py::handle inputs, py::handle grad_outputs, py::object retain_graph,
                             bool create_graph, bool allow_unused) {
    auto outs = tensor_list(outputs, "outputs");
    auto ins = tensor_list(inputs, "inputs");
    auto gs = optional_tensor_list(grad_outputs);
    std::optional<bool> retain;
    if (!retain_graph.is_none()) retain = retain_graph.cast<bool>();
    std::vector<Tensor> r;
    {
      py::gil_scoped_release release;
      r = autograd::grad(outs, ins, gs, retain, create_graph, allow_unused);
    }
    py::tuple out(r.size());
    for (size_t i = 0; i < r.size(); ++i) out[i] = wrap(r[i]);
    return out;
  });
  m.def("_set_anomaly_enabled", [](bool enabled, bool check_nan) { autograd::AnomalyMode::set_enabled(enabled, check_nan); },
        py::arg("enabled"), py::arg("check_nan") = true);
  m.def("is_anomaly_enabled", &autograd::AnomalyMode::is_enabled);
  m.def("is_anomaly_check_nan_enabled", &autograd::AnomalyMode::should_check_nan);
}

}  // namespace ctorch::api::python
