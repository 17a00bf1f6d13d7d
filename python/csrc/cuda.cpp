// torch.cuda's C++ side (ctorch._C._cuda): devices, streams, events, memory, random, comm, nvtx,
// graphs and the jiterator. The context managers and module-level spellings are in ctorch/cuda/.
#include <pybind11/stl.h>

#include <memory>

#include "ctorch/cuda_graphed_callables.h"
#include "ctorch/cuda_ipc.h"
#include "ctorch/cuda_pluggable_allocator.h"

#include "bindings.h"

namespace ctorch::inline api::python {
namespace {

using cuda::DeviceArg;

// None -> the current device, an int -> that index, a device or string -> that device.
DeviceArg to_device_arg(py::handle h) {
  if (h.is_none()) return DeviceArg();
  if (PyLong_Check(h.ptr())) return DeviceArg(h.cast<int>());
  if (py::isinstance<cuda::Stream>(h)) return DeviceArg(h.cast<cuda::Stream>().device());
  return DeviceArg(to_device(h));
}

std::vector<DeviceArg> device_args(py::handle seq) {
  std::vector<DeviceArg> out;
  for (py::handle h : seq) out.push_back(to_device_arg(h));
  return out;
}

std::vector<Tensor> tensors(py::handle seq) {
  std::vector<Tensor> out;
  for (py::handle h : seq) out.push_back(as_tensor(h, "tensors"));
  return out;
}

// A C++ scope guard entered and left by Python's with statement.
template <class Guard, class... Args>
struct ScopedGuard {
  std::function<std::unique_ptr<Guard>()> make;
  std::unique_ptr<Guard> guard;
};

std::string hex(uintptr_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#lx", static_cast<unsigned long>(v));
  return v == 0 ? "0x0" : buf;
}

void bind_devices(py::module_& m) {
  m.def("is_available", &cuda::is_available);
  m.def("device_count", &cuda::device_count);
  m.def("init", &cuda::init);
  m.def("is_initialized", &cuda::is_initialized);
  m.def("current_device", &cuda::current_device);
  m.def("set_device", [](py::handle d) { cuda::set_device(to_device_arg(d)); });
  m.def("synchronize", [](py::handle d) {
    DeviceArg a = to_device_arg(d);
    py::gil_scoped_release release;
    cuda::synchronize(a);
  }, py::arg("device") = py::none());
  m.def("get_device_name", [](py::handle d) { return cuda::get_device_name(to_device_arg(d)); },
        py::arg("device") = py::none());
  m.def("get_device_capability", [](py::handle d) { return cuda::get_device_capability(to_device_arg(d)); },
        py::arg("device") = py::none());
  py::class_<cuda::DeviceProperties>(m, "_CudaDeviceProperties")
      .def_readonly("name", &cuda::DeviceProperties::name)
      .def_readonly("major", &cuda::DeviceProperties::major)
      .def_readonly("minor", &cuda::DeviceProperties::minor)
      .def_readonly("total_memory", &cuda::DeviceProperties::total_memory)
      .def_readonly("multi_processor_count", &cuda::DeviceProperties::multi_processor_count)
      .def_readonly("is_integrated", &cuda::DeviceProperties::is_integrated)
      .def_readonly("is_multi_gpu_board", &cuda::DeviceProperties::is_multi_gpu_board)
      .def("__repr__", [](const cuda::DeviceProperties& p) {
        std::ostringstream os;
        os << p;
        return os.str();
      });
  m.def("get_device_properties", [](py::handle d) { return cuda::get_device_properties(to_device_arg(d)); });
  m.def("can_device_access_peer", [](py::handle a, py::handle b) {
    return cuda::can_device_access_peer(to_device_arg(a), to_device_arg(b));
  });
  m.def("mem_get_info", [](py::handle d) { return cuda::mem_get_info(to_device_arg(d)); }, py::arg("device") = py::none());
  m.def("get_arch_list", &cuda::get_arch_list);
  m.def("get_gencode_flags", &cuda::get_gencode_flags);
  m.def("is_bf16_supported", &cuda::is_bf16_supported);
  m.def("get_sync_debug_mode", &cuda::get_sync_debug_mode);
  m.def("set_sync_debug_mode", [](py::handle mode) {
    if (PyLong_Check(mode.ptr())) cuda::set_sync_debug_mode(mode.cast<int>());
    else cuda::set_sync_debug_mode(mode.cast<std::string>());
  });
  m.def("utilization", [](py::handle d) { return cuda::utilization(to_device_arg(d)); }, py::arg("device") = py::none());
  m.def("memory_usage", [](py::handle d) { return cuda::memory_usage(to_device_arg(d)); }, py::arg("device") = py::none());
  m.def("temperature", [](py::handle d) { return cuda::temperature(to_device_arg(d)); }, py::arg("device") = py::none());
  m.def("power_draw", [](py::handle d) { return cuda::power_draw(to_device_arg(d)); }, py::arg("device") = py::none());
  m.def("clock_rate", [](py::handle d) { return cuda::clock_rate(to_device_arg(d)); }, py::arg("device") = py::none());

  // torch.cuda.device / device_of as C++ guards (the Python classes in ctorch/cuda wrap them).
  py::class_<ScopedGuard<cuda::device>>(m, "_DeviceGuard")
      .def(py::init([](py::handle d) {
        DeviceArg a = to_device_arg(d);
        return ScopedGuard<cuda::device>{[a] { return std::make_unique<cuda::device>(a); }, nullptr};
      }))
      .def("__enter__", [](ScopedGuard<cuda::device>& g) { g.guard = g.make(); })
      .def("__exit__", [](ScopedGuard<cuda::device>& g, py::args) { g.guard.reset(); return false; });
}

void bind_streams(py::module_& m) {
  py::class_<cuda::Stream>(m, "Stream")
      .def(py::init([](py::handle device, int priority) { return cuda::Stream(to_device_arg(device), priority); }),
           py::arg("device") = py::none(), py::arg("priority") = 0)
      .def("query", &cuda::Stream::query)
      .def("synchronize", [](const cuda::Stream& s) {
        py::gil_scoped_release release;
        s.synchronize();
      })
      .def("wait_event", &cuda::Stream::wait_event)
      .def("wait_stream", &cuda::Stream::wait_stream)
      .def("record_event", [](const cuda::Stream& s, std::optional<cuda::Event> e) {
        return e ? s.record_event(*e) : s.record_event();
      }, py::arg("event") = py::none())
      .def_property_readonly("device", &cuda::Stream::device)
      .def_property_readonly("device_index", &cuda::Stream::device_index)
      .def_property_readonly("stream_id", &cuda::Stream::stream_id)
      .def_property_readonly("cuda_stream", &cuda::Stream::cuda_stream)
      .def_property_readonly("priority", &cuda::Stream::priority)
      .def_static("priority_range", &cuda::Stream::priority_range)
      .def("__eq__", [](const cuda::Stream& a, py::handle b) {
        return py::isinstance<cuda::Stream>(b) && b.cast<cuda::Stream>() == a;
      })
      .def("__hash__", [](const cuda::Stream& s) { return std::hash<cuda::Stream>{}(s); })
      .def("__repr__", [](const cuda::Stream& s) {
        return "<torch.cuda.Stream device=" + s.device().str() + " cuda_stream=" + hex(s.cuda_stream()) + ">";
      });
  py::class_<cuda::ExternalStream, cuda::Stream>(m, "ExternalStream")
      .def(py::init([](uintptr_t ptr, py::handle device) { return cuda::ExternalStream(ptr, to_device_arg(device)); }),
           py::arg("stream_ptr"), py::arg("device") = py::none());
  m.def("current_stream", [](py::handle d) { return cuda::current_stream(to_device_arg(d)); },
        py::arg("device") = py::none());
  m.def("default_stream", [](py::handle d) { return cuda::default_stream(to_device_arg(d)); },
        py::arg("device") = py::none());
  m.def("set_stream", [](std::optional<cuda::Stream> s) { cuda::set_stream(s); });
  py::class_<ScopedGuard<cuda::StreamContext>>(m, "_StreamGuard")
      .def(py::init([](std::optional<cuda::Stream> s) {
        return ScopedGuard<cuda::StreamContext>{[s] { return std::make_unique<cuda::StreamContext>(s); }, nullptr};
      }))
      .def("__enter__", [](ScopedGuard<cuda::StreamContext>& g) { g.guard = g.make(); })
      .def("__exit__", [](ScopedGuard<cuda::StreamContext>& g, py::args) { g.guard.reset(); return false; });

  py::class_<cuda::Event>(m, "Event")
      .def(py::init<bool, bool, bool>(), py::arg("enable_timing") = false, py::arg("blocking") = false,
           py::arg("interprocess") = false)
      .def_static("from_ipc_handle", [](py::handle device, py::bytes handle) {
        return cuda::Event::from_ipc_handle(to_device(device), std::string(handle));
      })
      .def("record", &cuda::Event::record, py::arg("stream") = py::none())
      .def("wait", &cuda::Event::wait, py::arg("stream") = py::none())
      .def("query", &cuda::Event::query)
      .def("synchronize", [](const cuda::Event& e) {
        py::gil_scoped_release release;
        e.synchronize();
      })
      .def("elapsed_time", &cuda::Event::elapsed_time)
      .def("ipc_handle", [](const cuda::Event& e) { return py::bytes(e.ipc_handle()); })
      .def_property_readonly("cuda_event", &cuda::Event::cuda_event)
      .def("__repr__", [](const cuda::Event& e) {
        if (!e.is_created()) return std::string("<torch.cuda.Event uninitialized>");
        return "<torch.cuda.Event " + hex(e.cuda_event()) + ">";
      });
}

void bind_memory(py::module_& m) {
  auto dev = py::arg("device") = py::none();
  m.def("memory_allocated", [](py::handle d) { return cuda::memory_allocated(to_device_arg(d)); }, dev);
  m.def("max_memory_allocated", [](py::handle d) { return cuda::max_memory_allocated(to_device_arg(d)); }, dev);
  m.def("memory_reserved", [](py::handle d) { return cuda::memory_reserved(to_device_arg(d)); }, dev);
  m.def("max_memory_reserved", [](py::handle d) { return cuda::max_memory_reserved(to_device_arg(d)); }, dev);
  m.def("reset_peak_memory_stats", [](py::handle d) { cuda::reset_peak_memory_stats(to_device_arg(d)); }, dev);
  m.def("reset_accumulated_memory_stats", [](py::handle d) { cuda::reset_accumulated_memory_stats(to_device_arg(d)); }, dev);
  m.def("memory_stats", [](py::handle d) { return cuda::memory_stats(to_device_arg(d)); }, dev);
  m.def("empty_cache", [] {
    py::gil_scoped_release release;
    cuda::empty_cache();
  });
  m.def("set_per_process_memory_fraction", [](double f, py::handle d) {
    cuda::set_per_process_memory_fraction(f, to_device_arg(d));
  }, py::arg("fraction"), dev);
  m.def("get_per_process_memory_fraction", [](py::handle d) {
    return cuda::get_per_process_memory_fraction(to_device_arg(d));
  }, dev);
  m.def("get_allocator_backend", &cuda::get_allocator_backend);
  m.def("memory_summary", [](py::handle d, bool abbreviated) { return cuda::memory_summary(to_device_arg(d), abbreviated); },
        dev, py::arg("abbreviated") = false);
  m.def("list_gpu_processes", [](py::handle d) { return cuda::list_gpu_processes(to_device_arg(d)); }, dev);
  m.def("host_memory_stats", &cuda::host_memory_stats);
  m.def("host_empty_cache", &cuda::host_empty_cache);
  m.def("caching_allocator_alloc", [](int64_t size, py::handle d, std::optional<cuda::Stream> s) {
    std::optional<Stream> raw;
    if (s) raw = s->unwrap();
    return reinterpret_cast<uintptr_t>(cuda::caching_allocator_alloc(size, to_device_arg(d), raw));
  }, py::arg("size"), dev, py::arg("stream") = py::none());
  m.def("caching_allocator_delete", [](uintptr_t p) { cuda::caching_allocator_delete(reinterpret_cast<void*>(p)); });
  m.def("_record_memory_history", [](std::optional<std::string> enabled, std::optional<std::string> context,
                                     const std::string& stacks, size_t max_entries) {
    cuda::memory::record_memory_history(enabled, context, stacks, max_entries);
  }, py::arg("enabled") = "all", py::arg("context") = "all", py::arg("stacks") = "all",
     py::arg("max_entries") = std::numeric_limits<size_t>::max());
  m.def("_snapshot_json", [] { return cuda::memory::snapshot_json(cuda::memory::snapshot()); });
  m.def("_dump_snapshot", &cuda::memory::dump_snapshot, py::arg("filename") = "dump_snapshot.pickle");
}

void bind_random(py::module_& m) {
  auto seed_of = [](py::int_ s) { return static_cast<uint64_t>(PyLong_AsUnsignedLongLongMask(s.ptr())); };
  m.def("manual_seed", [seed_of](py::int_ s) { cuda::manual_seed(seed_of(s)); });
  m.def("manual_seed_all", [seed_of](py::int_ s) { cuda::manual_seed_all(seed_of(s)); });
  m.def("seed", &cuda::seed);
  m.def("seed_all", &cuda::seed_all);
  m.def("initial_seed", &cuda::initial_seed);
  m.def("get_rng_state", [](py::handle d) { return cuda::get_rng_state(to_device_arg(d)); },
        py::arg("device") = "cuda");
  m.def("set_rng_state", [](const Tensor& s, py::handle d) { cuda::set_rng_state(s, to_device_arg(d)); },
        py::arg("new_state"), py::arg("device") = "cuda");
  m.def("get_rng_state_all", &cuda::get_rng_state_all);
  m.def("set_rng_state_all", [](py::handle states) { cuda::set_rng_state_all(tensors(states)); });
  m.def("default_generator", &cuda::default_generator);
}

void bind_comm(py::module_& m) {
  m.def("broadcast", [](const Tensor& t, py::handle devices) {
    auto d = device_args(devices);
    py::gil_scoped_release release;
    return cuda::comm::broadcast(t, d);
  });
  m.def("broadcast_coalesced", [](py::handle ts, py::handle devices, size_t buffer_size) {
    auto t = tensors(ts);
    auto d = device_args(devices);
    py::gil_scoped_release release;
    return cuda::comm::broadcast_coalesced(t, d, buffer_size);
  }, py::arg("tensors"), py::arg("devices"), py::arg("buffer_size") = cuda::comm::kDefaultBufferSize);
  m.def("reduce_add", [](py::handle ts, py::handle destination) {
    auto t = tensors(ts);
    DeviceArg d = to_device_arg(destination);
    py::gil_scoped_release release;
    return cuda::comm::reduce_add(t, d);
  }, py::arg("inputs"), py::arg("destination") = py::none());
  m.def("scatter", [](const Tensor& t, py::handle devices, std::optional<std::vector<int64_t>> chunk_sizes, int64_t dim) {
    auto d = device_args(devices);
    py::gil_scoped_release release;
    return cuda::comm::scatter(t, d, chunk_sizes, dim);
  }, py::arg("tensor"), py::arg("devices"), py::arg("chunk_sizes") = py::none(), py::arg("dim") = 0);
  m.def("gather", [](py::handle ts, int64_t dim, py::handle destination) {
    auto t = tensors(ts);
    std::optional<Device> d;
    if (PyLong_Check(destination.ptr())) d = Device(kCUDA, static_cast<DeviceIndex>(destination.cast<int>()));
    else d = to_opt_device(destination);
    py::gil_scoped_release release;
    return cuda::comm::gather(t, dim, d);
  }, py::arg("tensors"), py::arg("dim") = 0, py::arg("destination") = py::none());
}

void bind_nvtx_graphs_jit(py::module_& m) {
  m.def("nvtx_mark", &cuda::nvtx::mark);
  m.def("nvtx_range_push", &cuda::nvtx::range_push);
  m.def("nvtx_range_pop", &cuda::nvtx::range_pop);
  m.def("nvtx_range_start", &cuda::nvtx::range_start);
  m.def("nvtx_range_end", &cuda::nvtx::range_end);

  py::class_<cuda::CUDAGraph>(m, "CUDAGraph")
      .def(py::init<>())
      .def("capture_begin", [](cuda::CUDAGraph& g, std::optional<cuda::MempoolId> pool, const std::string& mode) {
        g.capture_begin(pool.value_or(cuda::MempoolId{}), cuda::capture_error_mode(mode));
      }, py::arg("pool") = py::none(), py::arg("capture_error_mode") = "global")
      .def("capture_end", &cuda::CUDAGraph::capture_end)
      .def("replay", [](cuda::CUDAGraph& g) {
        py::gil_scoped_release release;
        g.replay();
      })
      .def("reset", &cuda::CUDAGraph::reset)
      .def("pool", &cuda::CUDAGraph::pool)
      .def("enable_debug_mode", &cuda::CUDAGraph::enable_debug_mode)
      .def("debug_dump", &cuda::CUDAGraph::debug_dump);
  m.def("graph_pool_handle", &cuda::graph_pool_handle);
  m.def("is_current_stream_capturing", &cuda::is_current_stream_capturing);

  py::class_<cuda::jiterator::JitFunction>(m, "_JitFunction")
      .def("__call__", [](const cuda::jiterator::JitFunction& f, const py::args& args, const py::kwargs& kwargs) -> py::object {
        std::vector<Tensor> inputs;
        for (py::handle a : args) inputs.push_back(as_tensor(a, "jiterator input"));
        cuda::jiterator::Kwargs kw;
        for (auto [k, v] : kwargs) kw.emplace_back(std::string(py::str(k)), to_scalar(v));
        if (f.num_outputs() == 1) return no_gil([&] { return f(inputs, kw); });
        std::vector<Tensor> outs;
        {
          py::gil_scoped_release release;
          outs = f.call(inputs, kw);
        }
        return py::tuple(py::cast(outs));
      });
  auto kwargs_of = [](const py::kwargs& kwargs) {
    cuda::jiterator::Kwargs kw;
    for (auto [k, v] : kwargs) kw.emplace_back(std::string(py::str(k)), to_scalar(v));
    return kw;
  };
  m.def("create_jit_fn", [kwargs_of](const std::string& code, const py::kwargs& kwargs) {
    return cuda::jiterator::create_jit_fn(code, kwargs_of(kwargs));
  });
  m.def("create_multi_output_jit_fn", [kwargs_of](const std::string& code, int64_t n, const py::kwargs& kwargs) {
    return cuda::jiterator::create_multi_output_jit_fn(code, n, kwargs_of(kwargs));
  });

  m.def("matmul_allow_tf32", &backends::cuda::matmul::allow_tf32);
  m.def("set_matmul_allow_tf32", &backends::cuda::matmul::set_allow_tf32);
  m.def("cudnn_allow_tf32", &backends::cudnn::allow_tf32);
  m.def("set_cudnn_allow_tf32", &backends::cudnn::set_allow_tf32);
  m.def("cudnn_enabled", &backends::cudnn::enabled);
  m.def("set_cudnn_enabled", &backends::cudnn::set_enabled);
  m.def("cudnn_benchmark", &backends::cudnn::benchmark);
  m.def("set_cudnn_benchmark", &backends::cudnn::set_benchmark);
  m.def("cudnn_deterministic", &backends::cudnn::deterministic);
  m.def("set_cudnn_deterministic", &backends::cudnn::set_deterministic);
  m.def("cudnn_is_available", &backends::cudnn::is_available);
  m.def("cudnn_version", &backends::cudnn::version);
  m.def("get_float32_matmul_precision", &get_float32_matmul_precision);
  m.def("set_float32_matmul_precision", &set_float32_matmul_precision);
}

// A Python callable of tensors as a C++ TensorFunction (called with the GIL taken).
cuda::TensorFunction tensor_function(py::object fn) {
  auto holder = std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
  return [holder](const std::vector<Tensor>& inputs) {
    py::gil_scoped_acquire gil;
    py::tuple args(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) args[i] = wrap(inputs[i]);
    py::object r = (*holder)(*args);
    std::vector<Tensor> out;
    if (is_tensor(r)) {
      out.push_back(as_tensor(r));
    } else {
      for (py::handle h : r) out.push_back(as_tensor(h, "graphed callable output"));
    }
    return out;
  };
}

// A graphed TensorFunction as a Python callable: one tensor out, or a tuple.
py::object python_function(cuda::TensorFunction fn, bool single_output) {
  return py::cpp_function([fn, single_output](const py::args& args) -> py::object {
    std::vector<Tensor> inputs;
    for (py::handle a : args) inputs.push_back(as_tensor(a, "graphed callable input"));
    std::vector<Tensor> out;
    {
      py::gil_scoped_release release;
      out = fn(inputs);
    }
    if (single_output && out.size() == 1) return wrap(out[0]);
    return py::tuple(py::cast(out));
  });
}

void bind_extras(py::module_& m) {
  m.def("current_blas_handle", [] { return reinterpret_cast<uintptr_t>(cuda::current_blas_handle()); });
  m.def("ipc_collect", &cuda::ipc_collect);
  py::class_<cuda::memory::CUDAPluggableAllocator>(m, "CUDAPluggableAllocator")
      .def(py::init<const std::string&, const std::string&, const std::string&>(), py::arg("path_to_so_file"),
           py::arg("alloc_fn_name"), py::arg("free_fn_name"));
  m.def("change_current_allocator", &cuda::memory::change_current_allocator);
  // make_graphed_callables of functions of tensors and of Python nn.Modules (torch.cuda.graphs'
  // make_graphed_callables: a module comes back with its forward replaced, running the graphs while
  // its training flag is as at capture and its original forward otherwise).
  m.def("make_graphed_callables", [](py::object callables, py::object sample_args, int num_warmup_iters,
                                     bool allow_unused_input) -> py::object {
    const bool single = !py::isinstance<py::tuple>(callables);
    py::tuple fns = single ? py::make_tuple(callables) : py::reinterpret_borrow<py::tuple>(callables);
    py::tuple samples = single ? py::make_tuple(sample_args) : py::reinterpret_borrow<py::tuple>(sample_args);
    std::vector<cuda::GraphableCallable> cs;
    std::vector<std::vector<Tensor>> args;
    std::vector<std::shared_ptr<nn::Module>> proxies(fns.size());  // the C++ view of each Python module
    for (size_t i = 0; i < fns.size(); ++i) {
      std::vector<Tensor> a;
      py::object sample = samples[i];
      if (is_tensor(sample)) a.push_back(as_tensor(sample));
      else for (py::handle h : sample) a.push_back(as_tensor(h, "sample_args"));
      if (!py::hasattr(fns[i], "parameters")) {
        cs.emplace_back(tensor_function(fns[i]));
      } else {
        py::object module = fns[i];
        auto hooks = [&](const char* name) { return py::hasattr(module, name) ? py::len(module.attr(name)) : 0; };
        if (hooks("_backward_hooks") || hooks("_forward_hooks") || hooks("_forward_pre_hooks"))
          throw py::value_error("Modules must not have hooks registered at the time they are passed. However, "
                                "registering hooks on modules after passing them through make_graphed_callables is "
                                "allowed.");
        // Its parameters and buffers, the same tensors, in a C++ module the graphs read.
        auto proxy = std::make_shared<nn::Module>(py::str(module.attr("__class__").attr("__name__")));
        size_t k = 0;
        for (py::handle t : module.attr("parameters")()) {
          const Tensor p = as_tensor(t, "parameter");
          proxy->register_parameter("p" + std::to_string(k++), p, p.requires_grad());
        }
        k = 0;
        for (py::handle t : module.attr("buffers")()) {
          const Tensor b = as_tensor(t, "buffer");
          if (b.requires_grad())
            throw py::value_error("In any :class:`~torch.nn.Module` passed to :func:`~make_graphed_callables`, "
                                  "only parameters may be trainable. All buffers must have ``requires_grad=False``.");
          proxy->register_buffer("b" + std::to_string(k++), b);
        }
        proxy->train(module.attr("training").cast<bool>());
        proxies[i] = proxy;
        // The graphs call it with the sample arguments followed by the parameters: forward takes the former.
        const size_t n = a.size();
        cuda::TensorFunction forward = tensor_function(module);
        cs.emplace_back(*proxy, [forward, n](const std::vector<Tensor>& inputs) {
          return forward(std::vector<Tensor>(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(n)));
        });
      }
      args.push_back(std::move(a));
    }
    std::vector<cuda::TensorFunction> graphed;
    {
      py::gil_scoped_release release;
      graphed = cuda::make_graphed_callables(cs, args, num_warmup_iters, allow_unused_input);
    }
    py::tuple out(graphed.size());
    for (size_t i = 0; i < graphed.size(); ++i) {
      py::object fn = python_function(graphed[i], true);
      if (proxies[i] == nullptr) {
        out[i] = fn;
        continue;
      }
      py::object module = fns[i];
      const bool training_at_capture = module.attr("training").cast<bool>();
      // The class's forward and a weak reference: the new forward lives in the module's __dict__,
      // and a strong reference from a C++ closure would be a cycle Python's collector cannot see.
      py::object class_forward = py::type::of(module).attr("forward");
      py::weakref weak_module(module);
      std::shared_ptr<nn::Module> proxy = proxies[i];  // the graphs read it as long as they replay
      module.attr("forward") = py::cpp_function([weak_module, fn, class_forward, training_at_capture,
                                                 proxy](const py::args& a) -> py::object {
        py::object self = weak_module();
        if (self.attr("training").cast<bool>() == training_at_capture) return fn(*a);
        return class_forward(self, *a);
      });
      out[i] = module;
    }
    return single ? py::object(out[0]) : py::object(out);
  }, py::arg("callables"), py::arg("sample_args"), py::arg("num_warmup_iters") = 3,
     py::arg("allow_unused_input") = false);
}

}  // namespace

void bind_cuda(py::module_& m) {
  bind_extras(m);
  bind_devices(m);
  bind_streams(m);
  bind_memory(m);
  bind_random(m);
  bind_comm(m);
  bind_nvtx_graphs_jit(m);
  m.def("emulate", [](int n) { cuda::emulate(n); });
}

}  // namespace ctorch::api::python
