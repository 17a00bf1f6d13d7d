// nn::DataParallel: the module wrapper of torch/nn/parallel/data_parallel.py.
#include <algorithm>

#include "ctorch/error.h"
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
  if (device_ids.empty()) return module->forward(input);  // no accelerator
  return parallel::data_parallel(module, input, std::vector<cuda::DeviceArg>(device_ids.begin(), device_ids.end()),
                                 cuda_device(output_device), dim);
}

void DataParallel::rebind() { module = std::dynamic_pointer_cast<UnaryModule>(named_children()[0].value()); }

}  // namespace ctorch::nn
