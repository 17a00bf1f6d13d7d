// Bugs the fuzzer found that ctorch has not fixed yet. Each has a DISABLED_ regression test in
// regressions_test.cpp; until it is fixed the generators steer around it, so that the bounded CI run
// stays green and keeps finding new things. `ctorch_api_fuzz --include-known` turns them all back on
// (to check a fix: then enable the regression test and delete the entry here).
#pragma once


namespace ctorch::fuzz {

enum class Known {
  // FuzzRegression.DISABLED_ChunkAndSplitWithHugeCounts (UBSan): (dim_size + split_size - 1) in
  // split overflows: zeros({1, 1}).split(INT64_MAX, 1), which is one piece (chunk's std::length_error
  // is fixed).
  HugeSplitCounts,
  // FuzzRegression.DISABLED_ReductionOfAnEmptyViewWithHugeStrides (UBSan): legal empty views with a
  // huge stride or storage offset; zeros({4, 2}, kLong).as_strided({0, 4}, {2, INT64_MAX}).sum()
  // multiplies the stride by the item size in make_reduce_plan (src/ops/reduce.cpp), and
  // zeros({1}).as_strided({0}, {3}, 2^62 - 1).sum() the offset in TensorImpl::data(), and
  // as_strided({4, INT64_MAX, 0}, {4, 4, 0}) the numel in TensorImpl::refresh() (4 * INT64_MAX before
  // the 0), all with signed overflow; PyTorch returns these empty views (and 0 for the sums).
  HugeStrideByteOverflow,
  // FuzzRegression.DISABLED_IntegerSumWrapsAround (UBSan): an int64 sum that overflows is signed
  // overflow in SumOp (src/kernels/reduce_functors.h:89); the elementwise kernels wrap (wrap_add),
  // the reductions do not. PyTorch wraps: tensor({INT64_MAX, 1}).sum() is INT64_MIN.
  IntegerReductionOverflow,
  // FuzzRegression.DISABLED_IndexWithInt64MinIsAnIndexError (UBSan): x.index({INT64_MIN}) negates the
  // index in apply_select (src/tensor/indexing.cpp:30, size >= -index: PyTorch's own expression) with
  // signed overflow; the answer is an IndexError.
  IndexInt64Min,
  // FuzzRegression.DISABLED_OutVariantsAcceptOneCpuScalarOnly: add_out(out on cuda, a 0-dim cpu,
  // b 0-dim cpu) is accepted; TensorIterator allows one cpu scalar beside cuda operands:
  // "Trying to pass too many CPU scalars to non-CPU kernel!".
  OutTwoCpuScalars,
};


/// True when the generators must avoid `bug` (it is still open and --include-known was not given).
bool avoid(Known bug);
/// Set by --include-known.
void include_known_bugs(bool on);

}  // namespace ctorch::fuzz
