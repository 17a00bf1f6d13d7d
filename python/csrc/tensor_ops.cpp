// ctorch.Tensor's math: elementwise methods, operators, reductions, shape, gather/scatter, random.
#include "bindings.h"

namespace ctorch::inline api::python {
namespace {

// dim arguments: None, an int or a sequence of ints.
std::optional<std::vector<int64_t>> opt_dims(py::handle dim) {
  if (dim.is_none()) return std::nullopt;
  return to_int_list(dim);
}

// The in-place form of a binary op: the result is `self`, the same Python object.
template <class TensorOp, class ScalarOp>
py::object inplace(py::object self, py::handle other, TensorOp tensor_op, ScalarOp scalar_op) {
  Tensor& t = as_mutable_tensor(self);
  if (is_tensor(other)) {
    const Tensor& o = as_tensor(other);
    if (!releases_gil(t, &o)) {
      tensor_op(t, o);
    } else {
      py::gil_scoped_release release;
      tensor_op(t, o);
    }
  } else if (is_number(other)) {
    Scalar s = to_scalar(other);
    if (!releases_gil(t)) {
      scalar_op(t, s);
    } else {
      py::gil_scoped_release release;
      scalar_op(t, s);
    }
  } else {
    return not_implemented();
  }
  return self;
}

// A binary op with a tensor or a number on the right; NotImplemented for anything else.
template <class TensorOp, class ScalarOp>
py::object binary(const Tensor& t, py::handle other, TensorOp tensor_op, ScalarOp scalar_op) {
  if (is_tensor(other)) {
    const Tensor& o = as_tensor(other);
    if (!releases_gil(t, &o)) return wrap(tensor_op(t, o));
    return no_gil([&] { return tensor_op(t, o); });
  }
  if (is_number(other)) {
    Scalar s = to_scalar(other);
    if (!releases_gil(t)) return wrap(scalar_op(t, s));
    return no_gil([&] { return scalar_op(t, s); });
  }
  return not_implemented();
}

Tensor bool_only(const Tensor& t, const char* op) {
  if (t.dtype() != kBool)
    throw NotImplementedError(std::string("ctorch: '") + op + "' is implemented for bool tensors only (got " +
                              dtype_name(t.dtype()) + ")");
  return t;
}

}  // namespace

void bind_tensor_ops(py::class_<Tensor>& cls) {
  // ---- arithmetic operators and their method forms
  cls.def("__add__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.add(b); },
                      [](const Tensor& a, const Scalar& b) { return a.add(b); });
      })
      .def("__radd__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return b.add(a); },
                      [](const Tensor& a, const Scalar& b) { return b + a; });
      })
      .def("__iadd__", [](py::object s, py::handle o) {
        return inplace(s, o, [](Tensor& a, const Tensor& b) { a.add_(b); }, [](Tensor& a, const Scalar& b) { a.add_(b); });
      })
      .def("__sub__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.sub(b); },
                      [](const Tensor& a, const Scalar& b) { return a.sub(b); });
      })
      .def("__rsub__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return b.sub(a); },
                      [](const Tensor& a, const Scalar& b) { return b - a; });
      })
      .def("__isub__", [](py::object s, py::handle o) {
        return inplace(s, o, [](Tensor& a, const Tensor& b) { a.sub_(b); }, [](Tensor& a, const Scalar& b) { a.sub_(b); });
      })
      .def("__mul__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.mul(b); },
                      [](const Tensor& a, const Scalar& b) { return a.mul(b); });
      })
      .def("__rmul__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return b.mul(a); },
                      [](const Tensor& a, const Scalar& b) { return b * a; });
      })
      .def("__imul__", [](py::object s, py::handle o) {
        return inplace(s, o, [](Tensor& a, const Tensor& b) { a.mul_(b); }, [](Tensor& a, const Scalar& b) { a.mul_(b); });
      })
      .def("__truediv__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.div(b); },
                      [](const Tensor& a, const Scalar& b) { return a.div(b); });
      })
      .def("__rtruediv__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return b.div(a); },
                      [](const Tensor& a, const Scalar& b) { return b / a; });
      })
      .def("__itruediv__", [](py::object s, py::handle o) {
        return inplace(s, o, [](Tensor& a, const Tensor& b) { a.div_(b); }, [](Tensor& a, const Scalar& b) { a.div_(b); });
      })
      .def("__floordiv__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.div(b, "floor"); },
                      [](const Tensor& a, const Scalar& b) { return a.div(b, "floor"); });
      })
      .def("__mod__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.remainder(b); },
                      [](const Tensor& a, const Scalar& b) { return a.remainder(b); });
      })
      .def("__pow__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.pow(b); },
                      [](const Tensor& a, const Scalar& b) { return a.pow(b); });
      })
      .def("__rpow__", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& a, const Tensor& b) { return b.pow(a); },
                      [](const Tensor& a, const Scalar& b) { return ctorch::pow(b, a); });
      })
      .def("__ipow__", [](py::object s, py::handle o) {
        return inplace(s, o, [](Tensor& a, const Tensor& b) { a.pow_(b); }, [](Tensor& a, const Scalar& b) { a.pow_(b); });
      })
      .def("__matmul__", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.matmul(b); }); })
      .def("__neg__", [](const Tensor& t) { return no_gil([&] { return t.neg(); }); })
      .def("__pos__", [](py::object self) { return self; })
      .def("__abs__", [](const Tensor& t) { return no_gil([&] { return t.abs(); }); })
      .def("__invert__", [](const Tensor& t) { return no_gil([&] { return bool_only(t, "~").logical_not(); }); })
      .def("__and__", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return bool_only(a, "&").logical_and(b); }); })
      .def("__or__", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return bool_only(a, "|").logical_or(b); }); })
      .def("__xor__", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return bool_only(a, "^").logical_xor(b); }); });

