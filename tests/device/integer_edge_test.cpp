// Integer arithmetic edge cases that trap in C++ (and crash PyTorch 1.13's cpu kernels with
// SIGFPE): the lowest value divided by -1, and its remainder. ctorch wraps as two's complement
// arithmetic does and never raises a signal, on every device.
#include <cstdint>
#include <limits>
#include <vector>

#include "device/device_test.h"

using namespace ctorch;
using ctorch::testing::DeviceTest;

namespace {

class IntegerEdge : public DeviceTest {};
CTORCH_INSTANTIATE_DEVICE_TESTS(IntegerEdge);

std::vector<int64_t> longs(const Tensor& t) {
  const Tensor host = t.cpu().to(kLong).contiguous();
  const int64_t* p = host.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + host.numel());
}

}  // namespace

TEST_P(IntegerEdge, LowestDividedByMinusOneWraps) {
  constexpr int64_t lo64 = std::numeric_limits<int64_t>::lowest();
  constexpr int64_t lo32 = std::numeric_limits<int32_t>::lowest();
  for (ScalarType dtype : {kLong, kInt}) {
    SCOPED_TRACE(dtype_name(dtype));
    const int64_t lo = dtype == kLong ? lo64 : lo32;
    const Tensor x = tensor({lo, lo, 7, -7}).to(on_device(dtype));
    const Tensor minus_one = full({4}, -1, on_device(dtype));
    EXPECT_EQ(longs(x.div(minus_one, "trunc")), (std::vector<int64_t>{lo, lo, -7, 7}));
    EXPECT_EQ(longs(x.div(minus_one, "floor")), (std::vector<int64_t>{lo, lo, -7, 7}));
    EXPECT_EQ(longs(x.div(-1, "floor")), (std::vector<int64_t>{lo, lo, -7, 7}));
    EXPECT_EQ(longs(x.remainder(minus_one)), (std::vector<int64_t>{0, 0, 0, 0}));
    EXPECT_EQ(longs(x.remainder(-1)), (std::vector<int64_t>{0, 0, 0, 0}));
    // Other divisors keep their usual results next to the edge case.
    EXPECT_EQ(longs(x.div(2, "floor")), (std::vector<int64_t>{lo / 2, lo / 2, 3, -4}));
    EXPECT_EQ(longs(x.remainder(3)), (std::vector<int64_t>{(lo % 3 + 3) % 3, (lo % 3 + 3) % 3, 1, 2}));
  }
}

TEST_P(IntegerEdge, SmallTypesPromoteAndNeedNoWrap) {
  // int8 and int16 compute in int: -128 / -1 is 128, which int8 stores as -128.
  const Tensor x = tensor({-128, 5}).to(on_device(kChar));
  EXPECT_EQ(longs(x.div(-1, "trunc")), (std::vector<int64_t>{-128, -5}));
  EXPECT_EQ(longs(x.remainder(-1)), (std::vector<int64_t>{0, 0}));
}
