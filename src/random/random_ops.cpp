// Tensor-level random functions (torch.rand, randn, randint, randperm, normal, bernoulli, the
// in-place Tensor.uniform_/normal_/random_/bernoulli_) and Generator state as tensors.
//
// CUDA tensors go to random/cuda_random_ops.cpp (Philox, PyTorch's CUDA grid).
//
// Element order: PyTorch's cpu kernels run serially in TensorIterator order, which for a single
// written tensor is memory order (dims sorted by decreasing stride). Contiguous tensors are
// filled in place; others are sampled into a contiguous buffer and copied through a permuted
// view whose row-major order is the memory order. Every argument is checked before the first
// draw, so a call that throws leaves the generator as it was.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ctorch/random.h"
#include "ops/launch.h"
#include "random/cpu_generator.h"
#include "random/cuda_random_ops.h"
#include "random/distributions.h"
#include "ops/grad_hook.h"

namespace ctorch::inline api {
namespace {

// The cpu generator a sampling call on the cpu tensor `self` uses.
impl::CPUGeneratorImpl& generator_for(const Tensor& self, const std::optional<Generator>& gen,
                                      const char* op) {
  CTORCH_CHECK_NOT_IMPLEMENTED(self.is_cpu(), "[", op, "] is not implemented for ", self.device(),
                               " tensors yet");
  return impl::cpu_generator_or_default(gen);
}

// True when `self` lives on a CUDA device (its op then goes to random/cuda_random_ops.cpp).
bool on_cuda(const Tensor& self, const char* op) {
  CTORCH_CHECK(self.defined(), "[", op, "] expected a defined tensor");
  return self.is_cuda();
}

// A view of `t` whose row-major order is t's memory order.
Tensor memory_order_view(const Tensor& t) {
  std::vector<int64_t> perm(t.dim());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](int64_t a, int64_t b) { return t.strides()[a] > t.strides()[b]; });
  std::vector<int64_t> sizes, strides;
  for (int64_t d : perm) {
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return t.as_strided(sizes, strides, t.storage_offset());
}

// Runs sample(out, n, contiguous) so that the n values land in self in memory order.
template <class Sample>
void fill_in_memory_order_unobserved(Tensor& self, Sample&& sample) {
  const int64_t n = self.numel();
  if (self.is_contiguous() || n <= 1) {
    sample(self.data_ptr(), n, self.is_contiguous());
    if (n > 0) self.impl()->storage()->bump_version();
    return;
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    CTORCH_CHECK(self.sizes()[d] <= 1 || self.strides()[d] != 0,
                 "unsupported operation: more than one element of the written-to tensor refers to a "
                 "single memory location. Please clone() the tensor before performing the operation.");
  }
  const Tensor view = memory_order_view(self);
  Tensor buffer = empty(view.sizes(), TensorOptions().dtype(self.dtype()));
  sample(buffer.data_ptr(), n, /*contiguous=*/false);
  Tensor(view).copy_(buffer);
}

// fill_in_memory_order_unobserved as the cpu sampler `name` at the op boundary (OpFamily::Random).
template <class Sample>
void fill_in_memory_order(Tensor& self, const char* name, Sample&& sample) {
  ops::run_on_host_observed(ops::OpFamily::Random, name, CTORCH_OPERANDS({self, "self", true, true}),
                            [&] { fill_in_memory_order_unobserved(self, sample); });
}

// Factory options: dtype defaulted to `dtype`, requires_grad applied after filling.
TensorOptions factory_options(const TensorOptions& options, ScalarType dtype) {
  return options.dtype(options.dtype_opt().value_or(dtype)).requires_grad(false);
}

Tensor finish_factory(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

// normal's tensor-std check: every element >= 0 (NaN fails, as std.min().ge(0) does).
void check_normal_tensor_std(const Tensor& std) {
  for (double v : std.to_vector<double>()) {
    CTORCH_CHECK_VALUE(v >= 0.0, "normal expects all elements of std >= 0.0");
  }
}

}  // namespace

// ---- in-place samplers -----------------------------------------------------------------------------

Tensor& Tensor::uniform_(double from, double to, std::optional<Generator> generator) {
  if (ops::needs_grad({this})) [[unlikely]] {  // the old values no longer matter: a zero gradient
    return ops::recorded_inplace(ops::GradFn::Fill, *this, {}, [&] { uniform_(from, to, generator); },
                                 [](ops::GradArgs&) {});
  }
  if (on_cuda(*this, "uniform_")) {
    impl::cuda_uniform_(*this, from, to, generator);
    return *this;
  }
  auto& gen = generator_for(*this, generator, "uniform_");
  impl::check_uniform_args(dtype(), from, to);
  fill_in_memory_order(*this, "uniform_", [&](void* out, int64_t n, bool) {
    impl::uniform_fill(gen, dtype(), out, n, from, to);
  });
  return *this;
}

Tensor& Tensor::normal_(double mean, double std, std::optional<Generator> generator) {
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded_inplace(ops::GradFn::Fill, *this, {}, [&] { normal_(mean, std, generator); },
                                 [](ops::GradArgs&) {});
  }
  if (on_cuda(*this, "normal_")) {
    impl::cuda_normal_(*this, mean, std, generator);
    return *this;
  }
  auto& gen = generator_for(*this, generator, "normal_");
  impl::check_normal_std(std);
  impl::check_normal_dtype(dtype());
  fill_in_memory_order(*this, "normal_", [&](void* out, int64_t n, bool contiguous) {
    impl::normal_fill(gen, dtype(), out, n, mean, std, contiguous);
  });
  return *this;
}

Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> generator) {
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded_inplace(ops::GradFn::Fill, *this, {}, [&] { random_(from, to, generator); },
                                 [](ops::GradArgs&) {});
  }
  if (on_cuda(*this, "random_")) {
    impl::cuda_random_(*this, from, to, generator);
    return *this;
  }
  auto& gen = generator_for(*this, generator, "random_");
  const impl::RandomRange range = impl::random_from_to_args(dtype(), from, to);
  fill_in_memory_order(*this, "random_", [&](void* out, int64_t n, bool) {
    impl::random_from_to_fill(gen, dtype(), out, n, range);
  });
  return *this;
}

