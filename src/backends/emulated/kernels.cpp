// The emulated backend's kernel table: the shared table (backends/kernel_table.h) over
// EmulatedLauncher, plus the launcher's pointer checks and its GEMM.
#include <memory>
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/jit.h"
#include "backends/emulated/launch.h"
#include "backends/emulated/runtime.h"
#include "backends/kernel_table.h"
#include "core/math_settings.h"
#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::emulated {

using kernels::ElementwisePlan;

namespace {

// Bytes an operand's view spans from its base pointer (strides are never negative).
template <class Plan>
int64_t operand_extent(const Plan& plan, int k) {
  if (plan.numel == 0) return 0;
  int64_t extent = plan.element_size[k];
  for (int d = 0; d < plan.ndim; ++d) extent += (plan.shape[d] - 1) * plan.strides[k][d];
  return extent;
}

}  // namespace

Stream host_stream() {
  static const Stream cpu = Stream::default_stream(Device(DeviceType::CPU, 0));
  return cpu;
}

kernels::DeviceLimits device_limits(DeviceIndex index) {
  const impl::DeviceProperties p = instance().properties(index);
  return kernels::DeviceLimits{p.multi_processor_count, p.max_threads_per_multi_processor};
}

HostOperands translate_operands(const ElementwisePlan& plan, char* const* data, Stream stream) {
  HostOperands host{};
  for (int k = 0; k < plan.noperands; ++k) {
    host.ptr[k] = static_cast<char*>(
        instance().translate(data[k], static_cast<size_t>(operand_extent(plan, k)), stream.device().index()));
  }
  return host;
}

IndexOperands translate_index_operands(const kernels::IndexPlan& plan, char* const* data, Stream stream) {
  IndexOperands host{};
  for (int k = 0; k < plan.noperands(); ++k) {
    host.ptr[k] = plan.extent[k] == 0 ? data[k]
                                      : static_cast<char*>(instance().translate(
                                            data[k], static_cast<size_t>(plan.extent[k]), stream.device().index()));
  }
  return host;
}

void EmulatedLauncher::copy_bytes(char* dst, const char* src, int64_t bytes, Stream s) {
  const DeviceIndex dev = s.device().index();
  char* hd = static_cast<char*>(instance().translate(dst, static_cast<size_t>(bytes), dev));
  const char* hs = static_cast<const char*>(instance().translate(src, static_cast<size_t>(bytes), dev));
  instance().enqueue(s, [hd, hs, bytes] { cpu::CpuLauncher::copy_bytes(hd, hs, bytes, host_stream()); }, "copy_");
}

void EmulatedLauncher::translate_reduce(const kernels::ReducePlan& plan, char* const* data, size_t in_size,
                                        size_t out_size, bool indexed, Stream s, char** host) {
  const DeviceIndex dev = s.device().index();
  int64_t in_extent = static_cast<int64_t>(in_size), out_elems = 1;
  for (int d = 0; d < plan.nkept; ++d) {
    in_extent += (plan.kept_size[d] - 1) * plan.kept_in[d];
    out_elems += (plan.kept_size[d] - 1) * plan.kept_out[d];
  }
  for (int d = 0; d < plan.nred; ++d) in_extent += (plan.red_size[d] - 1) * plan.red_in[d];
  const bool empty_in = plan.numel_reduce == 0;
  auto at = [&](char* p, int64_t bytes) { return p ? static_cast<char*>(instance().translate(p, bytes, dev)) : p; };
  host[0] = at(data[0], out_elems * static_cast<int64_t>(out_size));
  host[1] = empty_in ? data[1] : at(data[1], in_extent);
  host[2] = indexed ? at(data[2], out_elems * 8) : nullptr;
}

