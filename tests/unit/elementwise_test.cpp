// Elementwise ops (binary, unary, comparison, logical, where, clamp) against PyTorch 1.13:
// values and dtypes, every error path (type, message, and that a failed call changes nothing),
// reduced-precision rounding, strided and aliased operands, empty and 0-dim tensors, and
// tensors large enough to run on the thread pool. Bit patterns come from PyTorch 1.13.1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Runs f, which must throw E (or a subclass); returns what() or a description of what went wrong.
template <class E = Error, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no error";
}

template <class T>
std::vector<T> values(const Tensor& t) {
  return t.to_vector<T>();
}

std::vector<int64_t> longs(const Tensor& t) { return t.to_vector<int64_t>(); }
std::vector<float> floats(const Tensor& t) { return t.to_vector<float>(); }
std::vector<uint8_t> bools(const Tensor& t) {
  EXPECT_EQ(t.dtype(), kBool);
  return t.to_vector<uint8_t>();
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Element-wise equality that treats NaN == NaN and tells -0.0 from +0.0.
void expect_same_floats(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    } else {
      EXPECT_EQ(bits(got[i]), bits(want[i])) << "element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
}

void expect_near_floats(const std::vector<float>& got, const std::vector<double>& want, double rel = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rel * std::max(1.0, std::fabs(want[i]))) << "element " << i;
    }
  }
}

// A 1-d tensor of raw 16-bit patterns reinterpreted as `dtype` (float16 or bfloat16).
Tensor from_bits16(const uint16_t* p, int64_t n, ScalarType dtype) {
  std::vector<uint16_t> copy(p, p + n);
  Tensor raw = from_blob(copy.data(), {n}, TensorOptions(dtype));
  return raw.clone();
}

std::vector<uint16_t> bits16(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint16_t*>(c.data_ptr());
  return std::vector<uint16_t>(p, p + c.numel());
}

std::vector<uint32_t> bits32(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint32_t*>(c.data_ptr());
  return std::vector<uint32_t>(p, p + c.numel());
}

Tensor from_bits32(const uint32_t* p, int64_t n) {
  std::vector<uint32_t> copy(p, p + n);
  return from_blob(copy.data(), {n}, TensorOptions(kFloat)).clone();
}

// A transposed (non-contiguous) view of a fresh rows x cols tensor holding 0, 1, 2, ... (row-major).
Tensor transposed_iota(int64_t rows, int64_t cols, ScalarType dtype = kFloat) {
  Tensor base = arange(rows * cols, TensorOptions(dtype));
  return base.as_strided({cols, rows}, {1, cols});
}

const std::string kCastLong = "result type Float can't be cast to the desired output type Long";

}  // namespace

