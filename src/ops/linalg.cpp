// Matrix products: mm, bmm, addmm, matmul (all of torch.matmul's cases) and linear.
//
// Note [matmul plan]
// Every product is one call of KernelTable::gemm (a strided batched GEMM) writing a fresh contiguous
// output, with the operands passed as views: batch dims broadcast with stride 0, a left operand whose
// batch dims fold into its rows becomes one tall GEMM when the right operand is shared by every batch
// (PyTorch's "fold" without its reshape copy), and the remaining batch dims are coalesced so that a single
// launch covers them whenever the strides allow. A matrix is copied only when neither of its two dims
// has unit stride (BLAS needs one, with a leading dimension): transposed, sliced-row and batched views are
// multiplied in place, and the output is never zero-filled first.
// The checks replay PyTorch 1.13's dispatch (dot, mv, mm, folded mm/mv, bmm) so that errors read as
// PyTorch's, whichever kernel call computes the result.
#include <algorithm>
#include <string>

#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ops/elementwise.h"
#include "ops/kernel_table.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"

namespace ctorch::inline api {
namespace {

// ---- checks (PyTorch 1.13 wording) -------------------------------------------------------------------

void check_same_dtype(const Tensor& first, const Tensor& second) {
  CTORCH_CHECK(first.dtype() == second.dtype(), "expected scalar type ", scalar_type_cpp_name(first.dtype()),
               " but found ", scalar_type_cpp_name(second.dtype()));
}

void check_mm_shapes(int64_t rows1, int64_t cols1, int64_t rows2, int64_t cols2) {
  CTORCH_CHECK(cols1 == rows2, "mat1 and mat2 shapes cannot be multiplied (", rows1, "x", cols1, " and ", rows2, "x",
               cols2, ")");
}

void check_mv_shapes(int64_t rows, int64_t cols, int64_t vec) {
  CTORCH_CHECK(cols == vec, "size mismatch, got ", rows, ", ", rows, "x", cols, ",", vec);
}

void check_bmm_shapes(int64_t batch1, int64_t k1, int64_t batch2, int64_t k2) {
  CTORCH_CHECK(batch2 == batch1 && k2 == k1, "Expected size for first two dimensions of batch2 tensor to be: [",
               batch1, ", ", k1, "] but got: [", batch2, ", ", k2, "].");
}

// PyTorch 1.13's should_fold: whether matmul folds `t`'s batch into rows and calls mm/mv instead of bmm.
bool should_fold(const Tensor& t, int64_t other_dim) {
  if (t.dim() < 3 || (other_dim != 1 && other_dim != 2)) return false;
  return !(t.dim() == 3 && other_dim == 2 && t.stride(2) != 1 && t.stride(0) == t.size(1) * t.size(2));
}

// ---- the product -------------------------------------------------------------------------------------

/// One operand as a batch of matrices aligned with the output batch, in BLAS form.
struct Matrices {
  const char* data = nullptr;
  DimVector batch_strides;  // per output batch dim, in elements; 0 where broadcast
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
  bool trans = false;  // stored as cols x rows (column-major)
  int64_t ld = 1;
};

/// Sets trans/ld when BLAS can read the matrix as it is (one unit-stride dim, a valid leading dim).
bool blas_layout(Matrices& x) {
  const int64_t rows = x.rows, cols = x.cols;
  if ((x.col_stride == 1 || cols <= 1) && (rows <= 1 || x.row_stride >= std::max<int64_t>(1, cols))) {
    x.trans = false;
    x.ld = rows <= 1 ? std::max<int64_t>(1, cols) : x.row_stride;
    return true;
  }
  if ((x.row_stride == 1 || rows <= 1) && (cols <= 1 || x.col_stride >= std::max<int64_t>(1, rows))) {
    x.trans = true;
    x.ld = cols <= 1 ? std::max<int64_t>(1, rows) : x.col_stride;
    return true;
  }
  return false;
}

/// `t` seen as matrices for an output batch of `batch_dims` dims: a 1-D left operand is one row, a 1-D right
/// operand one column. `keep` receives a contiguous copy when BLAS cannot read `t`'s layout.
Matrices as_matrices(const Tensor& t, size_t batch_dims, bool left, Tensor& keep) {
  keep = t;
  for (int attempt = 0;; ++attempt) {
    Matrices x;
    x.data = static_cast<const char*>(keep.data_ptr());
    x.batch_strides = DimVector(batch_dims, 0);
    if (keep.dim() == 1) {
      x.rows = left ? 1 : keep.size(0);
      x.cols = left ? keep.size(0) : 1;
      x.row_stride = left ? 0 : keep.stride(0);
      x.col_stride = left ? keep.stride(0) : 0;
    } else {
      const int64_t nd = keep.dim();
      x.rows = keep.size(nd - 2);
      x.cols = keep.size(nd - 1);
      x.row_stride = keep.stride(nd - 2);
      x.col_stride = keep.stride(nd - 1);
      const int64_t lead = static_cast<int64_t>(batch_dims) - (nd - 2);
      for (int64_t j = 0; j < nd - 2; ++j) {
        if (keep.size(j) != 1) x.batch_strides[j + lead] = keep.stride(j);
      }
    }
    if (blas_layout(x) || attempt > 0) return x;
    keep = keep.contiguous();
  }
}

/// Folds the batch dims of `x` into its rows when their strides chain onto the row stride.
bool fold_rows(Matrices& x, IntArrayRef batch) {
  int64_t size = x.rows, stride = x.row_stride;
  for (int64_t i = static_cast<int64_t>(batch.size()) - 1; i >= 0; --i) {
    if (batch[i] == 1) continue;
    if (size != 1 && x.batch_strides[i] != stride * size) return false;
    if (size == 1) stride = x.batch_strides[i];
    size *= batch[i];
  }
  Matrices folded = x;
  folded.rows = size;
  folded.row_stride = stride;
  if (!blas_layout(folded)) return false;
  x = folded;
  return true;
}

/// out (contiguous: batch..., m, n) = alpha * a @ b + beta * out for operands already checked.
void launch_gemm(const Tensor& out, IntArrayRef batch, const Tensor& a, const Tensor& b, const Scalar& alpha,
                 const Scalar& beta) {
  Tensor keep_a, keep_b;
  Matrices x = as_matrices(a, batch.size(), /*left=*/true, keep_a);
  Matrices y = as_matrices(b, batch.size(), /*left=*/false, keep_b);
  const int64_t m = x.rows, n = y.cols, k = x.cols;
  const int64_t elsize = out.element_size();

  // Batch dims of size > 1 as (size, stride of a, stride of b, stride of c), outermost first, coalesced.
  struct BatchDim {
    int64_t size, sa, sb, sc;
  };
  std::vector<BatchDim> dims;
  const bool b_shared = std::all_of(y.batch_strides.begin(), y.batch_strides.end(), [](int64_t s) { return s == 0; });
  if (!(b_shared && fold_rows(x, batch))) {
    int64_t sc = m * n;
    for (int64_t i = static_cast<int64_t>(batch.size()) - 1; i >= 0; --i) {
      if (batch[i] != 1) {
        const BatchDim d{batch[i], x.batch_strides[i], y.batch_strides[i], sc};
        if (!dims.empty() && d.sa == dims.back().sa * dims.back().size && d.sb == dims.back().sb * dims.back().size &&
            d.sc == dims.back().sc * dims.back().size) {
          dims.back().size *= d.size;
        } else {
          dims.push_back(d);
        }
      }
      sc *= batch[i];
    }
    std::reverse(dims.begin(), dims.end());
  }

  const BatchDim inner = dims.empty() ? BatchDim{1, 0, 0, 0} : dims.back();
  const int64_t outer_dims = dims.empty() ? 0 : static_cast<int64_t>(dims.size()) - 1;
  const Device device = out.device();
  const ops::KernelTable& kt = ops::kernels_for(device);
  CTORCH_CHECK_NOT_IMPLEMENTED(kt.gemm != nullptr, "[matmul] the backend of ", device, " has no gemm kernel yet");
  char* c = static_cast<char*>(out.data_ptr());
  const auto batches = [&](ops::GemmKernel gemm, Stream stream) {
    DimVector idx(static_cast<size_t>(outer_dims), 0);
    for (;;) {
      int64_t oa = 0, ob = 0, oc = 0;
      for (int64_t d = 0; d < outer_dims; ++d) {
        oa += idx[d] * dims[d].sa;
        ob += idx[d] * dims[d].sb;
        oc += idx[d] * dims[d].sc;
      }
      gemm(out.dtype(), x.trans, y.trans, x.rows, n, k, alpha, x.data + oa * elsize, x.ld, inner.sa,
           y.data + ob * elsize, y.ld, inner.sb, beta, c + oc * elsize, std::max<int64_t>(1, n), inner.sc,
           inner.size, stream);
      int64_t d = outer_dims - 1;
      for (; d >= 0; --d) {
        if (++idx[d] < dims[d].size) break;
        idx[d] = 0;
      }
      if (d < 0) break;
    }
  };
  ops::launch_gemm("mm", device,
                   CTORCH_OPERANDS({out, "out", true, true}, {keep_a.defined() ? keep_a : a, "self"},
                                   {keep_b.defined() ? keep_b : b, "mat2"}),
                   batches);
}

/// a @ b into a new tensor of `out_shape` (checked operands; 1-D operands as in matmul).
Tensor product(const Tensor& a, const Tensor& b, IntArrayRef out_shape, IntArrayRef batch) {
  Tensor out = empty(out_shape, a.options());
  if (out.numel() != 0) launch_gemm(out, batch, a, b, 1, 0);
  return out;
}

/// The batch sizes of a matmul operand: all but its last two dims (none for 1-D and 2-D).
IntArrayRef batch_sizes(const Tensor& t) {
  return IntArrayRef(t.sizes().data(), static_cast<size_t>(std::max<int64_t>(t.dim() - 2, 0)));
}

}  // namespace

Tensor Tensor::mm(const Tensor& mat2) const {
  if (ops::needs_grad({this, &mat2})) [[unlikely]] {
    return ops::recorded(ops::GradFn::Mm, {this, &mat2}, [&] { return mm(mat2); }, [](ops::GradArgs&) {});
  }
  ops::common_device({this, &mat2});
  CTORCH_CHECK(dim() == 2, "self must be a matrix");
  CTORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  check_mm_shapes(size(0), size(1), mat2.size(0), mat2.size(1));
  check_same_dtype(*this, mat2);
  return product(*this, mat2, {size(0), mat2.size(1)}, {});
}

Tensor Tensor::bmm(const Tensor& mat2) const {
  if (ops::needs_grad({this, &mat2})) [[unlikely]] {
    return ops::recorded(ops::GradFn::Bmm, {this, &mat2}, [&] { return bmm(mat2); }, [](ops::GradArgs&) {});
  }
  ops::common_device({this, &mat2});
  CTORCH_CHECK(dim() == 3, "batch1 must be a 3D tensor");
  CTORCH_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  check_bmm_shapes(size(0), size(2), mat2.size(0), mat2.size(1));
  check_same_dtype(*this, mat2);
  const int64_t batch = size(0);
  return product(*this, mat2, {batch, size(1), mat2.size(2)}, IntArrayRef(batch));
}

Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) const {
  if (ops::needs_grad({this, &mat1, &mat2})) [[unlikely]] {
    return ops::recorded(
        ops::GradFn::Addmm, {this, &mat1, &mat2}, [&] { return addmm(mat1, mat2, beta, alpha); },
        [&](ops::GradArgs& g) {
          g.scalar = beta;
          g.alpha = alpha;
        });
  }
  ops::common_device({this, &mat1, &mat2});
  CTORCH_CHECK(dtype() == mat2.dtype(), "self and mat2 must have the same dtype");
  CTORCH_CHECK(mat1.dtype() == mat2.dtype(), "mat1 and mat2 must have the same dtype");
  CTORCH_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  CTORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  check_mm_shapes(mat1.size(0), mat1.size(1), mat2.size(0), mat2.size(1));
  const int64_t shape[2] = {mat1.size(0), mat2.size(1)};
  const Tensor self = expand(IntArrayRef(shape, 2));  // PyTorch's expand_size: its errors, before any work
  Tensor out = empty(IntArrayRef(shape, 2), mat1.options());
  if (out.numel() == 0) return out;
  if (beta.to_double() != 0.0) out.copy_(self);  // beta == 0: self is not read (its NaNs are ignored)
  launch_gemm(out, {}, mat1, mat2, alpha, beta);
  return out;
}

