#include <gtest/gtest.h>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;

TEST(Device, ParsesPyTorchGrammar) {
  EXPECT_EQ(Device("cpu").type(), DeviceType::CPU);
  EXPECT_EQ(Device("cuda:1").index(), 1);
  EXPECT_EQ(Device("cuda").index(), -1);
  EXPECT_NE(Device("cuda"), Device("cuda:0"));
  EXPECT_EQ(Device("cpu:0").str(), "cpu:0");
  EXPECT_EQ(Device("cuda:12").str(), "cuda:12");
}

TEST(Device, RejectsBadStringsWithPyTorchMessages) {
  auto msg = [](const char* s) {
    try {
      Device d(s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(msg(""), "Device string must not be empty");
  EXPECT_EQ(msg("cuda:"), "Invalid device string: 'cuda:'");
  EXPECT_EQ(msg("cuda:01"), "Invalid device string: 'cuda:01'");
  EXPECT_EQ(msg("cuda:-1"), "Invalid device string: 'cuda:-1'");
  EXPECT_EQ(msg("cuda:0 "), "Invalid device string: 'cuda:0 '");
  EXPECT_EQ(msg(":0"), "Invalid device string: ':0'");
  EXPECT_NE(msg("CUDA:0").find("Expected one of cpu, cuda"), std::string::npos);
  EXPECT_NE(msg("cuda:99999999999").find("Could not parse device index"), std::string::npos);
}

TEST(Device, AnIntegerIsACudaIndexAsTorchDeviceOfAnInt) {
  // torch.device(0) is cuda:0 (seed 000); 0 once converted to the const char* constructor.
  const Device d(0);
  EXPECT_TRUE(d.is_cuda());
  EXPECT_EQ(d.index(), 0);
  EXPECT_EQ(Device(3), Device("cuda:3"));
  EXPECT_EQ(ctorch::testing::error_of([] { Device d(-1); }), "Device index must not be negative");
  EXPECT_EQ(ctorch::testing::error_of([] { Device d(512); }), "Device index must be less than 512, but got 512");
  const char* null_text = nullptr;
  EXPECT_EQ(ctorch::testing::error_of<TypeError>([&] { Device d(null_text); }),
            "Expected a device string, but got a null pointer");
}

TEST(Device, ReprIsPythons) {
  EXPECT_EQ(Device("cuda:0").repr(), "device(type='cuda', index=0)");
  EXPECT_EQ(Device("cpu").repr(), "device(type='cpu')");
  EXPECT_EQ(Device("cuda").repr(), "device(type='cuda')");
  EXPECT_EQ(Device("cpu:0").repr(), "device(type='cpu', index=0)");
  EXPECT_EQ(Device("cuda:1").str(), "cuda:1");  // str() stays the short form
}

TEST(Version, LibraryAndHeadersAgree) {
  EXPECT_STREQ(version(), CTORCH_VERSION);
  EXPECT_EQ(std::string(CTORCH_VERSION),
            std::to_string(CTORCH_VERSION_MAJOR) + "." + std::to_string(CTORCH_VERSION_MINOR) + "." +
                std::to_string(CTORCH_VERSION_PATCH));
}

TEST(Dtype, PromotionTable) {
  EXPECT_EQ(promote_types(kUInt8, kInt8), kInt16);
  EXPECT_EQ(promote_types(kBool, kUInt8), kUInt8);
  EXPECT_EQ(promote_types(kHalf, kBFloat16), kFloat);
  EXPECT_EQ(promote_types(kInt64, kHalf), kHalf);
  EXPECT_EQ(promote_types(kInt32, kInt64), kInt64);
  EXPECT_EQ(promote_types(kFloat, kDouble), kDouble);
}

TEST(Elementwise, AddBroadcastsAndPromotes) {
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor b = tensor({10.5, 20.5, 30.5});
  Tensor c = a + b;
  EXPECT_EQ(c.dtype(), kFloat);
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{11.5, 22.5, 33.5, 14.5, 25.5, 36.5}));
  Tensor d = a + 2;
  EXPECT_EQ(d.dtype(), kLong);
  EXPECT_EQ(d.to_vector<int64_t>(), (std::vector<int64_t>{3, 4, 5, 6, 7, 8}));
  Tensor e = a + 2.5;
  EXPECT_EQ(e.dtype(), kFloat);
}

TEST(Elementwise, InPlaceChecksCastAndShape) {
  Tensor a = tensor({1, 2, 3});
  EXPECT_THROW(a.add_(tensor({1.5, 1.5, 1.5})), Error);
  EXPECT_EQ(a.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));
  Tensor f = zeros({3});
  EXPECT_THROW(f.add_(ones({2, 3})), Error);
  f.add_(ones({3}), 2);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{2, 2, 2}));
}
