// KernelTable::reduce and KernelTable::softmax on CUDA: simple, correct kernels running the
// single-source functors of kernels/reduce_functors.h over the op layer's ReducePlan.
//
// Note [Reduction kernels on cuda]
// - Block per output (the default): output o is reduced by one block; thread t folds positions
//   t, t + block, ... in increasing order, then the block combines the per-thread accumulators in
//   shared memory, pairwise (lower threads on the left). Blocks walk the outputs grid-stride.
// - Thread per output: when the fastest input dim is kept ("across rows") and there are enough
//   outputs to fill the device, neighbouring threads take neighbouring outputs (coalesced loads)
//   and each folds its positions in order.
// Combination order differs from the cpu's fixed tree, so float sums may differ in the last bits;
// every other result (integers, min/max, arg ops with their index tie-breaking, all/any) is exact.
// Softmax: one block per (outer, inner) row; a block max, a block sum of exp(x - max), then the
// same final arithmetic as the cpu.
#include <algorithm>
#include <type_traits>

#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"
#include "kernels/dispatch.h"
#include "kernels/reduce_functors.h"
#include "kernels/reduce_plan.h"

namespace ctorch::backends::cuda {

using kernels::opmath_t;
using kernels::ReduceArgs;
using kernels::ReduceOp;
using kernels::ReducePlan;
using kernels::SoftmaxPlan;

namespace {

/// Threads of a block-per-output reduction at most (a power of two).
constexpr int kReduceBlock = 256;
/// Outputs a thread-per-output reduction needs before it is preferred.
constexpr int64_t kMinOutputsPerThreadMode = 4096;

template <class Out, class V>
__device__ __forceinline__ void store_value(char* p, V v) {
  if constexpr (std::is_same_v<Out, Half> || std::is_same_v<Out, BFloat16>) {
    *reinterpret_cast<Out*>(p) = Out(static_cast<float>(v));
  } else {
    *reinterpret_cast<Out*>(p) = static_cast<Out>(v);
  }
}

template <class T, class Op>
__device__ __forceinline__ typename Op::in_t load(const char* p) {
  return static_cast<typename Op::in_t>(static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p)));
}

template <class Out, class Op>
__device__ __forceinline__ void store(const Op& op, char* values, int64_t* indices, int64_t out_off,
                                      const typename Op::acc_t& acc) {
  const auto v = op.project(acc);
  if constexpr (Op::kIndexed) {
    if (values) store_value<Out>(values + out_off * static_cast<int64_t>(sizeof(Out)), v.value);
    if (indices) indices[out_off] = v.index;
  } else {
    store_value<Out>(values + out_off * static_cast<int64_t>(sizeof(Out)), v);
  }
}

template <class T, class Out, class Op>
__global__ void reduce_block_per_output(const __grid_constant__ ReducePlan plan, char* values, const char* input,
                                        int64_t* indices, Op op) {
  using acc_t = typename Op::acc_t;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  acc_t* shared = reinterpret_cast<acc_t*>(shared_bytes);
  const unsigned t = threadIdx.x;
  for (int64_t o = blockIdx.x; o < plan.numel_out; o += gridDim.x) {
    int64_t in_off = 0, out_off = 0;
    plan.kept_offsets(o, &in_off, &out_off);
    acc_t acc = op.identity();
    for (int64_t r = t; r < plan.numel_reduce; r += blockDim.x) {
      acc = op.reduce(acc, load<T, Op>(input + in_off + plan.red_offset(r)), r);
    }
    shared[t] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
      if (t < s) shared[t] = op.combine(shared[t], shared[t + s]);
      __syncthreads();
    }
    if (t == 0) store<Out>(op, values, indices, out_off, shared[0]);
    __syncthreads();  // shared is reused by the next output
  }
}

template <class T, class Out, class Op>
__global__ void reduce_thread_per_output(const __grid_constant__ ReducePlan plan, char* values, const char* input,
                                         int64_t* indices, Op op) {
  using acc_t = typename Op::acc_t;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < plan.numel_out; o += stride) {
    int64_t in_off = 0, out_off = 0;
    plan.kept_offsets(o, &in_off, &out_off);
    acc_t acc = op.identity();
    for (int64_t r = 0; r < plan.numel_reduce; ++r) {
      acc = op.reduce(acc, load<T, Op>(input + in_off + plan.red_offset(r)), r);
    }
    store<Out>(op, values, indices, out_off, acc);
  }
}

