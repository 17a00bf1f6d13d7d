// torch.backends.cuda.matmul / cudnn flags, torch.set_float32_matmul_precision and the cuFFT plan
// cache API; TF32 is emulated on emulated devices (inputs rounded as an Ampere GPU's tensor cores
// round them) and never affects the cpu, as in PyTorch.
#include <cstring>
#include <vector>

#include "ctorch/backends.h"
#include "ctorch/libtorch/context.h"
#include "ctorch/warning.h"
#include "device/device_test.h"
#include "test_util.h"

using namespace ctorch;
using ctorch::testing::DeviceTest;
using ctorch::testing::error_of;

namespace {

/// Restores every flag a test changes.
class SettingsScope {
 public:
  SettingsScope()
      : precision_(get_float32_matmul_precision()),
        fp16_(backends::cuda::matmul::allow_fp16_reduced_precision_reduction()),
        cudnn_tf32_(backends::cudnn::allow_tf32()) {}
  ~SettingsScope() {
    set_float32_matmul_precision(precision_);
    backends::cuda::matmul::set_allow_fp16_reduced_precision_reduction(fp16_);
    backends::cudnn::set_allow_tf32(cudnn_tf32_);
  }

 private:
  std::string precision_;
  bool fp16_, cudnn_tf32_;
};

/// x rounded to TF32, half away from zero (written independently of the library's rounding).
float tf32(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  const uint32_t low = u & 0x1fffu;
  u &= ~0x1fffu;
  if (low >= 0x1000u) u += 0x2000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

Tensor rounded_to_tf32(const Tensor& t) {
  Tensor c = t.cpu().contiguous().clone();
  float* p = c.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); ++i) p[i] = tf32(p[i]);
  return c;
}

class BackendSettings : public DeviceTest {};
CTORCH_INSTANTIATE_DEVICE_TESTS(BackendSettings);

}  // namespace

TEST(BackendSettingsFlags, DefaultsAreTorch113s) {
  EXPECT_EQ(get_float32_matmul_precision(), "highest");
  EXPECT_FALSE(backends::cuda::matmul::allow_tf32());
  EXPECT_TRUE(backends::cuda::matmul::allow_fp16_reduced_precision_reduction());
  EXPECT_TRUE(backends::cuda::matmul::allow_bf16_reduced_precision_reduction());
  EXPECT_TRUE(backends::cudnn::allow_tf32());
  EXPECT_TRUE(backends::cudnn::enabled());
  EXPECT_FALSE(backends::cudnn::benchmark());
  EXPECT_FALSE(backends::cudnn::deterministic());
}

TEST(BackendSettingsFlags, AllowTf32AndPrecisionAreOneSetting) {
  SettingsScope restore;
  backends::cuda::matmul::set_allow_tf32(true);
  EXPECT_EQ(get_float32_matmul_precision(), "high");
  set_float32_matmul_precision("medium");
  EXPECT_TRUE(backends::cuda::matmul::allow_tf32());
  set_float32_matmul_precision("highest");
  EXPECT_FALSE(backends::cuda::matmul::allow_tf32());
  backends::cuda::matmul::set_allow_fp16_reduced_precision_reduction(false);
  EXPECT_FALSE(backends::cuda::matmul::allow_fp16_reduced_precision_reduction());
}

TEST(BackendSettingsFlags, PrecisionSpellingsWarnAsPyTorch) {
  SettingsScope restore;
  std::vector<std::string> warnings;
  WarningHandlerGuard guard([&](const std::string& m) { warnings.push_back(m); });
  set_float32_matmul_precision("HIGH");
  EXPECT_EQ(get_float32_matmul_precision(), "high");
  set_float32_matmul_precision("fast");
  EXPECT_EQ(get_float32_matmul_precision(), "high");
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "HIGH is not one of 'highest', 'high', or 'medium'; the given input is interpreted as high");
  EXPECT_EQ(warnings[1],
            "fast is not one of 'highest', 'high', or 'medium'; the currentsetFloat32MatmulPrecision call has no effect.");
}

