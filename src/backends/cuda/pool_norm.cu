// KernelTable::conv_columns, ::max_pool2d, ::avg_pool2d, ::batch_norm and ::layer_norm on CUDA: the shared table's
// slots (backends/kernel_table.h) over CudaLauncher, whose thread and block functor kernels
// (Note [Thread functors] in kernels/thread_functors.h) are defined here. Compiled by the CUDA build;
// no GPU has run them (the emulated devices walk the same functors on the host).
#include "backends/cuda/launch.cuh"

namespace ctorch::inline api::backends::cuda {

namespace {

constexpr unsigned kThreadBlock = 256;

// Thread i of a thread functor, grid-stride.
template <class F>
__global__ void thread_functor_kernel(F f, int64_t n) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

// Blocks b, b + gridDim.x, ... of a block functor, kernels::kBlockThreads threads each.
template <class F>
__global__ void block_functor_kernel(F f) {
  using Acc = typename F::Acc;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Acc* shared = reinterpret_cast<Acc*>(shared_bytes);
  const unsigned t = threadIdx.x;
  const int64_t extent = f.extent(), apply_extent = f.apply_extent();
  auto combine = [&](const Acc& x, const Acc& y) { return f.combine(x, y); };
  for (int64_t b = blockIdx.x; b < f.blocks(); b += gridDim.x) {
    Acc acc = f.init();
    for (int64_t e = t; e < extent; e += blockDim.x) acc = f.fold(acc, b, e);
    const Acc total = detail::block_tree(acc, shared, combine);
    const auto post = f.finish(b, total, t == 0);
    for (int64_t e = t; e < apply_extent; e += blockDim.x) f.apply(b, e, post);
  }
}

}  // namespace

template <class F>
void CudaLauncher::threads(const F& f, const char*, Stream s) {
  const int64_t n = f.threads();
  if (n <= 0) return;
  ScopedDevice guard(s.device().index());
  const int64_t blocks = std::min<int64_t>((n + kThreadBlock - 1) / kThreadBlock, 65535);
  thread_functor_kernel<F><<<static_cast<unsigned>(blocks), kThreadBlock, 0, native_stream(s)>>>(f, n);
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void CudaLauncher::blocks(const F& f, const char*, Stream s) {
  if (f.blocks() <= 0) return;
  ScopedDevice guard(s.device().index());
  const int64_t grid = std::min<int64_t>(f.blocks(), 65535);
  const size_t shared = sizeof(typename F::Acc) * kernels::kBlockThreads;
  block_functor_kernel<F><<<static_cast<unsigned>(grid), kernels::kBlockThreads, shared, native_stream(s)>>>(f);
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

bool conv_columns(const ops::ColumnsKernelArgs& args, Stream stream) { return CudaTable::conv_columns(args, stream); }
bool max_pool2d(const ops::MaxPoolKernelArgs& args, Stream stream) { return CudaTable::max_pool2d(args, stream); }
bool avg_pool2d(const ops::AvgPoolKernelArgs& args, Stream stream) { return CudaTable::avg_pool2d(args, stream); }
bool batch_norm(const ops::BatchNormKernelArgs& args, Stream stream) { return CudaTable::batch_norm(args, stream); }
bool layer_norm(const ops::LayerNormKernelArgs& args, Stream stream) { return CudaTable::layer_norm(args, stream); }

}  // namespace ctorch::api::backends::cuda