unsigned next_pow2(int64_t n) {
  unsigned p = 1;
  while (p < n && p < static_cast<unsigned>(kReduceBlock)) p *= 2;
  return p;
}

template <class T, class Out, class Op>
void run(const ReducePlan& plan, char* const* data, const Op& op, const kernels::DeviceLimits& limits,
         cudaStream_t stream) {
  if (plan.numel_out == 0) return;
  char* values = data[0];
  const char* input = data[1];
  int64_t* indices = Op::kIndexed ? reinterpret_cast<int64_t*>(data[2]) : nullptr;
  if (!plan.fastest_reduced && plan.nkept > 0 && plan.numel_out >= kMinOutputsPerThreadMode) {
    const kernels::LaunchConfig cfg =
        kernels::elementwise_launch_config(std::min(plan.numel_out, kernels::kMaxElementsPerLaunch), limits);
    reduce_thread_per_output<T, Out, Op><<<cfg.grid, cfg.block, 0, stream>>>(plan, values, input, indices, op);
    CTORCH_CUDA_CHECK(cudaGetLastError());
    return;
  }
  // At least a warp, at most kReduceBlock threads, no more than the positions need.
  const unsigned block = std::max(32u, next_pow2(plan.numel_reduce));
  int64_t wave = static_cast<int64_t>(limits.sm_count) * std::max(1, limits.max_threads_per_sm / static_cast<int>(block));
  if (wave <= 0) wave = kernels::kFallbackMaxBlocks;
  const unsigned grid = static_cast<unsigned>(std::min(plan.numel_out, wave));
  const size_t shared = block * sizeof(typename Op::acc_t);
  reduce_block_per_output<T, Out, Op><<<grid, block, shared, stream>>>(plan, values, input, indices, op);
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

template <ReduceOp Kind>
void run_norm(ScalarType in, const ReducePlan& plan, char* const* data, const ReduceArgs& args,
              const kernels::DeviceLimits& limits, cudaStream_t stream) {
  kernels::dispatch_floating(in, "norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    kernels::NormOp<A, Kind> op;
    op.p = static_cast<A>(args.p);
    run<T, T>(plan, data, op, limits, stream);
  });
}

// ---- softmax ---------------------------------------------------------------------------------------

// Block-wide reduction of `v` with `f` (blockDim.x a power of two); every thread gets the result.
template <class A, class F>
__device__ A block_reduce(A v, A* shared, F f) {
  const unsigned t = threadIdx.x;
  shared[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) shared[t] = f(shared[t], shared[t + s]);
    __syncthreads();
  }
  const A out = shared[0];
  __syncthreads();
  return out;
}

template <class A>
struct MaxCombine {
  CTORCH_HD A operator()(A a, A b) const { return kernels::MaxOp<A>{}.combine(a, b); }
};
template <class A>
struct SumCombine {
  CTORCH_HD A operator()(A a, A b) const { return a + b; }
};

template <class T, bool Log>
__global__ void softmax_kernel(SoftmaxPlan plan, const T* in, T* out) {
  using A = opmath_t<T>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  A* shared = reinterpret_cast<A*>(shared_bytes);
  const int64_t n = plan.dim_size, inner = plan.inner;
  const kernels::MaxOp<A> max_op;
  for (int64_t row = blockIdx.x; row < plan.outer * inner; row += gridDim.x) {
    const int64_t base = (row / inner) * n * inner + row % inner;
    A mx = max_op.identity();
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) mx = max_op.reduce(mx, static_cast<A>(in[base + i * inner]), i);
    mx = block_reduce(mx, shared, MaxCombine<A>{});
    A sum = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += std::exp(static_cast<A>(in[base + i * inner]) - mx);
    sum = block_reduce(sum, shared, SumCombine<A>{});
    if constexpr (Log) {
      const A shift = mx + std::log(sum);
      for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        out[base + i * inner] = static_cast<T>(static_cast<A>(in[base + i * inner]) - shift);
      }
    } else {
      const A scale = A(1) / sum;
      for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        out[base + i * inner] = static_cast<T>(std::exp(static_cast<A>(in[base + i * inner]) - mx) * scale);
      }
    }
  }
}

}  // namespace

