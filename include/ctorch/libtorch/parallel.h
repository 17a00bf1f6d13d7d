// libtorch's multi-device spellings: torch::cuda::{broadcast, scatter, gather, ...}
// (torch/csrc/cuda/comm.h), torch::autograd::{Scatter, Gather}, torch::nn::Cloneable and
// torch::nn::parallel::{replicate, parallel_apply, data_parallel} with libtorch 1.13's semantics:
// the module may live anywhere, every device gets a replica whose gradients flow back to it.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "ctorch/cuda_comm.h"
#include "ctorch/libtorch/nn.h"
#include "ctorch/nn_parallel.h"

namespace torch::cuda {

namespace detail {
/// IntArrayRef device indices as DeviceArgs.
inline std::vector<::ctorch::cuda::DeviceArg> device_args(::ctorch::IntArrayRef devices) {
  std::vector<::ctorch::cuda::DeviceArg> out;
  for (int64_t d : devices) out.emplace_back(static_cast<int>(d));
  return out;
}
}  // namespace detail

/// One tensor per device (the source itself on its own device).
inline std::vector<::ctorch::Tensor> broadcast(const ::ctorch::Tensor& tensor, ::ctorch::IntArrayRef devices) {
  return ::ctorch::cuda::comm::broadcast(tensor, detail::device_args(devices));
}
/// Copies `tensor` into every tensor of `out_tensors`.
inline std::vector<::ctorch::Tensor>& broadcast_out(const ::ctorch::Tensor& tensor, std::vector<::ctorch::Tensor>& out_tensors) {
  ::ctorch::cuda::comm::broadcast_out(tensor, out_tensors);
  return out_tensors;
}
/// Broadcasts `tensors` in chunks of at most `buffer_size` bytes.
inline std::vector<std::vector<::ctorch::Tensor>> broadcast_coalesced(const std::vector<::ctorch::Tensor>& tensors,
                                                                      ::ctorch::IntArrayRef devices, size_t buffer_size) {
  return ::ctorch::cuda::comm::broadcast_coalesced(tensors, detail::device_args(devices), buffer_size);
}
/// Splits `tensor` along `dim` over `devices`.
inline std::vector<::ctorch::Tensor> scatter(
    const ::ctorch::Tensor& tensor, ::ctorch::IntArrayRef devices,
    const std::optional<std::vector<int64_t>>& chunk_sizes = std::nullopt, int64_t dim = 0,
    const std::optional<std::vector<std::optional<::ctorch::cuda::Stream>>>& streams = std::nullopt) {
  return ::ctorch::cuda::comm::scatter(tensor, detail::device_args(devices), chunk_sizes, dim, streams.value_or(
      std::vector<std::optional<::ctorch::cuda::Stream>>{}));
}
/// Splits `tensor` into `out_tensors` along `dim`.
inline std::vector<::ctorch::Tensor>& scatter_out(
    const ::ctorch::Tensor& tensor, std::vector<::ctorch::Tensor>& out_tensors, int64_t dim = 0,
    const std::optional<std::vector<std::optional<::ctorch::cuda::Stream>>>& streams = std::nullopt) {
  ::ctorch::cuda::comm::scatter_out(tensor, out_tensors, dim,
                                    streams.value_or(std::vector<std::optional<::ctorch::cuda::Stream>>{}));
  return out_tensors;
}
/// Concatenates on cuda:`destination_index` (-1: the cpu; none: the current device).
inline ::ctorch::Tensor gather(const std::vector<::ctorch::Tensor>& tensors, int64_t dim,
                               std::optional<int32_t> destination_index) {
  if (!destination_index) return ::ctorch::cuda::comm::gather(tensors, dim);
  if (*destination_index == -1) return ::ctorch::cuda::comm::gather(tensors, dim, ::ctorch::Device("cpu"));
  return ::ctorch::cuda::comm::gather(tensors, dim, static_cast<int>(*destination_index));
}
/// Concatenates into `out_tensor`.
inline ::ctorch::Tensor& gather_out(const std::vector<::ctorch::Tensor>& tensors, ::ctorch::Tensor& out_tensor, int64_t dim) {
  ::ctorch::cuda::comm::gather_out(tensors, out_tensor, dim);
  return out_tensor;
}

}  // namespace torch::cuda

namespace torch::autograd {

/// The differentiable scatter function (torch/csrc/autograd/functions/comm.h): apply({input}).
class Scatter {
 public:
  explicit Scatter(std::vector<::ctorch::Device> devices, std::optional<std::vector<int64_t>> chunk_sizes = std::nullopt,
                   int64_t dim = 0)
      : devices_(std::move(devices)), chunk_sizes_(std::move(chunk_sizes)), dim_(dim) {}
  /// The pieces of inputs[0], piece i on devices[i] (chunk() may give fewer).
  ::ctorch::autograd::variable_list apply(::ctorch::autograd::variable_list&& inputs) const {
    CTORCH_CHECK(inputs.size() == 1, "Scatter expects one input, but got ", inputs.size());
    std::vector<::ctorch::Tensor> pieces =
        chunk_sizes_ ? inputs[0].split(::ctorch::IntArrayRef(*chunk_sizes_), dim_)
                     : inputs[0].chunk(static_cast<int64_t>(devices_.size()), dim_);
    for (size_t i = 0; i < pieces.size(); ++i) pieces[i] = pieces[i].to(devices_.at(i), /*non_blocking=*/true);
    return pieces;
  }

