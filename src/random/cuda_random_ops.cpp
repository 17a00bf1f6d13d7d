// Random ops on CUDA tensors. Each op checks its arguments (PyTorch's texts, CUDA kernel names),
// builds the plan in the output's memory order (TensorIterator's order for a nullary op), takes
// (seed, offset) from the generator once under its mutex, and makes one KernelTable::random call
// on the tensor's current stream. Every check runs before the generator advances, so a call that
// throws leaves the generator as it was. See Note [CUDA RNG determinism contract] in
// kernels/random_functors.h for what the values depend on.
#include "random/cuda_random_ops.h"

#include <algorithm>
#include <mutex>
#include <numeric>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "kernels/random_functors.h"
#include "ops/elementwise.h"
#include "ops/kernel_table.h"
#include "ops/launch.h"
#include "random/cuda_generator.h"
#include "random/distributions.h"
#include "runtime/current.h"

namespace ctorch::inline api::impl {
namespace {

using kernels::RandomArgs;
using kernels::RandomOp;

// TensorIterator's internal-overlap check on the written tensor.
void check_no_internal_overlap(const Tensor& self) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    CTORCH_CHECK(self.sizes()[d] <= 1 || self.strides()[d] != 0,
                 "unsupported operation: more than one element of the written-to tensor refers to a single "
                 "memory location. Please clone() the tensor before performing the operation.");
  }
}

// A view of `t` whose row-major order is t's memory order (dims by decreasing stride).
Tensor memory_order_view(const Tensor& t) {
  if (t.is_contiguous()) return t;
  std::vector<int64_t> perm(static_cast<size_t>(t.dim()));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return t.strides()[a] > t.strides()[b]; });
  std::vector<int64_t> sizes, strides;
  for (int64_t d : perm) {
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return t.as_strided(sizes, strides, t.storage_offset());
}

// What the grid depends on: the device's multiprocessors and resident threads per multiprocessor.
struct DeviceShape {
  int sm_count = 0;
  int max_threads_per_sm = 0;
};

DeviceShape device_shape(Device device) {
  const DeviceProperties p = lazy_init(DeviceType::CUDA).properties(device.index());
  return DeviceShape{p.multi_processor_count, p.max_threads_per_multi_processor};
}

// PyTorch's name of the op that launches `op`.
const char* random_op_name(RandomOp op) {
  switch (op) {
    case RandomOp::Uniform: return "uniform_";
    case RandomOp::Normal: return "normal_";
    case RandomOp::RandomFromTo:
    case RandomOp::RandomFull64: return "random_";
    case RandomOp::BernoulliScalar: return "bernoulli_";
    case RandomOp::BernoulliTensor: return "bernoulli";
    case RandomOp::FusedDropout: return "native_dropout";
  }
  return "random";
}

// Runs `op` over self with PyTorch's distribution_nullary_kernel grid.
void launch_distribution(Tensor& self, RandomOp op, const RandomArgs& args, CUDAGeneratorImpl& gen) {
  const int64_t n = self.numel();
  if (n == 0) return;  // PyTorch returns before philox_cuda_state
  check_no_internal_overlap(self);
  const Device device = self.device();
  const DeviceShape shape = device_shape(device);
  const kernels::RandomLaunch launch = kernels::distribution_launch(n, shape.sm_count, shape.max_threads_per_sm);
  const Tensor view = memory_order_view(self);
  const kernels::ElementwisePlan plan = ops::make_plan(view, {});
  char* data[kernels::kMaxOperands];
  ops::plan_data(data, view, {});
  ops::launch_random(random_op_name(op), op, self.dtype(), plan, data, args, shape.sm_count, shape.max_threads_per_sm,
                     device, CTORCH_OPERANDS({self, "self", true, true}), [&] {
                       std::lock_guard<std::mutex> lock(gen.mutex());
                       return gen.philox_cuda_state(launch.increment);
                     });
  self.impl()->storage()->bump_version();
}

}  // namespace

void cuda_uniform_(Tensor& self, double from, double to, const std::optional<Generator>& gen) {
  const auto [lo, hi] = check_uniform_args(self.dtype(), from, to);
  CUDAGeneratorImpl& g = cuda_generator_or_default(gen, self.device());
  launch_distribution(self, RandomOp::Uniform, RandomArgs{lo, hi, 0, 0}, g);
}

void cuda_normal_(Tensor& self, double mean, double std, const std::optional<Generator>& gen) {
  check_normal_std(std);
  check_normal_dtype(self.dtype(), /*cuda=*/true);
  CUDAGeneratorImpl& g = cuda_generator_or_default(gen, self.device());
  launch_distribution(self, RandomOp::Normal, RandomArgs{mean, std, 0, 0}, g);
}

void cuda_random_(Tensor& self, int64_t from, std::optional<int64_t> to, const std::optional<Generator>& gen) {
  const RandomRange range = random_from_to_args(self.dtype(), from, to, /*cuda=*/true);
  CUDAGeneratorImpl& g = cuda_generator_or_default(gen, self.device());
  if (range.full_64_bits) {
    launch_distribution(self, RandomOp::RandomFull64, RandomArgs{}, g);
  } else {
    launch_distribution(self, RandomOp::RandomFromTo, RandomArgs{0, 0, range.range, range.base}, g);
  }
}

void cuda_bernoulli_(Tensor& self, double p, const std::optional<Generator>& gen) {
  check_bernoulli_scalar_args(self.dtype(), p, /*cuda=*/true);
  CUDAGeneratorImpl& g = cuda_generator_or_default(gen, self.device());
  launch_distribution(self, RandomOp::BernoulliScalar, RandomArgs{p, 0, 0, 0}, g);
}

Tensor cuda_bernoulli(const Tensor& p, const std::optional<Generator>& gen) {
  CTORCH_CHECK(is_floating_point(p.dtype()), "expected probabilities tensor to have floating type, got ",
               scalar_type_cpp_name(p.dtype()));
  // empty_like(p, LEGACY_CONTIGUOUS_MEMORY_FORMAT), then bernoulli_(out, p): p cast to float
  // (double for a double output) on the output's device.
  Tensor out = empty(p.sizes(), TensorOptions().dtype(p.dtype()).device(p.device()));
  CUDAGeneratorImpl& g = cuda_generator_or_default(gen, out.device());
  const Tensor probs = p.to(out.device(), out.dtype() == kFloat64 ? kFloat64 : kFloat32);
  const kernels::ElementwisePlan plan = ops::make_plan(out, {&probs});
  char* data[kernels::kMaxOperands];
  ops::plan_data(data, out, {&probs});
  auto philox = [&] {
    std::lock_guard<std::mutex> lock(g.mutex());
    return g.philox_cuda_state(kernels::kBernoulliTensorIncrement);
  };
  if (out.numel() == 0) {
    philox();  // the offset advances even for empty tensors
    return out;
  }
  ops::launch_random("bernoulli", RandomOp::BernoulliTensor, out.dtype(), plan, data, RandomArgs{}, 0, 0, out.device(),
                     CTORCH_OPERANDS({out, nullptr, true, true}, {probs, "self"}), philox);
  out.impl()->storage()->bump_version();
  return out;
}

}  // namespace ctorch::api::impl