TEST_P(BackendSettings, Tf32RoundsFloat32MatmulInputsOnCudaOnly) {
  SettingsScope restore;
  manual_seed(0);
  Tensor a = randn({33, 47}, on_device()), b = randn({47, 29}, on_device());
  const Tensor exact = matmul(a, b).cpu();
  backends::cuda::matmul::set_allow_tf32(true);
  const Tensor with_tf32 = matmul(a, b).cpu();
  const Tensor float64 = matmul(a.cpu().to(kDouble), b.cpu().to(kDouble)).to(kFloat);
  if (is_cuda() && cuda::is_emulated()) {
    // The emulated Ampere: the product of the TF32-rounded inputs, accumulated in float.
    EXPECT_FALSE(with_tf32.equal(exact));
    EXPECT_TRUE(with_tf32.allclose(matmul(rounded_to_tf32(a), rounded_to_tf32(b)), 1e-6, 1e-6));
    // ... which is about 1e-3 relative away from the exact product, as TF32's 10-bit mantissa gives.
    EXPECT_FALSE(with_tf32.allclose(float64, 1e-5, 1e-5));
    EXPECT_TRUE(with_tf32.allclose(float64, 1e-2, 1e-2));
  } else if (!is_cuda()) {
    EXPECT_TRUE(with_tf32.equal(exact));  // TF32 is a CUDA setting: the cpu ignores it
  }
  // float64 and float16 products ignore allow_tf32.
  const Tensor ad = a.to(kDouble), bd = b.to(kDouble);
  backends::cuda::matmul::set_allow_tf32(false);
  const Tensor d_exact = matmul(ad, bd).cpu();
  backends::cuda::matmul::set_allow_tf32(true);
  EXPECT_TRUE(matmul(ad, bd).cpu().equal(d_exact));
}

TEST_P(BackendSettings, Tf32RoundingIsHalfAwayFromZero) {
  if (!is_cuda() || !cuda::is_emulated()) GTEST_SKIP() << "emulated TF32 only";
  SettingsScope restore;
  backends::cuda::matmul::set_allow_tf32(true);
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: rounds away; 1 + 2^-12 rounds down; signs mirror.
  const std::vector<float> xs = {1.0f + 0x1p-11f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f), 3.0f};
  Tensor a = tensor(xs, on_device()).reshape({4, 1});
  Tensor one = ones({1, 1}, on_device());
  const Tensor out = matmul(a, one).cpu().reshape({4});
  const float* o = out.data_ptr<float>();
  EXPECT_EQ(o[0], 1.0f + 0x1p-10f);
  EXPECT_EQ(o[1], 1.0f);
  EXPECT_EQ(o[2], -(1.0f + 0x1p-10f));
  EXPECT_EQ(o[3], 3.0f);
}

// cuDNN serves real GPUs only: never the cpu or emulated devices (nor a build without CUDA).
TEST_P(BackendSettings, CudnnIsAvailableOnlyOnRealDevices) {
  if (!is_cuda()) GTEST_SKIP() << "a cuda API";
  EXPECT_EQ(backends::cudnn::is_available(), backends::cudnn::version().has_value());
  if (cuda::is_emulated()) {
    EXPECT_FALSE(backends::cudnn::is_available());
    EXPECT_FALSE(backends::cudnn::version().has_value());
  } else if (backends::cudnn::is_available()) {
    EXPECT_GE(*backends::cudnn::version(), 90000);  // libcudnn.so.9
  }
}

TEST_P(BackendSettings, CufftPlanCacheChecksItsDeviceAndSize) {
  if (!is_cuda()) GTEST_SKIP() << "a cuda API";
  const int n = cuda::device_count();
  auto cache = backends::cuda::cufft_plan_cache[0];
  EXPECT_EQ(cache.size(), 0);
  EXPECT_EQ(cache.max_size(), 4096);
  cache.set_max_size(10);
  EXPECT_EQ(backends::cuda::cufft_plan_cache[0].max_size(), 10);
  EXPECT_EQ(backends::cuda::cufft_plan_cache.max_size(), 10);  // the current device's
  EXPECT_EQ(error_of([&] { cache.set_max_size(-1); }), "cuFFT plan cache size must be non-negative, but got -1");
  EXPECT_EQ(error_of([&] { cache.set_max_size(4097); }),
            "cuFFT plan cache size can not be larger than 4096, but got 4097");
  EXPECT_EQ(cache.max_size(), 10);  // a failed call changes nothing
  cache.clear();
  cache.set_max_size(4096);
  EXPECT_EQ(error_of([&] { (void)backends::cuda::cufft_plan_cache[n]; }),
            "cufft_plan_cache: expected 0 <= device index < " + std::to_string(n) + ", but got device with index " +
                std::to_string(n));
  EXPECT_EQ(backends::cuda::cufft_plan_cache["cuda:0"].size(), 0);
}

TEST(BackendSettingsFlags, LibtorchGlobalContextSpellsTheSameSettings) {
  SettingsScope restore;
  at::globalContext().setAllowTF32CuBLAS(true);
  EXPECT_TRUE(backends::cuda::matmul::allow_tf32());
  EXPECT_EQ(at::globalContext().float32MatmulPrecision(), at::Float32MatmulPrecision::HIGH);
  at::globalContext().setFloat32MatmulPrecision(at::Float32MatmulPrecision::HIGHEST);
  EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
  at::globalContext().setAllowTF32CuDNN(false);
  EXPECT_FALSE(backends::cudnn::allow_tf32());
  EXPECT_EQ(at::globalContext().hasCuDNN(), backends::cudnn::is_available());
}