Tensor Tensor::matmul(const Tensor& other) const {
  const Tensor& t1 = *this;
  const Tensor& t2 = other;
  ops::common_device({&t1, &t2});
  const int64_t d1 = t1.dim(), d2 = t2.dim();
  if (!(d1 == 2 && d2 == 2) && ops::needs_grad({&t1, &t2})) [[unlikely]] {
    return ops::recorded(ops::GradFn::Matmul, {&t1, &t2}, [&] { return matmul(other); }, [](ops::GradArgs&) {});
  }
  CTORCH_CHECK(d1 != 0 && d2 != 0, "both arguments to matmul need to be at least 1D, but they are ", d1, "D and ",
               d2, "D");
  if (d1 == 1 && d2 == 1) {  // dot
    CTORCH_CHECK(t1.dtype() == t2.dtype(), "dot : expected both vectors to have same dtype, but found ",
                 scalar_type_cpp_name(t1.dtype()), " and ", scalar_type_cpp_name(t2.dtype()));
    CTORCH_CHECK(t1.numel() == t2.numel(), "inconsistent tensor size, expected tensor [", t1.numel(),
                 "] and src [", t2.numel(), "] to have the same number of elements, but got ", t1.numel(), " and ",
                 t2.numel(), " elements respectively");
    return product(t1, t2, {}, {});
  }
  if (d1 == 2 && d2 == 1) {  // mv
    check_mv_shapes(t1.size(0), t1.size(1), t2.size(0));
    check_same_dtype(t1, t2);
    return product(t1, t2, {t1.size(0)}, {});
  }
  if (d1 == 1 && d2 == 2) {  // unsqueeze(0).mm().squeeze(0)
    check_mm_shapes(1, t1.size(0), t2.size(0), t2.size(1));
    check_same_dtype(t1, t2);
    return product(t1, t2, {t2.size(1)}, {});
  }
  if (d1 == 2 && d2 == 2) return t1.mm(t2);

  if (should_fold(t1, d2) || should_fold(t2, d1)) {
    // PyTorch folds the larger operand (transposed when it is the right one) into a matrix and calls mm/mv.
    const bool transpose = d2 > d1;
    const Tensor& big = transpose ? t2 : t1;
    const Tensor& small = transpose ? t1 : t2;
    const int64_t nb = big.dim();
    const int64_t contracted = transpose ? nb - 2 : nb - 1;
    const int64_t inner = big.size(contracted);
    int64_t folded_rows = 1;
    for (int64_t i = 0; i < nb; ++i) {
      if (i != contracted) folded_rows *= big.size(i);
    }
    if (small.dim() == 2) {
      const int64_t r = transpose ? small.size(1) : small.size(0);  // small.t() when transposed
      const int64_t c = transpose ? small.size(0) : small.size(1);
      check_mm_shapes(folded_rows, inner, r, c);
    } else {
      check_mv_shapes(folded_rows, inner, small.size(0));
    }
    check_same_dtype(big, small);
  } else {
    const IntArrayRef batch1 = batch_sizes(t1), batch2 = batch_sizes(t2);
    const DimVector batch = broadcast_shapes(batch1, batch2);
    int64_t batch_numel = 1;
    for (int64_t s : IntArrayRef(batch)) batch_numel *= s;
    check_bmm_shapes(batch_numel, t1.size(-1), batch_numel, d2 > 1 ? t2.size(-2) : t2.size(0));
    check_same_dtype(t1, t2);
  }

  // Compute: batch = broadcast of the leading dims, then [n if t1 is a matrix], [p if t2 is a matrix].
  const DimVector batch = broadcast_shapes(batch_sizes(t1), batch_sizes(t2));
  DimVector out_shape = batch;
  if (d1 > 1) out_shape.push_back(t1.size(-2));
  if (d2 > 1) out_shape.push_back(t2.size(-1));
  return product(t1, t2, out_shape, batch);
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  // PyTorch 1.13's dispatch: addmm for 2-D input with bias, and for contiguous 3-D input with bias
  // (flattened), else matmul followed by an in-place add of the bias.
  if (input.dim() == 2 && bias.defined()) return bias.addmm(input, weight.t());
  if (bias.defined() && input.is_contiguous() && input.dim() == 3) {
    const int64_t s0 = input.size(0), s1 = input.size(1);
    const Tensor out = bias.addmm(input.view({s0 * s1, input.size(2)}), weight.t());
    return out.view({s0, s1, out.size(1)});
  }
  Tensor out = input.matmul(weight.t());
  if (bias.defined()) out.add_(bias);
  return out;
}

}  // namespace ctorch::api