#define CTORCH_COMPARE(py_name, method)                                                            \
  cls.def(py_name, [](const Tensor& t, py::handle o) {                                              \
    return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.method(b); },               \
                  [](const Tensor& a, const Scalar& b) { return a.method(b); });                    \
  });                                                                                               \
  cls.def(#method, [](const Tensor& t, py::handle o) {                                              \
    return binary(t, o, [](const Tensor& a, const Tensor& b) { return a.method(b); },               \
                  [](const Tensor& a, const Scalar& b) { return a.method(b); });                    \
  });
  CTORCH_COMPARE("__eq__", eq)
  CTORCH_COMPARE("__ne__", ne)
  CTORCH_COMPARE("__lt__", lt)
  CTORCH_COMPARE("__le__", le)
  CTORCH_COMPARE("__gt__", gt)
  CTORCH_COMPARE("__ge__", ge)
#undef CTORCH_COMPARE

  // add/sub with alpha, mul/div (rounding_mode), their in-place forms.
  cls.def("add", [](const Tensor& t, py::handle o, py::handle alpha) {
        Scalar a = to_scalar(alpha);
        return binary(t, o, [&](const Tensor& x, const Tensor& y) { return x.add(y, a); },
                      [&](const Tensor& x, const Scalar& y) { return x.add(y, a); });
      }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1)
      .def("add_", [](py::object s, py::handle o, py::handle alpha) {
        Scalar a = to_scalar(alpha);
        return inplace(s, o, [&](Tensor& x, const Tensor& y) { x.add_(y, a); }, [&](Tensor& x, const Scalar& y) { x.add_(y, a); });
      }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1)
      .def("sub", [](const Tensor& t, py::handle o, py::handle alpha) {
        Scalar a = to_scalar(alpha);
        return binary(t, o, [&](const Tensor& x, const Tensor& y) { return x.sub(y, a); },
                      [&](const Tensor& x, const Scalar& y) { return x.sub(y, a); });
      }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1)
      .def("sub_", [](py::object s, py::handle o, py::handle alpha) {
        Scalar a = to_scalar(alpha);
        return inplace(s, o, [&](Tensor& x, const Tensor& y) { x.sub_(y, a); }, [&](Tensor& x, const Scalar& y) { x.sub_(y, a); });
      }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1)
      .def("mul", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& x, const Tensor& y) { return x.mul(y); },
                      [](const Tensor& x, const Scalar& y) { return x.mul(y); });
      })
      .def("mul_", [](py::object s, py::handle o) {
        return inplace(s, o, [](Tensor& x, const Tensor& y) { x.mul_(y); }, [](Tensor& x, const Scalar& y) { x.mul_(y); });
      })
      .def("div", [](const Tensor& t, py::handle o, std::optional<std::string> mode) {
        return binary(t, o, [&](const Tensor& x, const Tensor& y) { return x.div(y, mode); },
                      [&](const Tensor& x, const Scalar& y) { return x.div(y, mode); });
      }, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none())
      .def("div_", [](py::object s, py::handle o, std::optional<std::string> mode) {
        return inplace(s, o, [&](Tensor& x, const Tensor& y) { x.div_(y, mode); },
                       [&](Tensor& x, const Scalar& y) { x.div_(y, mode); });
      }, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none())
      .def("remainder", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& x, const Tensor& y) { return x.remainder(y); },
                      [](const Tensor& x, const Scalar& y) { return x.remainder(y); });
      })
      .def("pow", [](const Tensor& t, py::handle o) {
        return binary(t, o, [](const Tensor& x, const Tensor& y) { return x.pow(y); },
                      [](const Tensor& x, const Scalar& y) { return x.pow(y); });
      })
      .def("pow_", [](py::object s, py::handle o) {
        return inplace(s, o, [](Tensor& x, const Tensor& y) { x.pow_(y); }, [](Tensor& x, const Scalar& y) { x.pow_(y); });
      })
      .def("maximum", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.maximum(b); }); })
      .def("minimum", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.minimum(b); }); })
      .def("logical_and", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.logical_and(b); }); })
      .def("logical_or", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.logical_or(b); }); })
      .def("logical_xor", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.logical_xor(b); }); })
      .def("logical_not", [](const Tensor& a) { return no_gil([&] { return a.logical_not(); }); })
      .def("matmul", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.matmul(b); }); })
      .def("mm", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.mm(b); }); })
      .def("bmm", [](const Tensor& a, const Tensor& b) { return no_gil([&] { return a.bmm(b); }); })
      .def("addmm", [](const Tensor& t, const Tensor& a, const Tensor& b, py::handle beta, py::handle alpha) {
        Scalar be = to_scalar(beta), al = to_scalar(alpha);
        return no_gil([&] { return t.addmm(a, b, be, al); });
      }, py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1, py::arg("alpha") = 1)
      .def("clamp", [](const Tensor& t, py::object min, py::object max) {
        std::optional<Scalar> lo, hi;
        if (!min.is_none()) lo = to_scalar(min);
        if (!max.is_none()) hi = to_scalar(max);
        return no_gil([&] { return t.clamp(lo, hi); });
      }, py::arg("min") = py::none(), py::arg("max") = py::none())
      .def("clamp_", [](py::object self, py::object min, py::object max) {
        std::optional<Scalar> lo, hi;
        if (!min.is_none()) lo = to_scalar(min);
        if (!max.is_none()) hi = to_scalar(max);
        self.cast<Tensor*>()->clamp_(lo, hi);
        return self;
      }, py::arg("min") = py::none(), py::arg("max") = py::none())
      .def("clamp_min", [](const Tensor& t, py::handle v) { Scalar s = to_scalar(v); return no_gil([&] { return t.clamp_min(s); }); })
      .def("clamp_max", [](const Tensor& t, py::handle v) { Scalar s = to_scalar(v); return no_gil([&] { return t.clamp_max(s); }); })
      .def("where", [](const Tensor& t, const Tensor& cond, py::handle other) {
        Tensor o = to_tensor_operand(other, t);
        return no_gil([&] { return ctorch::where(cond, t, o); });
      })
      .def("equal", [](const Tensor& a, const Tensor& b) { py::gil_scoped_release r; return a.equal(b); })
      .def("allclose", [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
        py::gil_scoped_release r;
        return a.allclose(b, rtol, atol, equal_nan);
      }, py::arg("other"), py::arg("rtol") = 1e-05, py::arg("atol") = 1e-08, py::arg("equal_nan") = false)
      .def("isclose", [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
        return no_gil([&] { return ctorch::isclose(a, b, rtol, atol, equal_nan); });
      }, py::arg("other"), py::arg("rtol") = 1e-05, py::arg("atol") = 1e-08, py::arg("equal_nan") = false);

