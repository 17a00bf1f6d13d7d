// Regression tests for what tests/fuzz/ctorch_api_fuzz found: one minimal reproducer each, asserting
// PyTorch 1.13's behaviour (checked against libtorch 1.13.1 on cpu where noted). DISABLED_ while
// ctorch still fails it (the UBSan ones pass without UBSan and abort under CI's ASan+UBSan run);
// each disabled test has an entry in known_bugs.h that steers the fuzzer around the bug until it is
// fixed (then enable the test and delete the entry). None is open.
#include <gtest/gtest.h>

#include <cstdint>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;
using ctorch::testing::error_of;

namespace {

void use_two_emulated_devices() {
  if (!cuda::is_emulated() || cuda::device_count() != 2) cuda::emulate(2);
}

std::vector<int64_t> strides_of(const Tensor& t) { return t.strides().vec(); }

}  // namespace

// The fuzzer's premise: two emulated devices can be configured in a test process.
TEST(FuzzRegression, TwoEmulatedDevices) {
  use_two_emulated_devices();
  EXPECT_EQ(cuda::device_count(), 2);
}

// Fuzzer seed 1 case 540 (crash): full({2^31, 2^31}, -5) on cpu. numel is 2^62, numel * 4 bytes wraps
// to 0, a 0-byte storage is allocated and the fill writes through it. libtorch 1.13.1:
// "Storage size calculation overflowed with sizes=[2147483648, 2147483648]".
TEST(FuzzRegression, StorageBytesOverflowIsAnError) {
  const int64_t big = int64_t{1} << 31;
  EXPECT_NE(error_of([&] { (void)empty({big, big}); }).find("Storage size calculation overflowed"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)full({big, big}, -5); }).find("Storage size calculation overflowed"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)empty({int64_t{1} << 62}, kLong); }).find("Storage size calculation overflowed"),
            std::string::npos);
}

// Fuzzer seed 1 cases 574, 2990, 4396 (std::bad_array_new_length, crash): as_strided computes the
// extent offset + 1 + sum((size - 1) * stride) with signed overflow, so a huge view passes the
// bounds check. libtorch 1.13.1: "Storage size calculation overflowed with sizes=[3] and
// strides=[4611686018427387904]"; the same for empty_strided.
TEST(FuzzRegression, AsStridedExtentOverflowIsAnError) {
  const Tensor x = zeros({4});
  EXPECT_NE(error_of([&] { (void)x.as_strided({3}, {int64_t{1} << 62}); }).find("overflow"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)x.as_strided({3, 3}, {0, int64_t{1} << 62}, 0); }).find("overflow"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)empty_strided({2}, {INT64_MAX}); }).find("overflow"), std::string::npos);
  // PyTorch 1.13 does not check the offset itself (it returns a view reading out of bounds); an error
  // is the safe answer and what the size/stride check gives for any other overflow.
  EXPECT_NE(error_of([&] { (void)x.as_strided({}, {}, INT64_MAX); }), "no error");
}