Tensor& Tensor::bernoulli_(double p, std::optional<Generator> generator) {
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded_inplace(ops::GradFn::Fill, *this, {}, [&] { bernoulli_(p, generator); },
                                 [](ops::GradArgs&) {});
  }
  if (on_cuda(*this, "bernoulli_")) {
    impl::cuda_bernoulli_(*this, p, generator);
    return *this;
  }
  auto& gen = generator_for(*this, generator, "bernoulli_");
  impl::check_bernoulli_scalar_args(dtype(), p);
  fill_in_memory_order(*this, "bernoulli_", [&](void* out, int64_t n, bool) {
    impl::bernoulli_scalar_fill(gen, dtype(), out, n, p);
  });
  return *this;
}

// ---- factories ------------------------------------------------------------------------------------------

Tensor rand(IntArrayRef size, TensorOptions options, std::optional<Generator> generator) {
  Tensor t = empty(size, factory_options(options, options.dtype()));
  t.uniform_(0, 1, generator);
  return finish_factory(t, options);
}

Tensor randn(IntArrayRef size, TensorOptions options, std::optional<Generator> generator) {
  Tensor t = empty(size, factory_options(options, options.dtype()));
  t.normal_(0, 1, generator);
  return finish_factory(t, options);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, TensorOptions options,
               std::optional<Generator> generator) {
  Tensor t = empty(size, factory_options(options, kInt64));
  t.random_(low, high, generator);
  return finish_factory(t, options);
}

Tensor randint(int64_t high, IntArrayRef size, TensorOptions options, std::optional<Generator> generator) {
  return randint(0, high, size, options, generator);
}

Tensor randperm(int64_t n, TensorOptions options, std::optional<Generator> generator) {
  const TensorOptions opts = factory_options(options, kInt64);
  impl::check_randperm_args(n, opts.dtype());
  Tensor t = empty({n}, opts);
  auto& gen = generator_for(t, generator, "randperm");
  ops::run_on_host_observed(ops::OpFamily::Random, "randperm", CTORCH_OPERANDS({t, nullptr, true, true}),
                            [&] { impl::randperm_fill(gen, t.dtype(), t.data_ptr(), n); });
  if (n > 0) t.impl()->storage()->bump_version();
  return finish_factory(t, options);
}

