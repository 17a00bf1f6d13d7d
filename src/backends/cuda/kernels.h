// The CUDA backend's KernelTable slots (one .cu per op family) and the table itself.
// Every slot makes the stream's device current, launches on the stream's cudaStream_t and
// checks the launch; none of them synchronizes.
#pragma once

#include "ops/kernel_table.h"

namespace ctorch::backends::cuda {

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

/// The CUDA backend's kernel table (registered with the runtime by its factory).
const ops::KernelTable& kernels();

}  // namespace ctorch::backends::cuda