// Fuzzer seed 1 case 14007, seed 3 cases 18343, 64959, 171450: logical_xor(0-dim cpu bfloat16, bool
// [1, 2, 3] cuda with strides [1, 3, 1]) gave strides [6, 3, 1] on cuda but [1, 3, 1] on cpu; the same
// for empty tensors ([5, 1, 1] against [0, 1, 5]). TensorIterator takes the wrapped number or cpu
// scalar as an operand, so the output's strides follow the input's layout (libtorch 1.13.1:
// zeros({2, 3, 1}, kBool).permute({2, 0, 1}).mul(2).strides() is [1, 3, 1] and
// zeros({641, 5, 1}, kShort).slice(2, 1, 1, 2).sub(2).strides() is [0, 1, 5]; neg() gives contiguous
// strides in both, as ctorch).
TEST(FuzzRegression, ScalarOpsKeepTheInputStrides) {
  const Tensor b = zeros({2, 3, 1}, kBool).permute({2, 0, 1});
  ASSERT_EQ(strides_of(b), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(strides_of(b.add(1.5)), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(strides_of(b.mul(2)), (std::vector<int64_t>{1, 3, 1}));
  const Tensor e = zeros({641, 5, 1}, kShort).slice(2, 1, 1, 2);
  EXPECT_EQ(strides_of(e.sub(2)), (std::vector<int64_t>{0, 1, 5}));
  EXPECT_EQ(strides_of(full({}, 2, kShort).sub(e)), (std::vector<int64_t>{0, 1, 5}));
  use_two_emulated_devices();
  const Tensor a = zeros({}, kBFloat16);
  EXPECT_EQ(strides_of(a.logical_xor(b.cuda())), strides_of(a.logical_xor(b)));
  EXPECT_EQ(strides_of(full({}, 2, kShort).sub(e.cuda())), (std::vector<int64_t>{0, 1, 5}));
}

// add_out / mul_out skip TensorIterator's overlap checks. libtorch 1.13.1 raises for both:
// an expanded out= ("unsupported operation: more than one element of the written-to tensor refers to a
// single memory location. ...") and an out= partially overlapping an input ("unsupported operation:
// some elements of the input tensor and the written-to tensor refer to a single memory location. ...";
// ctorch wrote [1, 2, 3, 4] there, an order-dependent result). Exactly the same memory is fine.
TEST(FuzzRegression, OutVariantsCheckOverlap) {
  Tensor expanded = zeros({3}).expand({2, 3});
  EXPECT_NE(error_of([&] { add_out(expanded, ones({2, 3}), ones({2, 3})); }).find("more than one element"),
            std::string::npos);
  Tensor base = zeros({5});
  Tensor out = base.slice(0, 1, 5);
  EXPECT_NE(error_of([&] { add_out(out, base.slice(0, 0, 4), ones({4})); }).find("some elements of the input"),
            std::string::npos);
  Tensor same = zeros({4});
  EXPECT_EQ(error_of([&] { mul_out(same, same, ones({4})); }), "no error");
}

// Fuzzer seed 1 case 26602: add_out(out on cuda:0, a on cuda:0, b a 0-dim cpu tensor) throws "Expected
// all tensors to be on the same device". TensorIterator (add.out included) accepts one 0-dim cpu input
// beside cuda operands (compute_types: allow_cpu_scalars_, inputs only), as add() itself does.
TEST(FuzzRegression, OutVariantsAcceptCpuScalars) {
  use_two_emulated_devices();
  const TensorOptions dev = TensorOptions().device(Device(DeviceType::CUDA, 0));
  Tensor out = zeros({2}, dev);
  EXPECT_EQ(error_of([&] { add_out(out, ones({2}, dev), full({}, 2.0)); }), "no error");
  EXPECT_EQ(out.cpu().to_vector<float>(), (std::vector<float>{3, 3}));
  EXPECT_EQ(error_of([&] { mul_out(out, full({}, 2.0), ones({2}, dev)); }), "no error");
  EXPECT_EQ(out.cpu().to_vector<float>(), (std::vector<float>{2, 2}));
  // The output itself may not be a cpu scalar.
  Tensor cpu_out = zeros({});
  EXPECT_NE(error_of([&] { add_out(cpu_out, ones({}, dev), ones({}, dev)); }), "no error");
}

// Fuzzer seed 1 case 56880: zeros({0, 2}).chunk(2^62 - 1) throws std::length_error (a vector of
// 2^62 split sizes), not a ctorch error. libtorch 1.13.1 throws the same std::length_error, but ctorch
// promises typed errors; and chunk(INT64_MAX) on a non-empty dim overflows dim_size + chunks - 1
// (undefined behaviour; libtorch then happens to report "split expects split_size be non-negative").
// Fuzzer seed 1 case 6619 under UBSan: zeros({1, 1}).split(INT64_MAX, 1) computes
// dim_size + split_size - 1 with signed overflow (src/tensor/views.cpp:354); the answer is one piece
// (PyTorch has the same expression and happens to get 1 by wrapping).
TEST(FuzzRegression, ChunkAndSplitWithHugeCounts) {
  const std::string what = error_of([] { (void)zeros({0, 2}).chunk(int64_t{1} << 62, 0); });
  EXPECT_NE(what, "no error");
  EXPECT_EQ(what.rfind("wrong exception type", 0), std::string::npos) << what;
  EXPECT_EQ(zeros({1, 1}).split(INT64_MAX, 1).size(), 1u);
  EXPECT_EQ(zeros({3, 2}).chunk(INT64_MAX, 0).size(), 3u);  // one row each
}

// Fuzzer seed 1 cases 1436, 5938 and 35181 under UBSan: empty views with a huge stride, storage offset
// or size. The views are legal (no element is reachable) and libtorch 1.13.1 returns 0, but
// make_reduce_plan (src/ops/reduce.cpp:104) computes stride * itemsize and TensorImpl::data()
// (tensor_impl.h:37) offset * itemsize with signed overflow ("runtime error: signed integer overflow:
// 8 * 9223372036854775807"). Fixed (wrapping arithmetic).
TEST(FuzzRegression, ReductionOfAnEmptyViewWithHugeStrides) {
  const Tensor v = zeros({4, 2}, kLong).as_strided({0, 4}, {2, INT64_MAX});
  EXPECT_EQ(v.sum().item<int64_t>(), 0);
  EXPECT_EQ(v.add(1).numel(), 0);
  const Tensor w = zeros({1}).as_strided({0}, {3}, (int64_t{1} << 62) - 1);
  EXPECT_EQ(w.sum().item<float>(), 0.0f);
  // Seed 1 case 35181: the numel product overflows before the 0 (src/tensor/tensor_impl.cpp:46).
  EXPECT_EQ(zeros({1}, kInt).as_strided({4, INT64_MAX, 0}, {4, 4, 0}).numel(), 0);
}

// Fuzzer seed 1 case 6117 under UBSan: an int64 sum() that overflows is signed overflow in SumOp
// (src/kernels/reduce_functors.h:89: "8824926185612912687 + 6211511103804480999 cannot be represented
// in type 'long int'"); ctorch's elementwise kernels wrap explicitly (wrap_add), its reductions do not.
// libtorch 1.13.1 wraps. Still open (tests/fuzz/known_bugs.h): passes without UBSan, aborts under it.
TEST(FuzzRegression, IntegerSumAndProdWrapAround) {
  use_two_emulated_devices();
  for (const Device d : {Device(DeviceType::CPU), Device(DeviceType::CUDA, 0)}) {
    const Tensor t = tensor(std::vector<int64_t>{INT64_MAX, 1}).to(d);
    EXPECT_EQ(t.sum().item<int64_t>(), INT64_MIN) << d;
    EXPECT_EQ(t.sum(IntArrayRef{0}).item<int64_t>(), INT64_MIN) << d;
    EXPECT_EQ(full({2}, INT64_MAX, TensorOptions(kLong).device(d)).prod().item<int64_t>(), 1) << d;  // (2^63-1)^2 mod 2^64
    EXPECT_EQ(full({70}, 2, TensorOptions(kInt8).device(d)).prod().item<int64_t>(), 0) << d;          // 2^70 mod 2^64
    EXPECT_EQ(full({3}, -3, TensorOptions(kInt32).device(d)).prod().item<int64_t>(), -27) << d;
    EXPECT_EQ(full({3}, INT32_MIN, TensorOptions(kInt32).device(d)).sum().item<int64_t>(), 3LL * INT32_MIN) << d;
  }
  // The wrap must not cost correctness where nothing overflows: GCC 12.2 vectorized an int8/uint8 sum
  // with a signed<->unsigned round trip per add wrongly (half the lanes lost in cpu/reduce.h's one-stream
  // dense loop: one output over >= 64 contiguous elements). Note [Integer reductions wrap].
  for (const int64_t n : {64, 129, 1000, 1024, 5000}) {
    for (const ScalarType dt : {kInt8, kUInt8, kInt16, kInt32}) {
      std::vector<int64_t> v(static_cast<size_t>(n));
      int64_t want = 0;
      for (int64_t i = 0; i < n; ++i) {
        v[static_cast<size_t>(i)] = dt == kUInt8 ? (i * 37) % 251 : (i * 37) % 199 - 99;
        want += v[static_cast<size_t>(i)];
      }
      const Tensor x = tensor(v).to(dt);
      EXPECT_EQ(x.sum().item<int64_t>(), want) << scalar_type_cpp_name(dt) << " n=" << n;
      EXPECT_EQ(x.view({1, n}).sum(1).item<int64_t>(), want) << scalar_type_cpp_name(dt) << " n=" << n;
      EXPECT_EQ(x.to(Device(DeviceType::CUDA, 0)).sum().item<int64_t>(), want) << scalar_type_cpp_name(dt) << " n=" << n;
    }
  }
}

// Fuzzer seed 1 under UBSan: zeros({3}).index({INT64_MIN}) negates the index in apply_select
// (src/tensor/indexing.cpp:30, "negation of -9223372036854775808 cannot be represented"). PyTorch's
// applySelect has the same expression; the answer is an IndexError (with wrapping arithmetic, select's
// "index -9223372036854775808 out of range"). Fixed.
TEST(FuzzRegression, IndexWithInt64MinIsAnIndexError) {
  const std::string what = error_of<IndexError>([] { (void)zeros({3}).index({INT64_MIN}); });
  EXPECT_NE(what, "no error");
  EXPECT_EQ(what.rfind("wrong exception type", 0), std::string::npos) << what;
}

// Fuzzer seed 1 cases 104557 and 232770: add_out / mul_out with out on cuda and both inputs 0-dim cpu
// tensors are accepted. TensorIterator::compute_types allows one cpu scalar beside cuda operands
// (max_cpu_scalars_on_non_cpu): "Trying to pass too many CPU scalars to non-CPU kernel!".
TEST(FuzzRegression, OutVariantsAcceptOneCpuScalarOnly) {
  use_two_emulated_devices();
  Tensor out = zeros({}, TensorOptions().device(Device(DeviceType::CUDA, 1)));
  EXPECT_NE(error_of([&] { add_out(out, full({}, 1.0), full({}, 2.0)); }).find("too many CPU scalars"), std::string::npos);
  EXPECT_NE(error_of([&] { mul_out(out, full({}, 1.0), full({}, 2.0)); }).find("too many CPU scalars"), std::string::npos);
  // The 10^6-case run (seed 1, cases 104557, 232770, 670984) asked for the devices in the message.
  EXPECT_NE(error_of([&] { add_out(out, full({}, 1.0), full({}, 2.0)); }).find("out= is on cuda:1"), std::string::npos);
}
