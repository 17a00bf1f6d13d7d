// The CUDA backend's KernelTable slots: the shared table (backends/kernel_table.h) over CudaLauncher,
// instantiated in one .cu per op family (unary, binary, copy, reduce, random, gemm_loop, index,
// pool_norm) so nvcc builds them in parallel; kernels.cpp collects them.
// Every slot makes the stream's device current, launches on the stream's cudaStream_t and
// checks the launch; none of them synchronizes.
#pragma once

#include <cstdint>

#include "kernels/gemm_math.h"
#include "ops/kernel_table.h"

namespace ctorch::inline api::backends::cuda {

/// unary.cu: KernelTable::unary.
void unary(kernels::UnaryOp op, ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data,
           const ops::OpArgs& args, Stream stream);
/// binary.cu: KernelTable::binary (tensor-tensor and scalar-operand forms).
void binary(kernels::BinaryOp op, ScalarType dtype, ops::ScalarOperand side, const kernels::ElementwisePlan& plan,
            char* const* data, const ops::OpArgs& args, Stream stream);
/// copy.cu: KernelTable::cast_copy.
void cast_copy(ScalarType dst, ScalarType src, const kernels::ElementwisePlan& plan, char* const* data, Stream stream);
/// copy.cu: KernelTable::fill.
void fill(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, const Scalar& value,
          Stream stream);
/// copy.cu: KernelTable::where.
void where(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, Stream stream);

/// reduce.cu: KernelTable::reduce.
void reduce(kernels::ReduceOp op, ScalarType in, ScalarType out, const kernels::ReducePlan& plan, char* const* data,
            const kernels::ReduceArgs& args, Stream stream);
/// reduce.cu: KernelTable::softmax.
void softmax(ScalarType dtype, bool log, const kernels::SoftmaxPlan& plan, char* const* data, Stream stream);

/// random.cu: KernelTable::random (Philox draws laid out as PyTorch's distribution kernels).
void random(kernels::RandomOp op, ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data,
            const kernels::PhiloxArgs& philox, const kernels::RandomArgs& args, int sm_count, int max_threads_per_sm,
            Stream stream);

/// index.cu: KernelTable::index_gather.
void index_gather(ScalarType dtype, const kernels::IndexPlan& plan, char* const* data, Stream stream);
/// index.cu: KernelTable::index_scatter.
void index_scatter(ScalarType dtype, bool accumulate, const Scalar& alpha, const kernels::IndexPlan& plan,
                   char* const* data, Stream stream);

/// pool_norm.cu: KernelTable::conv_columns (im2col / col2im of the generic convolution).
bool conv_columns(const ops::ColumnsKernelArgs& args, Stream stream);
/// pool_norm.cu: KernelTable::max_pool2d (Note [Pooling kernels]).
bool max_pool2d(const ops::MaxPoolKernelArgs& args, Stream stream);
/// pool_norm.cu: KernelTable::avg_pool2d.
bool avg_pool2d(const ops::AvgPoolKernelArgs& args, Stream stream);
/// pool_norm.cu: KernelTable::batch_norm (Note [Normalization kernels]).
bool batch_norm(const ops::BatchNormKernelArgs& args, Stream stream);
/// pool_norm.cu: KernelTable::layer_norm.
bool layer_norm(const ops::LayerNormKernelArgs& args, Stream stream);

/// fft.cpp: KernelTable::fft through cuFFT (opened on first use), plans from the device's cufft_plan_cache.
void fft(const kernels::FftPlan& plan, const void* in, void* out, Stream stream);

/// gemm_loop.cu: KernelTable::gemm (the shared table's slot; it calls blas_gemm).
void gemm(ScalarType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const Scalar& alpha,
          const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
          const Scalar& beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch, Stream stream);
/// blas.cpp: cuBLAS for the floating dtypes, gemm_loop for the others and for k == 0 / alpha == 0.
void blas_gemm(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a, const void* b,
               const Scalar& beta, void* c, Stream stream);
/// blas.cpp: the calling thread's cuBLAS handle for `stream`'s device, bound to that stream
/// (torch.cuda.current_blas_handle); created on first use.
void* blas_handle(Stream stream);
/// gemm_loop.cu: the loop GEMM (kernels/gemm_math.h) with one thread per output element.
void gemm_loop(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a, const void* b,
               const Scalar& beta, void* c, Stream stream);

/// The CUDA backend's kernel table (registered with the runtime by its factory).
const ops::KernelTable& kernels();

}  // namespace ctorch::api::backends::cuda