Tensor normal(double mean, double std, IntArrayRef size, TensorOptions options,
              std::optional<Generator> generator) {
  impl::check_normal_std(std);
  Tensor t = empty(size, factory_options(options, options.dtype()));
  t.normal_(mean, std, generator);
  return finish_factory(t, options);
}

Tensor normal(const Tensor& mean, const Tensor& std, std::optional<Generator> generator) {
  check_normal_tensor_std(std);
  const DimVector shape = broadcast_shapes(mean.sizes(), std.sizes());
  Tensor out = empty(shape, TensorOptions().dtype(mean.dtype()).device(mean.device()));
  out.normal_(0, 1, generator);
  out.mul_(std).add_(mean);
  return out;
}

Tensor normal(const Tensor& mean, double std, std::optional<Generator> generator) {
  impl::check_normal_std(std);
  Tensor out = empty(mean.sizes(), TensorOptions().dtype(mean.dtype()).device(mean.device()));
  out.normal_(0, std, generator);
  out.add_(mean);
  return out;
}

Tensor normal(double mean, const Tensor& std, std::optional<Generator> generator) {
  check_normal_tensor_std(std);
  Tensor out = empty(std.sizes(), TensorOptions().dtype(std.dtype()).device(std.device()));
  out.normal_(0, 1, generator);
  out.mul_(std).add_(full({}, mean, out.options()));
  return out;
}

Tensor bernoulli(const Tensor& p, std::optional<Generator> generator) {
  if (on_cuda(p, "bernoulli")) return impl::cuda_bernoulli(p, generator);
  Tensor out = empty(p.sizes(), TensorOptions().dtype(p.dtype()).device(p.device()));
  auto& gen = generator_for(out, generator, "bernoulli");
  const Tensor probs = p.cpu().contiguous();
  ops::run_on_host_observed(
      ops::OpFamily::Random, "bernoulli", CTORCH_OPERANDS({out, nullptr, true, true}, {probs, "self"}), [&] {
        impl::bernoulli_tensor_fill(gen, out.dtype(), out.data_ptr(), out.numel(), probs.dtype(), probs.data_ptr());
      });
  if (out.numel() > 0) out.impl()->storage()->bump_version();
  return out;
}

Tensor bernoulli(const Tensor& input, double p, std::optional<Generator> generator) {
  impl::check_bernoulli_scalar_args(input.dtype(), p, input.is_cuda());
  Tensor out = empty_like(input);
  out.bernoulli_(p, generator);
  return out;
}

Tensor rand_like(const Tensor& input, TensorOptions options) {
  Tensor t = empty_like(input, options.requires_grad(false));
  t.uniform_(0, 1);
  return finish_factory(t, options);
}

Tensor randn_like(const Tensor& input, TensorOptions options) {
  Tensor t = empty_like(input, options.requires_grad(false));
  t.normal_(0, 1);
  return finish_factory(t, options);
}

// ---- state as tensors -------------------------------------------------------------------------------------

Tensor Generator::get_state() const {
  std::vector<uint8_t> bytes;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex());
    bytes = impl_->get_state();
  }
  Tensor t = empty({static_cast<int64_t>(bytes.size())}, TensorOptions().dtype(kUInt8));
  std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

Generator& Generator::set_state(const Tensor& state) {
  CTORCH_CHECK_TYPE(state.defined() && state.is_cpu() && state.dtype() == kUInt8,
                    "RNG state must be a torch.ByteTensor");
  const Tensor bytes = state.contiguous();
  std::lock_guard<std::mutex> lock(impl_->mutex());
  impl_->set_state(static_cast<const uint8_t*>(bytes.data_ptr()), static_cast<size_t>(bytes.numel()));
  return *this;
}

Tensor get_rng_state() { return default_generator().get_state(); }

void set_rng_state(const Tensor& state) { default_generator().set_state(state); }

}  // namespace ctorch::api
