// torch.distributed's C++ side (ctorch._C._distributed): process groups (Gloo on cpu and emulated
// devices) and the collectives; the Python module ctorch.distributed spells them as PyTorch does.
// Also DDP's Reducer (ctorch/nn_reducer.h), which ctorch.nn.parallel.DistributedDataParallel drives.
#include <pybind11/chrono.h>

#include "bindings.h"
#include "ctorch/distributed.h"
#include "ctorch/nn_reducer.h"

namespace ctorch::inline api::python {
namespace {

namespace dist = ctorch::distributed;
using Group = std::shared_ptr<dist::ProcessGroup>;

Group group_of(py::handle h) { return h.is_none() ? nullptr : h.cast<Group>(); }

// A collective's result: None when it ran synchronously, else its Work (async_op=True).
py::object finish(std::shared_ptr<dist::Work> work, bool async_op) {
  if (async_op) return py::cast(std::move(work));
  return py::none();
}

std::vector<Tensor> tensors(py::handle seq) {
  std::vector<Tensor> out;
  for (py::handle h : seq) out.push_back(as_tensor(h, "tensor_list"));
  return out;
}

}  // namespace

void bind_distributed(py::module_& m) {
  py::enum_<dist::ReduceOp>(m, "ReduceOp")
      .value("SUM", dist::ReduceOp::SUM)
      .value("PRODUCT", dist::ReduceOp::PRODUCT)
      .value("MIN", dist::ReduceOp::MIN)
      .value("MAX", dist::ReduceOp::MAX)
      .value("AVG", dist::ReduceOp::AVG);
  py::class_<dist::Work, std::shared_ptr<dist::Work>>(m, "Work")
      .def("wait", [](dist::Work& w, std::optional<double> timeout) {
        std::optional<std::chrono::milliseconds> t;
        if (timeout) t = std::chrono::milliseconds(static_cast<int64_t>(*timeout * 1000));
        py::gil_scoped_release release;
        return w.wait(t);
      }, py::arg("timeout") = py::none())
      .def("is_completed", &dist::Work::is_completed)
      .def("is_success", &dist::Work::is_success);
  py::class_<dist::ProcessGroup, Group>(m, "ProcessGroup")
      .def("rank", &dist::ProcessGroup::rank)
      .def("size", &dist::ProcessGroup::size)
      .def("name", &dist::ProcessGroup::backend_name);
  using nn::parallel::Reducer;
  py::class_<Reducer, std::shared_ptr<Reducer>>(m, "Reducer")
      .def(py::init([](py::handle params, std::vector<std::string> names, py::handle g, double bucket_cap_mb,
                       bool find_unused_parameters, bool gradient_as_bucket_view) {
        std::vector<Tensor> ps = tensors(params);
        Group group = g.is_none() ? dist::default_group() : g.cast<Group>();
        py::gil_scoped_release release;  // the constructor all-gathers the parameter counts
        return std::make_shared<Reducer>(std::move(ps), std::move(names), std::move(group), bucket_cap_mb,
                                         find_unused_parameters, gradient_as_bucket_view);
      }), py::arg("params"), py::arg("names"), py::arg("process_group") = py::none(), py::arg("bucket_cap_mb") = 25.0,
         py::arg("find_unused_parameters") = false, py::arg("gradient_as_bucket_view") = false)
      .def("_ensure_prior_reduction_finished", &Reducer::ensure_prior_reduction_finished)
      .def("prepare_for_backward", [](Reducer& r, py::handle outputs) { r.prepare_for_backward(tensors(outputs)); },
           py::arg("outputs"))
      .def("_get_bucket_indices", &Reducer::bucket_indices);
  m.def("init_process_group", [](const std::string& backend, std::optional<std::string> init_method, int world_size,
                                 int rank, std::optional<double> timeout_s) {
    auto timeout = timeout_s ? std::chrono::milliseconds(static_cast<int64_t>(*timeout_s * 1000))
                             : dist::kDefaultTimeout;
    py::gil_scoped_release release;
    dist::init_process_group(backend, init_method.value_or(""), world_size, rank, timeout);
  }, py::arg("backend") = "gloo", py::arg("init_method") = py::none(), py::arg("world_size") = -1,
     py::arg("rank") = -1, py::arg("timeout") = py::none());
  m.def("destroy_process_group", [] {
    py::gil_scoped_release release;
    dist::destroy_process_group();
  });
  m.def("is_initialized", &dist::is_initialized);
  m.def("_default_group", &dist::default_group);
  m.def("is_gloo_available", &dist::is_gloo_available);
  m.def("is_nccl_available", &dist::is_nccl_available);
  m.def("get_rank", [](py::handle g) { return dist::get_rank(group_of(g)); }, py::arg("group") = py::none());
  m.def("get_world_size", [](py::handle g) { return dist::get_world_size(group_of(g)); }, py::arg("group") = py::none());
  m.def("get_backend", [](py::handle g) { return dist::get_backend(group_of(g)); }, py::arg("group") = py::none());
  m.def("new_group", [](std::optional<std::vector<int>> ranks) { return dist::new_group(ranks.value_or(std::vector<int>{})); },
        py::arg("ranks") = py::none());
  m.def("all_reduce", [](const Tensor& t, dist::ReduceOp op, py::handle g, bool async_op) {
    Group group = group_of(g);
    std::shared_ptr<dist::Work> w;
    {
      py::gil_scoped_release release;
      w = dist::all_reduce(t, op, group, async_op);
    }
    return finish(std::move(w), async_op);
  }, py::arg("tensor"), py::arg("op") = dist::ReduceOp::SUM, py::arg("group") = py::none(), py::arg("async_op") = false);
  m.def("broadcast", [](const Tensor& t, int src, py::handle g, bool async_op) {
    Group group = group_of(g);
    std::shared_ptr<dist::Work> w;
    {
      py::gil_scoped_release release;
      w = dist::broadcast(t, src, group, async_op);
    }
    return finish(std::move(w), async_op);
  }, py::arg("tensor"), py::arg("src"), py::arg("group") = py::none(), py::arg("async_op") = false);
  m.def("all_gather", [](py::handle tensor_list, const Tensor& t, py::handle g, bool async_op) {
    std::vector<Tensor> outs = tensors(tensor_list);
    Group group = group_of(g);
    std::shared_ptr<dist::Work> w;
    {
      py::gil_scoped_release release;
      w = dist::all_gather(outs, t, group, async_op);
    }
    return finish(std::move(w), async_op);
  }, py::arg("tensor_list"), py::arg("tensor"), py::arg("group") = py::none(), py::arg("async_op") = false);
  m.def("reduce_scatter", [](const Tensor& out, py::handle input_list, dist::ReduceOp op, py::handle g, bool async_op) {
    std::vector<Tensor> ins = tensors(input_list);
    Group group = group_of(g);
    std::shared_ptr<dist::Work> w;
    {
      py::gil_scoped_release release;
      w = dist::reduce_scatter(out, ins, op, group, async_op);
    }
    return finish(std::move(w), async_op);
  }, py::arg("output"), py::arg("input_list"), py::arg("op") = dist::ReduceOp::SUM, py::arg("group") = py::none(),
     py::arg("async_op") = false);
  m.def("barrier", [](py::handle g, bool async_op) {
    Group group = group_of(g);
    std::shared_ptr<dist::Work> w;
    {
      py::gil_scoped_release release;
      w = dist::barrier(group, async_op);
    }
    return finish(std::move(w), async_op);
  }, py::arg("group") = py::none(), py::arg("async_op") = false);
}

}  // namespace ctorch::api::python
