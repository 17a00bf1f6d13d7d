// native_dropout: one kernel that draws the mask and writes the scaled output, recorded as one node
// (NativeDropoutBackward0). On the cpu the draws are bernoulli_(1 - p)'s, so the values equal
// PyTorch's CPU dropout (empty_like(x).bernoulli_(1 - p).div_(1 - p), then x * noise); on CUDA
// devices (emulated and real) the kernel is PyTorch's fused dropout (Note [Fused dropout]).
// Inputs are walked in row-major order (ctorch's empty_like is contiguous).
#include "ctorch/dropout.h"

#include <mutex>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "kernels/dropout_functors.h"
#include "ops/elementwise.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"
#include "random/cpu_generator.h"
#include "random/cuda_generator.h"
#include "random/distributions.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api {
namespace {

// The fused kernel's vector width: PyTorch's get_vector_size for a contiguous input at `address`.
int vector_width(const void* address, int64_t numel, int64_t element_size) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  int vec = a % static_cast<uintptr_t>(4 * element_size) == 0 ? 4 : a % static_cast<uintptr_t>(2 * element_size) == 0 ? 2 : 1;
  while (vec > 1 && numel % vec != 0) vec /= 2;
  return vec;
}

// The CUDA path: one KernelTable::random call on the input's current stream.
void cuda_dropout(const Tensor& x, Tensor& out, Tensor& mask, double keep) {
  const Device device = x.device();
  const impl::DeviceProperties props = impl::lazy_init(DeviceType::CUDA).properties(device.index());
  const int sm_count = props.multi_processor_count, max_threads = props.max_threads_per_multi_processor;
  const kernels::RandomLaunch launch = kernels::distribution_launch(x.numel(), sm_count, max_threads);
  impl::CUDAGeneratorImpl& gen = impl::cuda_generator_or_default(std::nullopt, device);
  const kernels::ElementwisePlan plan = ops::make_plan(out, {&mask, &x});
  char* data[kernels::kMaxOperands];
  ops::plan_data(data, out, {&mask, &x});
  kernels::RandomArgs args;
  args.a = keep;
  args.base = vector_width(x.data_ptr(), x.numel(), static_cast<int64_t>(x.element_size()));
  ops::launch_random("native_dropout", kernels::RandomOp::FusedDropout, x.dtype(), plan, data, args, sm_count,
                     max_threads, device,
                     CTORCH_OPERANDS({out, nullptr, true, true}, {mask, nullptr, true, true}, {x, "self"}), [&] {
                       std::lock_guard<std::mutex> lock(gen.mutex());
                       return gen.philox_cuda_state(launch.increment);
                     });
}

void record(const Tensor& input, Tensor& out, const Tensor& mask, double scale) {
  if (!ops::needs_grad({&input})) return;
  if (ops::GradRecorder* r = ops::grad_recorder()) {
    ops::GradArgs a;
    a.indices = mask;
    a.p = scale;
    r->record(ops::GradFn::NativeDropout, {&input}, out, a);
  }
}

}  // namespace

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  CTORCH_CHECK(input.defined(), "native_dropout: expected a defined input");
  if (input.numel() == 0) return {input, empty_like(input)};
  Tensor out, mask;
  if (train.has_value() && !*train) {
    {
      AutoGradMode off(false);
      out = input.clone();
      mask = ones_like(input, TensorOptions().dtype(kBool));
    }
    record(input, out, mask, 1.0);
    return {out, mask};
  }
  CTORCH_CHECK(is_floating_point(input.dtype()), "result type Float can't be cast to the desired output type ",
               scalar_type_cpp_name(input.dtype()));
  const double keep = 1.0 - p;
  impl::check_bernoulli_scalar_args(input.dtype(), keep, input.is_cuda());  // 0 <= p <= 1
  const double scale = keep == 0 ? 0.0 : 1.0 / keep;
  {
    AutoGradMode off(false);
    const Tensor x = input.contiguous();
    out = empty_like(x);
    mask = empty_like(x, TensorOptions().dtype(kBool));
    if (x.is_cuda()) {
      if (keep == 0) {  // every element dropped: no draw (the fused kernel's scale would be 1 / 0)
        out.zero_();
        mask.zero_();
      } else {
        cuda_dropout(x, out, mask, keep);
      }
    } else {
      CTORCH_CHECK_NOT_IMPLEMENTED(x.is_cpu(), "native_dropout is not implemented for ", x.device(), " tensors");
      impl::CPUGeneratorImpl& gen = impl::cpu_generator_or_default(std::nullopt);
      ops::run_on_host_observed(ops::OpFamily::Random, "native_dropout",
                                CTORCH_OPERANDS({out, nullptr, true, true}, {mask, nullptr, true, true}, {x, "self"}),
                                [&] {
                                  impl::dropout_fill(gen, x.dtype(), x.data_ptr(), out.data_ptr(),
                                                     static_cast<bool*>(mask.data_ptr()), x.numel(), keep);
                                });
    }
  }
  record(input, out, mask, scale);
  return {out, mask};
}

Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale) {
  return grad_output.mul(mask).mul_(scale);
}

}  // namespace ctorch::api