void reduce(ReduceOp op, ScalarType in, ScalarType out, const ReducePlan& plan, char* const* data,
            const ReduceArgs& args, Stream s) {
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  const kernels::DeviceLimits limits = device_limits(s.device().index());
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
      // Integers and bool accumulate in int64 (the op layer narrows when asked for a smaller type).
      CTORCH_INTERNAL_ASSERT(out == (is_integral(in, true) ? kLong : in), "[sum] unsupported dtypes");
      return kernels::dispatch_all(in, "sum", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using O = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
        using A = opmath_t<O>;
        if (op == ReduceOp::Sum) {
          run<T, O>(plan, data, kernels::SumOp<A>{}, limits, stream);
        } else {
          run<T, O>(plan, data, kernels::ProdOp<A>{}, limits, stream);
        }
      });
    case ReduceOp::Mean:
      return kernels::dispatch_floating(in, "mean", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = opmath_t<T>;
        kernels::MeanOp<A> m;
        m.count = static_cast<A>(plan.numel_reduce);
        run<T, T>(plan, data, m, limits, stream);
      });
    case ReduceOp::Max:
    case ReduceOp::Min:
      return kernels::dispatch_all(in, "max", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = opmath_t<T>;
        if (op == ReduceOp::Max) {
          run<T, T>(plan, data, kernels::MaxOp<A>{}, limits, stream);
        } else {
          run<T, T>(plan, data, kernels::MinOp<A>{}, limits, stream);
        }
      });
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return kernels::dispatch_all(in, "argmax", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = opmath_t<T>;
        if (op == ReduceOp::ArgMax) {
          run<T, T>(plan, data, kernels::ArgExtremeOp<A, true>{}, limits, stream);
        } else {
          run<T, T>(plan, data, kernels::ArgExtremeOp<A, false>{}, limits, stream);
        }
      });
    case ReduceOp::All:
    case ReduceOp::Any:
      // The op layer passes bool input; the output is bool or uint8 (one byte, 0 or 1).
      CTORCH_INTERNAL_ASSERT(in == kBool, "[all] expects bool input");
      if (op == ReduceOp::All) return run<bool, uint8_t>(plan, data, kernels::AllOp{}, limits, stream);
      return run<bool, uint8_t>(plan, data, kernels::AnyOp{}, limits, stream);
    case ReduceOp::Norm1: return run_norm<ReduceOp::Norm1>(in, plan, data, args, limits, stream);
    case ReduceOp::Norm2: return run_norm<ReduceOp::Norm2>(in, plan, data, args, limits, stream);
    case ReduceOp::NormP: return run_norm<ReduceOp::NormP>(in, plan, data, args, limits, stream);
    case ReduceOp::Var:
      return kernels::dispatch_floating(in, "var", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::VarOp v;
        v.correction = static_cast<double>(args.correction);
        v.take_sqrt = args.take_sqrt;
        run<T, T>(plan, data, v, limits, stream);
      });
  }
}

void softmax(ScalarType dtype, bool log, const SoftmaxPlan& plan, char* const* data, Stream s) {
  if (plan.outer * plan.inner == 0 || plan.dim_size == 0) return;
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  const kernels::DeviceLimits limits = device_limits(s.device().index());
  kernels::dispatch_floating(dtype, log ? "log_softmax" : "softmax", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    const unsigned block = std::max(32u, next_pow2(plan.dim_size));
    int64_t wave = static_cast<int64_t>(limits.sm_count) * std::max(1, limits.max_threads_per_sm / static_cast<int>(block));
    if (wave <= 0) wave = kernels::kFallbackMaxBlocks;
    const unsigned grid = static_cast<unsigned>(std::min(plan.outer * plan.inner, wave));
    const size_t shared = block * sizeof(A);
    const T* in = reinterpret_cast<const T*>(data[1]);
    T* out = reinterpret_cast<T*>(data[0]);
    if (log) {
      softmax_kernel<T, true><<<grid, block, shared, stream>>>(plan, in, out);
    } else {
      softmax_kernel<T, false><<<grid, block, shared, stream>>>(plan, in, out);
    }
    CTORCH_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace ctorch::backends::cuda