void EmulatedLauncher::gemm(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a,
                            const void* b, const Scalar& beta, void* c, Stream s) {
  const int64_t es = element_size(dtype);
  // Bytes a strided batch of row-major matrices spans: (batch-1)*stride + (rows-1)*ld + cols.
  auto extent = [&](int64_t rows, int64_t cols, int64_t ld, int64_t stride) -> size_t {
    if (g.batch == 0 || rows == 0 || cols == 0) return 0;
    return static_cast<size_t>(((g.batch - 1) * stride + (rows - 1) * ld + cols) * es);
  };
  const DeviceIndex dev = s.device().index();
  const bool loop = kernels::gemm_needs_loop(dtype, g.k, alpha);
  const bool reads_ab = g.k > 0 && alpha.to_double() != 0.0;
  const void* ha = reads_ab ? instance().translate(a, extent(g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k, g.lda,
                                                               g.stride_a), dev)
                            : a;
  const void* hb = reads_ab ? instance().translate(b, extent(g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n, g.ldb,
                                                               g.stride_b), dev)
                            : b;
  void* hc = instance().translate(c, extent(g.m, g.n, g.ldc, g.stride_c), dev);
  if (loop) return KernelTableOf<EmulatedLauncher>::gemm_loop(dtype, g, alpha, ha, hb, beta, hc, s);
  if (dtype == ScalarType::Float32 && impl::matmul_allow_tf32()) {
    // An Ampere GPU's TF32 tensor cores: inputs rounded to TF32, products accumulated in float.
    const size_t na = extent(g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k, g.lda, g.stride_a) / sizeof(float);
    const size_t nb = extent(g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n, g.ldb, g.stride_b) / sizeof(float);
    instance().enqueue(s, [=] {
      auto rounded = [](const void* p, size_t n) {
        std::vector<float> v(static_cast<const float*>(p), static_cast<const float*>(p) + n);
        for (float& x : v) x = kernels::round_to_tf32(x);
        return v;
      };
      const std::vector<float> ra = rounded(ha, na), rb = rounded(hb, nb);
      cpu::gemm(dtype, g, alpha, ra.data(), rb.data(), beta, hc);
    }, "gemm");
    return;
  }
  // cuBLAS's order is not public: the cpu product stands in (Note [Emulated grid walk]).
  instance().enqueue(s, [=] { cpu::gemm(dtype, g, alpha, ha, hb, beta, hc); }, "gemm");
}

void EmulatedLauncher::jit(const ops::JitKernel& kernel, const kernels::JitPlan& plan, char* const* data,
                           const ops::JitValue* extra, int nextra, Stream s) {
  if (plan.numel <= 0) return;
  struct Task {
    kernels::JitPlan plan;
    char* host[kernels::kMaxJitOperands];
    std::vector<ops::JitValue> extra;
  };
  auto task = std::make_shared<Task>();
  task->plan = plan;
  for (int k = 0; k < plan.noperands; ++k) {
    task->host[k] = static_cast<char*>(
        instance().translate(data[k], static_cast<size_t>(operand_extent(plan, k)), s.device().index()));
  }
  task->extra.assign(extra, extra + nextra);
  const ops::JitKernel* fn = &kernel;
  instance().enqueue(
      s,
      [task, fn] {
        cpu::parallel_for(0, task->plan.numel, cpu::kElementwiseGrain, [&](int64_t b, int64_t e) {
          cpu::run_host_jit(*fn, task->plan, task->host, task->extra.data(), b, e);
        });
      },
      "jiterator");
}

/// The emulated backend's kernel table.
const ops::KernelTable& kernels() { return make_kernel_table<EmulatedLauncher>(); }

namespace {
// Ops on emulated devices find this table through the runtime they run on; CTORCH_EMULATED_CUDA
// is consulted before the real CUDA backend (Note [Runtime selection]).
const bool registered = (ops::register_kernels(&instance(), &kernels()),
                         impl::register_runtime_factory(DeviceType::CUDA, 0, &runtime_from_environment), true);
}  // namespace

}  // namespace ctorch::api::backends::emulated
