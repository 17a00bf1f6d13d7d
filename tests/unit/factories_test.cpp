// Factories (empty, zeros, ones, full, arange, linspace, eye, tensor, from_blob, *_like, new_*)
// against PyTorch 1.13: dtype inference, values bit for bit (range factories follow PyTorch's
// AVX2 cpu kernels), and every error path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;

namespace {

using ::ctorch::testing::error_of;

template <class T>
std::vector<T> raw(const Tensor& t) {
  const Tensor c = t.contiguous();
  const T* p = static_cast<const T*>(c.data_ptr());
  return std::vector<T>(p, p + c.numel());
}

template <class T, size_t N>
std::vector<T> vec(const T (&a)[N]) {
  return std::vector<T>(a, a + N);
}

struct DefaultDtypeGuard {
  ScalarType saved = get_default_dtype();
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
};

// Bit patterns from PyTorch 1.13.1 (cpu, AVX2 kernels).
const uint32_t kLinspace0_1_20[20] = {
    0x00000000, 0x3d579436, 0x3dd79436, 0x3e21af28, 0x3e579436, 0x3e86bca2, 0x3ea1af28, 0x3ebca1af, 0x3ed79436,
    0x3ef286bd, 0x3f06bca2, 0x3f1435e5, 0x3f21af28, 0x3f2f286c, 0x3f3ca1af, 0x3f4a1af2, 0x3f579436, 0x3f650d79,
    0x3f7286bd, 0x3f800000
};
const uint32_t kLinspace0_1_10[10] = {
    0x00000000, 0x3de38e39, 0x3e638e39, 0x3eaaaaab, 0x3ee38e39, 0x3f0e38e4, 0x3f2aaaab, 0x3f471c72, 0x3f638e39,
    0x3f800000
};
const uint32_t kLinspace0_1_100[100] = {
    0x00000000, 0x3c257eb5, 0x3ca57eb5, 0x3cf83e10, 0x3d257eb5, 0x3d4ede62, 0x3d783e10, 0x3d90cede, 0x3da57eb5,
    0x3dba2e8c, 0x3dcede62, 0x3de38e39, 0x3df83e10, 0x3e0676f3, 0x3e10cede, 0x3e1b26ca, 0x3e257eb5, 0x3e2fd6a0,
    0x3e3a2e8c, 0x3e448677, 0x3e4ede62, 0x3e59364e, 0x3e638e39, 0x3e6de624, 0x3e783e10, 0x3e814afe, 0x3e8676f3,
    0x3e8ba2e9, 0x3e90cedf, 0x3e95fad4, 0x3e9b26ca, 0x3ea052c0, 0x3ea57eb5, 0x3eaaaaab, 0x3eafd6a0, 0x3eb50296,
    0x3eba2e8c, 0x3ebf5a81, 0x3ec48677, 0x3ec9b26c, 0x3ecede62, 0x3ed40a58, 0x3ed9364d, 0x3ede6243, 0x3ee38e39,
    0x3ee8ba2e, 0x3eede624, 0x3ef3121a, 0x3ef83e10, 0x3efd6a06, 0x3f014afe, 0x3f03e0f8, 0x3f0676f3, 0x3f090cee,
    0x3f0ba2e9, 0x3f0e38e4, 0x3f10cede, 0x3f1364d9, 0x3f15fad4, 0x3f1890ce, 0x3f1b26c9, 0x3f1dbcc4, 0x3f2052bf,
    0x3f22e8ba, 0x3f257eb5, 0x3f2814b0, 0x3f2aaaab, 0x3f2d40a6, 0x3f2fd6a0, 0x3f326c9b, 0x3f350296, 0x3f379891,
    0x3f3a2e8c, 0x3f3cc487, 0x3f3f5a82, 0x3f41f07c, 0x3f448677, 0x3f471c72, 0x3f49b26d, 0x3f4c4868, 0x3f4ede62,
    0x3f51745d, 0x3f540a58, 0x3f56a052, 0x3f59364d, 0x3f5bcc48, 0x3f5e6243, 0x3f60f83e, 0x3f638e39, 0x3f662434,
    0x3f68ba2f, 0x3f6b502a, 0x3f6de624, 0x3f707c1f, 0x3f73121a, 0x3f75a815, 0x3f783e10, 0x3f7ad40a, 0x3f7d6a05,
    0x3f800000
};
const uint32_t kLinspace154_m207_30[30] = {
    0x3fc51eb8, 0x3fb52fab, 0x3fa5409e, 0x3f955191, 0x3f856284, 0x3f6ae6ed, 0x3f4b08d3, 0x3f2b2ab9, 0x3f0b4c9f,
    0x3ed6dd0a, 0x3e9720d6, 0x3e2ec942, 0x3d3d4368, 0xbda04f20, 0xbe4f9ff8, 0xbea78c30, 0xbee74861, 0xbf13824a,
    0xbf336065, 0xbf533e7f, 0xbf731c99, 0xbf897d5a, 0xbf996c67, 0xbfa95b74, 0xbfb94a81, 0xbfc9398e, 0xbfd9289b,
    0xbfe917a8, 0xbff906b5, 0xc0047ae1
};
const uint32_t kLinspaceM907_717_34[34] = {
    0xc1111eb8, 0xc1093efe, 0xc1015f43, 0xc0f2ff11, 0xc0e33f9c, 0xc0d38027, 0xc0c3c0b2, 0xc0b4013d, 0xc0a441c8,
    0xc0948253, 0xc084c2de, 0xc06a06d2, 0xc04a87e8, 0xc02b08fe, 0xc00b8a14, 0xbfd81654, 0xbf991880, 0xbf343558,
    0xbe58e6c0, 0x3e8f83f0, 0x3f45bda0, 0x3fa1dca4, 0x3fe0da78, 0x400fec26, 0x402f6b0e, 0x404ee9f8, 0x406e68e2,
    0x4086f3e6, 0x4096b35b, 0x40a672d0, 0x40b63245, 0x40c5f1ba, 0x40d5b12f, 0x40e570a4
};
const uint64_t kLinspaceDoubleM73_29_41[41] = {
    0xc01d333333333333, 0xc01c2e147ae147ae, 0xc01b28f5c28f5c29, 0xc01a23d70a3d70a4, 0xc0191eb851eb851e,
    0xc018199999999999, 0xc017147ae147ae14, 0xc0160f5c28f5c28f, 0xc0150a3d70a3d70a, 0xc014051eb851eb85,
    0xc013000000000000, 0xc011fae147ae147b, 0xc010f5c28f5c28f6, 0xc00fe147ae147ae2, 0xc00dd70a3d70a3d8,
    0xc00bcccccccccccd, 0xc009c28f5c28f5c2, 0xc007b851eb851eb8, 0xc005ae147ae147ae, 0xc003a3d70a3d70a3,
    0xc00199999999999a, 0xbfff1eb851eb8520, 0xbffb0a3d70a3d70b, 0xbff6f5c28f5c28f6, 0xbff2e147ae147ae2,
    0xbfed99999999999b, 0xbfe570a3d70a3d72, 0xbfda8f5c28f5c292, 0xbfc47ae147ae1480, 0x3fb851eb851eb848,
    0x3fd6666666666664, 0x3fe35c28f5c28f5b, 0x3feb851eb851eb84, 0x3ff1d70a3d70a3d6, 0x3ff5eb851eb851eb,
    0x3ffa000000000000, 0x3ffe147ae147ae14, 0x4001147ae147ae14, 0x40031eb851eb851e, 0x400528f5c28f5c29,
    0x4007333333333333
};
const uint16_t kLinspaceHalfM73_29_50[50] = {
    0xc74d, 0xc718, 0xc6e2, 0xc6ad, 0xc678, 0xc642, 0xc60d, 0xc5d8, 0xc5a2, 0xc56d, 0xc538, 0xc502, 0xc4cd,
    0xc498, 0xc462, 0xc42e, 0xc3f0, 0xc385, 0xc31b, 0xc2b0, 0xc246, 0xc1db, 0xc170, 0xc106, 0xc09b, 0xc030,
    0xbf8c, 0xbeb6, 0xbde0, 0xbd0c, 0xbc36, 0xbac4, 0xb920, 0xb6e8, 0xb320, 0xa400, 0x3230, 0x3668, 0x38e0,
    0x3a8c, 0x3c1b, 0x3cf0, 0x3dc5, 0x3e9a, 0x3f70, 0x4022, 0x408d, 0x40f8, 0x4162, 0x41cd
};
const uint16_t kLinspaceBF16_016_9344_70[70] = {
    0x3e24, 0x3fc2, 0x4037, 0x4087, 0x40b2, 0x40dd, 0x4105, 0x411a, 0x4130, 0x4146, 0x415b, 0x4171, 0x4183,
    0x418e, 0x4198, 0x41a3, 0x41ae, 0x41b9, 0x41c4, 0x41ce, 0x41d9, 0x41e4, 0x41ef, 0x41fa, 0x4202, 0x4208,
    0x420d, 0x4212, 0x4218, 0x421e, 0x4222, 0x4228, 0x422e, 0x4233, 0x4239, 0x423e, 0x4244, 0x4249, 0x424e,
    0x4254, 0x4259, 0x425f, 0x4264, 0x426a, 0x426f, 0x4274, 0x427a, 0x427f, 0x4282, 0x4285, 0x4287, 0x428a,
    0x428d, 0x4290, 0x4292, 0x4295, 0x4298, 0x429a, 0x429d, 0x42a0, 0x42a2, 0x42a5, 0x42a8, 0x42aa, 0x42ae,
    0x42b0, 0x42b3, 0x42b6, 0x42b8, 0x42bb
};
const int64_t kLinspaceLong0_1000_123[123] = {0, 8, 16, 24, 32, 40, 48, 56, 65, 73, 81, 89, 98, 106, 114, 122, 131, 139, 147, 155, 163, 171, 179, 187, 196, 204, 212, 220, 229, 237, 245, 253, 262, 270, 278, 286, 295, 303, 311, 319, 327, 335, 343, 351, 360, 368, 376, 384, 393, 401, 409, 417, 426, 434, 442, 450, 459, 467, 475, 483, 491, 499, 507, 515, 524, 532, 540, 548, 557, 565, 573, 581, 590, 598, 606, 614, 622, 630, 638, 646, 655, 663, 671, 679, 688, 696, 704, 712, 721, 729, 737, 745, 754, 762, 770, 778, 786, 794, 802, 810, 819, 827, 835, 843, 852, 860, 868, 876, 885, 893, 901, 909, 918, 926, 934, 942, 950, 958, 966, 974, 983, 991, 1000};
const int8_t kLinspaceInt8M100_100_77[77] = {-100, -97, -94, -92, -89, -86, -84, -81, -78, -76, -73, -71, -68, -65, -63, -60, -57, -55, -52, -50, -47, -44, -42, -39, -36, -34, -31, -28, -26, -23, -21, -18, -15, -12, -9, -7, -4, -1, 0, 3, 6, 8, 11, 13, 16, 19, 21, 24, 27, 29, 32, 35, 37, 40, 42, 45, 48, 50, 53, 56, 58, 61, 63, 66, 68, 71, 73, 76, 78, 81, 84, 86, 89, 92, 94, 97, 100};
const uint32_t kArange0_1_01[10] = {
    0x00000000, 0x3dcccccd, 0x3e4ccccd, 0x3e99999a, 0x3ecccccd, 0x3f000000, 0x3f19999a, 0x3f333333, 0x3f4ccccd,
    0x3f666666
};
const uint32_t kArange0_3_01[30] = {
    0x00000000, 0x3dcccccd, 0x3e4ccccd, 0x3e99999a, 0x3ecccccd, 0x3f000000, 0x3f19999a, 0x3f333333, 0x3f4ccccd,
    0x3f666667, 0x3f800000, 0x3f8ccccd, 0x3f99999a, 0x3fa66666, 0x3fb33333, 0x3fc00000, 0x3fcccccd, 0x3fd9999a,
    0x3fe66666, 0x3ff33333, 0x40000000, 0x40066666, 0x400ccccd, 0x40133333, 0x4019999a, 0x40200000, 0x40266666,
    0x402ccccd, 0x40333333, 0x4039999a
};
const uint64_t kArangeDoubleM9034[22] = {
    0xc022116872b020c5, 0xc0206c083126e979, 0xc01d8d4fdf3b645b, 0xc01a428f5c28f5c4, 0xc016f7ced916872c,
    0xc013ad0e56041894, 0xc010624dd2f1a9fd, 0xc00a2f1a9fbe76cb, 0xc00399999999999c, 0xbffa083126e978da,
    0xbfe9ba5e353f7cf8, 0x3f9374bc6a7ef880, 0x3feaf1a9fbe76c80, 0x3ffaa3d70a3d709e, 0x4003e76c8b43957e,
    0x400a7ced916872ad, 0x401089374bc6a7ee, 0x4013d3f7ced91686, 0x40171eb851eb851d, 0x401a6978d4fdf3b4,
    0x401db4395810624c, 0x40207f7ced916872
};
const uint64_t kArangeDoubleM8603[43] = {
    0xc02134bc6a7ef9db, 0xc0210189374bc6a8, 0xc020ce5604189375, 0xc0209b22d0e56041, 0xc02067ef9db22d0e,
    0xc02034bc6a7ef9db, 0xc0200189374bc6a8, 0xc01f9cac083126e9, 0xc01f3645a1cac083, 0xc01ecfdf3b645a1d,
    0xc01e6978d4fdf3b6, 0xc01e03126e978d50, 0xc01d9cac083126e9, 0xc01d3645a1cac083, 0xc01ccfdf3b645a1c,
    0xc01c6978d4fdf3b6, 0xc01c03126e978d50, 0xc01b9cac083126ea, 0xc01b3645a1cac083, 0xc01acfdf3b645a1d,
    0xc01a6978d4fdf3b6, 0xc01a03126e978d50, 0xc0199cac083126e9, 0xc0193645a1cac083, 0xc018cfdf3b645a1c,
    0xc0186978d4fdf3b6, 0xc01803126e978d4f, 0xc0179cac083126e9, 0xc0173645a1cac083, 0xc016cfdf3b645a1d,
    0xc0166978d4fdf3b6, 0xc01603126e978d50, 0xc0159cac083126e9, 0xc0153645a1cac083, 0xc014cfdf3b645a1c,
    0xc0146978d4fdf3b6, 0xc01403126e978d4f, 0xc0139cac083126e9, 0xc0133645a1cac082, 0xc012cfdf3b645a1c,
    0xc0126978d4fdf3b6, 0xc01203126e978d4f, 0xc0119cac083126e9
};
const uint16_t kArangeHalf0_1_01[10] = {
    0x0000, 0x2e66, 0x3266, 0x34cd, 0x3666, 0x3800, 0x38cd, 0x399a, 0x3a66, 0x3b33
};
const uint16_t kArangeHalfM20_20_037[109] = {
    0xcd00, 0xcce8, 0xccd1, 0xccb9, 0xcca1, 0xcc8a, 0xcc72, 0xcc5a, 0xcc43, 0xcc2b, 0xcc13, 0xcbf7, 0xcbc8,
    0xcb98, 0xcb69, 0xcb3a, 0xcb0a, 0xcadb, 0xcaab, 0xca7c, 0xca4d, 0xca1d, 0xc9ee, 0xc9be, 0xc98f, 0xc960,
    0xc930, 0xc901, 0xc8d2, 0xc8a2, 0xc873, 0xc844, 0xc814, 0xc7c9, 0xc76b, 0xc70c, 0xc6ad, 0xc64e, 0xc5f0,
    0xc591, 0xc532, 0xc4d4, 0xc475, 0xc416, 0xc36f, 0xc2b1, 0xc1f4, 0xc136, 0xc07b, 0xbf7b, 0xbe00, 0xbc85,
    0xba15, 0xb63e, 0xa52e, 0x3599, 0x39c2, 0x3c5c, 0x3dd7, 0x3f52, 0x4066, 0x4124, 0x41e1, 0x429f, 0x435c,
    0x440d, 0x446b, 0x44ca, 0x4529, 0x4588, 0x45e6, 0x4645, 0x46a4, 0x4702, 0x4761, 0x47c0, 0x480f, 0x483f,
    0x486e, 0x489d, 0x48cd, 0x48fc, 0x492c, 0x495b, 0x498a, 0x49ba, 0x49e9, 0x4a19, 0x4a48, 0x4a77, 0x4aa7,
    0x4ad6, 0x4b05, 0x4b35, 0x4b64, 0x4b93, 0x4bc3, 0x4bf2, 0x4c11, 0x4c28, 0x4c40, 0x4c58, 0x4c6f, 0x4c87,
    0x4c9f, 0x4cb6, 0x4cce, 0x4ce6, 0x4cfd
};

}  // namespace