// ---- data from PyTorch 1.13.1 (see the generator notes in the commit) ----
namespace {
const uint16_t kHalfA[64] = {
    0x4af9, 0xd1f0, 0xcda0, 0xceeb, 0x4de9, 0x4c6b, 0x50e7, 0xd12a, 0xc7cf, 0xd1e1, 0xcf09, 0x3849, 0xd1eb,
    0xcf87, 0x4b7f, 0x447f, 0xcefd, 0x4877, 0x4fbc, 0xd22b, 0x4fa5, 0x4cf4, 0xcbfd, 0xd04e, 0x51b7, 0xcc16,
    0xd117, 0xd10b, 0x5058, 0x4930, 0x4fae, 0x4dbe, 0x433f, 0x51ea, 0xca13, 0x4534, 0x501e, 0x49ed, 0x5085,
    0x47bc, 0x4d1d, 0xd1ad, 0xcecd, 0xcd44, 0xd141, 0xceae, 0xd0fd, 0xcd8d, 0x4ac9, 0xcac2, 0xca7e, 0xcf43,
    0xcdd3, 0x5175, 0x4b67, 0x4975, 0xd01c, 0x4dba, 0xd035, 0xca07, 0x521e, 0x4b00, 0x45b2, 0x4c9e
};
const uint16_t kHalfB[64] = {
    0x5049, 0x4ee6, 0xcec6, 0xd1d9, 0xcc9d, 0xcdce, 0xcf3a, 0x5189, 0x50b4, 0xcca2, 0x4bc6, 0xc938, 0x512f,
    0xc41d, 0xcde1, 0xce56, 0x4623, 0xcdee, 0x483b, 0x50f9, 0xc908, 0xcf04, 0x5238, 0x3b9f, 0xd11d, 0xd1a9,
    0xd0e1, 0x4a5f, 0x4f4d, 0xc7c9, 0xd175, 0xc9eb, 0x5234, 0x41d3, 0x51e3, 0x5082, 0xd21b, 0x4d85, 0x4c8b,
    0x4365, 0xcdd4, 0x4b0c, 0xd0db, 0xc686, 0xc4a1, 0x51ac, 0x50b3, 0xcdea, 0x2b81, 0xd004, 0x5128, 0x50a2,
    0xcd0a, 0x4af3, 0x4973, 0xd057, 0x4e90, 0x43e0, 0x4ef7, 0x4212, 0xd23e, 0xcc65, 0xd202, 0x515d
};
const uint16_t kHalfAdd[64] = {
    0x5207, 0xccfa, 0xd233, 0xd4a7, 0x4530, 0xc58c, 0x4928, 0x41f0, 0x4f74, 0xd419, 0xca4c, 0xc8f3, 0xc5e0,
    0xd047, 0xc843, 0xcd36, 0xcd74, 0xcb65, 0x50ed, 0xc8c8, 0x4d21, 0xc820, 0x5039, 0xd030, 0x44d0, 0xd3b4,
    0xd4fc, 0xcee6, 0x53fe, 0x412e, 0xca78, 0x4991, 0x52a8, 0x5247, 0x505e, 0x5128, 0xcbf4, 0x503e, 0x52ca,
    0x49b7, 0xc1b8, 0xcfd4, 0xd421, 0xcee6, 0xd1d5, 0x4caa, 0xc0a0, 0xd1bc, 0x4ad1, 0xd1b4, 0x4f11, 0x4802,
    0xd16e, 0x5332, 0x4e6d, 0xcdf4, 0xc6a0, 0x4eb6, 0xc5cc, 0xc882, 0xbc00, 0xc328, 0xd14c, 0x53ac
};
const uint16_t kHalfSub[64] = {
    0xcd16, 0xd4b2, 0x4498, 0x4cc7, 0x5143, 0x511c, 0x5442, 0xd55a, 0xd1ae, 0xcf20, 0xd176, 0x497d, 0xd58d,
    0xce80, 0x50d0, 0x4f76, 0xd043, 0x5015, 0x4d9e, 0xd592, 0x5114, 0x51fc, 0xd41c, 0xd06c, 0x556a, 0x4f3c,
    0xbec0, 0xd2a3, 0x458c, 0x4c8a, 0x54a6, 0x505a, 0xd1c0, 0x518d, 0xd368, 0xcfb7, 0x551c, 0xc91d, 0x4c7f,
    0x440a, 0x5178, 0xd370, 0x49d2, 0xcb45, 0xd0ad, 0xd482, 0xd4d8, 0x3dd0, 0x4ac1, 0x4ca7, 0xd2c8, 0xd422,
    0xc248, 0x4f70, 0x43d0, 0x51b4, 0xd364, 0x4cbe, 0xd3b0, 0xcb8c, 0x562e, 0x4fe5, 0x52b8, 0xce1c
};
const uint16_t kHalfMul[64] = {
    0x5f78, 0xe51f, 0x60c3, 0x650f, 0xded1, 0xde69, 0xe46e, 0xe725, 0xdc97, 0x62cf, 0xded6, 0xc597, 0xe7ab,
    0x57be, 0xdd82, 0xd71f, 0xd95c, 0xda9e, 0x5c17, 0xe7ab, 0xdccf, 0xe058, 0xe236, 0xd01a, 0xe74e, 0x61c8,
    0x6635, 0xe004, 0x63ee, 0xd50c, 0xe53d, 0xdc3f, 0x599e, 0x584e, 0xe078, 0x59dd, 0xe649, 0x5c17, 0x6122,
    0x4f26, 0xdf73, 0xe100, 0x6421, 0x584b, 0x5a14, 0xe4bc, 0xe5dc, 0x601a, 0x3a5d, 0x5ec9, 0xe02f, 0xe435,
    0x5f56, 0x60be, 0x590b, 0xddec, 0xe2be, 0x55a3, 0xe353, 0xd093, 0xe8c6, 0xdbb1, 0xdc47, 0x6231
};
const uint16_t kHalfDiv[64] = {
    0x3682, 0xbee3, 0x3aa5, 0x38bb, 0xbd20, 0xba17, 0xbd6d, 0xbb77, 0xb2a4, 0x4113, 0xbf3d, 0xaa92, 0xbc91,
    0x4752, 0xb91a, 0xb1ad, 0xc48e, 0xb606, 0x4350, 0xbcf6, 0xc214, 0xb9a6, 0xb523, 0xd085, 0xbc78, 0x35c6,
    0x3c2c, 0xc255, 0x3cc2, 0xbd55, 0xb9a1, 0xbfc3, 0x2cac, 0x4c10, 0xb421, 0x309e, 0xb965, 0x384b, 0x3ff5,
    0x402f, 0xbb05, 0xc272, 0x399a, 0x4275, 0x488a, 0xb8b6, 0xbc3f, 0x3b82, 0x5b3c, 0x36bb, 0xb509, 0xba45,
    0x3ca0, 0x4248, 0x3d6f, 0xb508, 0xbd02, 0x45d1, 0xbcd5, 0xc3f2, 0xbbd7, 0xba5f, 0xaf95, 0x36e3
};
const uint16_t kHalfAddAlpha[64] = {
    0x4e0f, 0xd0e7, 0xcfa8, 0xd137, 0x4c87, 0x495a, 0x4fa3, 0xcf02, 0x42f6, 0xd293, 0xcdde, 0xc131, 0xd05d,
    0xcfd6, 0x47f0, 0xc238, 0xce87, 0x3f40, 0x502f, 0xd0ad, 0x4ee4, 0x49b2, 0xbc30, 0xd045, 0x502e, 0xcf7c,
    0xd28e, 0xd091, 0x5170, 0x4805, 0x4c68, 0x4cdb, 0x4ca1, 0x5206, 0x3ff0, 0x4c02, 0x4c92, 0x4c9e, 0x5134,
    0x486c, 0x4aba, 0xd126, 0xd0dc, 0xcdc1, 0xd16d, 0xca8d, 0xcf28, 0xcf53, 0x4acb, 0xcdca, 0xb8e0, 0xcc7c,
    0xcf56, 0x51fa, 0x4c85, 0x3800, 0xce40, 0x4e06, 0xce53, 0xc992, 0x503e, 0x485d, 0xc85d, 0x4fd6
};
const uint16_t kHalfSubAlpha[64] = {
    0xd47c, 0xd748, 0x51a8, 0x5594, 0x545c, 0x54bc, 0x56f8, 0xd8c0, 0xd65e, 0xb9c0, 0xd430, 0x4ea8, 0xd8b8,
    0xccf5, 0x549c, 0x543e, 0xd16a, 0x5444, 0x48e4, 0xd8a6, 0x52f8, 0x559f, 0xd863, 0xd09a, 0x58a0, 0x560e,
    0x531b, 0xd483, 0xd0c8, 0x4f76, 0x585f, 0x5292, 0xd787, 0x5101, 0xd80f, 0xd54f, 0x58d8, 0xd16b, 0xc8a4,
    0xbe08, 0x54ec, 0xd50a, 0x545f, 0xc4c0, 0xcf9e, 0xd861, 0xd82f, 0x509e, 0x4ab6, 0x542d, 0xd742, 0xd79b,
    0x4ec5, 0x4874, 0xca39, 0x561c, 0xd628, 0x4a88, 0xd674, 0xcce9, 0x596e, 0x533e, 0x57dd, 0xd58c
};
const uint16_t kHalfScalar[64] = {
    0x4c02, 0xd271, 0xce02, 0xcf6e, 0x4ead, 0x4d09, 0x517a, 0xd198, 0xc7e3, 0xd261, 0xcf8f, 0x3d28, 0xd26c,
    0xd00d, 0x4c4c, 0x45a5, 0xcf82, 0x4943, 0x5057, 0xd2b2, 0x504a, 0x4d9f, 0xcc37, 0xd0a6, 0x525f, 0xcc51,
    0xd183, 0xd176, 0x50dd, 0x4a0e, 0x504f, 0x4e7d, 0x44af, 0x5297, 0xca54, 0x466c, 0x509d, 0x4ade, 0x510e,
    0x489b, 0x4dcc, 0xd228, 0xcf4d, 0xcd9d, 0xd1b1, 0xcf2b, 0xd166, 0xcdee, 0x4bd0, 0xcb14, 0xcaca, 0xcfcf,
    0xce3b, 0x5216, 0x4c3f, 0x4a5a, 0xd06f, 0x4e79, 0xd08a, 0xca47, 0x52d0, 0x4c06, 0x46f6, 0x4d41
};
const uint16_t kBFloat16A[64] = {
    0x415f, 0xc23e, 0xc1b4, 0xc1dd, 0x41bd, 0x418d, 0x421d, 0xc225, 0xc0fa, 0xc23c, 0xc1e1, 0x3f09, 0xc23d,
    0xc1f1, 0x4170, 0x4090, 0xc1e0, 0x410f, 0x41f8, 0xc245, 0x41f5, 0x419f, 0xc180, 0xc20a, 0x4237, 0xc183,
    0xc223, 0xc221, 0x420b, 0x4126, 0x41f6, 0x41b8, 0x4068, 0x423d, 0xc142, 0x40a7, 0x4204, 0x413e, 0x4211,
    0x40f8, 0x41a4, 0xc236, 0xc1da, 0xc1a8, 0xc228, 0xc1d6, 0xc220, 0xc1b2, 0x4159, 0xc158, 0xc150, 0xc1e8,
    0xc1ba, 0x422f, 0x416d, 0x412f, 0xc204, 0x41b7, 0xc207, 0xc141, 0x4244, 0x4160, 0x40b6, 0x4194
};
const uint16_t kBFloat16B[64] = {
    0x4209, 0x41dd, 0xc1d9, 0xc23b, 0xc194, 0xc1ba, 0xc1e7, 0x4231, 0x4217, 0xc194, 0x4179, 0xc127, 0x4226,
    0xc084, 0xc1bc, 0xc1cb, 0x40c4, 0xc1be, 0x4107, 0x421f, 0xc121, 0xc1e1, 0x4247, 0x3f74, 0xc224, 0xc235,
    0xc21c, 0x414c, 0x41ea, 0xc0f9, 0xc22f, 0xc13d, 0x4246, 0x403a, 0x423c, 0x4210, 0xc243, 0x41b1, 0x4191,
    0x406d, 0xc1bb, 0x4162, 0xc21b, 0xc0d1, 0xc094, 0x4236, 0x4216, 0xc1bd, 0x3d70, 0xc201, 0x4225, 0x4214,
    0xc1a1, 0x415e, 0x412e, 0xc20b, 0x41d2, 0x407c, 0x41df, 0x4042, 0xc248, 0xc18d, 0xc240, 0x422c
};
const uint16_t kBFloat16Add[64] = {
    0x4241, 0xc19f, 0xc246, 0xc295, 0x40a4, 0xc0b4, 0x4126, 0x4040, 0x41f0, 0xc283, 0xc149, 0xc11e, 0xc0b8,
    0xc209, 0xc108, 0xc1a7, 0xc1af, 0xc16d, 0x421e, 0xc118, 0x41a4, 0xc104, 0x4207, 0xc206, 0x4098, 0xc276,
    0xc2a0, 0xc1dc, 0x4280, 0x4026, 0xc150, 0x4133, 0x4254, 0x4249, 0x420c, 0x4225, 0xc17c, 0x4208, 0x425a,
    0x4137, 0xc038, 0xc1fb, 0xc284, 0xc1dc, 0xc23a, 0x4196, 0xc020, 0xc238, 0x415a, 0xc237, 0x41e2, 0x4100,
    0xc22e, 0x4266, 0x41ce, 0xc1be, 0xc0d8, 0x41d6, 0xc0bc, 0xc110, 0xbf80, 0xc068, 0xc229, 0x4276
};
const uint16_t kBFloat16Sub[64] = {
    0xc1a2, 0xc296, 0x4094, 0x4199, 0x4228, 0x4224, 0x4288, 0xc2ab, 0xc236, 0xc1e4, 0xc22f, 0x4130, 0xc2b2,
    0xc1d0, 0x421a, 0x41ef, 0xc208, 0x4203, 0x41b4, 0xc2b2, 0x4223, 0x4240, 0xc284, 0xc20e, 0x42ae, 0x41e7,
    0xbfe0, 0xc254, 0x40b0, 0x4191, 0x4295, 0x420b, 0xc238, 0x4231, 0xc26c, 0xc1f6, 0x42a4, 0xc124, 0x4191,
    0x4082, 0x4230, 0xc26e, 0x4138, 0xc168, 0xc216, 0xc290, 0xc29b, 0x3fb0, 0x4158, 0x4196, 0xc259, 0xc284,
    0xc048, 0x41ef, 0x407c, 0x4237, 0xc26d, 0x4198, 0xc276, 0xc172, 0x42c6, 0x41fd, 0x4257, 0xc1c4
};
const uint16_t kBFloat16Mul[64] = {
    0x43ef, 0xc4a4, 0x4419, 0x44a1, 0xc3db, 0xc3cd, 0xc48e, 0xc4e4, 0xc393, 0x4459, 0xc3db, 0xc0b3, 0xc4f5,
    0x42f9, 0xc3b0, 0xc2e4, 0xc32c, 0xc354, 0x4383, 0xc4f5, 0xc39a, 0xc40c, 0xc447, 0xc204, 0xc4ea, 0x4439,
    0x44c7, 0xc400, 0x447e, 0xc2a1, 0xc4a8, 0xc388, 0x4333, 0x4309, 0xc40e, 0x433c, 0xc4c9, 0x4383, 0x4424,
    0x41e6, 0xc3f0, 0xc421, 0x4484, 0x4309, 0x4342, 0xc498, 0xc4bc, 0x4403, 0x3f4b, 0x43da, 0xc406, 0xc486,
    0x43ea, 0x4418, 0x4321, 0xc3be, 0xc459, 0x42b4, 0xc46b, 0xc212, 0xc519, 0xc377, 0xc388, 0x4447
};
const uint16_t kBFloat16Div[64] = {
    0x3ed0, 0xbfdc, 0x3f54, 0x3f17, 0xbfa3, 0xbf42, 0xbfae, 0xbf6f, 0xbe54, 0x4023, 0xbfe7, 0xbd52, 0xbf92,
    0x40ea, 0xbf23, 0xbe36, 0xc092, 0xbec1, 0x406b, 0xbf9f, 0xc043, 0xbf35, 0xbea5, 0xc211, 0xbf8f, 0x3eb9,
    0x3f86, 0xc04a, 0x3f98, 0xbfab, 0xbf34, 0xbff9, 0x3d96, 0x4182, 0xbe84, 0x3e14, 0xbf2d, 0x3f09, 0x4000,
    0x4006, 0xbf61, 0xc04e, 0x3f34, 0x404e, 0x4111, 0xbf17, 0xbf89, 0x3f71, 0x4367, 0x3ed6, 0xbea1, 0xbf49,
    0x3f94, 0x404a, 0x3fae, 0xbea1, 0xbfa1, 0x40ba, 0xbf9b, 0xc07f, 0xbf7b, 0xbf4b, 0xbdf3, 0x3edc
};
const uint16_t kBFloat16AddAlpha[64] = {
    0x41c2, 0xc21d, 0xc1f5, 0xc227, 0x4190, 0x412a, 0x41f5, 0xc1e0, 0x4063, 0xc252, 0xc1bc, 0xc027, 0xc20b,
    0xc1fb, 0x40fe, 0xc048, 0xc1d1, 0x3fe6, 0x4206, 0xc215, 0x41dd, 0x4137, 0xbf85, 0xc209, 0x4206, 0xc1f0,
    0xc252, 0xc212, 0x422e, 0x4101, 0x418d, 0x419c, 0x4194, 0x4240, 0x4001, 0x4180, 0x4193, 0x4194, 0x4227,
    0x410e, 0x4158, 0xc225, 0xc21c, 0xc1b8, 0xc22e, 0xc151, 0xc1e6, 0xc1eb, 0x4159, 0xc1ba, 0xbf18, 0xc18f,
    0xc1ea, 0x4240, 0x4191, 0x3ef8, 0xc1c9, 0x41c0, 0xc1cb, 0xc132, 0x4208, 0x410b, 0xc10c, 0x41fb
};
const uint16_t kBFloat16SubAlpha[64] = {
    0xc28f, 0xc2e9, 0x4235, 0x42b2, 0x428c, 0x4298, 0x42df, 0xc318, 0xc2cc, 0xbf40, 0xc286, 0x41d5, 0xc317,
    0xc19e, 0x4294, 0x4288, 0xc22d, 0x4289, 0x411e, 0xc315, 0x425f, 0x42b4, 0xc30c, 0xc214, 0x4314, 0x42c2,
    0x4263, 0xc290, 0xc21a, 0x41ef, 0x430c, 0x4252, 0xc2f0, 0x4220, 0xc302, 0xc2aa, 0x431b, 0xc22e, 0xc111,
    0xbfc1, 0x429e, 0xc2a2, 0x428b, 0xc096, 0xc1f4, 0xc30c, 0xc306, 0x4213, 0x4157, 0x4286, 0xc2e8, 0xc2f3,
    0x41d8, 0x4111, 0xc146, 0x42c4, 0xc2c5, 0x4150, 0xc2cf, 0xc19d, 0x432e, 0x4268, 0x42fb, 0xc2b2
};
const uint16_t kBFloat16Scalar[64] = {
    0x4181, 0xc24e, 0xc1c0, 0xc1ed, 0x41d6, 0x41a1, 0x4230, 0xc233, 0xc0fe, 0xc24c, 0xc1f2, 0x3fa5, 0xc24d,
    0xc202, 0x418a, 0x40b5, 0xc1f1, 0x4129, 0x420c, 0xc256, 0x420a, 0x41b5, 0xc187, 0xc215, 0x424d, 0xc18a,
    0xc231, 0xc22e, 0x421c, 0x4142, 0x420a, 0x41d1, 0x4096, 0x4253, 0xc14b, 0x40ce, 0x4214, 0x415c, 0x4223,
    0x4114, 0x41bb, 0xc245, 0xc1ea, 0xc1b3, 0xc236, 0xc1e6, 0xc22d, 0xc1be, 0x417a, 0xc163, 0xc15a, 0xc1fa,
    0xc1c7, 0x4244, 0x4189, 0x414c, 0xc20e, 0x41d0, 0xc212, 0xc14a, 0x425b, 0x4181, 0x40de, 0x41a9
};
const uint16_t kBFloat16Sqrt[64] = {
    0x406f, 0x40dd, 0x4098, 0x40a8, 0x409c, 0x4086, 0x40c8, 0x40ce, 0x4033, 0x40db, 0x40aa, 0x3f3b, 0x40dc,
    0x40b0, 0x4078, 0x4008, 0x40a9, 0x403f, 0x40b2, 0x40e1, 0x40b1, 0x408f, 0x4080, 0x40bc, 0x40d8, 0x4081,
    0x40cc, 0x40cb, 0x40bd, 0x404e, 0x40b1, 0x4099, 0x3ff4, 0x40dc, 0x405f, 0x4012, 0x40b8, 0x405d, 0x40c1,
    0x4032, 0x4091, 0x40d8, 0x40a7, 0x4093, 0x40cf, 0x40a6, 0x40ca, 0x4097, 0x406c, 0x406b, 0x4067, 0x40ac,
    0x409a, 0x40d4, 0x4076, 0x4054, 0x40b8, 0x4099, 0x40ba, 0x405e, 0x40e0, 0x406f, 0x4019, 0x408a
};
const uint16_t kBFloat16Floor[64] = {
    0x4080, 0xc180, 0xc100, 0xc120, 0x40e0, 0x40a0, 0x4150, 0xc160, 0xc040, 0xc180, 0xc120, 0x0000, 0xc180,
    0xc130, 0x40a0, 0x3f80, 0xc120, 0x4000, 0x4120, 0xc188, 0x4120, 0x40c0, 0xc0c0, 0xc140, 0x4170, 0xc0c0,
    0xc160, 0xc160, 0x4130, 0x4040, 0x4120, 0x40e0, 0x3f80, 0x4170, 0xc0a0, 0x3f80, 0x4130, 0x4040, 0x4140,
    0x4000, 0x40c0, 0xc180, 0xc120, 0xc0e0, 0xc160, 0xc110, 0xc160, 0xc100, 0x4080, 0xc0a0, 0xc0a0, 0xc120,
    0xc100, 0x4160, 0x4080, 0x4040, 0xc130, 0x40e0, 0xc140, 0xc0a0, 0x4180, 0x4080, 0x3f80, 0x40c0
};
const uint16_t kBFloat16Round[64] = {
    0x4040, 0xc140, 0xc0c0, 0xc0e0, 0x40c0, 0x4080, 0x4120, 0xc120, 0xc000, 0xc140, 0xc0e0, 0x0000, 0xc140,
    0xc100, 0x4080, 0x3f80, 0xc0e0, 0x4000, 0x4100, 0xc140, 0x4100, 0x40a0, 0xc080, 0xc110, 0x4130, 0xc080,
    0xc120, 0xc120, 0x4110, 0x4040, 0x4100, 0x40c0, 0x3f80, 0x4140, 0xc040, 0x3f80, 0x4100, 0x4040, 0x4110,
    0x4000, 0x40a0, 0xc130, 0xc0e0, 0xc0a0, 0xc120, 0xc0e0, 0xc120, 0xc0c0, 0x4040, 0xc040, 0xc040, 0xc0e0,
    0xc0c0, 0x4130, 0x4080, 0x4040, 0xc100, 0x40c0, 0xc100, 0xc040, 0x4140, 0x4080, 0x3f80, 0x40a0
};
const uint32_t kFloatA[64] = {
    0x415f1537, 0xc23dfee6, 0xc1b3f9ff, 0xc1dd6e71, 0x41bd2d4e, 0x418d5c0e, 0x421cdf30, 0xc2253977, 0xc0f9d9a5,
    0xc23c14c4, 0xc1e116f1, 0x3f09186b, 0xc23d62b7, 0xc1f0ee0d, 0x416fd0aa, 0x408fd010, 0xc1dfa5c3, 0x410ed339,
    0x41f78b5c, 0xc2456687, 0x41f4a7c8, 0x419e82f3, 0xc17f9963, 0xc209cee6, 0x4236e29e, 0xc182b970, 0xc222e6d3,
    0xc221503e, 0x420aff6c, 0x4125f62f, 0x41f5b3df, 0x41b7c912, 0x4067dc1b, 0x423d3f0e, 0xc1425852, 0x40a687af,
    0x4203c30a, 0x413da1b1, 0x4210aec9, 0x40f786e1, 0x41a3a850, 0xc235ab95, 0xc1d9ae6f, 0xc1a87d58, 0xc228154d,
    0xc1d5c46d, 0xc21f9974, 0xc1b19f02, 0x41591859, 0xc15844bd, 0xc14fb5e0, 0xc1e864f6, 0xc1ba6af1, 0x422ea96e,
    0x416cdb4b, 0x412e9c0f, 0xc2038b67, 0x41b74d2b, 0xc206a396, 0xc140df0d, 0x4243cf31, 0x415fffe7, 0x40b63d3b,
    0x4193b100
};
const uint32_t kFloatB[64] = {
    0x42092409, 0x41dcccc8, 0xc1d8c2f4, 0xc23b28ef, 0xc193a337, 0xc1b9ceab, 0xc1e736b7, 0x423129f4, 0x42168c0c,
    0xc19441f8, 0x4178b3ad, 0xc126fd2c, 0x4225d1ac, 0xc083ac90, 0xc1bc188b, 0xc1cab2b0, 0x40c460c7, 0xc1bdce85,
    0x4107566c, 0x421f2110, 0xc120f58e, 0xc1e08b1c, 0x424703da, 0x3f73df85, 0xc223a2e0, 0xc2352748, 0xc21c23ee,
    0x414be9e6, 0x41e9a9db, 0xc0f9168e, 0xc22e96c3, 0xc13d68be, 0x424672d4, 0x403a54f1, 0x423c6e6d, 0x42104fd7,
    0xc2436858, 0x41b093d4, 0x41915e49, 0x406c9c30, 0xc1ba8a33, 0x416189f4, 0xc21b610f, 0xc0d0c04f, 0xc094158a,
    0x423586c0, 0x42165757, 0xc1bd49ec, 0x3d701268, 0xc2008a0c, 0x42250d17, 0x4214351a, 0xc1a13e82, 0x415e51b7,
    0x412e5a33, 0xc20add42, 0x41d20236, 0x407c069a, 0x41dee6b4, 0x40424375, 0xc247c570, 0xc18cacd7, 0xc2403595,
    0x422ba3b3
};
const uint32_t kFloatAddAlpha[64] = {
    0x41c1d36e, 0xc21ce02e, 0xc1f50148, 0xc226dd1a, 0x4190e2bd, 0x412b3c1c, 0x41f46129, 0xc1e0268f, 0x405eecf1,
    0xc25251dc, 0xc1bbc8ca, 0xc0261ce7, 0xc20ba3d0, 0xc1face31, 0x40fdea46, 0xc046d988, 0xc1d0eb4e, 0x3fe78747,
    0x4205ec29, 0xc215a968, 0x41dc82f3, 0x41364c08, 0xbf863fb3, 0xc208aa40, 0x4205cb5b, 0xc1ef6a9b, 0xc251be67,
    0xc212051a, 0x422e0c1a, 0x41009933, 0x418cf303, 0x419b5fc2, 0x41940d36, 0x4240bd73, 0x3ffe2e58, 0x4180383a,
    0x41924778, 0x4193c9ff, 0x42267cee, 0x410d825b, 0x4157641b, 0xc224c13c, 0xc21b7456, 0xc1b8255e, 0xc22da2e9,
    0xc151b3f3, 0xc1e4fe80, 0xc1ea6863, 0x4159605f, 0xc1b94200, 0xbf1a62a5, 0xc18f784d, 0xc1eaca7f, 0x423f55f5,
    0x419094c7, 0x3eff1e52, 0xc1c81624, 0x41c0c09e, 0xc1ca685c, 0xc1324d31, 0x4207e0c2, 0x410b9833, 0xc10b8816,
    0x41faacd2
};
const uint32_t kFloatSubAlpha[64] = {
    0xc2315e5c, 0xc2bcd67b, 0x41bc84a0, 0x424f74c5, 0x425c1496, 0x42649db2, 0x42b0b3a6, 0xc2e93398, 0xc28f94a5,
    0xc1783f91, 0xc25a3e3c, 0x4192398f, 0xc2eba394, 0xc1b8f7e9, 0x425bd5d4, 0x423e4518, 0xc2198dd9, 0x42450ac0,
    0x418481e6, 0xc2e9f5c5, 0x423ebc40, 0x42870f0f, 0xc2c91cd9, 0xc210493c, 0x42e6888e, 0x42729943, 0x41cd12eb,
    0xc277fa0d, 0xc16e7707, 0x41bcd7e1, 0x42d1d384, 0x422c6440, 0xc2a16f87, 0x422972d4, 0xc2b875b4, 0xc2608392,
    0x42e7fa37, 0xc1cd5daa, 0x40a8f523, 0x3fb9a213, 0x4270633a, 0xc28ac31b, 0x421b4dc9, 0xc11f8a6d, 0xc2089d86,
    0xc2cfbd3f, 0xc2cf96f7, 0x41902b76, 0x4157803a, 0x42247319, 0xc2a641dd, 0xc2b8132d, 0x412f650c, 0x41a05a33,
    0xc06e2b64, 0x428bdc61, 0xc29b06a4, 0x4181bef7, 0xc2a20d71, 0xc189b776, 0x4305dae9, 0x422f92e4, 0x42aec493,
    0xc259f0fe
};
const uint32_t kFloatAddScalarAlpha[64] = {
    0x4162c764, 0xc23d125b, 0xc1b220e8, 0xc1db955a, 0x41bf0665, 0x418f3525, 0x421dcbbb, 0xc2244cec, 0xc0f2754b,
    0xc23b2839, 0xc1df3dda, 0x3f443b3c, 0xc23c762c, 0xc1ef14f6, 0x417382d7, 0x4097346a, 0xc1ddccac, 0x41128566,
    0x41f96473, 0xc24479fc, 0x41f680df, 0x41a05c0a, 0xc17be736, 0xc208e25b, 0x4237cf29, 0xc180e059, 0xc221fa48,
    0xc22063b3, 0x420bebf7, 0x4129a85c, 0x41f78cf6, 0x41b9a229, 0x4076a4cf, 0x423e2b99, 0xc13ea625, 0x40adec09,
    0x4204af95, 0x414153de, 0x42119b54, 0x40feeb3b, 0x41a58167, 0xc234bf0a, 0xc1d7d558, 0xc1a6a441, 0xc22728c2,
    0xc1d3eb56, 0xc21eace9, 0xc1afc5eb, 0x415cca86, 0xc1549290, 0xc14c03b3, 0xc1e68bdf, 0xc1b891da, 0x422f95f9,
    0x41708d78, 0x41324e3c, 0xc2029edc, 0x41b92642, 0xc205b70b, 0xc13d2ce0, 0x4244bbbc, 0x4163b214, 0x40bda195,
    0x41958a17
};
const uint32_t kFloatRsubAlpha[64] = {
    0xc05a6b61, 0x4170509a, 0x40f09ca3, 0x41112dc9, 0xc0ca5f54, 0xc090fdd4, 0xc12fed1b, 0x415296e1, 0x404730ab,
    0x416e0471, 0x41135fb0, 0x3f1bfdcb, 0x416f952e, 0x411ce0c0, 0xc06e7f85, 0xbf1407d6, 0x4112822e, 0xbff43861,
    0xc10834e6, 0x4179335b, 0xc1067926, 0xc0a592e7, 0x40b1ffe0, 0x4131b09a, 0xc14f246c, 0x40b5825e, 0x414fcd50,
    0x414de56a, 0xc11a7a30, 0xc015dfbe, 0xc1071a01, 0xc0c3e70c, 0xbea23939, 0xc156c68c, 0x408d3f3c, 0xbf4a8d53,
    0xc111cb54, 0xc0324727, 0xc1214ca0, 0xbfc678e6, 0xc0abbfbd, 0x41665305, 0x410eedc8, 0x40e2d3db, 0x41560515,
    0x410c9494, 0x414bd6de, 0x40edc90d, 0xc0533bf1, 0x409a66af, 0x4095442b, 0x4117c1b3, 0x40f8575f, 0xc1454633,
    0xc06af2ad, 0xc0204065, 0x412a2c68, 0xc0c3525d, 0x412de306, 0x408c5cdf, 0xc15ea6b6, 0xc05b8501, 0xbf70410a,
    0xc09896f6
};
const uint32_t kPowBase[64] = {
    0x4160aed1, 0x423e654c, 0x41b4c6cc, 0x41de3b3e, 0x41bdfa1b, 0x418e28db, 0x421d4596, 0x42259fdd, 0x40fd0cd8,
    0x423c7b2a, 0x41e1e3be, 0x3f22b205, 0x423dc91d, 0x41f1bada, 0x41716a44, 0x40930343, 0x41e07290, 0x41106cd3,
    0x41f85829, 0x4245cced, 0x41f57495, 0x419f4fc0, 0x4180997e, 0x420a354c, 0x42374904, 0x4183863d, 0x42234d39,
    0x4221b6a4, 0x420b65d2, 0x41278fc9, 0x41f680ac, 0x41b895df, 0x406e4281, 0x423da574, 0x4143f1ec, 0x40a9bae2,
    0x42042970, 0x413f3b4b, 0x4211152f, 0x40faba14, 0x41a4751d, 0x423611fb, 0x41da7b3c, 0x41a94a25, 0x42287bb3,
    0x41d6913a, 0x421fffda, 0x41b26bcf, 0x415ab1f3, 0x4159de57, 0x41514f7a, 0x41e931c3, 0x41bb37be, 0x422f0fd4,
    0x416e74e5, 0x413035a9, 0x4203f1cd, 0x41b819f8, 0x420709fc, 0x414278a7, 0x42443597, 0x41619981, 0x40b9706e,
    0x41947dcd
};
const uint32_t kPow2[64] = {
    0x43453265, 0x450d9a85, 0x43ff5053, 0x4440eacd, 0x440cfb40, 0x439de2b3, 0x44c13cda, 0x44d64eed, 0x427a2264,
    0x450ac521, 0x4447521f, 0x3ececb94, 0x450cb293, 0x44644157, 0x4363a940, 0x41a8d97e, 0x4444c8af, 0x42a2f537,
    0x4470eaee, 0x4518d509, 0x446b585a, 0x43c64853, 0x438133b4, 0x44953b02, 0x45033979, 0x43872552, 0x44d056dc,
    0x44cc4e79, 0x4497cf75, 0x42db59d2, 0x446d5b8b, 0x440517c8, 0x415dbfb9, 0x450c7db8, 0x4315fa72, 0x41e1108e,
    0x44887584, 0x430ed988, 0x44a47202, 0x42758ff6, 0x43d34c85, 0x45017d92, 0x443a761e, 0x43dfe5f5, 0x44ddc52d,
    0x4433d71f, 0x44c7ffa1, 0x43f8b433, 0x433ad38e, 0x43396ab1, 0x432b22de, 0x44546b9f, 0x4408ea7c, 0x44ef6d4a,
    0x435e1d8f, 0x42f293a7, 0x448802b8, 0x44046557, 0x448e7710, 0x4313bb16, 0x4516621a, 0x4346cf31, 0x420653b0,
    0x43ac4366
};
const uint32_t kPow3[64] = {
    0x452d12c2, 0x47d2a16d, 0x46344abe, 0x46a77843, 0x46513e75, 0x45af59e4, 0x476d6db1, 0x478aa6b3, 0x43f74089,
    0x47cc570f, 0x46afe07f, 0x3e836ca1, 0x47d09cbd, 0x46d7881d, 0x4556b0d6, 0x42c1ee14, 0x46ac87a9, 0x4437de69,
    0x46e9b68e, 0x47ec2c8e, 0x46e1a6bb, 0x45f6c961, 0x4581cea3, 0x472121c1, 0x47bbe706, 0x458added, 0x4784e627,
    0x47810f1d, 0x4725540c, 0x448f92cb, 0x46e48d45, 0x463fee05, 0x424e61d9, 0x47d0273b, 0x44e59700, 0x4315383a,
    0x470ce55d, 0x44d56ac5, 0x473a645d, 0x43f08114, 0x4607bdaf, 0x47b830bc, 0x469f2258, 0x46140fa8, 0x4791f48e,
    0x4696bbda, 0x4779ff4e, 0x462d5608, 0x451f9a05, 0x451dcc7a, 0x450bec99, 0x46c17f3e, 0x46484231, 0x47a3ba83,
    0x454ee4e7, 0x44a6f85c, 0x470c33b7, 0x463e6c89, 0x47164cb0, 0x44e072cd, 0x47e6852e, 0x452f3350, 0x43429af1,
    0x45c7d73c
};
const uint32_t kPowM2[64] = {
    0x3ba62b42, 0x39e76814, 0x3b005813, 0x3aa9daf2, 0x3ae86d81, 0x3b4f8af2, 0x3a2992d3, 0x3a18e6b6, 0x3c830069,
    0x39ec21b5, 0x3aa465f8, 0x401e74ce, 0x39e8e590, 0x3a8f8f00, 0x3b8feee8, 0x3d4210f4, 0x3aa68486, 0x3c491528,
    0x3a880365, 0x39d667b6, 0x3a8b3bdb, 0x3b254258, 0x3b7d9e52, 0x3a5b946c, 0x39f9b59f, 0x3b7276cf, 0x3a1d482b,
    0x3a2062ee, 0x3a57d925, 0x3c1562e1, 0x3a8a0da5, 0x3af63438, 0x3d93c54f, 0x39e93d2f, 0x3bda7c25, 0x3d1197fd,
    0x3a702173, 0x3be5634d, 0x3a474387, 0x3c8570cf, 0x3b1b1432, 0x39fd0da5, 0x3aafbc72, 0x3b125a29, 0x3a13c1ad,
    0x3ab634c2, 0x3a23d758, 0x3b03c14c, 0x3baf648e, 0x3bb0b9e8, 0x3bbf7925, 0x3a9a4299, 0x3aef544d, 0x3a08dc32,
    0x3b9386e1, 0x3c071540, 0x3a70ec20, 0x3af7800c, 0x3a6601da, 0x3bddcf11, 0x39d9e58c, 0x3ba4d23c, 0x3cf3f134,
    0x3b3e3870
};
const uint32_t kPowHalf[64] = {
    0x406fd4b0, 0x40dcc639, 0x40981dcc, 0x40a8a886, 0x409bf073, 0x4086e4e6, 0x40c8a724, 0x40cde98b, 0x4033f930,
    0x40dba956, 0x40aa0a71, 0x3f4c1557, 0x40dc6b99, 0x40afe6d9, 0x407899c2, 0x40092d68, 0x40a97f45, 0x4040487f,
    0x40b24ac8, 0x40e106c9, 0x40b14087, 0x408eccd5, 0x40804ca8, 0x40bc1963, 0x40d89cd3, 0x4081c00e, 0x40cc7698,
    0x40cb7770, 0x40bce82b, 0x404f1cec, 0x40b1a139, 0x4099b5e7, 0x3ff6f87d, 0x40dc56e3, 0x405ff7f4, 0x40136541,
    0x40b7f04d, 0x405d4228, 0x40c0b871, 0x40332532, 0x4091168e, 0x40d7e4b9, 0x40a73aaf, 0x40933446, 0x40cfae86,
    0x40a5b97a, 0x40ca62aa, 0x40971f45, 0x406c9d0e, 0x406c2a79, 0x40677b26, 0x40acc4ae, 0x409acd7d, 0x40d3b28f,
    0x40771299, 0x405463ee, 0x40b7c992, 0x40998248, 0x40b9ee18, 0x405f1fef, 0x40e01e9d, 0x407051d0, 0x401a10cc,
    0x4089dd92
};
const uint32_t kPowMHalf[64] = {
    0x3e88a131, 0x3e146c4e, 0x3e5769fc, 0x3e42494c, 0x3e522213, 0x3e72ea9a, 0x3e234e90, 0x3e1f22bf, 0x3eb61245,
    0x3e152ccd, 0x3e40b4eb, 0x3fa08fd5, 0x3e14a954, 0x3e3a492b, 0x3e83cf50, 0x3eeedf8c, 0x3e415325, 0x3eaa6a52,
    0x3e37c9cc, 0x3e119e50, 0x3e38dddf, 0x3e6577b4, 0x3e7f670c, 0x3e2e34bb, 0x3e174651, 0x3e7c8bfa, 0x3e204376,
    0x3e210c70, 0x3e2d760b, 0x3e9e3692, 0x3e38793c, 0x3e552e0e, 0x3f04ae03, 0x3e14b74d, 0x3e924e66, 0x3ede503b,
    0x3e322576, 0x3e94192b, 0x3e2a0755, 0x3eb6e9b9, 0x3e61d957, 0x3e17c751, 0x3e43f255, 0x3e5e9a34, 0x3e1dc7a7,
    0x3e45b9c9, 0x3e21e8ae, 0x3e58d4cb, 0x3e8a7cca, 0x3e8abffa, 0x3e8d8edb, 0x3e3daa19, 0x3e53ad08, 0x3e1ac973,
    0x3e849ffd, 0x3e9a482f, 0x3e324b01, 0x3e5575bd, 0x3e303d02, 0x3e92dc0c, 0x3e123529, 0x3e885a0e, 0x3ed4b048,
    0x3e6dae50
};
const uint32_t kPowM1[64] = {
    0x3d91d753, 0x3cac1ad0, 0x3d354330, 0x3d13732d, 0x3d2c7beb, 0x3d668063, 0x3cd05a47, 0x3cc5d85d, 0x3e017dfb,
    0x3cadda5c, 0x3d110fdf, 0x3fc96835, 0x3caca872, 0x3d078e67, 0x3d87bba7, 0x3e5ee46a, 0x3d11fe7a, 0x3de2e2c2,
    0x3d03f221, 0x3ca5a971, 0x3d057fb1, 0x3d4daf60, 0x3d7ece72, 0x3ced1773, 0x3cb2c80e, 0x3d7923e0, 0x3cc8a8ca,
    0x3ccaa14a, 0x3ceb1181, 0x3dc38ed0, 0x3d04ee80, 0x3d3185ab, 0x3e8987d2, 0x3cacc8e9, 0x3da73b08, 0x3e410f3f,
    0x3cf7f03a, 0x3dab5a38, 0x3ce1db79, 0x3e02b128, 0x3d473fc4, 0x3cb3f979, 0x3d15fb12, 0x3d418fd0, 0x3cc27cfd,
    0x3d18b777, 0x3cccccfd, 0x3d37a7c7, 0x3d95d58c, 0x3d966713, 0x3d9c8d59, 0x3d0c8499, 0x3d2f06b2, 0x3cbb2df9,
    0x3d896ac2, 0x3db9f5d9, 0x3cf858c6, 0x3d31fd24, 0x3cf2a7e4, 0x3da87f75, 0x3ca7015c, 0x3d913f9c, 0x3e30b470,
    0x3d5cac36
};
const uint32_t kPow4[64] = {
    0x4717e69a, 0x4a9ca727, 0x487ea11e, 0x4911610b, 0x489b478a, 0x47c2bfb0, 0x4a11dccf, 0x4a33680d, 0x4574672f,
    0x4a96723f, 0x491b30c6, 0x3e270c45, 0x4a9aa79a, 0x494b8473, 0x474a7598, 0x43debc5c, 0x491743ea, 0x45cf768a,
    0x4962b955, 0x4ab67b57, 0x49585b54, 0x481993f4, 0x47826a4c, 0x49adfb7c, 0x4a8687bd, 0x478eb0c3, 0x4a298d43,
    0x4a230d29, 0x49b40cc8, 0x463bf2cd, 0x495c12a1, 0x488a6371, 0x43401495, 0x4a9a337e, 0x46afbafc, 0x4445de1a,
    0x49917a25, 0x469f6c17, 0x49d3448b, 0x456b8cde, 0x482e673b, 0x4a82ff96, 0x4907cfd9, 0x4843d26f, 0x4a401e08,
    0x48fcad15, 0x4a1c3f6c, 0x48719da1, 0x47085819, 0x47064b60, 0x46e4cf32, 0x4930426c, 0x489273f4, 0x4a5fed3e,
    0x4740b748, 0x4665db7d, 0x499085c8, 0x4888f154, 0x499e909b, 0x46aa80c8, 0x4ab0ae39, 0x471a6527, 0x448cf770,
    0x47e7d545
};
const uint32_t kPow1_3First8[8] = {
    0x41f82f47, 0x4317a96d, 0x42665163, 0x42969cb8, 0x4275abd4, 0x4228852d, 0x42ec974b, 0x42fd0deb
};
}  // namespace

