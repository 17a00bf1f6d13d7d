// The cpu launcher's matrix product, defined in blas.cpp.
#pragma once

#include "ctorch/dtype.h"
#include "ctorch/scalar.h"
#include "kernels/gemm_math.h"

namespace ctorch::inline api::backends::cpu {

/// C = alpha * op(A) @ op(B) + beta * C over `g` (ops::KernelTable::gemm's contract), synchronously:
/// OpenBLAS for float32/float64 (and large float16/bfloat16 products, widened), a blocked loop otherwise.
void gemm(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a, const void* b,
          const Scalar& beta, void* c);

}  // namespace ctorch::api::backends::cpu
