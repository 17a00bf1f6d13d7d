// nn::DataParallel: the module wrapper of torch/nn/parallel/data_parallel.py.
#include <algorithm>

#include "ctorch/error.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_parallel.h"
#include "ctorch/warning.h"

namespace ctorch::nn {

namespace {

Device cuda_device(int index) { return Device(DeviceType::CUDA, static_cast<DeviceIndex>(index)); }

/// PyTorch's _check_balance: warns when a device has under 75% of the memory or the
/// multiprocessors of the largest one.
void check_balance(const std::vector<int>& ids) {
  auto warn_if_imbalanced = [&](auto field) {
    std::vector<double> values;
    for (int id : ids) values.push_back(static_cast<double>(field(cuda::get_device_properties(id))));
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    if (*hi <= 0 || *lo / *hi >= 0.75) return false;
    warn(::ctorch::detail::str_cat(
        "\n    There is an imbalance between your GPUs. You may want to exclude GPU ", ids[lo - values.begin()],
        " which\n    has less than 75% of the memory or cores of GPU ", ids[hi - values.begin()],
        ". You can do so by setting\n    the device_ids argument to DataParallel, or by setting the "
        "CUDA_VISIBLE_DEVICES\n    environment variable."));
    return true;
  };
  if (warn_if_imbalanced([](const cuda::DeviceProperties& p) { return p.total_memory; })) return;
  warn_if_imbalanced([](const cuda::DeviceProperties& p) { return p.multi_processor_count; });
}

}  // namespace

DataParallel::DataParallel(std::shared_ptr<UnaryModule> wrapped, std::vector<cuda::DeviceArg> ids,
                           std::optional<cuda::DeviceArg> out, int64_t dim)
    : UnaryModule("DataParallel"), module(register_module("module", std::move(wrapped))), dim(dim) {
  if (!cuda::is_available()) return;  // no accelerator: forward calls the module directly
  if (ids.empty()) {
    for (int i = 0; i < cuda::device_count(); ++i) device_ids.push_back(i);
  } else {
    device_ids = parallel::detail::device_indices(ids);
  }
  output_device = out ? out->resolve() : device_ids[0];
  CTORCH_CHECK(output_device >= 0, "Expected non-negative device index, but got ", output_device);
  check_balance(device_ids);
  if (device_ids.size() == 1) module->to(cuda_device(device_ids[0]));
}

Tensor DataParallel::forward(const Tensor& input) {
  if (device_ids.empty()) return module->forward(input);
  const Device src = cuda_device(device_ids[0]);
  auto check_on_src = [&](const Tensor& t) {
    CTORCH_CHECK(t.device() == src, "module must have its parameters and buffers on device ", src.str(),
                 " (device_ids[0]) but found one of them on device: ", t.device().str());
  };
  for (const Tensor& p : module->parameters()) check_on_src(p);
  for (const Tensor& b : module->buffers()) check_on_src(b);
  const std::vector<cuda::DeviceArg> ids(device_ids.begin(), device_ids.end());
  const std::vector<Tensor> inputs = parallel::scatter(input, ids, dim);
  if (device_ids.size() == 1) return module->forward(inputs[0]);
  const std::vector<cuda::DeviceArg> used(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(inputs.size()));
  const auto replicas = parallel::replicate(module, used, /*detach=*/!GradMode::is_enabled());
  return parallel::gather(parallel::parallel_apply(replicas, inputs, used), cuda_device(output_device), dim);
}

void DataParallel::rebind() { module = std::dynamic_pointer_cast<UnaryModule>(named_children().at(0).second); }

}  // namespace ctorch::nn