// ---- arithmetic ----------------------------------------------------------------------------------

TEST(ElementwiseArith, AddSubMulValuesAndDtypes) {
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor b = tensor({10, 20, 30});
  EXPECT_EQ(longs(a + b), (std::vector<int64_t>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(longs(a - b), (std::vector<int64_t>{-9, -18, -27, -6, -15, -24}));
  EXPECT_EQ(longs(a * b), (std::vector<int64_t>{10, 40, 90, 40, 100, 180}));
  EXPECT_EQ((a + b).dtype(), kLong);
  EXPECT_EQ((a + b).sizes(), IntArrayRef({2, 3}));
  Tensor f = tensor({0.5, 1.5, -2.0});
  EXPECT_EQ((b + f).dtype(), kFloat);
  EXPECT_EQ(floats(b + f), (std::vector<float>{10.5f, 21.5f, 28.0f}));
  EXPECT_EQ(floats(b * 0.5), (std::vector<float>{5, 10, 15}));
  EXPECT_EQ((b * 0.5).dtype(), kFloat);
  EXPECT_EQ(longs(b - 1), (std::vector<int64_t>{9, 19, 29}));
  // Scalar on the left.
  EXPECT_EQ(longs(1 - b), (std::vector<int64_t>{-9, -19, -29}));
  EXPECT_EQ(longs(2 * b), (std::vector<int64_t>{20, 40, 60}));
  EXPECT_EQ(longs(5 + b), (std::vector<int64_t>{15, 25, 35}));
  EXPECT_EQ(floats(60 / b), (std::vector<float>{6, 3, 2}));
  EXPECT_EQ((60 / b).dtype(), kFloat);
  EXPECT_EQ(floats(1.5 - f), (std::vector<float>{1.0f, 0.0f, 3.5f}));
  // Free functions.
  EXPECT_EQ(longs(ctorch::add(b, b, 3)), (std::vector<int64_t>{40, 80, 120}));
  EXPECT_EQ(longs(ctorch::sub(b, b, 2)), (std::vector<int64_t>{-10, -20, -30}));
  EXPECT_EQ(longs(ctorch::mul(b, b)), (std::vector<int64_t>{100, 400, 900}));
}

TEST(ElementwiseArith, BoolArithmetic) {
  Tensor t = tensor({true, false});
  Tensor f = tensor({true, true});
  EXPECT_EQ(bools(t + t), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(t * f), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(tensor({false, false}).add(t, 2)), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(t.add(t, true)), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ((t + 1).dtype(), kLong);
  EXPECT_EQ(longs(t + 1), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ((t * 1.5).dtype(), kFloat);
}

TEST(ElementwiseArith, IntegerOverflowWrapsAround) {
  EXPECT_EQ(longs(tensor({INT64_MAX}) + 1), (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(longs(tensor({int64_t{1} << 62}) * 4), (std::vector<int64_t>{0}));
  EXPECT_EQ(values<int32_t>(tensor({INT32_MAX}, kInt) + 1), (std::vector<int32_t>{INT32_MIN}));
  EXPECT_EQ(values<int32_t>(-tensor({INT32_MIN}, kInt)), (std::vector<int32_t>{INT32_MIN}));
  EXPECT_EQ(values<int8_t>(tensor({100}, kInt8) + tensor({100}, kInt8)), (std::vector<int8_t>{-56}));
  EXPECT_EQ(values<uint8_t>(tensor({1}, kUInt8) - 2), (std::vector<uint8_t>{255}));
  EXPECT_EQ(values<uint8_t>(-tensor({1, 0}, kUInt8)), (std::vector<uint8_t>{255, 0}));
  EXPECT_EQ(values<int8_t>(tensor({1}, kInt8).add(tensor({1}, kInt8), 100)), (std::vector<int8_t>{101}));
  EXPECT_EQ(values<int8_t>(tensor({0}, kInt8) + 1000), (std::vector<int8_t>{-24}));  // the scalar wraps
  EXPECT_EQ(longs(tensor({int64_t{1} << 62, 3}).pow(3)), (std::vector<int64_t>{0, 27}));
}

TEST(ElementwiseArith, AlphaScalesTheSecondOperand) {
  EXPECT_EQ(longs(tensor({1, 2}).add(tensor({10, 20}), 3)), (std::vector<int64_t>{31, 62}));
  EXPECT_EQ(longs(tensor({1, 2}).sub(tensor({10, 20}), 2)), (std::vector<int64_t>{-19, -38}));
  EXPECT_EQ(longs(tensor({1, 2}).add(5, -2)), (std::vector<int64_t>{-9, -8}));
  EXPECT_EQ(floats(tensor({1.0, 2.0}).add(tensor({1.0, 1.0}), 0.5)), (std::vector<float>{1.5f, 2.5f}));
  // A float alpha is fine when the computation is floating, even for an integer self.
  Tensor r = tensor({1}).add(tensor({1.5}), 2.5);
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(floats(r), (std::vector<float>{4.75f}));
  Tensor s = tensor({1}).add_(tensor({2}), 3);
  EXPECT_EQ(longs(s), (std::vector<int64_t>{7}));
}

TEST(ElementwiseArith, AlphaErrors) {
  const std::string float_alpha = "For integral input tensors, argument alpha must not be a floating point number.";
  const std::string bool_alpha = "Boolean alpha only supported for Boolean results.";
  EXPECT_EQ(error_of([] { tensor({1}).add(1, 2.5); }), float_alpha);
  EXPECT_EQ(error_of([] { tensor({1}).add(tensor({1}), 2.5); }), float_alpha);
  EXPECT_EQ(error_of([] { tensor({1}).sub(tensor({1}), 0.5); }), float_alpha);
  EXPECT_EQ(error_of([] { tensor({true}).add(tensor({true}), 0.5); }), float_alpha);
  EXPECT_EQ(error_of([] { tensor({1}).add(1, true); }), bool_alpha);
  EXPECT_EQ(error_of([] { tensor({1.0}).add(1, true); }), bool_alpha);
  EXPECT_EQ(error_of([] { tensor({1}, kInt8).add(tensor({1}, kInt8), 1000); }),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { tensor({1.0}, kHalf).add(tensor({1.0}, kHalf), 1e6); }),
            "value cannot be converted to type at::Half without overflow");
  Tensor a = tensor({1, 2});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.add_(tensor({1, 1}), 1.5); }), float_alpha);
  EXPECT_EQ(error_of([&] { a.sub_(1, 0.5); }), float_alpha);
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a._version(), v);
}

TEST(ElementwiseArith, SubtractionRejectsBool) {
  const std::string two = "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                          "`logical_xor()` operator instead.";
  const std::string one = "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                          "invert a mask, use the `~` or `logical_not()` operator instead.";
  Tensor b = tensor({true, false});
  EXPECT_EQ(error_of([&] { b - b; }), two);
  EXPECT_EQ(error_of([&] { b - true; }), two);
  EXPECT_EQ(error_of([&] { b - 1; }), one);
  EXPECT_EQ(error_of([&] { tensor({1}) - b; }), one);
  EXPECT_EQ(error_of([&] { tensor({1}) - true; }), one);
  EXPECT_EQ(error_of([&] { 1 - b; }), one);
  EXPECT_EQ(error_of([&] { tensor({1.5}).sub_(tensor({true})); }), one);
  EXPECT_EQ(bools(b), (std::vector<uint8_t>{1, 0}));
}

TEST(ElementwiseArith, TrueDivisionPromotesIntegers) {
  Tensor r = tensor({7, -7, 7, -7, 0, 5}) / tensor({2, 2, -2, -2, 3, 3});
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(floats(r), (std::vector<float>{3.5f, -3.5f, -3.5f, 3.5f, 0.0f, 5.0f / 3.0f}));
  EXPECT_EQ((tensor({true}) / tensor({true})).dtype(), kFloat);
  EXPECT_EQ((tensor({1}, kUInt8) / 2).dtype(), kFloat);
  EXPECT_EQ((tensor({1.0}, kHalf) / 2).dtype(), kHalf);
  EXPECT_EQ((tensor({1.0}, kDouble) / tensor({2})).dtype(), kDouble);
  // Division by zero follows IEEE for floats, and integers divide as floats.
  expect_same_floats(floats(tensor({1.0, -1.0, 0.0}) / 0), {kInf, -kInf, kNaN});
  expect_same_floats(floats(tensor({1, -1, 0}) / 0), {kInf, -kInf, kNaN});
  expect_same_floats(floats(tensor({1.0, -1.0}) / tensor({0.0, -0.0})), {kInf, kInf});
}

TEST(ElementwiseArith, RoundingModes) {
  Tensor a = tensor({7, -7, 7, -7, 0, 5});
  Tensor b = tensor({2, 2, -2, -2, 3, 3});
  EXPECT_EQ(a.div(b, "trunc").dtype(), kLong);
  EXPECT_EQ(longs(a.div(b, "trunc")), (std::vector<int64_t>{3, -3, -3, 3, 0, 1}));
  EXPECT_EQ(longs(a.div(b, "floor")), (std::vector<int64_t>{3, -4, -4, 3, 0, 1}));
  EXPECT_EQ(longs(tensor({7, -7}).div(2, "floor")), (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(values<uint8_t>(tensor({7, 255}, kUInt8).div(2, "floor")), (std::vector<uint8_t>{3, 127}));
  Tensor fa = tensor({7.5, -7.5, 7.5, -7.5, 0.0, 0.5});
  Tensor fb = tensor({2.0, 2.0, -2.0, -2.0, 3.0, -3.0});
  expect_same_floats(floats(fa.div(fb, "trunc")), {3, -3, -3, 3, 0.0f, -0.0f});
  expect_same_floats(floats(fa.div(fb, "floor")), {3, -4, -4, 3, 0.0f, -1.0f});
  expect_same_floats(floats(tensor({7, -7}).div(2.5, "floor")), {2, -3});
  EXPECT_EQ(tensor({7, -7}).div(2.5, "floor").dtype(), kFloat);
  // Floating division by zero with a rounding mode keeps IEEE results.
  Tensor z = zeros({5});
  expect_same_floats(floats(tensor({5.0, -5.0, 1.0, 0.0, -1.0}).div(z, "floor")), {kInf, -kInf, kInf, kNaN, -kInf});
  expect_same_floats(floats(tensor({5.0, -5.0, 1.0, 0.0, -1.0}).div(z, "trunc")), {kInf, -kInf, kInf, kNaN, -kInf});
  // In place.
  Tensor c = tensor({7, -7});
  c.div_(2, "floor");
  EXPECT_EQ(longs(c), (std::vector<int64_t>{3, -4}));
  c.div_(tensor({2, 2}), "trunc");
  EXPECT_EQ(longs(c), (std::vector<int64_t>{1, -2}));
}

TEST(ElementwiseArith, RoundingModeErrors) {
  EXPECT_EQ(error_of([] { tensor({1}).div(2, "bad"); }),
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'bad'");
  EXPECT_EQ(error_of([] { tensor({1}).div(tensor({2}), "round"); }),
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
  EXPECT_EQ(error_of([] { tensor({true}).div(tensor({true}), "floor"); }),
            "\"div_floor_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).div(tensor({true}), "trunc"); }),
            "\"div_trunc_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).remainder(tensor({true})); }), "\"remainder_cpu\" not implemented for 'Bool'");
}

TEST(ElementwiseArith, IntegerDivisionByZeroRaises) {
  EXPECT_EQ(error_of([] { tensor({1}).div(0, "trunc"); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1, 2}).div(tensor({1, 0}), "floor"); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1}).remainder(0); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1}).remainder(tensor({0})); }), "ZeroDivisionError");
  // The scalar is converted to the computation dtype first: 256 is 0 as int8.
  EXPECT_EQ(error_of([] { tensor({1, 2}, kInt8).remainder(256); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1, 2}, kInt8).div(256, "floor"); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1}, kUInt8).div(tensor({0}, kUInt8), "floor"); }), "ZeroDivisionError");
  // A failed in-place division leaves the tensor and its version alone.
  Tensor a = tensor({5, 6});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.div_(tensor({1, 0}), "floor"); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([&] { a.remainder_(0); }), "ZeroDivisionError");
  EXPECT_EQ(longs(a), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(a._version(), v);
  // Floating remainder by zero is NaN.
  expect_same_floats(floats(tensor({5.0, -5.0, 1.0, 0.0, -1.0}).remainder(0.0)), {kNaN, kNaN, kNaN, kNaN, kNaN});
}

