// The cpu backend's matrix-product kernel (the KernelTable `gemm` slot), defined in blas.cpp.
#pragma once

#include <cstdint>

#include "ctorch/dtype.h"
#include "ctorch/scalar.h"
#include "ctorch/stream.h"

namespace ctorch::backends::cpu {

/// KernelTable::gemm for cpu: OpenBLAS for float32/float64, a blocked loop for the other dtypes.
void gemm(ScalarType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const Scalar& alpha,
          const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
          const Scalar& beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch, Stream stream);

}  // namespace ctorch::backends::cpu
