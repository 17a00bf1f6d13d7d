// KernelTable: what each backend provides to the op layer, one entry per op family.
// The op layer validates arguments and builds plans; a backend only runs them on a stream.
// Every slot is required (a backend fills all of them: cpu, emulated, cuda), except those marked
// optional.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ctorch/device.h"
#include "ctorch/dtype.h"
#include "ctorch/scalar.h"
#include "ctorch/stream.h"
#include "kernels/elementwise_plan.h"
#include "kernels/fft_plan.h"
#include "kernels/functors.h"
#include "kernels/index_plan.h"
#include "kernels/random_op.h"
#include "kernels/reduce_functors.h"
#include "kernels/reduce_plan.h"

namespace ctorch::inline api::ops {

/// Which operand of a binary op is a host scalar instead of a tensor.
enum class ScalarOperand : int8_t { None, Lhs, Rhs };

/// Extra values an op passes to its kernel (alpha, clamp bounds, the scalar operand).
struct OpArgs {
  Scalar alpha = 1;     // Add/Sub scale
  Scalar scalar = 0;    // the scalar operand of a binary op with ScalarOperand != None
  Scalar lo = 0;        // Clamp lower bound
  Scalar hi = 0;        // Clamp upper bound
};

/// A 2-d convolution's geometry (PyTorch's ConvParams for two spatial dims), validated by ops/conv.cpp.
struct ConvParams {
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
};

/// Which computation of a 2-d convolution a backend kernel runs.
enum class ConvPass : int8_t { Forward, BackwardData, BackwardWeights };

/// One 2-d convolution for a backend's own kernel: contiguous NCHW tensors, weight [OC, C / groups, KH, KW].
struct ConvKernelArgs {
  ConvPass pass = ConvPass::Forward;
  ScalarType dtype = kFloat;
  int64_t n = 0, c = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  ConvParams params;
  const void* input = nullptr;        ///< Forward, BackwardWeights
  const void* weight = nullptr;       ///< Forward, BackwardData
  const void* bias = nullptr;         ///< Forward (may be null)
  void* output = nullptr;             ///< Forward
  const void* grad_output = nullptr;  ///< BackwardData, BackwardWeights
  void* grad_input = nullptr;         ///< BackwardData
  void* grad_weight = nullptr;        ///< BackwardWeights
  void* grad_bias = nullptr;          ///< BackwardWeights (may be null)
};

/// One column kernel of the generic convolution (Note [Convolution]): contiguous input [N, C, H, W]
/// and columns [C * KH * KW, N * OH * OW].
struct ColumnsKernelArgs {
  bool col2im = false;  ///< false: im2col (input -> columns); true: col2im (columns -> input gradient)
  ScalarType dtype = kFloat;
  int64_t n = 0, c = 0, h = 0, w = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  ConvParams params;
  const void* src = nullptr;  ///< the input (im2col) or the columns (col2im)
  void* dst = nullptr;        ///< the columns (im2col) or the input gradient (col2im), written whole
};

/// Which computation of a batch normalization a backend kernel runs.
enum class BatchNormPass : int8_t { ForwardTraining, ForwardInference, Backward };

/// One batch normalization of a contiguous [N, C, L] tensor, for a backend's own kernel. mean/var
/// are [C]: written by ForwardTraining (the batch's, variance biased), read by the other passes.
struct BatchNormKernelArgs {
  BatchNormPass pass = BatchNormPass::ForwardTraining;
  ScalarType dtype = kFloat;
  int64_t n = 0, c = 0, l = 0;
  double eps = 1e-5;
  bool use_batch_stats = true;    ///< Backward: the statistics were the batch's (training)
  const void* input = nullptr;    ///< all passes
  const void* weight = nullptr;   ///< [C] or null (then ones)
  const void* bias = nullptr;     ///< [C] or null (then zeros); forward passes
  void* mean = nullptr;           ///< [C]
  void* var = nullptr;            ///< [C]
  void* output = nullptr;         ///< forward passes
  const void* grad_output = nullptr;  ///< Backward
  void* grad_input = nullptr;         ///< Backward
  void* grad_weight = nullptr;        ///< Backward (null when the weight is)
  void* grad_bias = nullptr;          ///< Backward (null when the weight is)
};

/// One layer normalization of a contiguous [M, N] tensor over its rows, for a backend's own kernel.
/// mean/var are [M]: written by the forward (variance biased), read by the backward.
struct LayerNormKernelArgs {
  bool backward = false;
  ScalarType dtype = kFloat;
  int64_t m = 0, n = 0;
  double eps = 1e-5;
  const void* input = nullptr;        ///< both passes
  const void* weight = nullptr;       ///< [N] or null (then ones)
  const void* bias = nullptr;         ///< [N] or null (then zeros); forward
  void* mean = nullptr;               ///< [M]
  void* var = nullptr;                ///< [M]
  void* output = nullptr;             ///< forward
  const void* grad_output = nullptr;  ///< backward
  void* grad_input = nullptr;         ///< backward
  void* grad_weight = nullptr;        ///< backward (null when the weight is)
  void* grad_bias = nullptr;          ///< backward (null when the weight is)
};

/// One 2-d max pooling over `planes` contiguous H x W planes (N * C), for a backend's own kernel
/// (the geometry is set for both passes).
struct MaxPoolKernelArgs {
  bool backward = false;
  ScalarType dtype = kFloat;
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  const void* input = nullptr;        ///< forward: the input planes
  void* output = nullptr;             ///< forward: the maxima
  int64_t* indices = nullptr;         ///< forward: written; backward: read (positions in the plane)
  const void* grad_output = nullptr;  ///< backward
  void* grad_input = nullptr;         ///< backward: written whole (zeros where no maximum was)
};

/// One 2-d average pooling (dilation 1) over `planes` contiguous H x W planes, for a backend's own kernel.
struct AvgPoolKernelArgs {
  bool backward = false;
  bool adaptive = false;            ///< PyTorch's adaptive windows (kernel, stride, padding unused)
  bool count_include_pad = true;
  int64_t divisor_override = 0;     ///< 0: none
  ScalarType dtype = kFloat;
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, padding[2] = {0, 0};
  const void* input = nullptr;        ///< forward
  void* output = nullptr;             ///< forward
  const void* grad_output = nullptr;  ///< backward
  void* grad_input = nullptr;         ///< backward: written whole
};

/// What a backend compiles for a jiterator kernel (Note [Jiterator] in src/jiterator/jiterator.cpp).
struct JitSpec {
  std::string code;                // the user's code string, verbatim
  std::string name;                // its entry function
  int ninputs = 0;                 // tensors read, 1..8
  int noutputs = 1;                // tensors written, 1..8 (data[0..noutputs) of the plan)
  ScalarType dtype = kFloat;       // every operand's storage dtype (never float16/bfloat16)
  std::vector<ScalarType> extra;   // extra scalar arguments: kInt64, kDouble or kBool each
  bool return_by_ref = false;      // outputs through reference parameters, not the return value
};

/// One extra scalar argument of a jiterator launch, read as spec.extra[i] says.
union JitValue {
  int64_t i;
  double d;
  bool b;
};

/// A compiled jiterator kernel, owned by the backend that compiled it (kept for the process).
struct JitKernel {
  /// cpu and emulated: runs elements [begin, end) of a plan (the generated `ctorch_jit_run`).
  void (*host)(const int64_t* shape, const int64_t* strides, int ndim, char* const* data,
               const JitValue* extra, int64_t begin, int64_t end) = nullptr;
  /// real CUDA: the CUfunction of the generated __global__ kernel.
  void* function = nullptr;
};

/// Kernels of one backend. `data[0]` is the output; plans are built by ops/elementwise.
struct KernelTable {
  /// data[0] = op(data[1]) in `dtype` (input and output have the same dtype).
  void (*unary)(kernels::UnaryOp op, ScalarType dtype, const kernels::ElementwisePlan& plan,
                char* const* data, const OpArgs& args, Stream stream);
  /// data[0] = op(data[1], data[2]) computed in `dtype`; output is bool for compare/logical ops.
  /// With a scalar operand, the tensor operand is data[1] and the scalar is args.scalar.
  void (*binary)(kernels::BinaryOp op, ScalarType dtype, ScalarOperand scalar_side,
                 const kernels::ElementwisePlan& plan, char* const* data, const OpArgs& args, Stream stream);
  /// data[0] (dtype dst) = data[1] (dtype src), converting values.
  void (*cast_copy)(ScalarType dst, ScalarType src, const kernels::ElementwisePlan& plan, char* const* data,
                    Stream stream);
  /// data[0] = value.
  void (*fill)(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, const Scalar& value,
               Stream stream);
  /// data[0] = data[1] (bool) ? data[2] : data[3], all but the condition in `dtype`.
  void (*where)(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, Stream stream);
  /// Row-major strided batched GEMM (cublasGemmStridedBatched shape): for p < batch, C_p = alpha * op(A_p) @
  /// op(B_p) + beta * C_p, X_p = x + p * stride_x, op(X) = trans_x ? X^T : X, lda >= max(1, cols of stored A);
  /// C_p is m x n; beta == 0 never reads C; alpha == 0 or k == 0 never reads A or B; C must not overlap A or B.
  void (*gemm)(ScalarType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const Scalar& alpha,
               const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
               const Scalar& beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch, Stream stream);
  /// data[0] (dtype out) = op over plan's reduced dims of data[1] (dtype in); ArgMax/ArgMin write values to
  /// data[0] and int64 positions to data[2], either of which may be null. out == in, except: integral and bool sum/prod
  /// give int64, and all/any read bool and write bool or uint8.
  void (*reduce)(kernels::ReduceOp op, ScalarType in, ScalarType out, const kernels::ReducePlan& plan,
                 char* const* data, const kernels::ReduceArgs& args, Stream stream);
  /// data[0] = softmax (or log_softmax) of data[1] over plan's middle dim, both contiguous in `dtype`.
  void (*softmax)(ScalarType dtype, bool log, const kernels::SoftmaxPlan& plan, char* const* data, Stream stream);
  /// data[0] (`dtype`) = samples of `op` from Philox stream (seed, offset), elements in plan order
  /// mapped to threads as PyTorch's CUDA kernels do for a device with `sm_count` SMs of
  /// `max_threads_per_sm` threads (Note [Distribution grid] in kernels/random_functors.h).
  void (*random)(kernels::RandomOp op, ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data,
                 const kernels::PhiloxArgs& philox, const kernels::RandomArgs& args, int sm_count,
                 int max_threads_per_sm, Stream stream);
  /// data[1] (`dtype`) = data[0] at the offsets of plan's index tensors (Note [Index plan]).
  void (*index_gather)(ScalarType dtype, const kernels::IndexPlan& plan, char* const* data, Stream stream);
  /// data[0] at the plan's index offsets = data[1] (accumulate: += alpha * data[1], run sequentially in
  /// plan order, so the result is deterministic); both in `dtype`.
  void (*index_scatter)(ScalarType dtype, bool accumulate, const Scalar& alpha, const kernels::IndexPlan& plan,
                        char* const* data, Stream stream);
  /// The backend's kernel for `spec` (compiled for `device` at the first request, then cached);
  /// throws JitCompileError with the compiler's diagnostics.
  const JitKernel* (*jit_compile)(const JitSpec& spec, Device device);
  /// Runs `kernel` over plan (outputs data[0..noutputs), then inputs) with `extra` arguments.
  void (*jit)(const JitKernel& kernel, const kernels::JitPlan& plan, char* const* data, const JitValue* extra,
              int nextra, Stream stream);
  /// out = the unnormalized batched FFT `plan` of `in` (contiguous rows, kernels/fft_plan.h); only C2R may
  /// overwrite `in`. On cuda devices the plan comes from the device's plan cache (ops/fft_plan_cache.h).
  void (*fft)(const kernels::FftPlan& plan, const void* in, void* out, Stream stream);
  /// Optional: the backend's own 2-d convolution (cpu: oneDNN). Returns false for a case it does not
  /// cover; null, or false, runs the op layer's im2col + GEMM (Note [Convolution] in ops/conv.cpp).
  bool (*conv2d)(const ConvKernelArgs& args, Stream stream) = nullptr;
  /// Optional: the generic convolution's im2col or col2im as one kernel; returns false for a case it does
  /// not cover (null or false: strided copies and adds, Note [Convolution]).
  bool (*conv_columns)(const ColumnsKernelArgs& args, Stream stream) = nullptr;
  /// Optional: the backend's own max pooling, forward (values and indices) or backward; returns false
  /// for a case it does not cover (null or false: the op layer's window view, Note [Max pooling]).
  bool (*max_pool2d)(const MaxPoolKernelArgs& args, Stream stream) = nullptr;
  /// Optional: the backend's own average pooling, forward or backward; returns false for a case it does
  /// not cover (null or false: strided views and reductions, Note [Average pooling]).
  bool (*avg_pool2d)(const AvgPoolKernelArgs& args, Stream stream) = nullptr;
  /// Optional: the backend's own batch normalization; returns false for a case it does not cover
  /// (null or false: reductions and elementwise ops, Note [Batch normalization]).
  bool (*batch_norm)(const BatchNormKernelArgs& args, Stream stream) = nullptr;
  /// Optional: the backend's own layer normalization; returns false for a case it does not cover
  /// (null or false: reductions and elementwise ops, Note [Layer normalization]).
  bool (*layer_norm)(const LayerNormKernelArgs& args, Stream stream) = nullptr;
};

}  // namespace ctorch::api::ops

namespace ctorch::inline api::impl {
class DeviceRuntime;
}

namespace ctorch::inline api::ops {

/// Associates `table` with `runtime`: ops on that runtime's devices use it (backends call this).
void register_kernels(const impl::DeviceRuntime* runtime, const KernelTable* table);
/// The kernels for `device`'s backend (throws DeviceError when none is available).
const KernelTable& kernels_for(Device device);
/// The cpu backend's kernels.
const KernelTable& cpu_kernels();

}  // namespace ctorch::api::ops