#define CTORCH_UNARY(name)                                                                         \
  cls.def(#name, [](const Tensor& t) { return no_gil([&] { return t.name(); }); });                \
  cls.def(#name "_", [](py::object self) {                                                          \
    Tensor& t = *self.cast<Tensor*>();                                                              \
    {                                                                                               \
      py::gil_scoped_release release;                                                               \
      t.name##_();                                                                                  \
    }                                                                                               \
    return self;                                                                                    \
  });
  CTORCH_UNARY(neg) CTORCH_UNARY(abs) CTORCH_UNARY(exp) CTORCH_UNARY(log) CTORCH_UNARY(sqrt)
  CTORCH_UNARY(rsqrt) CTORCH_UNARY(sin) CTORCH_UNARY(cos) CTORCH_UNARY(tanh) CTORCH_UNARY(sigmoid)
  CTORCH_UNARY(erf) CTORCH_UNARY(relu) CTORCH_UNARY(floor) CTORCH_UNARY(ceil) CTORCH_UNARY(round)
  CTORCH_UNARY(sign)
#undef CTORCH_UNARY
  cls.def("zero_", [](py::object self) {
    self.cast<Tensor*>()->zero_();
    return self;
  });
  cls.def("resize_", [](py::object self, py::args size) {
    self.cast<Tensor*>()->resize_(to_shape(size));
    return self;
  });
  cls.def("negative", [](const Tensor& t) { return no_gil([&] { return t.neg(); }); })
      .def("square", [](const Tensor& t) { return no_gil([&] { return t.mul(t); }); })
      .def("fill_", [](py::object self, py::handle v) {
        Tensor& t = *self.cast<Tensor*>();
        if (is_tensor(v)) t.fill_(as_tensor(v));
        else t.fill_(to_scalar(v));
        return self;
      })
      .def("real", &Tensor::real)
      .def("imag", &Tensor::imag)
      .def("conj", &Tensor::conj);

  // ---- reductions
  cls.def("sum", [](const Tensor& t, py::object dim, bool keepdim, py::object dtype) {
        auto dims = opt_dims(dim);
        auto type = to_opt_dtype(dtype);
        return no_gil([&] { return dims ? t.sum(*dims, keepdim, type) : t.sum(type); });
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none())
      .def("mean", [](const Tensor& t, py::object dim, bool keepdim, py::object dtype) {
        auto dims = opt_dims(dim);
        auto type = to_opt_dtype(dtype);
        return no_gil([&] { return dims ? t.mean(*dims, keepdim, type) : t.mean(type); });
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none())
      .def("prod", [](const Tensor& t, py::object dim, bool keepdim, py::object dtype) {
        auto type = to_opt_dtype(dtype);
        if (dim.is_none()) return no_gil([&] { return t.prod(type); });
        int64_t d = dim.cast<int64_t>();
        return no_gil([&] { return t.prod(d, keepdim, type); });
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none())
      .def("max", [](const Tensor& t, py::object dim, bool keepdim) -> py::object {
        if (dim.is_none()) return no_gil([&] { return t.max(); });
        if (is_tensor(dim)) return no_gil([&] { return t.maximum(as_tensor(dim)); });
        int64_t d = dim.cast<int64_t>();
        std::tuple<Tensor, Tensor> r;
        {
          py::gil_scoped_release release;
          r = t.max(d, keepdim);
        }
        return return_pair("max", std::move(r));
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("min", [](const Tensor& t, py::object dim, bool keepdim) -> py::object {
        if (dim.is_none()) return no_gil([&] { return t.min(); });
        if (is_tensor(dim)) return no_gil([&] { return t.minimum(as_tensor(dim)); });
        int64_t d = dim.cast<int64_t>();
        std::tuple<Tensor, Tensor> r;
        {
          py::gil_scoped_release release;
          r = t.min(d, keepdim);
        }
        return return_pair("min", std::move(r));
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("argmax", [](const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
        return no_gil([&] { return t.argmax(dim, keepdim); });
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("argmin", [](const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
        return no_gil([&] { return t.argmin(dim, keepdim); });
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("all", [](const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
        return no_gil([&] { return dim ? t.all(*dim, keepdim) : t.all(); });
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("any", [](const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
        return no_gil([&] { return dim ? t.any(*dim, keepdim) : t.any(); });
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("norm", [](const Tensor& t, py::handle p, py::object dim, bool keepdim) {
        Scalar order = p.is_none() ? Scalar(2) : to_scalar(p);
        auto dims = opt_dims(dim);
        return no_gil([&] { return dims ? t.norm(order, *dims, keepdim) : t.norm(order); });
      }, py::arg("p") = 2, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("var", [](const Tensor& t, py::object dim, py::object unbiased, bool keepdim, py::object correction) {
        auto dims = opt_dims(dim);
        int64_t c = !correction.is_none() ? correction.cast<int64_t>() : unbiased.is_none() ? 1 : unbiased.cast<bool>();
        return no_gil([&] { return dims ? t.var(*dims, c, keepdim) : t.var(std::nullopt, c, keepdim); });
      }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
         py::arg("correction") = py::none())
      .def("std", [](const Tensor& t, py::object dim, py::object unbiased, bool keepdim, py::object correction) {
        auto dims = opt_dims(dim);
        int64_t c = !correction.is_none() ? correction.cast<int64_t>() : unbiased.is_none() ? 1 : unbiased.cast<bool>();
        return no_gil([&] { return dims ? t.std(*dims, c, keepdim) : t.std(std::nullopt, c, keepdim); });
      }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
         py::arg("correction") = py::none())
      .def("softmax", [](const Tensor& t, int64_t dim, py::object dtype) {
        auto type = to_opt_dtype(dtype);
        return no_gil([&] { return t.softmax(dim, type); });
      }, py::arg("dim"), py::arg("dtype") = py::none())
      .def("log_softmax", [](const Tensor& t, int64_t dim, py::object dtype) {
        auto type = to_opt_dtype(dtype);
        return no_gil([&] { return t.log_softmax(dim, type); });
      }, py::arg("dim"), py::arg("dtype") = py::none());

  // ---- shape and views
  cls.def("view", [](const Tensor& t, const py::args& shape) {
        auto s = to_shape(shape);
        return no_gil([&] { return t.view(s); });
      })
      .def("reshape", [](const Tensor& t, const py::args& shape) {
        auto s = to_shape(shape);
        return no_gil([&] { return t.reshape(s); });
      })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return no_gil([&] { return t.view_as(o); }); })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return no_gil([&] { return t.reshape_as(o); }); })
      .def("expand", [](const Tensor& t, const py::args& shape) {
        auto s = to_shape(shape);
        return no_gil([&] { return t.expand(s); });
      })
      .def("expand_as", [](const Tensor& t, const Tensor& o) { return no_gil([&] { return t.expand_as(o); }); })
      .def("permute", [](const Tensor& t, const py::args& dims) {
        auto d = to_shape(dims);
        return no_gil([&] { return t.permute(d); });
      })
      .def("transpose", [](const Tensor& t, int64_t a, int64_t b) { return no_gil([&] { return t.transpose(a, b); }); })
      .def("t", [](const Tensor& t) { return no_gil([&] { return t.t(); }); })
      .def_property_readonly("T", [](const Tensor& t) {
        std::vector<int64_t> dims;
        for (int64_t i = t.dim() - 1; i >= 0; --i) dims.push_back(i);
        return no_gil([&] { return t.permute(dims); });
      })
      .def("squeeze", [](const Tensor& t, std::optional<int64_t> dim) {
        return no_gil([&] { return dim ? t.squeeze(*dim) : t.squeeze(); });
      }, py::arg("dim") = py::none())
      .def("unsqueeze", [](const Tensor& t, int64_t dim) { return no_gil([&] { return t.unsqueeze(dim); }); })
      .def("flatten", [](const Tensor& t, int64_t s, int64_t e) { return no_gil([&] { return t.flatten(s, e); }); },
           py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def("narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t n) { return no_gil([&] { return t.narrow(d, s, n); }); })
      .def("select", [](const Tensor& t, int64_t d, int64_t i) { return no_gil([&] { return t.select(d, i); }); })
      .def("unbind", [](const Tensor& t, int64_t dim) { return py::tuple(py::cast(t.unbind(dim))); }, py::arg("dim") = 0)
      .def("chunk", [](const Tensor& t, int64_t n, int64_t dim) { return py::tuple(py::cast(t.chunk(n, dim))); },
           py::arg("chunks"), py::arg("dim") = 0)
      .def("split", [](const Tensor& t, py::handle size, int64_t dim) {
        if (PyLong_Check(size.ptr())) return py::tuple(py::cast(t.split(size.cast<int64_t>(), dim)));
        return py::tuple(py::cast(t.split(to_int_list(size), dim)));
      }, py::arg("split_size"), py::arg("dim") = 0)
      .def("as_strided", [](const Tensor& t, py::handle size, py::handle stride, std::optional<int64_t> offset) {
        auto sz = to_int_list(size), st = to_int_list(stride);
        return no_gil([&] { return t.as_strided(sz, st, offset); });
      }, py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());

  // ---- gather and scatter
  cls.def("index_select", [](const Tensor& t, int64_t d, const Tensor& i) { return no_gil([&] { return t.index_select(d, i); }); })
      .def("gather", [](const Tensor& t, int64_t d, const Tensor& i) { return no_gil([&] { return t.gather(d, i); }); })
      .def("scatter", [](const Tensor& t, int64_t d, const Tensor& i, py::handle src) {
        Tensor s = is_tensor(src) ? as_tensor(src) : full_like(i, to_scalar(src), TensorOptions().dtype(t.dtype()));
        return no_gil([&] { return t.scatter(d, i, s); });
      })
      .def("scatter_", [](py::object self, int64_t d, const Tensor& i, py::handle src) {
        Tensor& t = *self.cast<Tensor*>();
        Tensor s = is_tensor(src) ? as_tensor(src) : full_like(i, to_scalar(src), TensorOptions().dtype(t.dtype()));
        t.scatter_(d, i, s);
        return self;
      })
      .def("scatter_add", [](const Tensor& t, int64_t d, const Tensor& i, const Tensor& s) {
        return no_gil([&] { return t.scatter_add(d, i, s); });
      })
      .def("scatter_add_", [](py::object self, int64_t d, const Tensor& i, const Tensor& s) {
        self.cast<Tensor*>()->scatter_add_(d, i, s);
        return self;
      })
      .def("index_add_", [](py::object self, int64_t d, const Tensor& i, const Tensor& s, py::handle alpha) {
        self.cast<Tensor*>()->index_add_(d, i, s, to_scalar(alpha));
        return self;
      }, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1)
      .def("index_add", [](const Tensor& t, int64_t d, const Tensor& i, const Tensor& s, py::handle alpha) {
        Scalar a = to_scalar(alpha);
        return no_gil([&] { return t.index_add(d, i, s, a); });
      }, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1)
      .def("masked_select", [](const Tensor& t, const Tensor& m) { return no_gil([&] { return t.masked_select(m); }); })
      .def("masked_fill", [](const Tensor& t, const Tensor& m, py::handle v) {
        if (is_tensor(v)) return no_gil([&] { return t.masked_fill(m, as_tensor(v)); });
        Scalar s = to_scalar(v);
        return no_gil([&] { return t.masked_fill(m, s); });
      })
      .def("masked_fill_", [](py::object self, const Tensor& m, py::handle v) {
        Tensor& t = *self.cast<Tensor*>();
        if (is_tensor(v)) t.masked_fill_(m, as_tensor(v));
        else t.masked_fill_(m, to_scalar(v));
        return self;
      })
      .def("nonzero", [](const Tensor& t, bool as_tuple) -> py::object {
        Tensor nz = t.nonzero();
        if (!as_tuple) return wrap(nz);
        return py::tuple(py::cast(nz.unbind(1)));
      }, py::kw_only(), py::arg("as_tuple") = false);

  // ---- random, in place
  cls.def("uniform_", [](py::object self, double from, double to, std::optional<Generator> g) {
        self.cast<Tensor*>()->uniform_(from, to, g);
        return self;
      }, py::arg("from") = 0.0, py::arg("to") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def("normal_", [](py::object self, double mean, double std, std::optional<Generator> g) {
        self.cast<Tensor*>()->normal_(mean, std, g);
        return self;
      }, py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def("random_", [](py::object self, py::object from, py::object to, std::optional<Generator> g) {
        Tensor& t = *self.cast<Tensor*>();
        if (from.is_none() && to.is_none()) t.random_(0, std::nullopt, g);
        else if (to.is_none()) t.random_(0, from.cast<int64_t>(), g);
        else t.random_(from.is_none() ? 0 : from.cast<int64_t>(), to.cast<int64_t>(), g);
        return self;
      }, py::arg("from") = py::none(), py::arg("to") = py::none(), py::kw_only(), py::arg("generator") = py::none())
      .def("bernoulli_", [](py::object self, double p, std::optional<Generator> g) {
        self.cast<Tensor*>()->bernoulli_(p, g);
        return self;
      }, py::arg("p") = 0.5, py::kw_only(), py::arg("generator") = py::none());

  // ---- factories that keep this tensor's dtype and device
  auto new_options = [](const Tensor&, const py::kwargs& kwargs) { return options_from(kwargs); };
  cls.def("new_empty", [new_options](const Tensor& t, const py::args& size, const py::kwargs& kw) {
        return t.new_empty(to_shape(size), new_options(t, kw));
      })
      .def("new_zeros", [new_options](const Tensor& t, const py::args& size, const py::kwargs& kw) {
        return t.new_zeros(to_shape(size), new_options(t, kw));
      })
      .def("new_ones", [new_options](const Tensor& t, const py::args& size, const py::kwargs& kw) {
        return t.new_ones(to_shape(size), new_options(t, kw));
      })
      .def("new_full", [new_options](const Tensor& t, py::handle size, py::handle value, const py::kwargs& kw) {
        return t.new_full(to_int_list(size), to_scalar(value), new_options(t, kw));
      })
      .def("new_tensor", [](const Tensor& t, py::handle data, py::object dtype, py::object device, bool requires_grad) {
        return tensor_from_data(data, to_opt_dtype(dtype).value_or(t.dtype()), to_opt_device(device).value_or(t.device()),
                                requires_grad);
      }, py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false)
      .def("new", [](const Tensor& t, const py::args& args, const py::kwargs& kw) {
        std::optional<Device> device = t.device();
        if (kw.contains("device")) device = to_opt_device(kw["device"]);
        return legacy_construct(t.dtype(), device, args);
      });
}

}  // namespace ctorch::api::python
