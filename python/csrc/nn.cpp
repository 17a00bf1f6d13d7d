// torch.nn's C++ side (ctorch._C._nn): functional ops, the layers' initial parameters (so a
// Python Linear starts with the numbers PyTorch's does), gradient clipping, optimizers, safetensors.
#include <pybind11/stl.h>

#include "bindings.h"

namespace ctorch::inline api::python {
namespace {

using Pair2 = nn::Pair2;

Pair2 pair(py::handle h) {
  if (PyLong_Check(h.ptr())) {
    int64_t v = h.cast<int64_t>();
    return {v, v};
  }
  auto l = to_int_list(h);
  if (l.size() == 1) return {l[0], l[0]};
  if (l.size() != 2) throw py::value_error("expected an int or a pair of ints, got " + std::to_string(l.size()) + " values");
  return {l[0], l[1]};
}

Tensor opt_tensor(py::handle h) { return h.is_none() ? Tensor() : as_tensor(h); }

std::vector<Tensor> tensor_list(py::handle seq) {
  std::vector<Tensor> out;
  if (is_tensor(seq)) return {as_tensor(seq)};
  for (py::handle h : seq) out.push_back(as_tensor(h, "parameters"));
  return out;
}

// The registered tensors of a freshly built C++ layer, by name (its PyTorch initialization).
py::dict initial_tensors(const nn::Module& m) {
  py::dict out;
  for (auto& [name, t] : m.named_parameters()) out[py::str(name)] = wrap(t.detach());
  for (auto& [name, t] : m.named_buffers()) out[py::str(name)] = wrap(t);
  return out;
}

// A Python optimizer's C++ side: one GroupedOptimizer whose group options the Python
// param_groups dicts set before every step (so schedulers and users can change them).
template <class Opt, class Options>
void bind_optimizer(py::module_& m, const char* name, std::function<Options(const py::dict&)> options_of,
                    std::function<void(Options&, const py::dict&)> update) {
  py::class_<Opt>(m, name)
      .def(py::init([options_of](py::list groups) {
        std::vector<optim::ParamGroup<Options>> gs;
        for (py::handle g : groups) {
          auto d = py::reinterpret_borrow<py::dict>(g);
          gs.push_back({tensor_list(d["params"]), options_of(d)});
        }
        return std::make_unique<Opt>(std::move(gs));
      }))
      .def("add_param_group", [options_of](Opt& o, py::dict d) {
        o.add_param_group({tensor_list(d["params"]), options_of(d)});
      })
      .def("step", [update](Opt& o, py::list groups) {
        auto& gs = o.param_groups();
        for (size_t i = 0; i < gs.size() && i < groups.size(); ++i)
          update(gs[i].options, py::reinterpret_borrow<py::dict>(groups[i]));
        py::gil_scoped_release release;
        o.step();
      })
      .def("zero_grad", [](Opt& o, bool set_to_none) { o.zero_grad(set_to_none); }, py::arg("set_to_none") = false)
      .def("state_dict", [](const Opt& o) { return from_checkpoint_value(o.state_dict()); })
      .def("load_state_dict", [](Opt& o, py::handle state_dict) {
        const serialization::Value v = to_checkpoint_value(state_dict);
        py::gil_scoped_release release;
        o.load_state_dict(v);
      });
}

// torch.optim.LBFGS's options from its (only) param_group dict.
optim::LBFGSOptions lbfgs_options(py::handle group) {
  auto d = py::reinterpret_borrow<py::dict>(group);
  optim::LBFGSOptions o(d["lr"].cast<double>());
  o.max_iter(d["max_iter"].cast<int64_t>()).history_size(d["history_size"].cast<int64_t>());
  o.tolerance_grad(d["tolerance_grad"].cast<double>()).tolerance_change(d["tolerance_change"].cast<double>());
  if (!d["max_eval"].is_none()) o.max_eval(d["max_eval"].cast<int64_t>());
  if (!d["line_search_fn"].is_none()) o.line_search_fn(d["line_search_fn"].cast<std::string>());
  return o;
}

// LBFGS's C++ side: one group; step(groups, closure) calls the Python closure with the GIL held.
void bind_lbfgs(py::module_& m) {
  py::class_<optim::LBFGS>(m, "LBFGS")
      .def(py::init([](py::list groups) {
        auto d = py::reinterpret_borrow<py::dict>(groups[0]);
        return std::make_unique<optim::LBFGS>(tensor_list(d["params"]), lbfgs_options(d));
      }))
      .def("add_param_group", [](optim::LBFGS&, py::dict) {
        throw ValueError("LBFGS doesn't support per-parameter options (parameter groups)");
      })
      .def("step", [](optim::LBFGS& o, py::list groups, py::object closure) {
        o.options() = lbfgs_options(groups[0]);
        py::object first;  // the closure's first result, returned as torch.optim.LBFGS.step returns it
        std::function<Tensor()> fn = [&closure, &first]() {
          py::gil_scoped_acquire gil;
          py::object r = closure();
          if (!first) first = r;
          return as_tensor(r, "the closure's result");
        };
        {
          py::gil_scoped_release release;
          o.step(fn);
        }
        return first;
      })
      .def("zero_grad", [](optim::LBFGS& o, bool set_to_none) { o.zero_grad(set_to_none); }, py::arg("set_to_none") = false)
      .def("state_dict", [](const optim::LBFGS& o) { return from_checkpoint_value(o.state_dict()); })
      .def("load_state_dict", [](optim::LBFGS& o, py::handle state_dict) {
        const serialization::Value v = to_checkpoint_value(state_dict);
        py::gil_scoped_release release;
        o.load_state_dict(v);
      });
}

void bind_optimizers(py::module_& m) {
  bind_lbfgs(m);
  auto sgd_update = [](optim::SGDOptions& o, const py::dict& d) {
    o.lr(d["lr"].cast<double>()).momentum(d["momentum"].cast<double>()).dampening(d["dampening"].cast<double>());
    o.weight_decay(d["weight_decay"].cast<double>()).nesterov(d["nesterov"].cast<bool>()).maximize(d["maximize"].cast<bool>());
  };
  bind_optimizer<optim::SGD, optim::SGDOptions>(m, "SGD", [sgd_update](const py::dict& d) {
    optim::SGDOptions o(d["lr"].cast<double>());
    sgd_update(o, d);
    return o;
  }, sgd_update);
  auto adam_update = [](optim::AdamOptions& o, const py::dict& d) {
    auto betas = d["betas"].cast<std::tuple<double, double>>();
    o.lr(d["lr"].cast<double>()).betas(betas).eps(d["eps"].cast<double>());
    o.weight_decay(d["weight_decay"].cast<double>()).amsgrad(d["amsgrad"].cast<bool>()).maximize(d["maximize"].cast<bool>());
  };
  auto adam_make = [adam_update](const py::dict& d) {
    optim::AdamOptions o;
    adam_update(o, d);
    return o;
  };
  bind_optimizer<optim::Adam, optim::AdamOptions>(m, "Adam", adam_make, adam_update);
  bind_optimizer<optim::AdamW, optim::AdamOptions>(m, "AdamW", adam_make, adam_update);
  auto rms_update = [](optim::RMSpropOptions& o, const py::dict& d) {
    o.lr(d["lr"].cast<double>()).alpha(d["alpha"].cast<double>()).eps(d["eps"].cast<double>());
    o.weight_decay(d["weight_decay"].cast<double>()).momentum(d["momentum"].cast<double>()).centered(d["centered"].cast<bool>());
    o.maximize(d["maximize"].cast<bool>());
  };
  bind_optimizer<optim::RMSprop, optim::RMSpropOptions>(m, "RMSprop", [rms_update](const py::dict& d) {
    optim::RMSpropOptions o;
    rms_update(o, d);
    return o;
  }, rms_update);
  auto adagrad_update = [](optim::AdagradOptions& o, const py::dict& d) {
    o.lr(d["lr"].cast<double>()).lr_decay(d["lr_decay"].cast<double>()).eps(d["eps"].cast<double>());
    o.weight_decay(d["weight_decay"].cast<double>()).maximize(d["maximize"].cast<bool>());
    o.initial_accumulator_value(d["initial_accumulator_value"].cast<double>());
  };
  bind_optimizer<optim::Adagrad, optim::AdagradOptions>(m, "Adagrad", [adagrad_update](const py::dict& d) {
    optim::AdagradOptions o;
    adagrad_update(o, d);
    return o;
  }, adagrad_update);
}

}  // namespace

void bind_nn(py::module_& m) {
  namespace F = nn::functional;
  // ---- functional
  m.def("linear", [](const Tensor& x, const Tensor& w, py::handle b) {
    Tensor bias = opt_tensor(b);
    return no_gil([&] { return F::linear(x, w, bias); });
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());
  m.def("relu", [](const Tensor& x) { return no_gil([&] { return F::relu(x); }); });
  m.def("leaky_relu", [](const Tensor& x, double slope) { return no_gil([&] { return F::leaky_relu(x, slope); }); });
  m.def("gelu", [](const Tensor& x, const std::string& a) { return no_gil([&] { return F::gelu(x, a); }); },
        py::arg("input"), py::arg("approximate") = "none");
  m.def("dropout", [](const Tensor& x, double p, bool training) { return no_gil([&] { return F::dropout(x, p, training); }); },
        py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);
  m.def("dropout2d", [](const Tensor& x, double p, bool training) { return no_gil([&] { return F::dropout2d(x, p, training); }); },
        py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);
  m.def("mse_loss", [](const Tensor& x, const Tensor& y, const std::string& r) { return no_gil([&] { return F::mse_loss(x, y, r); }); });
  m.def("smooth_l1_loss", [](const Tensor& x, const Tensor& y, const std::string& r, double beta) { return no_gil([&] { return F::smooth_l1_loss(x, y, r, beta); }); });
  m.def("l1_loss", [](const Tensor& x, const Tensor& y, const std::string& r) { return no_gil([&] { return F::l1_loss(x, y, r); }); });
  m.def("nll_loss", [](const Tensor& x, const Tensor& y, py::handle w, int64_t ignore, const std::string& r) {
    Tensor weight = opt_tensor(w);
    return no_gil([&] { return F::nll_loss(x, y, weight, ignore, r); });
  });
  m.def("cross_entropy", [](const Tensor& x, const Tensor& y, py::handle w, int64_t ignore, const std::string& r,
                            double smoothing) {
    Tensor weight = opt_tensor(w);
    return no_gil([&] { return F::cross_entropy(x, y, weight, ignore, r, smoothing); });
  });
  m.def("binary_cross_entropy", [](const Tensor& x, const Tensor& y, py::handle w, const std::string& r) {
    Tensor weight = opt_tensor(w);
    return no_gil([&] { return F::binary_cross_entropy(x, y, weight, r); });
  });
  m.def("binary_cross_entropy_with_logits", [](const Tensor& x, const Tensor& y, py::handle w, const std::string& r,
                                               py::handle pw) {
    Tensor weight = opt_tensor(w), pos = opt_tensor(pw);
    return no_gil([&] { return F::binary_cross_entropy_with_logits(x, y, weight, r, pos); });
  });
  // conv2d / conv1d: stride, padding and dilation are ints or lists (ctorch::conv2d checks their lengths);
  // padding may be "same" or "valid".
  auto ints = [](py::handle h) {
    return PyLong_Check(h.ptr()) ? std::vector<int64_t>{h.cast<int64_t>()} : to_int_list(h);
  };
  m.def("conv2d", [ints](const Tensor& x, const Tensor& w, py::handle b, py::handle stride, py::handle padding,
                         py::handle dilation, int64_t groups) {
    Tensor bias = opt_tensor(b);
    const std::vector<int64_t> s = ints(stride), d = ints(dilation);
    if (py::isinstance<py::str>(padding)) {
      const std::string mode = padding.cast<std::string>();
      return no_gil([&] { return ctorch::conv2d_padding_mode(x, w, bias, s, mode, d, groups); });
    }
    const std::vector<int64_t> p = ints(padding);
    return no_gil([&] { return ctorch::conv2d(x, w, bias, s, p, d, groups); });
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,
     py::arg("dilation") = 1, py::arg("groups") = 1);
  m.def("conv1d", [ints](const Tensor& x, const Tensor& w, py::handle b, py::handle stride, py::handle padding,
                         py::handle dilation, int64_t groups) {
    Tensor bias = opt_tensor(b);
    const std::vector<int64_t> s = ints(stride), p = ints(padding), d = ints(dilation);
    return no_gil([&] { return ctorch::conv1d(x, w, bias, s, p, d, groups); });
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,
     py::arg("dilation") = 1, py::arg("groups") = 1);
  // conv_transpose2d / conv_transpose1d: one binding over either op (the same arguments).
  using ConvTransposeFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef,
                                     IntArrayRef, int64_t, IntArrayRef);
  for (auto [name, fn] : {std::pair<const char*, ConvTransposeFn>{"conv_transpose2d", &ctorch::conv_transpose2d},
                          std::pair<const char*, ConvTransposeFn>{"conv_transpose1d", &ctorch::conv_transpose1d}}) {
    m.def(name, [ints, fn = fn](const Tensor& x, const Tensor& w, py::handle b, py::handle stride, py::handle padding,
                                py::handle output_padding, int64_t groups, py::handle dilation) {
      Tensor bias = opt_tensor(b);
      const std::vector<int64_t> s = ints(stride), p = ints(padding), op = ints(output_padding), d = ints(dilation);
      return no_gil([&] { return fn(x, w, bias, s, p, op, groups, d); });
    }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,
       py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("dilation") = 1);
  }
  m.def("max_pool2d_with_indices", [ints](const Tensor& x, py::handle k, py::handle stride, py::handle padding,
                                          py::handle dilation, bool ceil_mode) {
    const std::vector<int64_t> ks = ints(k), p = ints(padding), d = ints(dilation);
    const std::vector<int64_t> s = stride.is_none() ? std::vector<int64_t>() : ints(stride);
    std::tuple<Tensor, Tensor> r;
    {
      py::gil_scoped_release release;
      r = ctorch::max_pool2d_with_indices(x, ks, s, p, d, ceil_mode);
    }
    return py::make_tuple(wrap(std::get<0>(r)), wrap(std::get<1>(r)));
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
     py::arg("dilation") = 1, py::arg("ceil_mode") = false);
  m.def("avg_pool2d", [ints](const Tensor& x, py::handle k, py::handle stride, py::handle padding, bool ceil_mode,
                             bool count_include_pad, std::optional<int64_t> divisor_override) {
    const std::vector<int64_t> ks = ints(k), p = ints(padding);
    const std::vector<int64_t> s = stride.is_none() ? std::vector<int64_t>() : ints(stride);
    return no_gil([&] { return ctorch::avg_pool2d(x, ks, s, p, ceil_mode, count_include_pad, divisor_override); });
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
     py::arg("ceil_mode") = false, py::arg("count_include_pad") = true, py::arg("divisor_override") = py::none());
  m.def("adaptive_avg_pool2d", [](const Tensor& x, py::handle output_size) {
    // An int means a square output (PyTorch's IntArrayRef[2] argument); a list is passed as it is.
    const std::vector<int64_t> o = PyLong_Check(output_size.ptr())
                                       ? std::vector<int64_t>(2, output_size.cast<int64_t>())
                                       : to_int_list(output_size);
    return no_gil([&] { return ctorch::adaptive_avg_pool2d(x, o); });
  }, py::arg("input"), py::arg("output_size"));
  m.def("batch_norm", [](const Tensor& x, py::handle rm, py::handle rv, py::handle w, py::handle b, bool training,
                         double momentum, double eps) {
    Tensor mean = opt_tensor(rm), var = opt_tensor(rv), weight = opt_tensor(w), bias = opt_tensor(b);
    return no_gil([&] { return F::batch_norm(x, mean, var, weight, bias, training, momentum, eps); });
  }, py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight") = py::none(),
     py::arg("bias") = py::none(), py::arg("training") = false, py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  m.def("layer_norm", [](const Tensor& x, py::handle shape, py::handle w, py::handle b, double eps) {
    auto s = to_int_list(shape);
    Tensor weight = opt_tensor(w), bias = opt_tensor(b);
    return no_gil([&] { return F::layer_norm(x, s, weight, bias, eps); });
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
     py::arg("eps") = 1e-5);
  m.def("embedding", [](const Tensor& x, const Tensor& w, std::optional<int64_t> padding_idx) {
    return no_gil([&] { return F::embedding(x, w, padding_idx); });
  }, py::arg("input"), py::arg("weight"), py::arg("padding_idx") = py::none());

  // ---- the layers' PyTorch initialization, from the C++ layers themselves
  m.def("init_linear", [](int64_t in, int64_t out, bool bias) { return initial_tensors(nn::Linear(in, out, bias)); });
  m.def("init_conv2d", [](int64_t in, int64_t out, py::handle k, int64_t groups, bool bias) {
    return initial_tensors(nn::Conv2d(in, out, pair(k), {1, 1}, {0, 0}, {1, 1}, bias, groups));
  });
  m.def("init_conv_transpose2d", [](int64_t in, int64_t out, py::handle k, int64_t groups, bool bias) {
    return initial_tensors(nn::ConvTranspose2d(in, out, pair(k), {1, 1}, {0, 0}, {0, 0}, groups, bias));
  });
  m.def("init_embedding", [](int64_t n, int64_t dim, std::optional<int64_t> padding_idx) {
    return initial_tensors(nn::Embedding(n, dim, padding_idx));
  });

  // ---- utilities
  m.def("clip_grad_norm_", [](py::handle params, double max_norm, double norm_type, bool error_if_nonfinite) {
    auto ps = tensor_list(params);
    return no_gil([&] { return nn::utils::clip_grad_norm_(ps, max_norm, norm_type, error_if_nonfinite); });
  }, py::arg("parameters"), py::arg("max_norm"), py::arg("norm_type") = 2.0, py::arg("error_if_nonfinite") = false);
  m.def("clip_grad_value_", [](py::handle params, double clip) { nn::utils::clip_grad_value_(tensor_list(params), clip); });

  // ---- safetensors
  m.def("safetensors_save_file", [](std::map<std::string, Tensor> tensors, const std::string& path) {
    py::gil_scoped_release release;
    safetensors::save_file(tensors, path);
  });
  m.def("safetensors_load_file", [](const std::string& path, py::handle device) {
    Device d = device.is_none() ? Device(kCPU) : to_device(device);
    py::gil_scoped_release release;
    return safetensors::load_file(path, d);
  }, py::arg("filename"), py::arg("device") = "cpu");

  // ---- DataParallel's C++ pieces (the Python DataParallel replicates Python modules itself)
  m.def("parallel_scatter", [](const Tensor& t, const std::vector<int>& devices, int64_t dim) {
    std::vector<cuda::DeviceArg> d(devices.begin(), devices.end());
    py::gil_scoped_release release;
    return nn::parallel::scatter(t, d, dim);
  });
  m.def("parallel_gather", [](py::handle outputs, py::handle target, int64_t dim) {
    std::vector<Tensor> outs = tensor_list(outputs);
    Device d = PyLong_Check(target.ptr()) ? (target.cast<int>() < 0 ? Device(kCPU) : Device(kCUDA, target.cast<int>()))
                                          : to_device(target);
    return no_gil([&] { return nn::parallel::gather(outs, d, dim); });
  });
  m.def("run_replicas", [](size_t n, const std::vector<int>& devices, py::function body) {
    // Each replica thread takes the GIL to run its Python body; the caller waits without it.
    auto call = [&body](size_t i) {
      py::gil_scoped_acquire gil;
      body(i);
    };
    py::gil_scoped_release release;
    nn::parallel::detail::run_replicas(n, devices, call);
  });

  bind_optimizers(m);
}

}  // namespace ctorch::api::python