TEST(ElementwiseArith, RemainderTakesTheSignOfTheDivisor) {
  EXPECT_EQ(longs(tensor({5, -5, 5, -5, 6, 0}).remainder(tensor({3, 3, -3, -3, 3, -3}))),
            (std::vector<int64_t>{2, 1, -1, -2, 0, 0}));
  EXPECT_EQ(longs(tensor({5, -5}).remainder(3)), (std::vector<int64_t>{2, 1}));
  expect_same_floats(floats(tensor({5.5, -5.5, 5.5, -5.5, 6.0, -0.0}).remainder(tensor({3.0, 3.0, -3.0, -3.0, 3.0, 3.0}))),
                     {2.5f, 0.5f, -0.5f, -2.5f, 0.0f, -0.0f});
  expect_same_floats(floats(tensor({5, -5}).remainder(-2.5)), {0.0f, -0.0f});
  EXPECT_EQ(tensor({5, -5}).remainder(-2.5).dtype(), kFloat);
  Tensor a = tensor({-7, 7});
  a.remainder_(4);
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(error_of([] { tensor({1}).remainder_(1.5); }), kCastLong);
}

TEST(ElementwisePow, ValuesAndDtypes) {
  EXPECT_EQ(longs(tensor({2, 3}).pow(2)), (std::vector<int64_t>{4, 9}));
  EXPECT_EQ(tensor({2, 3}).pow(2).dtype(), kLong);
  EXPECT_EQ(values<int32_t>(tensor({1, 2}, kInt).pow(tensor(2))), (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(tensor({2, 3}).pow(0.5).dtype(), kFloat);
  EXPECT_EQ(floats(tensor({3}, kInt8).pow(2.0)), (std::vector<float>{9.0f}));
  EXPECT_EQ(floats(tensor({1.0, 2.0}).pow(tensor({2, 3}))), (std::vector<float>{1, 8}));
  EXPECT_EQ(floats(tensor({1, 2}).pow(tensor({2.0, 3.0}))), (std::vector<float>{1, 8}));
  EXPECT_EQ(longs(tensor({1, 2}).pow(true)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(longs(tensor({5, -5}).pow(0)), (std::vector<int64_t>{1, 1}));
  // Tensor exponents may be negative integers: 1 for base 1, +-1 for base -1, else 0.
  EXPECT_EQ(longs(tensor({2, -3, 0, 1, -1}).pow(tensor({-2, -1, -1, -5, -3}))), (std::vector<int64_t>{0, 0, 0, 1, -1}));
  expect_same_floats(floats(tensor({0.0, -1.0}).pow(tensor({-1.0, 0.5}))), {kInf, kNaN});
  // Scalar base.
  EXPECT_EQ(longs(ctorch::pow(2, tensor({1, 2}))), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(longs(ctorch::pow(-2, tensor({-2, 3}))), (std::vector<int64_t>{0, -8}));
  EXPECT_EQ(floats(ctorch::pow(2.5, tensor({2}))), (std::vector<float>{6.25f}));
  EXPECT_EQ(ctorch::pow(2.5, tensor({2})).dtype(), kFloat);
  EXPECT_EQ(longs(ctorch::pow(true, tensor({-2, 3}))), (std::vector<int64_t>{1, 1}));
  Tensor one = ctorch::pow(1, tensor({1.5, kNaN}));
  EXPECT_EQ(one.dtype(), kFloat);
  EXPECT_EQ(floats(one), (std::vector<float>{1, 1}));
  EXPECT_EQ(floats(tensor({kNaN}).pow(0)), (std::vector<float>{1}));
  Tensor h = ctorch::pow(2, tensor({0.5}, kHalf));
  EXPECT_EQ(h.dtype(), kHalf);
  EXPECT_EQ(bits16(h), (std::vector<uint16_t>{0x3da8}));  // 1.4141 in float16
}

TEST(ElementwisePow, IntegerNegativeScalarExponentsAreErrors) {
  const std::string msg = "Integers to negative integer powers are not allowed.";
  EXPECT_EQ(error_of([] { tensor({2}).pow(-1); }), msg);
  EXPECT_EQ(error_of([] { tensor({2}, kUInt8).pow(-1); }), msg);
  EXPECT_EQ(error_of([] { tensor({true}).pow(-1); }), msg);
  EXPECT_EQ(floats(tensor({3}).pow(-1.0)), (std::vector<float>{1.0f / 3.0f}));
  Tensor a = tensor({2, 3});
  EXPECT_EQ(error_of([&] { a.pow_(-2); }), msg);
  EXPECT_EQ(error_of([] { tensor({3}, kInt8).pow(300); }), "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { tensor({3.0}, kHalf).pow(1e6); }), "value cannot be converted to type at::Half without overflow");
  // pow_ with a promoting exponent fails PyTorch's output dtype check.
  EXPECT_EQ(error_of([&] { a.pow_(0.5); }), "Found dtype Long but expected Float");
  EXPECT_EQ(error_of([] { tensor({true}).pow_(2); }), "Found dtype Bool but expected Long");
  EXPECT_EQ(error_of([&] { a.pow_(tensor({0.5})); }), kCastLong);
  EXPECT_EQ(longs(a), (std::vector<int64_t>{2, 3}));
  a.pow_(3);
  EXPECT_EQ(longs(a), (std::vector<int64_t>{8, 27}));
}

TEST(ElementwiseMinMax, MaximumAndMinimumPropagateNaN) {
  Tensor a = tensor({1.0, kNaN, 3.0});
  Tensor b = tensor({kNaN, 2.0, -1.0});
  expect_same_floats(floats(a.maximum(b)), {kNaN, kNaN, 3.0f});
  expect_same_floats(floats(a.minimum(b)), {kNaN, kNaN, -1.0f});
  expect_same_floats(floats(ctorch::maximum(b, a)), {kNaN, kNaN, 3.0f});
  Tensor m = tensor({1, 5}).maximum(tensor({3.5, 2.0}));
  EXPECT_EQ(m.dtype(), kFloat);
  EXPECT_EQ(floats(m), (std::vector<float>{3.5f, 5.0f}));
  EXPECT_EQ(longs(tensor({1, 5}).minimum(tensor({3, 2}))), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(bools(tensor({true, false}).maximum(tensor({false, false}))), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(tensor({true, false}).minimum(tensor({true, true}))), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(longs(tensor({{1}, {4}}).maximum(tensor({2, 3}))), (std::vector<int64_t>{2, 3, 4, 4}));
}

// ---- comparison and logical ops -----------------------------------------------------------------

TEST(ElementwiseCompare, TensorAndScalarFormsGiveBool) {
  Tensor a = tensor({1, 2, 3});
  Tensor b = tensor({3, 2, 1});
  EXPECT_EQ(bools(a == b), (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(bools(a != b), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(bools(a < b), (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(bools(a <= b), (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(bools(a > b), (std::vector<uint8_t>{0, 0, 1}));
  EXPECT_EQ(bools(a >= b), (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(bools(a == 2), (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(bools(a.ne(2)), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(bools(a.lt(2)), (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(bools(a.le(2)), (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(bools(a.gt(2)), (std::vector<uint8_t>{0, 0, 1}));
  EXPECT_EQ(bools(a.ge(2)), (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(bools(ctorch::eq(a, b)), (std::vector<uint8_t>{0, 1, 0}));
  // Promotion before comparing: 2 == 2.5 is false, not 2 == 2.
  EXPECT_EQ(bools(tensor({2, 3}) == 2.5), (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(bools(tensor({2, 3}) < 2.5), (std::vector<uint8_t>{1, 0}));
  // uint8 with a negative number: the number wraps to the tensor's dtype first (-1 is 255).
  EXPECT_EQ(bools(tensor({0, 5, 255}, kUInt8) < -1), (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(bools(tensor({0, 5, 255}, kUInt8) == 256), (std::vector<uint8_t>{1, 0, 0}));
  // NaN compares unequal to everything.
  EXPECT_EQ(bools(tensor({1.0, kNaN}) < tensor({2.0, 1.0})), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(tensor({1.0, kNaN}) != tensor({1.0, kNaN})), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(bools(tensor({1.0, kNaN}) == tensor({1.0, kNaN})), (std::vector<uint8_t>{1, 0}));
  // Broadcasting.
  Tensor g = tensor({{1}, {3}}) >= tensor({1, 2, 3});
  EXPECT_EQ(g.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(bools(g), (std::vector<uint8_t>{1, 0, 0, 1, 1, 1}));
  EXPECT_EQ((tensor({1.0}, kHalf) < tensor({2}, kInt8)).dtype(), kBool);
}

TEST(ElementwiseLogical, AnyDtypeGivesBool) {
  Tensor a = tensor({0, 1, 2, 0});
  Tensor b = tensor({0.0, 0.0, 3.5, 1.0});
  EXPECT_EQ(bools(a.logical_and(b)), (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(bools(a.logical_or(b)), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(bools(a.logical_xor(b)), (std::vector<uint8_t>{0, 1, 0, 1}));
  EXPECT_EQ(bools(tensor({0.0, -0.0, 2.0, kNaN}).logical_not()), (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(bools(!tensor({true, false})), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(bools(tensor({true, false}) && tensor({true, true})), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(tensor({true, false}) || tensor({false, false})), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(ctorch::logical_xor(tensor({1, 0}, kInt8), tensor({{1}, {0}}, kUInt8))),
            (std::vector<uint8_t>{0, 1, 1, 0}));
}

// ---- where -----------------------------------------------------------------------------------------

TEST(ElementwiseWhere, BroadcastsAndPromotes) {
  Tensor w = where(tensor({{true}, {false}}), tensor({1, 2, 3}), tensor({10.5}));
  EXPECT_EQ(w.dtype(), kFloat);
  EXPECT_EQ(w.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(floats(w), (std::vector<float>{1, 2, 3, 10.5f, 10.5f, 10.5f}));
  EXPECT_EQ(longs(where(tensor({true, false, true}), tensor({1, 2, 3}), tensor({-1, -2, -3}))),
            (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(where(tensor({true}), tensor({1}, kInt8), tensor({1}, kUInt8)).dtype(), kShort);
  EXPECT_EQ(where(tensor({true}), tensor({1}, kInt), tensor(2)).dtype(), kInt);  // 0-dim: category only
  // uint8 conditions are accepted (deprecated in PyTorch).
  EXPECT_EQ(longs(where(tensor({1, 0}, kUInt8), tensor({1}), tensor({2}))), (std::vector<int64_t>{1, 2}));
}

TEST(ElementwiseWhere, ScalarOperandsPromoteAsWrappedNumbers) {
  Tensor c = tensor({true, false});
  Tensor h = where(c, 2, tensor({1.5, 2.5}, kHalf));
  EXPECT_EQ(h.dtype(), kHalf);
  EXPECT_EQ(floats(h), (std::vector<float>{2.0f, 2.5f}));
  Tensor f = where(c, 2.5, tensor({1, 2}, kInt));
  EXPECT_EQ(f.dtype(), kFloat);
  EXPECT_EQ(floats(f), (std::vector<float>{2.5f, 2.0f}));
  Tensor i = where(c, tensor({1, 2}, kInt), 7);
  EXPECT_EQ(i.dtype(), kInt);
  EXPECT_EQ(values<int32_t>(i), (std::vector<int32_t>{1, 7}));
  Tensor l = where(c, tensor({true, true}), 2);
  EXPECT_EQ(l.dtype(), kLong);
  EXPECT_EQ(longs(l), (std::vector<int64_t>{1, 2}));
  Tensor ss = where(c, 1.5, 2);
  EXPECT_EQ(ss.dtype(), kFloat);
  EXPECT_EQ(floats(ss), (std::vector<float>{1.5f, 2.0f}));
  EXPECT_EQ(where(c, 1, 2).dtype(), kLong);
  EXPECT_EQ(where(c, true, false).dtype(), kBool);
  EXPECT_EQ(bools(where(c, true, false)), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(error_of([&] { where(c, 1000, tensor({1, 2}, kInt8)); }),
            "value cannot be converted to type int8_t without overflow");
}

TEST(ElementwiseWhere, ConditionMustBeBool) {
  EXPECT_EQ(error_of([] { where(tensor({1.0, 0.0}), tensor({1}), tensor({2})); }),
            "where expected condition to be a boolean tensor, but got a tensor with dtype Float");
  EXPECT_EQ(error_of([] { where(tensor({1, 0}), tensor({1}), tensor({2})); }),
            "where expected condition to be a boolean tensor, but got a tensor with dtype Long");
  EXPECT_EQ(error_of([] { where(tensor({true, false, true}), tensor({1, 2}), tensor({2})); }),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0");
}

// ---- clamp -----------------------------------------------------------------------------------------

TEST(ElementwiseClamp, BoundsAndNaN) {
  Tensor x = tensor({-3.0, 0.5, 2.0, kNaN});
  expect_same_floats(floats(x.clamp(-1, 1)), {-1.0f, 0.5f, 1.0f, kNaN});
  expect_same_floats(floats(x.clamp(0)), {0.0f, 0.5f, 2.0f, kNaN});
  expect_same_floats(floats(x.clamp(std::nullopt, 0)), {-3.0f, 0.0f, 0.0f, kNaN});
  expect_same_floats(floats(x.clamp_min(0)), {0.0f, 0.5f, 2.0f, kNaN});
  expect_same_floats(floats(x.clamp_max(0)), {-3.0f, 0.0f, 0.0f, kNaN});
  expect_same_floats(floats(ctorch::clamp(x, -1, 1)), {-1.0f, 0.5f, 1.0f, kNaN});
  // min > max: everything becomes max.
  EXPECT_EQ(floats(tensor({-3.0, 0.5, 2.0}).clamp(2, 1)), (std::vector<float>{1, 1, 1}));
  // A NaN bound: both bounds given fills with NaN; a lone NaN bound is ignored.
  expect_same_floats(floats(x.clamp(kNaN, 1)), {kNaN, kNaN, kNaN, kNaN});
  expect_same_floats(floats(x.clamp(0, kNaN)), {kNaN, kNaN, kNaN, kNaN});
  expect_same_floats(floats(x.clamp(kNaN)), {-3.0f, 0.5f, 2.0f, kNaN});
  expect_same_floats(floats(x.clamp(std::nullopt, kNaN)), {-3.0f, 0.5f, 2.0f, kNaN});
  // -0.0 passes a zero bound unchanged.
  expect_same_floats(floats(tensor({-0.0}).clamp(0)), {-0.0f});
  // Integers.
  EXPECT_EQ(longs(tensor({-5, 0, 5}).clamp(-2, 3)), (std::vector<int64_t>{-2, 0, 3}));
  EXPECT_EQ(tensor({-5, 0, 5}).clamp(-2, 3).dtype(), kLong);
  EXPECT_EQ(values<uint8_t>(tensor({0, 100, 255}, kUInt8).clamp(50)), (std::vector<uint8_t>{50, 100, 255}));
  EXPECT_EQ(floats(tensor({1.0, 70000.0}, kHalf).clamp(std::nullopt, 60000)), (std::vector<float>{1.0f, 60000.0f}));
}

TEST(ElementwiseClamp, FloatBoundsPromoteIntegerTensors) {
  Tensor r = tensor({-3, 0, 2}).clamp(-0.5, 1.5);
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(floats(r), (std::vector<float>{-0.5f, 0.0f, 1.5f}));
  EXPECT_EQ(floats(tensor({1, 2}).clamp_max(0.5)), (std::vector<float>{0.5f, 0.5f}));
  EXPECT_EQ(tensor({1, 2}).clamp_min(0.5).dtype(), kFloat);
  // A bool tensor with an int bound becomes int64.
  Tensor b = tensor({true, false}).clamp(0);
  EXPECT_EQ(b.dtype(), kLong);
  EXPECT_EQ(longs(b), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(longs(tensor({true}).clamp_min(1)), (std::vector<int64_t>{1}));
  // A floating tensor keeps its dtype whatever the bounds.
  EXPECT_EQ(tensor({1.0}, kHalf).clamp(0.5, 2).dtype(), kHalf);
  EXPECT_EQ(tensor({1.0}, kDouble).clamp(0, 2).dtype(), kDouble);
}

TEST(ElementwiseClamp, Errors) {
  EXPECT_EQ(error_of([] { tensor({1.0}).clamp(std::nullopt, std::nullopt); }),
            "torch.clamp: At least one of 'min' or 'max' must not be None");
  EXPECT_EQ(error_of([] { tensor({true}).clamp(true, true); }), "\"clamp_scalar_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).clamp(true); }), "\"clamp_min_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).clamp_min(true); }), "\"clamp_min_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).clamp_max(true); }), "\"clamp_max_scalar_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({1, 2}, kInt8).clamp(0, 1000); }),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { tensor({5}, kInt).clamp(-(int64_t{1} << 40), 3); }),
            "value cannot be converted to type int without overflow");
  // In place: a promoting bound cannot be cast back (PyTorch names self's dtype by its C++ type).
  Tensor a = tensor({1, 2});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.clamp_(0.5); }), "result type Float can't be cast to the desired output type long int");
  EXPECT_EQ(error_of([] { tensor({1}, kUInt8).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type unsigned char");
  EXPECT_EQ(error_of([] { tensor({1}, kInt8).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type signed char");
  EXPECT_EQ(error_of([] { tensor({1}, kShort).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type short int");
  EXPECT_EQ(error_of([] { tensor({1}, kInt).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type int");
  EXPECT_EQ(error_of([] { tensor({true}).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type bool");
  EXPECT_EQ(error_of([] { tensor({true}).clamp_(1); }),
            "result type Long can't be cast to the desired output type bool");
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a._version(), v);
}

TEST(ElementwiseClamp, InPlace) {
  Tensor a = tensor({-3.0, 0.5, 2.0});
  const uint32_t v = a._version();
  a.clamp_(-1, 1);
  EXPECT_EQ(floats(a), (std::vector<float>{-1.0f, 0.5f, 1.0f}));
  EXPECT_EQ(a._version(), v + 1);
  a.clamp_(kNaN, 1);
  expect_same_floats(floats(a), {kNaN, kNaN, kNaN});
  EXPECT_EQ(a._version(), v + 2);
  Tensor i = tensor({-5, 5});
  i.clamp_(0, 3);
  EXPECT_EQ(longs(i), (std::vector<int64_t>{0, 3}));
}

// ---- unary ops -------------------------------------------------------------------------------------

TEST(ElementwiseUnary, FloatingOpsPromoteIntegersToTheDefaultDtype) {
  EXPECT_EQ(tensor({0, 1, 2}).exp().dtype(), kFloat);
  expect_near_floats(floats(tensor({0, 1, 2}).exp()), {1.0, 2.718281828459045, 7.38905609893065});
  expect_near_floats(floats(tensor({1, 2}).log()), {0.0, 0.6931471805599453});
  expect_near_floats(floats(tensor({4, 2}).sqrt()), {2.0, 1.4142135623730951});
  expect_near_floats(floats(tensor({4, 0}).rsqrt()), {0.5, INFINITY});
  expect_near_floats(floats(tensor({0, 1}).sin()), {0.0, 0.8414709848078965});
  expect_near_floats(floats(tensor({0, 1}).cos()), {1.0, 0.5403023058681398});
  expect_near_floats(floats(tensor({true, false}).sigmoid()), {0.7310585786300049, 0.5});
  expect_near_floats(floats(tensor({0.5, -20.0}).tanh()), {0.46211715726000974, -1.0});
  expect_near_floats(floats(tensor({-1.0, 0.0}).log()), {NAN, -INFINITY});
  expect_near_floats(floats(tensor({-1.0}).sqrt()), {NAN});
  for (ScalarType t : {kUInt8, kInt8, kInt16, kInt32, kInt64, kBool}) {
    Tensor x = ones({2}, TensorOptions(t));
    EXPECT_EQ(x.exp().dtype(), kFloat) << t;
    EXPECT_EQ(x.sigmoid().dtype(), kFloat) << t;
    EXPECT_EQ(x.rsqrt().dtype(), kFloat) << t;
  }
  EXPECT_EQ(tensor({1.0}, kHalf).exp().dtype(), kHalf);
  EXPECT_EQ(tensor({1.0}, kDouble).sin().dtype(), kDouble);
  EXPECT_NEAR(tensor({1.0}, kDouble).exp().item<double>(), 2.718281828459045, 1e-15);
  EXPECT_EQ(ctorch::exp(tensor({0})).item<float>(), 1.0f);
}

TEST(ElementwiseUnary, InPlaceFloatingOpsRejectIntegers) {
  Tensor a = tensor({1, 2});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.exp_(); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.sqrt_(); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.sigmoid_(); }), kCastLong);
  EXPECT_EQ(error_of([] { tensor({true}).exp_(); }), "result type Float can't be cast to the desired output type Bool");
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a._version(), v);
  Tensor f = tensor({0.0, 1.0});
  f.exp_();
  expect_near_floats(floats(f), {1.0, 2.718281828459045});
  EXPECT_EQ(f._version(), 1u);
}

TEST(ElementwiseUnary, RoundingOps) {
  expect_same_floats(floats(tensor({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, 1e20}).round()),
                     {-2.0f, -2.0f, -0.0f, 0.0f, 2.0f, 2.0f, 0.0f, 1e20f});
  expect_same_floats(floats(tensor({-1.5, 1.5, -0.0}).floor()), {-2.0f, 1.0f, -0.0f});
  expect_same_floats(floats(tensor({-1.5, 1.5, -0.5}).ceil()), {-1.0f, 2.0f, -0.0f});
  // Integers are returned unchanged, in their own dtype.
  EXPECT_EQ(longs(tensor({3, -4}).round()), (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(tensor({3}, kInt8).floor().dtype(), kInt8);
  EXPECT_EQ(values<int8_t>(tensor({3, -4}, kInt8).ceil()), (std::vector<int8_t>{3, -4}));
  // Half to even in float16 too.
  EXPECT_EQ(floats(tensor({0.5, 1.5, 2.5}, kHalf).round()), (std::vector<float>{0, 2, 2}));
  EXPECT_EQ(error_of([] { tensor({true}).floor(); }), "\"floor_vml_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).ceil(); }), "\"ceil_vml_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).round(); }), "\"round_vml_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).round_(); }), "\"round_vml_cpu\" not implemented for 'Bool'");
  Tensor r = tensor({2.5, 3.5});
  r.round_();
  EXPECT_EQ(floats(r), (std::vector<float>{2, 4}));
}

TEST(ElementwiseUnary, SignAbsNegRelu) {
  expect_same_floats(floats(tensor({-2.0, -0.0, 0.0, 3.0, kNaN}).sign()), {-1.0f, 0.0f, 0.0f, 1.0f, 0.0f});
  EXPECT_EQ(longs(tensor({-2, 0, 3}).sign()), (std::vector<int64_t>{-1, 0, 1}));
  EXPECT_EQ(bools(tensor({true, false}).sign()), (std::vector<uint8_t>{1, 0}));
  expect_same_floats(floats(tensor({-2.0, -0.0, kNaN}).abs()), {2.0f, 0.0f, kNaN});
  EXPECT_EQ(values<int8_t>(tensor({-2, 3}, kInt8).abs()), (std::vector<int8_t>{2, 3}));
  EXPECT_EQ(values<int8_t>(tensor({-128}, kInt8).abs()), (std::vector<int8_t>{-128}));
  EXPECT_EQ(error_of([] { tensor({true}).abs(); }), "\"abs_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(longs(-tensor({1, -2})), (std::vector<int64_t>{-1, 2}));
  EXPECT_EQ(longs(ctorch::neg(tensor({3}))), (std::vector<int64_t>{-3}));
  const std::string neg_bool = "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                               "invert a mask, use the `~` or `logical_not()` operator instead.";
  EXPECT_EQ(error_of([] { -tensor({true}); }), neg_bool);
  Tensor b = tensor({true});
  EXPECT_EQ(error_of([&] { b.neg_(); }), neg_bool);
  // relu is clamp_min(0): NaN and -0.0 pass through; integers stay integers.
  expect_same_floats(floats(tensor({-1.0, -0.0, 0.5, kNaN}).relu()), {0.0f, -0.0f, 0.5f, kNaN});
  EXPECT_EQ(longs(tensor({-1, 2}).relu()), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(tensor({-1, 2}, kInt16).relu().dtype(), kShort);
  EXPECT_EQ(error_of([] { tensor({true}).relu(); }), "Boolean inputs not supported for relu");
  Tensor r = tensor({-1.0, 2.0});
  r.relu_();
  EXPECT_EQ(floats(r), (std::vector<float>{0, 2}));
  Tensor n = tensor({-1.0, 2.0});
  n.abs_();
  n.neg_();
  EXPECT_EQ(floats(n), (std::vector<float>{-1, -2}));
  n.sign_();
  EXPECT_EQ(floats(n), (std::vector<float>{-1, -1}));
}

// ---- in-place forms ------------------------------------------------------------------------------

TEST(ElementwiseInPlace, ResultMustBeCastableToSelf) {
  Tensor a = tensor({1, 2, 3});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.add_(tensor({1.5, 1.5, 1.5})); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.add_(0.5); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.mul_(0.5); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.div_(2); }), kCastLong);
  EXPECT_EQ(error_of([&] { a /= tensor({2, 2, 2}); }), kCastLong);
  EXPECT_EQ(error_of([] { tensor({true}).add_(1); }), "result type Long can't be cast to the desired output type Bool");
  EXPECT_EQ(error_of([] { tensor({1.0}, kHalf).add_(tensor({1.0}).to(kInt)).item(); }), "no error");
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(a._version(), v);
  // Castable promotions compute in the wider type and convert back.
  Tensor f = tensor({1.0, 2.0});
  f.add_(tensor({0.25, 0.5}, kDouble));
  EXPECT_EQ(f.dtype(), kFloat);
  EXPECT_EQ(floats(f), (std::vector<float>{1.25f, 2.5f}));
  EXPECT_EQ(f._version(), 1u);
  Tensor i = tensor({1, 2}, kInt);
  i.add_(tensor({INT64_C(10000000000), 1}));
  EXPECT_EQ(values<int32_t>(i), (std::vector<int32_t>{1410065409, 3}));  // computed in int64, then wrapped
  Tensor d = tensor({7, 9});
  d.div_(2, "floor");
  EXPECT_EQ(longs(d), (std::vector<int64_t>{3, 4}));
  Tensor g = tensor({1.0, 2.0});
  g *= 3;
  g -= 1;
  g /= 2;
  g += tensor({1.0, 1.0});
  EXPECT_EQ(floats(g), (std::vector<float>{2.0f, 3.5f}));
  EXPECT_EQ(g._version(), 4u);
}

TEST(ElementwiseInPlace, OutputCannotBroadcast) {
  Tensor f = zeros({3});
  const uint32_t v = f._version();
  EXPECT_EQ(error_of([&] { f.add_(ones({2, 3})); }), "output with shape [3] doesn't match the broadcast shape [2, 3]");
  // The shape is checked before the dtype, as in TensorIterator.
  Tensor l = zeros({3}, kLong);
  EXPECT_EQ(error_of([&] { l.add_(ones({2, 3})); }), "output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_EQ(error_of([&] { l.add_(ones({4})); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
  Tensor s = zeros({});
  EXPECT_EQ(error_of([&] { s.mul_(ones({2})); }), "output with shape [] doesn't match the broadcast shape [2]");
  EXPECT_EQ(floats(f), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(f._version(), v);
  f.add_(ones({1}), 2);
  EXPECT_EQ(floats(f), (std::vector<float>{2, 2, 2}));
  f.add_(ones({}));
  EXPECT_EQ(floats(f), (std::vector<float>{3, 3, 3}));
}

TEST(ElementwiseBroadcast, IncompatibleShapesFail) {
  EXPECT_EQ(error_of([] { ones({2, 3}) + ones({2, 4}); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  EXPECT_EQ(error_of([] { tensor({1, 2, 3}) * tensor({1, 2, 3, 4}); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
  EXPECT_EQ(error_of([] { ones({2, 3}) == ones({3, 2}); }),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
  Tensor r = ones({2, 1, 3}) + ones({4, 1});
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 4, 3}));
  EXPECT_EQ(floats(r), std::vector<float>(24, 2.0f));
}

// ---- reduced precision -----------------------------------------------------------------------------

TEST(ElementwiseReducedPrecision, HalfArithmeticRoundsEachResultLikePyTorch) {
  const Tensor a = from_bits16(kHalfA, 64, kHalf);
  const Tensor b = from_bits16(kHalfB, 64, kHalf);
  EXPECT_EQ(bits16(a + b), std::vector<uint16_t>(kHalfAdd, kHalfAdd + 64));
  EXPECT_EQ(bits16(a - b), std::vector<uint16_t>(kHalfSub, kHalfSub + 64));
  EXPECT_EQ(bits16(a * b), std::vector<uint16_t>(kHalfMul, kHalfMul + 64));
  EXPECT_EQ(bits16(a / b), std::vector<uint16_t>(kHalfDiv, kHalfDiv + 64));
  // alpha * b is rounded to float16 before the addition.
  EXPECT_EQ(bits16(a.add(b, 0.3)), std::vector<uint16_t>(kHalfAddAlpha, kHalfAddAlpha + 64));
  EXPECT_EQ(bits16(a.sub(b, 2.5)), std::vector<uint16_t>(kHalfSubAlpha, kHalfSubAlpha + 64));
  // Numbers are rounded to float16 first (1.1 is 1.0996).
  EXPECT_EQ(bits16(a * 1.1 + 0.7), std::vector<uint16_t>(kHalfScalar, kHalfScalar + 64));
  EXPECT_EQ((a + b).dtype(), kHalf);
}

TEST(ElementwiseReducedPrecision, BFloat16ArithmeticRoundsEachResultLikePyTorch) {
  const Tensor a = from_bits16(kBFloat16A, 64, kBFloat16);
  const Tensor b = from_bits16(kBFloat16B, 64, kBFloat16);
  EXPECT_EQ(bits16(a + b), std::vector<uint16_t>(kBFloat16Add, kBFloat16Add + 64));
  EXPECT_EQ(bits16(a - b), std::vector<uint16_t>(kBFloat16Sub, kBFloat16Sub + 64));
  EXPECT_EQ(bits16(a * b), std::vector<uint16_t>(kBFloat16Mul, kBFloat16Mul + 64));
  EXPECT_EQ(bits16(a / b), std::vector<uint16_t>(kBFloat16Div, kBFloat16Div + 64));
  // PyTorch's vectorized bfloat16 add fuses a + alpha * b in float.
  EXPECT_EQ(bits16(a.add(b, 0.3)), std::vector<uint16_t>(kBFloat16AddAlpha, kBFloat16AddAlpha + 64));
  EXPECT_EQ(bits16(a.sub(b, 2.5)), std::vector<uint16_t>(kBFloat16SubAlpha, kBFloat16SubAlpha + 64));
  EXPECT_EQ(bits16(a * 1.1 + 0.7), std::vector<uint16_t>(kBFloat16Scalar, kBFloat16Scalar + 64));
  EXPECT_EQ(bits16(a.abs().sqrt()), std::vector<uint16_t>(kBFloat16Sqrt, kBFloat16Sqrt + 64));
  EXPECT_EQ(bits16((a / 3).floor()), std::vector<uint16_t>(kBFloat16Floor, kBFloat16Floor + 64));
  EXPECT_EQ(bits16((a / 4).round()), std::vector<uint16_t>(kBFloat16Round, kBFloat16Round + 64));
}

TEST(ElementwiseReducedPrecision, MixedWithFloatPromotes) {
  EXPECT_EQ((tensor({1.0}, kHalf) + tensor({1.0}, kBFloat16)).dtype(), kFloat);
  EXPECT_EQ((tensor({1.0}, kHalf) + tensor({1.0})).dtype(), kFloat);
  EXPECT_EQ((tensor({1.0}, kBFloat16) + tensor({1})).dtype(), kBFloat16);
  EXPECT_EQ(floats(tensor({1.0}, kHalf) / 3), (std::vector<float>{0.333251953125f}));
  EXPECT_EQ(floats(tensor({60000.0}, kHalf) * 2), (std::vector<float>{kInf}));
}

TEST(ElementwiseFloat, AlphaIsFusedLikePyTorch) {
  const Tensor a = from_bits32(kFloatA, 64);
  const Tensor b = from_bits32(kFloatB, 64);
  EXPECT_EQ(bits32(a.add(b, 0.3)), std::vector<uint32_t>(kFloatAddAlpha, kFloatAddAlpha + 64));
  EXPECT_EQ(bits32(a.sub(b, 1.7)), std::vector<uint32_t>(kFloatSubAlpha, kFloatSubAlpha + 64));
  EXPECT_EQ(bits32(a.add(0.77, 0.3)), std::vector<uint32_t>(kFloatAddScalarAlpha, kFloatAddScalarAlpha + 64));
  // The first 5 elements go through PyTorch's scalar loop; results agree there too.
  EXPECT_EQ(bits32(a.as_strided({5}, {1}).add(b.as_strided({5}, {1}), 0.3)),
            std::vector<uint32_t>(kFloatAddAlpha, kFloatAddAlpha + 5));
}

TEST(ElementwiseFloat, PowByScalarMatchesPyTorchBitForBit) {
  const Tensor base = from_bits32(kPowBase, 64);
  EXPECT_EQ(bits32(base.pow(2)), std::vector<uint32_t>(kPow2, kPow2 + 64));
  EXPECT_EQ(bits32(base.pow(3)), std::vector<uint32_t>(kPow3, kPow3 + 64));
  EXPECT_EQ(bits32(base.pow(-2)), std::vector<uint32_t>(kPowM2, kPowM2 + 64));
  EXPECT_EQ(bits32(base.pow(0.5)), std::vector<uint32_t>(kPowHalf, kPowHalf + 64));
  EXPECT_EQ(bits32(base.pow(-0.5)), std::vector<uint32_t>(kPowMHalf, kPowMHalf + 64));
  EXPECT_EQ(bits32(base.pow(-1)), std::vector<uint32_t>(kPowM1, kPowM1 + 64));
  // Other exponents: PyTorch's scalar loop uses pow in double (its vectorized loop calls Sleef's
  // powf, which may differ in the last bit; element 11 of this data does).
  EXPECT_EQ(bits32(base.as_strided({8}, {1}).pow(4)), std::vector<uint32_t>(kPow4, kPow4 + 8));
  EXPECT_EQ(bits32(base.as_strided({8}, {1}).pow(1.3)), std::vector<uint32_t>(kPow1_3First8, kPow1_3First8 + 8));
}

// ---- layouts, aliasing, edge shapes ----------------------------------------------------------------

TEST(ElementwiseLayout, NonContiguousInputs) {
  // t is the transpose of [[0, 1, 2], [3, 4, 5]]: [[0, 3], [1, 4], [2, 5]].
  Tensor t = transposed_iota(2, 3);
  ASSERT_FALSE(t.is_contiguous());
  EXPECT_EQ(floats(t + 1), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(floats(t * t), (std::vector<float>{0, 9, 1, 16, 4, 25}));
  EXPECT_EQ(floats(t + tensor({10.0, 20.0})), (std::vector<float>{10, 23, 11, 24, 12, 25}));
  EXPECT_EQ(floats(t.neg()), (std::vector<float>{-0.0f, -3, -1, -4, -2, -5}));
  EXPECT_FALSE((t + 1).is_contiguous());  // the output follows the input's layout
  // Every other element, and a broadcast (stride 0) operand.
  Tensor base = arange(10, TensorOptions(kFloat));
  Tensor even = base.as_strided({5}, {2});
  EXPECT_EQ(floats(even * 2), (std::vector<float>{0, 4, 8, 12, 16}));
  Tensor rep = base.as_strided({2, 3}, {0, 1}, 4);  // [[4, 5, 6], [4, 5, 6]]
  EXPECT_EQ(floats(rep - t.as_strided({2, 3}, {3, 1})), (std::vector<float>{4, 4, 4, 1, 1, 1}));
  // Mixed dtypes and layouts.
  Tensor ti = transposed_iota(2, 3, kLong);
  EXPECT_EQ(floats(ti * t), (std::vector<float>{0, 9, 1, 16, 4, 25}));
  EXPECT_EQ(bools(ti == t), std::vector<uint8_t>(6, 1));
  EXPECT_EQ(floats(where(ti > 2, t, t.neg())), (std::vector<float>{-0.0f, 3, -1, 4, -2, 5}));
  // In place on a non-contiguous view writes through to the base.
  Tensor owner = arange(6, TensorOptions(kFloat));
  Tensor view = owner.as_strided({3, 2}, {1, 3});
  view.mul_(tensor({1.0, 10.0}));
  EXPECT_EQ(floats(owner), (std::vector<float>{0, 1, 2, 30, 40, 50}));
  view.exp_();
  expect_near_floats(floats(owner), {1, std::exp(1.0), std::exp(2.0), std::exp(30.0), std::exp(40.0), std::exp(50.0)});
}

TEST(ElementwiseAliasing, OperandsSharingTheOutput) {
  Tensor a = tensor({1.0, 2.0, 3.0});
  a.add_(a);
  EXPECT_EQ(floats(a), (std::vector<float>{2, 4, 6}));
  a.mul_(a.detach());
  EXPECT_EQ(floats(a), (std::vector<float>{4, 16, 36}));
  Tensor same = a.as_strided({3}, {1}, 0);
  a.sub_(same);
  EXPECT_EQ(floats(a), (std::vector<float>{0, 0, 0}));
  Tensor b = tensor({1.0, 2.0});
  Tensor c = b + b;
  EXPECT_EQ(floats(c), (std::vector<float>{2, 4}));
}

TEST(ElementwiseAliasing, PartialOverlapIsRejected) {
  const std::string partial =
      "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
      "location. Please clone() the tensor before performing the operation.";
  const std::string internal =
      "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
      "Please clone() the tensor before performing the operation.";
  Tensor a = arange(5, TensorOptions(kFloat));
  Tensor head = a.as_strided({4}, {1}, 0);
  Tensor tail = a.as_strided({4}, {1}, 1);
  EXPECT_EQ(error_of([&] { tail.add_(head); }), partial);
  EXPECT_EQ(error_of([&] { tail.copy_(head); }), partial);
  Tensor m = zeros({2, 2});
  Tensor mt = m.as_strided({2, 2}, {1, 2});
  EXPECT_EQ(error_of([&] { m.add_(mt); }), partial);
  EXPECT_EQ(floats(a), (std::vector<float>{0, 1, 2, 3, 4}));
  // Writing to an expanded view.
  Tensor one = zeros({1});
  Tensor expanded = one.as_strided({3}, {0});
  EXPECT_EQ(error_of([&] { expanded.add_(1); }), internal);
  EXPECT_EQ(error_of([&] { expanded.exp_(); }), internal);
  EXPECT_EQ(error_of([&] { expanded.copy_(ones({3})); }), internal);
  EXPECT_EQ(floats(one), (std::vector<float>{0}));
  EXPECT_EQ(one._version(), 0u);
  // fill_ may write an expanded view (PyTorch allows it).
  expanded.fill_(2);
  EXPECT_EQ(floats(one), (std::vector<float>{2}));
  // Non-overlapping views of one storage are fine.
  Tensor lo = a.as_strided({2}, {1}, 0);
  Tensor hi = a.as_strided({2}, {1}, 3);
  lo.add_(hi);
  EXPECT_EQ(floats(a), (std::vector<float>{3, 5, 2, 3, 4}));
}

TEST(ElementwiseEdgeShapes, EmptyTensors) {
  Tensor e = zeros({0, 3});
  EXPECT_EQ((e + 1).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ((e + ones({3})).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ((e.to(kLong) + 1.5).dtype(), kFloat);
  EXPECT_EQ((e == 0).dtype(), kBool);
  EXPECT_EQ(e.exp().numel(), 0);
  EXPECT_EQ(where(zeros({0}, kBool), 1.0, 2.0).sizes(), IntArrayRef({0}));
  EXPECT_EQ((ones({2, 1}) * zeros({0})).sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(error_of([&] { e + ones({2}); }),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
  // In-place ops on empty tensors still count as modifications.
  const uint32_t v = e._version();
  e.add_(1);
  e.exp_();
  EXPECT_EQ(e._version(), v + 2);
  // Integer division by an empty divisor has nothing to divide.
  EXPECT_EQ(tensor({1}).div(zeros({0}, kLong), "floor").sizes(), IntArrayRef({0}));
}

TEST(ElementwiseEdgeShapes, ZeroDimTensors) {
  Tensor s = tensor(3.0);
  Tensor r = s * 2;
  EXPECT_EQ(r.dim(), 0);
  EXPECT_EQ(r.item<float>(), 6.0f);
  EXPECT_EQ((s + tensor({1.0, 2.0})).sizes(), IntArrayRef({2}));
  EXPECT_EQ((s + tensor(1)).dim(), 0);
  EXPECT_EQ((tensor(2) + tensor(3)).item<int64_t>(), 5);
  EXPECT_EQ((tensor(2, kInt8) + tensor(3, kInt16)).dtype(), kShort);
  EXPECT_EQ(tensor(-2.5).abs().item<double>(), 2.5);
  EXPECT_EQ((tensor(1) < 2).dim(), 0);
  s.add_(1);
  EXPECT_EQ(s.item<float>(), 4.0f);
  EXPECT_EQ(where(tensor(true), tensor(1), tensor(2)).dim(), 0);
}

TEST(ElementwiseParallel, LargeStridedOperandsMatchSerialResults) {
  const int saved = get_num_threads();
  set_num_threads(4);
  const int64_t rows = 509, cols = 263;  // 133867 elements, several parallel chunks
  Tensor x = transposed_iota(rows, cols);    // cols x rows, transposed layout
  Tensor y = arange(cols * rows, TensorOptions(kFloat)).as_strided({cols, rows}, {rows, 1});
  Tensor z = x * 2 + y;
  ASSERT_EQ(z.sizes(), IntArrayRef({cols, rows}));
  std::vector<float> got = floats(z);
  bool all = true;
  for (int64_t i = 0; i < cols && all; ++i) {
    for (int64_t j = 0; j < rows; ++j) {
      const float want = 2.0f * static_cast<float>(j * cols + i) + static_cast<float>(i * rows + j);
      if (got[i * rows + j] != want) {
        ADD_FAILURE() << "mismatch at " << i << ", " << j << ": " << got[i * rows + j] << " vs " << want;
        all = false;
        break;
      }
    }
  }
  // Every other element of a large buffer, converted, compared and updated in place.
  Tensor big = arange(200001, TensorOptions(kLong));
  Tensor odd = big.as_strided({100000}, {2}, 1);
  Tensor half = odd.to(kDouble) / 2;
  EXPECT_EQ(half.dtype(), kDouble);
  std::vector<double> hv = values<double>(half);
  EXPECT_EQ(hv.front(), 0.5);
  EXPECT_EQ(hv[12345], (2.0 * 12345 + 1) / 2);
  EXPECT_EQ(hv.back(), 199999.0 / 2);
  odd.mul_(-1);
  std::vector<int64_t> bv = longs(big);
  EXPECT_EQ(bv[0], 0);
  EXPECT_EQ(bv[1], -1);
  EXPECT_EQ(bv[2], 2);
  EXPECT_EQ(bv[199999], -199999);
  EXPECT_EQ(bv[200000], 200000);
  Tensor mask = big.as_strided({100000}, {2}, 0) > 100000;
  int64_t count = 0;
  for (uint8_t m : bools(mask)) count += m;
  EXPECT_EQ(count, 49999);
  // Integer division checks happen before any chunk runs.
  Tensor divisor = ones({100000}, kLong);
  divisor.as_strided({1}, {1}, 77777).fill_(0);
  EXPECT_EQ(error_of([&] { odd.remainder_(divisor); }), "ZeroDivisionError");
  EXPECT_EQ(longs(big)[1], -1);
  set_num_threads(saved);
}

TEST(ElementwiseLayout, OutputsFollowTheInputsLayoutLikeTensorIterator) {
  auto strides = [](const Tensor& t) { return t.strides().vec(); };
  Tensor t = zeros({6}).as_strided({3, 2}, {1, 3});  // a transposed 2 x 3
  EXPECT_EQ(strides(t.exp()), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(strides(t + 1), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(strides(t + t), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(strides(t == 0), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(strides(where(t > 0, t, t)), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(strides(t.clamp(0, 1)), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(strides(t.clamp(NAN, 1)), (std::vector<int64_t>{1, 3}));
  // With mixed layouts the first operand that orders two dims decides; broadcast dims never do.
  EXPECT_EQ(strides(t + zeros({3, 2})), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(strides(zeros({3, 2}) + t), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(strides(zeros({3, 1}) + t), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(strides(t + tensor(1.0)), (std::vector<int64_t>{1, 3}));
  // A dense permutation is copied; a strided (non-dense) input gets a contiguous-in-order output.
  Tensor p = zeros({24}).as_strided({4, 2, 3}, {1, 12, 4});
  EXPECT_EQ(strides(p * 2), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_EQ(strides(p + zeros({4, 1, 1})), (std::vector<int64_t>{1, 12, 4}));
  Tensor every_other = zeros({24}).as_strided({4, 3}, {6, 2});
  EXPECT_EQ(strides(every_other + 1), (std::vector<int64_t>{3, 1}));
  Tensor expanded = zeros({3}).as_strided({3, 4}, {1, 0});
  EXPECT_EQ(strides(expanded + 1), (std::vector<int64_t>{4, 1}));
  // Values are unaffected by the layout.
  Tensor v = arange(6, TensorOptions(kFloat)).as_strided({3, 2}, {1, 3});
  EXPECT_EQ(floats((v * 10).contiguous()), (std::vector<float>{0, 30, 10, 40, 20, 50}));
  EXPECT_EQ(floats(v + arange(2, TensorOptions(kFloat))), (std::vector<float>{0, 4, 1, 5, 2, 6}));
}
