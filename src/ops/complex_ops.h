// The complex paths of the elementwise entry points (Note [Complex by composition] in complex_ops.cpp).
#pragma once

#include "ctorch/tensor.h"
#include "kernels/functors.h"
#include "ops/kernel_table.h"

namespace ctorch::inline api::ops {

/// dst = src where either is complex: complex <-> complex, real -> complex (imaginary parts 0),
/// complex -> real (PyTorch's warning, imaginary parts dropped).
void complex_copy(Tensor& dst, const Tensor& src, bool non_blocking);
/// Every element of complex `t` = value + 0j.
void complex_fill(Tensor& t, const Scalar& value);
/// a op b where either is complex (+ - * / == !=; other ops raise NotImplementedError).
Tensor complex_binary(kernels::BinaryOp op, const Tensor& a, const Tensor& b, const Scalar& alpha);
/// t op s (the scalar on `side`) for complex t.
Tensor complex_binary(kernels::BinaryOp op, const Tensor& t, const Scalar& s, ScalarOperand side, const Scalar& alpha);
/// op(t) for complex t (neg, abs; other ops raise NotImplementedError).
Tensor complex_unary(kernels::UnaryOp op, const Tensor& t);

}  // namespace ctorch::api::ops
