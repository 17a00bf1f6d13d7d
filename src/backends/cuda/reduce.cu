// KernelTable::reduce and ::softmax on CUDA: the shared table's slots (backends/kernel_table.h) over
// CudaLauncher, whose reduce and softmax kernels are defined here. Their grid, per-thread folds and
// block tree are those of kernels/reduce_grid.h (Note [Reduction grid]), which the emulated walker
// runs step by step on the host.
#include "backends/cuda/launch.cuh"
#include "kernels/reduce_grid.h"

namespace ctorch::inline api::backends::cuda {

using kernels::ReducePlan;
using kernels::SoftmaxPlan;

namespace {

template <class T, class Out, class Op>
__global__ void reduce_block_per_output(const __grid_constant__ ReducePlan plan, char* values, const char* input,
                                        int64_t* indices, Op op) {
  using acc_t = typename Op::acc_t;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  acc_t* shared = reinterpret_cast<acc_t*>(shared_bytes);
  for (int64_t o = blockIdx.x; o < plan.numel_out; o += gridDim.x) {
    int64_t in_off = 0, out_off = 0;
    plan.kept_offsets(o, &in_off, &out_off);
    const acc_t partial = kernels::reduce_fold<T, Op>(plan, op, input + in_off, threadIdx.x, blockDim.x);
    const acc_t acc = detail::block_tree(partial, shared, kernels::OpCombine<Op>{op});
    if (threadIdx.x == 0) kernels::reduce_store<Out>(op, values, indices, out_off, acc);
  }
}

template <class T, class Out, class Op>
__global__ void reduce_thread_per_output(const __grid_constant__ ReducePlan plan, char* values, const char* input,
                                         int64_t* indices, Op op) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < plan.numel_out; o += stride) {
    int64_t in_off = 0, out_off = 0;
    plan.kept_offsets(o, &in_off, &out_off);
    kernels::reduce_store<Out>(op, values, indices, out_off, kernels::reduce_fold<T, Op>(plan, op, input + in_off, 0, 1));
  }
}

template <class T, bool Log>
__global__ void softmax_kernel(SoftmaxPlan plan, const T* in, T* out) {
  using A = kernels::opmath_t<T>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  A* shared = reinterpret_cast<A*>(shared_bytes);
  for (int64_t row = blockIdx.x; row < plan.outer * plan.inner; row += gridDim.x) {
    const int64_t base = kernels::softmax_row_base(plan, row);
    const A mx = detail::block_tree(kernels::softmax_fold_max(plan, in + base, threadIdx.x, blockDim.x), shared,
                            kernels::SoftmaxMax<A>{});
    const A sum = detail::block_tree(kernels::softmax_fold_sum(plan, in + base, mx, threadIdx.x, blockDim.x), shared,
                             kernels::SoftmaxSum<A>{});
    kernels::softmax_write<T, Log>(plan, in + base, out + base, mx, sum, threadIdx.x, blockDim.x);
  }
}

}  // namespace

template <class T, class Out, class Op>
void CudaLauncher::reduce(const ReducePlan& plan, char* const* data, const Op& op, Stream s) {
  if (plan.numel_out == 0) return;
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  const kernels::ReduceLaunch l = kernels::reduce_launch(plan, device_limits(s.device().index()));
  char* values = data[0];
  const char* input = data[1];
  int64_t* indices = Op::kIndexed ? reinterpret_cast<int64_t*>(data[2]) : nullptr;
  if (l.thread_per_output) {
    reduce_thread_per_output<T, Out, Op><<<l.config.grid, l.config.block, 0, stream>>>(plan, values, input, indices, op);
  } else {
    const size_t shared = l.block * sizeof(typename Op::acc_t);
    reduce_block_per_output<T, Out, Op><<<l.grid, l.block, shared, stream>>>(plan, values, input, indices, op);
  }
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

template <class T, bool Log>
void CudaLauncher::softmax(const SoftmaxPlan& plan, char* const* data, Stream s) {
  ScopedDevice guard(s.device().index());
  const kernels::ReduceLaunch l =
      kernels::block_per_row_launch(plan.outer * plan.inner, plan.dim_size, device_limits(s.device().index()));
  const size_t shared = l.block * sizeof(kernels::opmath_t<T>);
  softmax_kernel<T, Log><<<l.grid, l.block, shared, native_stream(s)>>>(plan, reinterpret_cast<const T*>(data[1]),
                                                                        reinterpret_cast<T*>(data[0]));
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

void reduce(kernels::ReduceOp op, ScalarType in, ScalarType out, const ReducePlan& plan, char* const* data,
            const kernels::ReduceArgs& args, Stream stream) {
  CudaTable::reduce(op, in, out, plan, data, args, stream);
}

void softmax(ScalarType dtype, bool log, const SoftmaxPlan& plan, char* const* data, Stream stream) {
  CudaTable::softmax(dtype, log, plan, data, stream);
}

}  // namespace ctorch::api::backends::cuda
