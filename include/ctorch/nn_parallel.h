// nn::DataParallel and its pieces (torch.nn.DataParallel, torch.nn.parallel.{replicate, scatter,
// parallel_apply, gather, data_parallel}): one module, a batch split over devices, replicas run in
// parallel and the outputs gathered, with gradients flowing back to the original parameters.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ctorch/cuda.h"
#include "ctorch/nn_layers.h"

namespace ctorch::nn::parallel {

/// Differentiable scatter: `input` split along `dim` with chunk() (maybe fewer pieces than
/// devices), piece i moved to cuda:devices[i] (a view when already there).
std::vector<Tensor> scatter(const Tensor& input, const std::vector<cuda::DeviceArg>& devices, int64_t dim = 0);
/// Scatters each tensor of a tuple; result[i] is device i's tuple (as many as the fewest pieces).
std::vector<std::vector<Tensor>> scatter(const std::vector<Tensor>& inputs, const std::vector<cuda::DeviceArg>& devices,
                                         int64_t dim = 0);
/// Scatters each value of a dict; result[i] is device i's dict.
std::vector<std::map<std::string, Tensor>> scatter(const std::map<std::string, Tensor>& inputs,
                                                   const std::vector<cuda::DeviceArg>& devices, int64_t dim = 0);

/// Differentiable gather: the outputs (all on cuda devices) concatenated along `dim` on
/// `target_device` (a cuda device or the cpu). 0-dim outputs with dim 0 become a vector (warns).
Tensor gather(const std::vector<Tensor>& outputs, Device target_device, int64_t dim = 0);
/// Gathers position by position: outputs[i] is replica i's tuple.
std::vector<Tensor> gather(const std::vector<std::vector<Tensor>>& outputs, Device target_device, int64_t dim = 0);
/// Gathers key by key (every dict must have the same keys).
std::map<std::string, Tensor> gather(const std::vector<std::map<std::string, Tensor>>& outputs, Device target_device,
                                     int64_t dim = 0);

namespace detail {
/// Replicas of `module` (its parameters and buffers on cuda:devices[0]) for each device.
std::vector<std::shared_ptr<Module>> replicate_module(const Module& module, const std::vector<cuda::DeviceArg>& devices,
                                                      bool detach);
/// Runs body(i) for i < n: inline for one, else one thread each with cuda:devices[i] current, the
/// caller's current stream of that device and its grad mode; rethrows the first failure in
/// replica order, naming the replica and its device.
void run_replicas(size_t n, const std::vector<int>& devices, const std::function<void(size_t)>& body);
/// Device indices, checked non-negative.
std::vector<int> device_indices(const std::vector<cuda::DeviceArg>& devices);
}  // namespace detail

/// Copies of `module` on each device: parameters broadcast (differentiably unless `detach`), buffers
/// copied; replica 0 shares the original's tensors, so its in-place buffer updates persist.
template <class M>
std::vector<std::shared_ptr<M>> replicate(const std::shared_ptr<M>& module, const std::vector<cuda::DeviceArg>& devices,
                                          bool detach = false) {
  std::vector<std::shared_ptr<M>> out;
  for (auto& r : detail::replicate_module(*module, devices, detach)) out.push_back(std::static_pointer_cast<M>(r));
  return out;
}

/// Runs fn(*modules[i], inputs[i]) in parallel (one thread per replica, its device current).
template <class M, class In, class Fn>
auto parallel_apply(const std::vector<std::shared_ptr<M>>& modules, const std::vector<In>& inputs,
                    const std::vector<cuda::DeviceArg>& devices, Fn&& fn) {
  using Out = decltype(fn(*modules[0], inputs[0]));
  CTORCH_CHECK(modules.size() == inputs.size(), "The number of modules ", modules.size(),
               " is not equal to the number of inputs ", inputs.size());
  std::vector<int> indices = detail::device_indices(devices);
  if (indices.empty()) {  // each replica's parameter device (the current device without parameters)
    for (const auto& m : modules) {
      CTORCH_CHECK(m != nullptr, "parallel_apply: module is null");
      const std::vector<Tensor> params = m->parameters();
      indices.push_back(static_cast<int>(params.empty() ? cuda::current_device() : params[0].get_device()));
    }
  }
  CTORCH_CHECK(indices.size() >= modules.size(), "parallel_apply: expected a device for each of the ", modules.size(),
               " modules, but got ", indices.size());
  std::vector<std::optional<Out>> results(modules.size());
  detail::run_replicas(modules.size(), indices, [&](size_t i) { results[i] = fn(*modules[i], inputs[i]); });
  std::vector<Out> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

/// replicas[i](inputs[i]) in parallel; devices default to each replica's parameter device.
std::vector<Tensor> parallel_apply(const std::vector<std::shared_ptr<UnaryModule>>& replicas,
                                   const std::vector<Tensor>& inputs, const std::vector<cuda::DeviceArg>& devices = {});

/// The functional DataParallel: scatter `input`, replicate, parallel_apply, gather on
/// `output_device` (default devices[0]; every visible device when `device_ids` is empty).
Tensor data_parallel(const std::shared_ptr<UnaryModule>& module, const Tensor& input,
                     std::vector<cuda::DeviceArg> device_ids = {}, std::optional<Device> output_device = std::nullopt,
                     int64_t dim = 0);

}  // namespace ctorch::nn::parallel

namespace ctorch::nn {

/// torch.nn.DataParallel: each forward splits the batch over `device_ids` (default: every visible
/// device), runs a replica of `module` per device in parallel and gathers on `output_device`
/// (default device_ids[0]). The module must live on device_ids[0]; without cuda it runs as is.
class DataParallel : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(DataParallel)
  void rebind() override;

 public:
  /// Wraps `module`; with one device the module is moved there now.
  explicit DataParallel(std::shared_ptr<UnaryModule> module, std::vector<cuda::DeviceArg> device_ids = {},
                        std::optional<cuda::DeviceArg> output_device = std::nullopt, int64_t dim = 0);
  Tensor forward(const Tensor& input) override;

  std::shared_ptr<UnaryModule> module;  ///< the wrapped module (registered as "module")
  std::vector<int> device_ids;          ///< cuda indices; empty without cuda
  int output_device = -1;               ///< cuda index of the gathered output
  int64_t dim;                          ///< the scatter and gather dimension
};

}  // namespace ctorch::nn