// ---- empty / zeros / ones / full ---------------------------------------------------------------------

TEST(Factories, BasicFactoriesUseTheDefaultDtype) {
  EXPECT_EQ(empty({2, 3}).dtype(), kFloat);
  EXPECT_EQ(empty({2, 3}).sizes(), IntArrayRef({2, 3}));
  EXPECT_TRUE(empty({2, 3}).is_contiguous());
  EXPECT_EQ(zeros({2}).dtype(), kFloat);
  EXPECT_EQ(ones({2}).dtype(), kFloat);
  EXPECT_EQ(ones({2}).to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(zeros({2, 2}).to_vector<float>(), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(ones({2}, kLong).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(ones({2}, kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1}));
  EXPECT_EQ(zeros({}).dim(), 0);
  EXPECT_EQ(zeros({}).numel(), 1);
  EXPECT_EQ(zeros({0, 4}).numel(), 0);
  EXPECT_EQ(empty(3).sizes(), IntArrayRef({3}));
  DefaultDtypeGuard guard;
  set_default_dtype(kDouble);
  EXPECT_EQ(ones({1}).dtype(), kDouble);
  EXPECT_EQ(zeros({1}).dtype(), kDouble);
  EXPECT_EQ(empty({1}).dtype(), kDouble);
}

TEST(Factories, FullInfersTheDtypeFromTheValue) {
  Tensor i = full({2}, 1);
  EXPECT_EQ(i.dtype(), kLong);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_EQ(full({2}, 1.5).dtype(), kFloat);
  EXPECT_EQ(full({2}, 1.5).to_vector<float>(), (std::vector<float>{1.5f, 1.5f}));
  EXPECT_EQ(full({2}, 1.5, kInt).to_vector<int32_t>(), (std::vector<int32_t>{1, 1}));  // truncates
  EXPECT_EQ(full({2}, -1, kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{255, 255}));
  EXPECT_EQ(full({}, 7).item<int64_t>(), 7);
  EXPECT_EQ(full({2}, 2, kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1}));
  DefaultDtypeGuard guard;
  set_default_dtype(kDouble);
  EXPECT_EQ(full({2}, 1.5).dtype(), kDouble);
  EXPECT_EQ(full({2}, 1).dtype(), kLong);
}

TEST(Factories, FullRejectsValuesThatDoNotFit) {
  EXPECT_EQ(error_of([] { full({2}, 1000, kInt8); }), "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { full({2}, -256, kUInt8); }), "value cannot be converted to type uint8_t without overflow");
  EXPECT_EQ(error_of([] { full({2}, -1.5, kUInt8); }), "value cannot be converted to type uint8_t without overflow");
  EXPECT_EQ(error_of([] { full({2}, 3e9, kInt); }), "value cannot be converted to type int without overflow");
  EXPECT_EQ(error_of([] { full({2}, 1e19, kLong); }), "value cannot be converted to type int64_t without overflow");
  EXPECT_EQ(error_of([] { full({2}, NAN, kLong); }), "value cannot be converted to type int64_t without overflow");
  EXPECT_EQ(error_of([] { full({2}, 65519, kHalf); }), "value cannot be converted to type at::Half without overflow");
  EXPECT_EQ(error_of([] { full({2}, 1e39, kBFloat16); }),
            "value cannot be converted to type at::BFloat16 without overflow");
  EXPECT_EQ(error_of([] { full({2}, 1e300, kFloat); }), "value cannot be converted to type float without overflow");
  EXPECT_EQ(error_of([] { full({2}, 40000, kShort); }), "value cannot be converted to type int16_t without overflow");
  // Infinity and NaN are fine for floating dtypes; -255 wraps for uint8.
  EXPECT_TRUE(std::isinf(full({1}, INFINITY, kHalf).item<float>()));
  EXPECT_TRUE(std::isnan(full({1}, NAN, kFloat).item<float>()));
  EXPECT_EQ(full({1}, -255, kUInt8).item<int64_t>(), 1);
}

TEST(Factories, NegativeSizes) {
  EXPECT_EQ(error_of([] { empty({-1}); }), "Trying to create tensor with negative dimension -1: [-1]");
  EXPECT_EQ(error_of([] { empty({2, -3}); }), "Trying to create tensor with negative dimension -3: [2, -3]");
  EXPECT_EQ(error_of([] { zeros({-1}); }), "Trying to create tensor with negative dimension -1: [-1]");
  EXPECT_EQ(error_of([] { ones({-2, 2}); }), "Trying to create tensor with negative dimension -2: [-2, 2]");
  EXPECT_EQ(error_of([] { full({-1}, 2); }), "Trying to create tensor with negative dimension -1: [-1]");
}

TEST(Factories, RequiresGrad) {
  Tensor t = zeros({2}, TensorOptions().requires_grad(true));
  EXPECT_TRUE(t.requires_grad());
  EXPECT_TRUE(ones({1}, requires_grad()).requires_grad());
  EXPECT_FALSE(zeros({1}).requires_grad());
  const std::string msg = "Only Tensors of floating point and complex dtype can require gradients";
  EXPECT_EQ(error_of([] { zeros({2}, TensorOptions(kLong).requires_grad(true)); }), msg);
  EXPECT_EQ(error_of([] { full({2}, 1, TensorOptions().requires_grad(true)); }), msg);
  EXPECT_EQ(error_of([] { tensor({1, 2}, TensorOptions().requires_grad(true)); }), msg);
  EXPECT_EQ(error_of([] { arange(3, TensorOptions().requires_grad(true)); }), msg);
  EXPECT_TRUE(arange(3.0, TensorOptions().requires_grad(true)).requires_grad());
}

TEST(Factories, NewTensorsStartAtVersionZero) {
  EXPECT_EQ(zeros({3})._version(), 0u);
  EXPECT_EQ(ones({3})._version(), 0u);
  EXPECT_EQ(full({2}, 3)._version(), 0u);
  EXPECT_EQ(arange(3)._version(), 0u);
  EXPECT_EQ(linspace(0, 1, 5)._version(), 0u);
  EXPECT_EQ(eye(3)._version(), 0u);
  EXPECT_EQ(tensor({1, 2})._version(), 0u);
  EXPECT_EQ(zeros_like(ones({2}))._version(), 0u);
  EXPECT_EQ(ones({2}).new_zeros({3})._version(), 0u);
  EXPECT_EQ((ones({2}) + 1)._version(), 0u);
  EXPECT_EQ(ones({2}).clamp(0, 1)._version(), 0u);
  EXPECT_EQ(ones({2}).clamp(NAN, 1)._version(), 0u);
}

// ---- *_like and new_* --------------------------------------------------------------------------------

TEST(Factories, LikeFactoriesKeepDtypeAndShape) {
  Tensor src = arange(6, TensorOptions(kInt)).as_strided({3, 2}, {1, 3});
  Tensor e = empty_like(src);
  EXPECT_EQ(e.dtype(), kInt);
  EXPECT_EQ(e.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(zeros_like(src).to_vector<int32_t>(), std::vector<int32_t>(6, 0));
  EXPECT_EQ(ones_like(src).to_vector<int32_t>(), std::vector<int32_t>(6, 1));
  Tensor f = full_like(src, 7);
  EXPECT_EQ(f.dtype(), kInt);
  EXPECT_EQ(f.to_vector<int32_t>(), std::vector<int32_t>(6, 7));
  EXPECT_EQ(full_like(src, 2.5).dtype(), kInt);  // the tensor's dtype wins over the value's
  EXPECT_EQ(full_like(src, 2.5).to_vector<int32_t>(), std::vector<int32_t>(6, 2));
  EXPECT_EQ(zeros_like(src, kDouble).dtype(), kDouble);
  EXPECT_EQ(ones_like(src, TensorOptions(kBool)).to_vector<uint8_t>(), std::vector<uint8_t>(6, 1));
  EXPECT_EQ(empty_like(src).device(), src.device());
  EXPECT_EQ(error_of([&] { full_like(src, 1e10); }), "value cannot be converted to type int without overflow");
}

TEST(Factories, NewFactoriesKeepDtypeAndDevice) {
  Tensor src = tensor({1, 2}, kShort);
  EXPECT_EQ(src.new_empty({3}).dtype(), kShort);
  EXPECT_EQ(src.new_zeros({2, 2}).to_vector<int16_t>(), std::vector<int16_t>(4, 0));
  EXPECT_EQ(src.new_ones({2}).to_vector<int16_t>(), std::vector<int16_t>(2, 1));
  EXPECT_EQ(src.new_ones({2}).dtype(), kShort);
  EXPECT_EQ(src.new_full({2}, 3).to_vector<int16_t>(), std::vector<int16_t>(2, 3));
  EXPECT_EQ(src.new_full({2}, 3.5).dtype(), kShort);
  EXPECT_EQ(src.new_zeros({2}, kFloat).dtype(), kFloat);
  EXPECT_EQ(src.new_ones({1}).device(), src.device());
  Tensor data = tensor({1.5, 2.5});
  Tensor n = src.new_tensor(data);
  EXPECT_EQ(n.dtype(), kShort);
  EXPECT_EQ(n.to_vector<int16_t>(), (std::vector<int16_t>{1, 2}));
  Tensor same = data.new_tensor(data);
  EXPECT_FALSE(same.is_same(data));
  EXPECT_NE(same.data_ptr(), data.data_ptr());
  EXPECT_FALSE(data.requires_grad_(true).new_tensor(data).requires_grad());
}

// ---- arange ---------------------------------------------------------------------------------------------

TEST(Arange, DtypeInference) {
  EXPECT_EQ(arange(5).dtype(), kLong);
  EXPECT_EQ(arange(5).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(5.0).dtype(), kFloat);
  EXPECT_EQ(arange(0, 5, 1.0).dtype(), kFloat);
  EXPECT_EQ(arange(0.5, 5).dtype(), kFloat);
  EXPECT_EQ(arange(true).dtype(), kLong);
  EXPECT_EQ(arange(true).to_vector<int64_t>(), (std::vector<int64_t>{0}));
  EXPECT_EQ(arange(5, kHalf).to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4}));
  DefaultDtypeGuard guard;
  set_default_dtype(kDouble);
  EXPECT_EQ(arange(0, 1, 0.5).dtype(), kDouble);
  EXPECT_EQ(arange(3).dtype(), kLong);
}

TEST(Arange, IntegerRanges) {
  EXPECT_EQ(arange(10, 0, -3).to_vector<int64_t>(), (std::vector<int64_t>{10, 7, 4, 1}));
  EXPECT_EQ(arange(-3, 3, 2).to_vector<int64_t>(), (std::vector<int64_t>{-3, -1, 1}));
  EXPECT_EQ(arange(3, 3).numel(), 0);
  // int64 computes the length from the bounds truncated to integers; other dtypes use doubles.
  EXPECT_EQ(arange(0, 2.5, 1, kLong).to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(arange(0, 2.5, 1, kInt).to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(arange(0.5, 3, 1, kLong).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2}));
  // Values are computed in int64 and wrap into narrower types.
  EXPECT_EQ(arange(0, 300, 100, kInt8).to_vector<int8_t>(), (std::vector<int8_t>{0, 100, -56}));
  EXPECT_EQ(arange(-5, 5, 3, kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{251, 254, 1, 4}));
}

TEST(Arange, FloatRangesMatchPyTorchBitForBit) {
  Tensor a = arange(0, 1, 0.1);
  EXPECT_EQ(a.numel(), 10);  // not 11: the length is ceil((end - start) / step) in double
  EXPECT_EQ(raw<uint32_t>(a), vec(kArange0_1_01));
  EXPECT_EQ(raw<uint32_t>(arange(0, 3, 0.1)), vec(kArange0_3_01));
  EXPECT_EQ(arange(1, 2.5, 0.1).numel(), 15);
  EXPECT_EQ(raw<uint64_t>(arange(-9.034, 8.6605, 0.823, kDouble)), vec(kArangeDoubleM9034));
  EXPECT_EQ(raw<uint64_t>(arange(-8.603, -4.353, 0.1, kDouble)), vec(kArangeDoubleM8603));
  EXPECT_EQ(raw<uint16_t>(arange(0, 1, 0.1, kHalf)), vec(kArangeHalf0_1_01));
  EXPECT_EQ(raw<uint16_t>(arange(-20, 20, 0.37, kHalf)), vec(kArangeHalfM20_20_037));
  EXPECT_EQ(arange(1, -1.2, -0.4).to_vector<float>(), (std::vector<float>{1.0f, 0.6f, 0.2f, -0.2f, -0.6f, -1.0f}));
}

TEST(Arange, Errors) {
  EXPECT_EQ(error_of([] { arange(0, 10, -1); }), "upper bound and larger bound inconsistent with step sign");
  EXPECT_EQ(error_of([] { arange(10, 0, 1); }), "upper bound and larger bound inconsistent with step sign");
  EXPECT_EQ(error_of([] { arange(0, 10, 0); }), "step must be nonzero");
  EXPECT_EQ(error_of([] { arange(0, 10, 0.5, kLong); }), "step must be nonzero");  // 0.5 truncates to 0
  EXPECT_EQ(error_of([] { arange(0, INFINITY); }), "unsupported range: 0 -> inf");
  EXPECT_EQ(error_of([] { arange(0, NAN); }), "unsupported range: 0 -> nan");
  EXPECT_EQ(error_of([] { arange(0, 1e30, 1e-30); }), "invalid size, possible overflow?");
  EXPECT_EQ(error_of([] { arange(0, 1e20, 1e18, kLong); }), "value cannot be converted to type int64_t without overflow");
  EXPECT_EQ(error_of([] { arange(0, 5, 1, kBool); }), "\"arange_cpu\" not implemented for 'Bool'");
}

// ---- linspace ---------------------------------------------------------------------------------------------

TEST(Linspace, Float32ValuesMatchPyTorchBitForBit) {
  Tensor t = linspace(0, 1, 20);
  EXPECT_EQ(t.dtype(), kFloat);
  EXPECT_EQ(raw<uint32_t>(t), vec(kLinspace0_1_20));
  EXPECT_EQ(raw<uint32_t>(linspace(0, 1, 10)), vec(kLinspace0_1_10));
  EXPECT_EQ(raw<uint32_t>(linspace(0, 1, 100)), vec(kLinspace0_1_100));
  EXPECT_EQ(raw<uint32_t>(linspace(1.54, -2.07, 30)), vec(kLinspace154_m207_30));
  EXPECT_EQ(raw<uint32_t>(linspace(-9.07, 7.17, 34)), vec(kLinspaceM907_717_34));
  // Both ends are exact.
  std::vector<float> v = linspace(-3, 7, 33).to_vector<float>();
  EXPECT_EQ(v.front(), -3.0f);
  EXPECT_EQ(v.back(), 7.0f);
}

TEST(Linspace, OtherDtypesMatchPyTorchBitForBit) {
  EXPECT_EQ(raw<uint64_t>(linspace(-7.3, 2.9, 41, kDouble)), vec(kLinspaceDoubleM73_29_41));
  EXPECT_EQ(raw<uint16_t>(linspace(-7.3, 2.9, 50, kHalf)), vec(kLinspaceHalfM73_29_50));
  EXPECT_EQ(raw<uint16_t>(linspace(0.16, 93.44, 70, kBFloat16)), vec(kLinspaceBF16_016_9344_70));
  EXPECT_EQ(raw<int64_t>(linspace(0, 1000, 123, kLong)), vec(kLinspaceLong0_1000_123));
  EXPECT_EQ(raw<int8_t>(linspace(-100, 100, 77, kInt8)), vec(kLinspaceInt8M100_100_77));
  EXPECT_EQ(linspace(0, 10, 5, kLong).to_vector<int64_t>(), (std::vector<int64_t>{0, 2, 5, 7, 10}));
  EXPECT_EQ(linspace(0, 10, 4, kLong).to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 6, 10}));
  EXPECT_EQ(linspace(-5, 10, 7, kInt8).to_vector<int8_t>(), (std::vector<int8_t>{-5, -2, 0, 2, 5, 7, 10}));
  // Bounds are converted to the dtype first (0.5 -> 0, 10.7 -> 10).
  EXPECT_EQ(linspace(0.5, 10.7, 4, kLong).to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 6, 10}));
  EXPECT_EQ(linspace(0, 1, 5, kHalf).to_vector<float>(), (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1}));
}

