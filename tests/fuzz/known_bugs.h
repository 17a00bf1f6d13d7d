// Bugs the fuzzer found that ctorch has not fixed yet. Each has a DISABLED_ regression test in
// regressions_test.cpp; until it is fixed the generators steer around it, so that the bounded CI run
// stays green and keeps finding new things. `ctorch_api_fuzz --include-known` turns them all back on
// (to check a fix: then enable the regression test and delete the entry here).
#pragma once

#include <cstdint>
#include <vector>

namespace ctorch::fuzz {

enum class Known {
  // FuzzRegression.DISABLED_StorageBytesOverflowIsAnError: empty/zeros/full({2^31, 2^31}) (float)
  // allocate numel * itemsize bytes wrapped to 0 and the fill segfaults; PyTorch: "Storage size
  // calculation overflowed with sizes=[2147483648, 2147483648]".
  StorageBytesOverflow,
  // FuzzRegression.DISABLED_AsStridedExtentOverflowIsAnError: as_strided / empty_strided compute the
  // storage extent 1 + sum((size - 1) * stride) without overflow checks (signed overflow), so a huge
  // view passes the bounds check and reading it crashes, or std::bad_array_new_length escapes;
  // PyTorch: "Storage size calculation overflowed with sizes=[3, 3] and strides=[0, 4611686018427387904]".
  StridedExtentOverflow,
  // FuzzRegression.DISABLED_ScalarOpsKeepTheInputStrides: a Tensor-Scalar op (and a cuda op with a
  // 0-dim cpu operand) on a tensor that counts as contiguous but has other strides (on size-1 dims,
  // or any tensor with a 0-size dim) returns contiguous strides; PyTorch (TensorIterator with the
  // scalar as an operand) computes them from the input's layout, as ctorch does for two cpu tensors:
  // zeros({2, 3, 1}, kBool).permute({2, 0, 1}).add(1.5).strides() is [1, 3, 1], and
  // zeros({641, 5, 1}, kShort).slice(2, 1, 1, 2).sub(2).strides() is [0, 1, 5].
  ScalarOpStrides,
  // FuzzRegression.DISABLED_OutVariantsCheckOverlap: add_out / mul_out write into an out= tensor
  // with internal overlap (expanded) or partially overlapping an input; PyTorch raises
  // "unsupported operation: ...".
  OutOverlap,
  // FuzzRegression.DISABLED_OutVariantsAcceptCpuScalars: add_out(out_cuda, a_cuda, b_cpu_0dim)
  // throws "Expected all tensors to be on the same device"; PyTorch's TensorIterator accepts 0-dim
  // cpu inputs beside cuda operands, out= included.
  OutCpuScalar,
  // FuzzRegression.DISABLED_ChunkWithAHugeCountIsATypedError: zeros({0, 2}).chunk(INT64_MAX / 2)
  // throws std::length_error (a vector of that many sizes) instead of a ctorch error, and
  // (dim_size + chunks - 1) overflows for a non-empty dim.
  ChunkHugeCount,
};

/// True when 1 + offset + sum((size - 1) * stride) (or the element count) does not fit int64.
bool extent_overflows(const std::vector<int64_t>& size, const std::vector<int64_t>& stride, int64_t offset);

/// True when the generators must avoid `bug` (it is still open and --include-known was not given).
bool avoid(Known bug);
/// Set by --include-known.
void include_known_bugs(bool on);

}  // namespace ctorch::fuzz
