// Shared machinery of elementwise ops: device checks, type promotion, broadcasting, plans,
// and the generic unary/binary entry points that every elementwise op goes through.
#pragma once

#include <initializer_list>
#include <span>

#include "ctorch/tensor.h"
#include "kernels/elementwise_plan.h"
#include "kernels/functors.h"
#include "ops/kernel_table.h"

namespace ctorch::inline api::ops {

/// Wraps a dim index into [0, ndim) (PyTorch's maybe_wrap_dim); throws IndexError when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim);
/// The device all `tensors` share; throws PyTorch's "Expected all tensors to be on the same device".
Device common_device(std::initializer_list<const Tensor*> tensors);
/// common_device for a run-time number of tensors.
Device common_device(std::span<const Tensor* const> tensors);
/// A new output of `shape` for an elementwise op on `inputs`, laid out as TensorIterator lays it
/// out: contiguous for contiguous inputs, else following the inputs' dim order (x.t() + 1 is
/// transposed too).
Tensor empty_output(IntArrayRef shape, const TensorOptions& options, std::initializer_list<const Tensor*> inputs);
/// empty_output for a run-time number of inputs.
Tensor empty_output(IntArrayRef shape, const TensorOptions& options, std::span<const Tensor* const> inputs);
/// torch.result_type of `tensors` (TensorIterator's common dtype; 0-dim tensors as a lower category).
ScalarType common_dtype(std::span<const Tensor* const> tensors);
/// Plan for writing `out` from `inputs`, each broadcast to out's shape.
kernels::ElementwisePlan make_plan(const Tensor& out, std::initializer_list<const Tensor*> inputs);
/// Plan of a jiterator kernel over `operands` (outputs first, all of the first one's shape, then
/// inputs broadcast to it), at most kernels::kMaxJitOperands.
kernels::JitPlan make_jit_plan(const Tensor* const* operands, int n_operands);
/// Data pointers in plan order (out first).
void plan_data(char** data, const Tensor& out, std::initializer_list<const Tensor*> inputs);

/// out-of-place a op b in the promoted dtype.
Tensor binary_op(kernels::BinaryOp op, const Tensor& a, const Tensor& b, const OpArgs& args = {});
/// out-of-place with one scalar operand on `side`.
Tensor binary_op(kernels::BinaryOp op, const Tensor& t, const Scalar& s, ScalarOperand side,
                 const OpArgs& args = {});
/// self = self op b (checks shape and castability, bumps the version).
Tensor& binary_op_(kernels::BinaryOp op, Tensor& self, const Tensor& b, const OpArgs& args = {});
/// self = self op s.
Tensor& binary_op_(kernels::BinaryOp op, Tensor& self, const Scalar& s, const OpArgs& args = {});
/// out-of-place unary op; `to_float` promotes integer inputs to the default dtype (exp, sin, ...).
Tensor unary_op(kernels::UnaryOp op, const Tensor& t, bool to_float, const OpArgs& args = {});
/// in-place unary op.
Tensor& unary_op_(kernels::UnaryOp op, Tensor& t, bool to_float, const OpArgs& args = {});

/// dst = src (broadcast, converted) with copy_'s checks, without bumping dst's version: for
/// filling tensors an op has just created (PyTorch's factories leave _version at 0).
void copy_into(Tensor& dst, const Tensor& src, bool non_blocking = false);
/// Every element of `t` = value (checked to fit t's dtype), without bumping the version.
void fill_into(Tensor& t, const Scalar& value);

/// True when any element is non-zero (host-side check used for argument validation).
bool has_nonzero(const Tensor& t);

/// True when the elements fill their memory exactly once in some dim order (c10's
/// is_non_overlapping_and_dense): contiguous tensors and their permutations.
bool is_non_overlapping_and_dense(const Tensor& t);
/// True when t's strides are exactly the row-major strides of its sizes, size-1 and size-0 dims
/// included (is_contiguous() ignores the strides of size-1 dims).
bool has_row_major_strides(const Tensor& t);
/// The output of an op on `t` and a scalar (a Scalar or a 0-dim cpu tensor): TensorIterator then
/// has operands of different shapes, so no fast setup applies and the output follows t's stride
/// order even where t counts as contiguous (size-1 or size-0 dims with other strides).
Tensor empty_output_beside_scalar(IntArrayRef shape, const TensorOptions& options, const Tensor& t);
/// PyTorch's assert_no_internal_overlap: throws when elements of `t` share memory (an expanded view).
void check_no_internal_overlap(const Tensor& t);
/// PyTorch's assert_no_partial_overlap: throws when `out` and `in` share some memory but are not
/// the same elements in the same layout (a.add_(a) is fine, a[1:].add_(a[:-1]) is not).
void check_no_partial_overlap(const Tensor& out, const Tensor& in);

/// Name of a binary op as PyTorch spells it in messages ("add", "div", ...).
const char* op_name(kernels::BinaryOp op);
/// Name of a unary op ("exp", ...).
const char* op_name(kernels::UnaryOp op);

}  // namespace ctorch::api::ops
