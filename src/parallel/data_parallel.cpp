// DataParallel and its pieces (torch/nn/parallel/{data_parallel,scatter_gather,replicate,
// parallel_apply}.py). Scatter, broadcast and gather are built from recorded ops (chunk, to, cat),
// so backward sends every replica's gradient to the original parameters through ToCopyBackward0.
#include "ctorch/nn_parallel.h"

#include <exception>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "core/error_rethrow.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/error.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ctorch/warning.h"

namespace ctorch::nn::parallel {

namespace {

Device cuda_device(int index) { return Device(DeviceType::CUDA, static_cast<DeviceIndex>(index)); }

/// Rethrows `error` with PyTorch's ExceptionWrapper text, keeping its ctorch type (Note [Rethrow with the
/// original type], core/error_rethrow.h).
[[noreturn]] void reraise(const std::exception_ptr& error, size_t replica, int device) {
  ::ctorch::detail::rethrow_with_message(error, [&](const char* type, const char* what) {
    return ::ctorch::detail::str_cat("Caught ", type, " in replica ", replica, " on device ", device,
                                     ".\nOriginal error: ", what);
  });
}

}  // namespace

namespace detail {

std::vector<int> device_indices(const std::vector<cuda::DeviceArg>& devices) {
  std::vector<int> out;
  for (const cuda::DeviceArg& d : devices) {
    const int index = d.resolve();
    CTORCH_CHECK(index >= 0, "Expected non-negative device index, but got ", index);
    out.push_back(index);
  }
  return out;
}

std::vector<std::shared_ptr<Module>> replicate_module(const Module& module, const std::vector<cuda::DeviceArg>& devices,
                                                      bool detach) {
  const std::vector<int> indices = device_indices(devices);
  if (indices.empty()) return {};
  for (const auto& [name, t] : module.named_parameters()) {
    CTORCH_CHECK(t.get_device() == indices[0], "All tensors must be on devices[0]: ", indices[0],
                 " (parameter '", name, "' is on ", t.device().str(), ")");
  }
  for (const auto& [name, t] : module.named_buffers()) {
    CTORCH_CHECK(t.get_device() == indices[0], "All tensors must be on devices[0]: ", indices[0], " (buffer '", name,
                 "' is on ", t.device().str(), ")");
  }
  std::vector<std::shared_ptr<Module>> replicas;
  for (size_t i = 0; i < indices.size(); ++i) {
    // One copy per original tensor, so tied parameters stay tied in every replica.
    std::unordered_map<const TensorImpl*, Tensor> copies;
    const Device device = cuda_device(indices[i]);
    auto map = [&](const Tensor& t, bool is_parameter) -> Tensor {
      if (i == 0) return t;  // replica 0 shares the originals (broadcast's source stays itself)
      auto [it, inserted] = copies.try_emplace(t.impl());
      if (inserted) {
        const bool differentiable = !detach && t.requires_grad() && (is_parameter || GradMode::is_enabled());
        it->second = differentiable ? t.to(device, /*non_blocking=*/true) : t.detach().to(device, /*non_blocking=*/true);
      }
      return it->second;
    };
    replicas.push_back(module.replicate_with(map));
  }
  return replicas;
}

void run_replicas(size_t n, const std::vector<int>& devices, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  // The caller's thread-local state each replica runs under (parallel_apply.py).
  const bool grad_enabled = GradMode::is_enabled();
  std::vector<cuda::Stream> streams;
  for (size_t i = 0; i < n; ++i) streams.push_back(cuda::current_stream(devices[i]));
  std::vector<std::exception_ptr> errors(n);
  auto worker = [&](size_t i) {
    try {
      AutoGradMode grad_mode(grad_enabled);
      cuda::StreamContext on_stream(streams[i]);
      body(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  if (n == 1) {
    worker(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (size_t i = 0; i < n; ++i) threads.emplace_back(worker, i);
    for (std::thread& t : threads) t.join();
  }
  for (size_t i = 0; i < n; ++i) {
    if (errors[i]) reraise(errors[i], i, devices[i]);
  }
}

}  // namespace detail

std::vector<Tensor> scatter(const Tensor& input, const std::vector<cuda::DeviceArg>& devices, int64_t dim) {
  CTORCH_CHECK(input.defined(), "scatter: expected a defined tensor");
  const std::vector<int> indices = detail::device_indices(devices);
  CTORCH_CHECK(!indices.empty(), "Expected at least one device to scatter to");
  std::vector<Tensor> pieces = input.chunk(static_cast<int64_t>(indices.size()), dim);
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (pieces[i].get_device() != indices[i]) pieces[i] = pieces[i].to(cuda_device(indices[i]), /*non_blocking=*/true);
  }
  return pieces;
}

std::vector<std::vector<Tensor>> scatter(const std::vector<Tensor>& inputs, const std::vector<cuda::DeviceArg>& devices,
                                         int64_t dim) {
  if (inputs.empty()) return std::vector<std::vector<Tensor>>(devices.size());  // [()] * len(devices)
  std::vector<std::vector<Tensor>> per_input;
  size_t count = devices.size();
  for (const Tensor& t : inputs) {
    per_input.push_back(scatter(t, devices, dim));
    count = std::min(count, per_input.back().size());  // zip truncates to the fewest pieces
  }
  std::vector<std::vector<Tensor>> out(count);
  for (size_t i = 0; i < count; ++i) {
    for (const auto& pieces : per_input) out[i].push_back(pieces[i]);
  }
  return out;
}

std::vector<std::map<std::string, Tensor>> scatter(const std::map<std::string, Tensor>& inputs,
                                                   const std::vector<cuda::DeviceArg>& devices, int64_t dim) {
  if (inputs.empty()) return std::vector<std::map<std::string, Tensor>>(devices.size());
  std::vector<std::string> keys;
  std::vector<Tensor> values;
  for (const auto& [k, v] : inputs) {
    keys.push_back(k);
    values.push_back(v);
  }
  std::vector<std::map<std::string, Tensor>> out;
  for (const auto& tuple : scatter(values, devices, dim)) {
    std::map<std::string, Tensor> m;
    for (size_t j = 0; j < keys.size(); ++j) m.emplace(keys[j], tuple[j]);
    out.push_back(std::move(m));
  }
  return out;
}

Tensor gather(const std::vector<Tensor>& outputs, Device target_device, int64_t dim) {
  CTORCH_CHECK(!outputs.empty(), "Expected at least one tensor to gather from");
  bool all_scalars = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    CTORCH_CHECK(outputs[i].defined() && outputs[i].is_cuda(), "Gather function not implemented for CPU tensors (output ",
                 i, " is on ", outputs[i].defined() ? outputs[i].device().str() : std::string("undefined"), ")");
    all_scalars = all_scalars && outputs[i].dim() == 0;
  }
  CTORCH_CHECK(target_device.is_cpu() || target_device.is_cuda(), "gather: expected a cuda or cpu target device, but got ",
               target_device.str());
  if (target_device.is_cuda() && !target_device.has_index()) target_device = cuda_device(cuda::current_device());
  std::vector<Tensor> moved;
  for (const Tensor& t : outputs) {
    Tensor piece = all_scalars && dim == 0 ? t.view({1}) : t;
    moved.push_back(piece.to(target_device, /*non_blocking=*/target_device.is_cuda()));
  }
  if (all_scalars && dim == 0) {
    warn("Was asked to gather along dimension 0, but all input tensors were scalars; will instead unsqueeze and "
         "return a vector.");
  }
  return cat(moved, dim);
}

std::vector<Tensor> gather(const std::vector<std::vector<Tensor>>& outputs, Device target_device, int64_t dim) {
  CTORCH_CHECK(!outputs.empty(), "Expected at least one output to gather from");
  size_t count = outputs[0].size();
  for (const auto& tuple : outputs) count = std::min(count, tuple.size());
  std::vector<Tensor> out;
  for (size_t j = 0; j < count; ++j) {
    std::vector<Tensor> column;
    for (const auto& tuple : outputs) column.push_back(tuple[j]);
    out.push_back(gather(column, target_device, dim));
  }
  return out;
}

std::map<std::string, Tensor> gather(const std::vector<std::map<std::string, Tensor>>& outputs, Device target_device,
                                     int64_t dim) {
  CTORCH_CHECK(!outputs.empty(), "Expected at least one output to gather from");
  for (const auto& m : outputs) CTORCH_CHECK_VALUE(m.size() == outputs[0].size(), "All dicts must have the same number of keys");
  std::map<std::string, Tensor> out;
  for (const auto& [key, first] : outputs[0]) {
    std::vector<Tensor> column;
    for (const auto& m : outputs) {
      auto it = m.find(key);
      CTORCH_CHECK_VALUE(it != m.end(), "All dicts must have the same keys; '", key, "' is missing from one");
      column.push_back(it->second);
    }
    out.emplace(key, gather(column, target_device, dim));
  }
  return out;
}

std::vector<Tensor> parallel_apply(const std::vector<std::shared_ptr<UnaryModule>>& replicas,
                                   const std::vector<Tensor>& inputs, const std::vector<cuda::DeviceArg>& devices) {
  return parallel_apply(replicas, inputs, devices, [](UnaryModule& m, const Tensor& x) { return m.forward(x); });
}

Tensor data_parallel(const std::shared_ptr<UnaryModule>& module, const Tensor& input,
                     std::vector<cuda::DeviceArg> device_ids, std::optional<Device> output_device, int64_t dim) {
  CTORCH_CHECK(module != nullptr, "data_parallel: module is null");
  if (device_ids.empty()) {
    for (int i = 0; i < cuda::device_count(); ++i) device_ids.emplace_back(i);
  }
  if (device_ids.empty()) return module->forward(input);  // no cuda: the module runs as is
  const std::vector<int> indices = detail::device_indices(device_ids);
  const Device src = cuda_device(indices[0]);
  const Device target = output_device.value_or(src);
  auto check_on_src = [&](const Tensor& t) {
    CTORCH_CHECK(t.device() == src, "module must have its parameters and buffers on device ", src.str(),
                 " (device_ids[0]) but found one of them on device: ", t.device().str());
  };
  for (const Tensor& p : module->parameters()) check_on_src(p);
  for (const Tensor& b : module->buffers()) check_on_src(b);
  std::vector<Tensor> inputs = scatter(input, device_ids, dim);
  if (indices.size() == 1) return module->forward(inputs[0]);
  const std::vector<cuda::DeviceArg> used(device_ids.begin(), device_ids.begin() + static_cast<std::ptrdiff_t>(inputs.size()));
  const auto replicas = replicate(module, used, /*detach=*/!GradMode::is_enabled());
  return gather(parallel_apply(replicas, inputs, used), target, dim);
}

}  // namespace ctorch::nn::parallel