 private:
  std::vector<::ctorch::Device> devices_;
  std::optional<std::vector<int64_t>> chunk_sizes_;
  int64_t dim_;
};

/// The differentiable gather function: apply(inputs) is {their concatenation on the destination}.
class Gather {
 public:
  explicit Gather(const ::ctorch::Device& destination_device, int64_t dim = 0)
      : destination_(destination_device), dim_(dim) {}
  /// One tensor: the inputs concatenated along dim on the destination.
  ::ctorch::autograd::variable_list apply(const ::ctorch::autograd::variable_list& inputs) const {
    return {::ctorch::nn::parallel::gather(inputs, destination_, dim_)};
  }

 private:
  ::ctorch::Device destination_;
  int64_t dim_;
};

}  // namespace torch::autograd

namespace torch::nn {

/// libtorch's Cloneable<Derived>: a module whose reset() (re)creates its parameters, buffers and
/// submodules, so that clone() and parallel::replicate can rebuild it.
template <class Derived>
class Cloneable : public ::ctorch::nn::Module {
 public:
  using ::ctorch::nn::Module::Module;
  /// Registers the module's parameters, buffers and submodules.
  virtual void reset() = 0;

 protected:
  std::shared_ptr<::ctorch::nn::Module> shallow_copy() const override {
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->clear_registrations();
    copy->reset();
    return copy;
  }
  bool rebuilds_registrations() const override { return true; }
};

namespace parallel {

/// One replica of `module` per device; gradients of their parameters flow back to the module's.
template <class ModuleType>
std::vector<std::shared_ptr<ModuleType>> replicate(const std::shared_ptr<ModuleType>& module,
                                                   const std::vector<::ctorch::Device>& devices) {
  std::vector<std::shared_ptr<ModuleType>> replicas;
  for (const ::ctorch::Device& device : devices) {
    auto copy = module->replicate_with([&](const ::ctorch::Tensor& t, bool) {
      return t.requires_grad() ? t.to(device, /*non_blocking=*/false, /*copy=*/true)
                               : t.detach().to(device, /*non_blocking=*/false, /*copy=*/true);
    });
    replicas.push_back(std::dynamic_pointer_cast<ModuleType>(copy));
  }
  return replicas;
}
/// replicate() for a module holder.
template <class ModuleType>
std::vector<ModuleHolder<ModuleType>> replicate(const ModuleHolder<ModuleType>& module,
                                                const std::vector<::ctorch::Device>& devices) {
  auto ptrs = replicate(module.ptr(), devices);
  return std::vector<ModuleHolder<ModuleType>>(ptrs.begin(), ptrs.end());
}

/// modules[i]->forward(inputs[i]) in parallel; output i moved to devices[i] (else to inputs[i]'s
/// device). The first failure (in module order) is rethrown as it was thrown.
template <class ModuleType>
std::vector<::ctorch::Tensor> parallel_apply(std::vector<ModuleType>& modules, const std::vector<::ctorch::Tensor>& inputs,
                                             const std::optional<std::vector<::ctorch::Device>>& devices = std::nullopt) {
  CTORCH_CHECK(modules.size() == inputs.size(), "Must have as many inputs as modules");
  if (devices) CTORCH_CHECK(modules.size() == devices->size(), "Must have as many devices as modules");
  std::vector<::ctorch::Tensor> outputs(modules.size());
  std::vector<std::exception_ptr> errors(modules.size());
  const bool grad_enabled = ::ctorch::GradMode::is_enabled();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < modules.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        ::ctorch::AutoGradMode grad_mode(grad_enabled);
        outputs[i] = modules[i]->forward(inputs[i]).to(devices ? (*devices)[i] : inputs[i].device());
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return outputs;
}

/// libtorch's data_parallel: scatter `input` over `devices` (default every cuda device), run a
/// replica per device, gather on `output_device` (default devices[0]).
template <class ModuleType>
::ctorch::Tensor data_parallel(ModuleType module, ::ctorch::Tensor input,
                               std::optional<std::vector<::ctorch::Device>> devices = std::nullopt,
                               std::optional<::ctorch::Device> output_device = std::nullopt, int64_t dim = 0) {
  if (!devices) {
    const int count = ::ctorch::cuda::device_count();
    CTORCH_CHECK(count > 0, "Expected at least one CUDA device to be available");
    devices.emplace();
    for (int i = 0; i < count; ++i) devices->emplace_back(::ctorch::DeviceType::CUDA, static_cast<::ctorch::DeviceIndex>(i));
  }
  if (!output_device) output_device = devices->front();
  if (devices->size() == 1) {
    module->to(devices->front());
    input = input.to(devices->front());
    return module->forward(std::move(input)).to(*output_device);
  }
  const auto inputs = ::torch::autograd::Scatter(*devices, std::nullopt, dim).apply({std::move(input)});
  devices->resize(inputs.size(), ::ctorch::Device(::ctorch::DeviceType::CUDA));
  auto replicas = replicate(module, *devices);
  const auto outputs = parallel_apply(replicas, inputs, *devices);
  return ::torch::autograd::Gather(*output_device, dim).apply(outputs).front();
}

}  // namespace parallel
}  // namespace torch::nn