TEST(Linspace, EdgeCasesAndErrors) {
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_EQ(linspace(0, 1, 0).dtype(), kFloat);
  EXPECT_EQ(linspace(3, 1, 1).to_vector<float>(), (std::vector<float>{3}));
  EXPECT_EQ(linspace(0, 1, 1, kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{0}));
  EXPECT_EQ(linspace(5, 5, 3).to_vector<float>(), (std::vector<float>{5, 5, 5}));
  EXPECT_EQ(linspace(1, 0, 2).to_vector<float>(), (std::vector<float>{1, 0}));
  EXPECT_EQ(linspace(0, 10, 5, kLong).dtype(), kLong);
  EXPECT_EQ(error_of([] { linspace(0, 1, -1); }), "number of steps must be non-negative");
  EXPECT_EQ(error_of([] { linspace(0, 1, 5, kBool); }), "\"linspace_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { linspace(0, 1000, 5, kInt8); }), "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { linspace(1000, 1, 1, kInt8); }), "value cannot be converted to type int8_t without overflow");
  DefaultDtypeGuard guard;
  set_default_dtype(kDouble);
  EXPECT_EQ(linspace(0, 1, 3).dtype(), kDouble);
}

// ---- eye ---------------------------------------------------------------------------------------------------

TEST(Eye, Values) {
  EXPECT_EQ(eye(2, 3).to_vector<float>(), (std::vector<float>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(eye(3, 2).to_vector<float>(), (std::vector<float>{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(eye(2).sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(eye(2).dtype(), kFloat);
  EXPECT_EQ(eye(3, std::nullopt, kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(eye(2, 2, kLong).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 0, 1}));
  EXPECT_EQ(eye(0).sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(eye(2, 0).sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(error_of([] { eye(-1); }), "n must be greater or equal to 0, got -1");
  EXPECT_EQ(error_of([] { eye(2, -1); }), "m must be greater or equal to 0, got -1");
}

// ---- tensor(nested list) --------------------------------------------------------------------------------------

TEST(TensorFromData, DtypeInference) {
  EXPECT_EQ(tensor({1, 2}).dtype(), kLong);
  EXPECT_EQ(tensor({1.0, 2.0}).dtype(), kFloat);
  EXPECT_EQ(tensor({1, 2.0}).dtype(), kFloat);
  EXPECT_EQ(tensor({true, false}).dtype(), kBool);
  EXPECT_EQ(tensor({true, 1}).dtype(), kLong);
  EXPECT_EQ(tensor({true, 1.5}).dtype(), kFloat);
  EXPECT_EQ(tensor({{1, 2}, {3, 4.5}}).dtype(), kFloat);
  EXPECT_EQ(tensor(3).dtype(), kLong);
  EXPECT_EQ(tensor(3).dim(), 0);
  EXPECT_EQ(tensor(3.5).dtype(), kFloat);
  EXPECT_EQ(tensor(true).dtype(), kBool);
  EXPECT_EQ(tensor({true, 1}).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(tensor({true, 1.5}).to_vector<float>(), (std::vector<float>{1.0f, 1.5f}));
  DefaultDtypeGuard guard;
  set_default_dtype(kDouble);
  EXPECT_EQ(tensor({1.5}).dtype(), kDouble);
  EXPECT_EQ(tensor({1}).dtype(), kLong);
}

TEST(TensorFromData, ShapesAndValues) {
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  Tensor d = tensor({{{1}, {2}}, {{3}, {4}}});
  EXPECT_EQ(d.sizes(), IntArrayRef({2, 2, 1}));
  Tensor e = tensor({{}, {}});
  EXPECT_EQ(e.sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(e.dtype(), kFloat);
  // Explicit dtypes convert the values.
  EXPECT_EQ(tensor({{1.5, 2}, {3, 4}}, kInt).to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(tensor({-1}, kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{255}));
  EXPECT_EQ(tensor({2.0, 0.5, 0.0}, kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_TRUE(std::isinf(tensor({70000}, kHalf).item<float>()));
  EXPECT_TRUE(std::isinf(tensor({1e300}, kFloat).item<float>()));
  EXPECT_EQ(tensor({0.1}, kDouble).item<double>(), 0.1);
  EXPECT_EQ(tensor({0.1}).item<double>(), static_cast<double>(0.1f));
}

TEST(TensorFromData, RaggedAndMixedListsAreRejected) {
  EXPECT_EQ(error_of<ValueError>([] { tensor({{1, 2}, {3, 4, 5}}); }), "expected sequence of length 2 at dim 1 (got 3)");
  EXPECT_EQ(error_of<ValueError>([] { tensor({{1, 2}, {}}); }), "expected sequence of length 2 at dim 1 (got 0)");
  EXPECT_EQ(error_of<ValueError>([] { tensor({{1}, {2, 3}}); }), "expected sequence of length 1 at dim 1 (got 2)");
  EXPECT_EQ(error_of<ValueError>([] { tensor({{{1, 2}}, {{3}}}); }), "expected sequence of length 2 at dim 2 (got 1)");
  EXPECT_EQ(error_of<TypeError>([] { tensor({{1, 2}, 3}); }), "not a sequence");
  EXPECT_EQ(error_of<TypeError>([] { tensor({1, {2, 3}}); }), "'list' object cannot be interpreted as an integer");
  EXPECT_EQ(error_of<TypeError>([] { tensor({true, {true}}, kBool); }),
            "'list' object cannot be interpreted as an integer");
  EXPECT_EQ(error_of<TypeError>([] { tensor({1.5, {2, 3}}); }), "must be real number, not list");
  EXPECT_EQ(error_of<TypeError>([] { tensor({1, {2, 3}}, kHalf); }), "must be real number, not list");
  EXPECT_EQ(error_of([] { tensor({1000}, kInt8); }), "value cannot be converted to type int8 without overflow");
  EXPECT_EQ(error_of([] { tensor({-256}, kUInt8); }), "value cannot be converted to type uint8 without overflow");
  EXPECT_EQ(error_of([] { tensor({-1.7, 2.7}, kUInt8); }), "value cannot be converted to type uint8 without overflow");
  EXPECT_EQ(error_of([] { tensor({1e10}, kInt); }), "value cannot be converted to type int32 without overflow");
  EXPECT_EQ(error_of([] { tensor({1e10}, kShort); }), "value cannot be converted to type int16 without overflow");
}

TEST(TensorFromData, FromVectors) {
  Tensor f = tensor(std::vector<float>{1.5f, 2.5f});
  EXPECT_EQ(f.dtype(), kFloat);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1.5f, 2.5f}));
  EXPECT_EQ(tensor(std::vector<double>{1, 2}).dtype(), kDouble);
  EXPECT_EQ(tensor(std::vector<int64_t>{1, 2}).dtype(), kLong);
  EXPECT_EQ(tensor(std::vector<int32_t>{1, 2}).dtype(), kInt);
  EXPECT_EQ(tensor(std::vector<int16_t>{1, 2}).dtype(), kShort);
  EXPECT_EQ(tensor(std::vector<int8_t>{-1, 2}).to_vector<int8_t>(), (std::vector<int8_t>{-1, 2}));
  EXPECT_EQ(tensor(std::vector<uint8_t>{1, 255}).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 255}));
  Tensor b = tensor(std::vector<bool>{true, false, true});
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_EQ(b.to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(tensor(std::vector<Half>{Half(1.5f)}).dtype(), kHalf);
  EXPECT_EQ(tensor(std::vector<BFloat16>{BFloat16(1.5f)}).item<float>(), 1.5f);
  Tensor c = tensor(std::vector<float>{1.9f, -1.9f}, kLong);
  EXPECT_EQ(c.dtype(), kLong);
  EXPECT_EQ(c.to_vector<int64_t>(), (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(tensor(std::vector<float>{}).numel(), 0);
}

// ---- from_blob ----------------------------------------------------------------------------------------------

TEST(FromBlob, WrapsMemoryWithoutCopying) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = from_blob(data, {2, 3});
  EXPECT_EQ(t.data_ptr(), static_cast<void*>(data));
  EXPECT_EQ(t.dtype(), kFloat);
  EXPECT_TRUE(t.is_contiguous());
  t.add_(1);
  EXPECT_EQ(data[5], 6.0f);
  data[0] = 42;
  EXPECT_EQ(t.to_vector<float>()[0], 42.0f);
  int64_t ints[4] = {1, 2, 3, 4};
  Tensor s = from_blob(ints, {2, 2}, {1, 2}, TensorOptions(kLong));  // column-major view
  EXPECT_FALSE(s.is_contiguous());
  EXPECT_EQ(s.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 2, 4}));
  EXPECT_EQ(error_of([&] { from_blob(ints, {2, 2}, {1}); }), "from_blob: sizes and strides must have the same length");
}

TEST(FromBlob, DeleterRunsOnceWhenTheLastViewDies) {
  int calls = 0;
  void* seen = nullptr;
  auto* buffer = new float[4]{1, 2, 3, 4};
  {
    Tensor t = from_blob(buffer, {4}, TensorOptions(), [&](void* p) {
      ++calls;
      seen = p;
      delete[] static_cast<float*>(p);
    });
    Tensor view = t.as_strided({2}, {2});
    Tensor detached = t.detach();
    t = Tensor();
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(view.to_vector<float>(), (std::vector<float>{1, 3}));
    view = Tensor();
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(detached.to_vector<float>()[3], 4.0f);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, static_cast<void*>(buffer));
  // Without a deleter the memory stays the caller's.
  float local[2] = {1, 2};
  { Tensor t = from_blob(local, {2}); }
  EXPECT_EQ(local[1], 2.0f);
}

TEST(Factories, LayoutsOtherThanStridedAreNotImplemented) {
  EXPECT_EQ(TensorOptions().layout(), kStrided);
  EXPECT_EQ(layout(kSparse).layout(), kSparse);
  EXPECT_EQ(zeros({2}).layout(), kStrided);
  EXPECT_EQ(ctorch::testing::error_of<NotImplementedError>([] { zeros({2}, layout(kSparse)); }),
            "ctorch implements strided tensors only, but got layout Sparse (expected Strided)");
  EXPECT_EQ(ones({2}, TensorOptions(kStrided).dtype(kInt)).dtype(), kInt);
}

TEST(Factories, LibtorchArgumentOrders) {
  EXPECT_EQ(arange(2, 5, kInt).dtype(), kInt);
  EXPECT_EQ(arange(2, 5, kInt).to_vector<int32_t>(), (std::vector<int32_t>{2, 3, 4}));
  const int values[] = {4, 5, 6};
  EXPECT_EQ(tensor(ArrayRef<int>(values)).to_vector<int32_t>(), (std::vector<int32_t>{4, 5, 6}));
  bool called = false;
  {
    std::vector<int32_t> v = {1, 2, 3};
    Tensor t = from_blob(v.data(), {3}, [&called](void*) { called = true; }, kInt);
    EXPECT_EQ(t.to_vector<int32_t>(), v);
  }
  EXPECT_TRUE(called);
}
