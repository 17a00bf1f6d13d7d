// torch.fft on every backend: values against a naive DFT in double on the host, round trips, norm
// modes, promotion, PyTorch's errors, and the cuFFT plan cache of emulated devices.
#include <gmock/gmock.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

using ::testing::HasSubstr;
using c128 = std::complex<double>;

std::vector<c128> values(const Tensor& t) {
  const Tensor h = t.to(Device(DeviceType::CPU), kComplexDouble).contiguous();
  const auto* p = static_cast<const c128*>(h.data_ptr());
  return std::vector<c128>(p, p + h.numel());
}

std::vector<double> real_values(const Tensor& t) {
  const Tensor h = t.to(Device(DeviceType::CPU), kDouble).contiguous();
  const auto* p = static_cast<const double*>(h.data_ptr());
  return std::vector<double>(p, p + h.numel());
}

// X[k] = sum_j x[j] exp(sign 2 pi i j k / n) over the first n of x (zero-padded), in double.
std::vector<c128> dft(const std::vector<c128>& x, int64_t n, bool inverse) {
  std::vector<c128> out(static_cast<size_t>(n));
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < n; ++k) {
    c128 acc = 0;
    for (int64_t j = 0; j < n && j < static_cast<int64_t>(x.size()); ++j) {
      const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>(j * k % n) / static_cast<double>(n);
      acc += x[static_cast<size_t>(j)] * c128(std::cos(angle), std::sin(angle));
    }
    out[static_cast<size_t>(k)] = acc;
  }
  return out;
}

void expect_near(const std::vector<c128>& got, const std::vector<c128>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), want[i].real(), tol) << "element " << i;
    EXPECT_NEAR(got[i].imag(), want[i].imag(), tol) << "element " << i;
  }
}

std::vector<c128> scaled(std::vector<c128> v, double s) {
  for (c128& x : v) x *= s;
  return v;
}

class Fft : public DeviceTest {
 protected:
  // A deterministic complex signal of length n.
  std::vector<c128> signal(int64_t n, double seed = 0.3) const {
    std::vector<c128> v;
    for (int64_t i = 0; i < n; ++i) v.emplace_back(std::sin(seed * (i + 1)) + 0.1 * i, std::cos(1.7 * seed * i) - 0.2);
    return v;
  }
  Tensor to_tensor(const std::vector<c128>& v, ScalarType dtype = kComplexDouble) const {
    return tensor(v).to(device(), dtype);
  }
};

TEST_P(Fft, FftAndIfftMatchANaiveDft) {
  for (int64_t n : {1, 2, 5, 8, 12, 17}) {
    const std::vector<c128> x = signal(n);
    const Tensor t = to_tensor(x);
    const Tensor y = fft::fft(t);
    EXPECT_EQ(y.dtype(), kComplexDouble);
    EXPECT_EQ(y.device(), device());
    expect_near(values(y), dft(x, n, false), 1e-9);
    expect_near(values(fft::ifft(t)), scaled(dft(x, n, true), 1.0 / n), 1e-9);
    // complex64 within float tolerance.
    expect_near(values(fft::fft(to_tensor(x, kComplexFloat))), dft(x, n, false), 1e-4 * n);
    // Round trip.
    expect_near(values(fft::ifft(y)), x, 1e-9);
  }
}

TEST_P(Fft, NAndNormModes) {
  const std::vector<c128> x = signal(6);
  const Tensor t = to_tensor(x);
  // n pads with zeros or trims.
  expect_near(values(fft::fft(t, 9)), dft(x, 9, false), 1e-9);
  expect_near(values(fft::fft(t, 4)), dft(std::vector<c128>(x.begin(), x.begin() + 4), 4, false), 1e-9);
  expect_near(values(fft::fft(t, std::nullopt, -1, "forward")), scaled(dft(x, 6, false), 1.0 / 6), 1e-9);
  expect_near(values(fft::fft(t, std::nullopt, -1, "ortho")), scaled(dft(x, 6, false), 1.0 / std::sqrt(6.0)), 1e-9);
  expect_near(values(fft::fft(t, std::nullopt, -1, "backward")), dft(x, 6, false), 1e-9);
  expect_near(values(fft::ifft(t, std::nullopt, -1, "forward")), dft(x, 6, true), 1e-9);
  expect_near(values(fft::ifft(t, std::nullopt, -1, "ortho")), scaled(dft(x, 6, true), 1.0 / std::sqrt(6.0)), 1e-9);
  expect_near(values(fft::ifft(fft::fft(t, std::nullopt, -1, "ortho"), std::nullopt, -1, "ortho")), x, 1e-9);
}

TEST_P(Fft, BatchedAlongAnyDim) {
  // A 3 x 5 signal transformed along dim 0 and dim 1 (and through a non-contiguous view).
  std::vector<c128> x = signal(15);
  const Tensor t = to_tensor(x).view({3, 5});
  const Tensor along1 = fft::fft(t, std::nullopt, 1);
  const Tensor along0 = fft::fft(t, std::nullopt, 0);
  EXPECT_EQ(along0.sizes(), IntArrayRef({3, 5}));
  const std::vector<c128> v1 = values(along1), v0 = values(along0);
  for (int64_t r = 0; r < 3; ++r) {
    const std::vector<c128> row(x.begin() + r * 5, x.begin() + r * 5 + 5);
    expect_near(std::vector<c128>(v1.begin() + r * 5, v1.begin() + r * 5 + 5), dft(row, 5, false), 1e-9);
  }
  for (int64_t c = 0; c < 5; ++c) {
    const std::vector<c128> col{x[c], x[5 + c], x[10 + c]};
    const std::vector<c128> want = dft(col, 3, false);
    for (int64_t r = 0; r < 3; ++r) {
      EXPECT_NEAR(v0[r * 5 + c].real(), want[r].real(), 1e-9);
      EXPECT_NEAR(v0[r * 5 + c].imag(), want[r].imag(), 1e-9);
    }
  }
  expect_near(values(fft::fft(t.t(), std::nullopt, 0)), values(along1.t()), 1e-12);
}

TEST_P(Fft, RealInputsArePromoted) {
  const std::vector<double> xr{1, -2, 3.5, 0.25, 7};
  std::vector<c128> xc(xr.begin(), xr.end());
  const Tensor f = tensor(xr).to(device(), kFloat);
  EXPECT_EQ(fft::fft(f).dtype(), kComplexFloat);
  EXPECT_EQ(fft::fft(f.to(kDouble)).dtype(), kComplexDouble);
  expect_near(values(fft::fft(f)), dft(xc, 5, false), 1e-4);
  expect_near(values(fft::ifft(f.to(kDouble))), scaled(dft(xc, 5, true), 0.2), 1e-12);
  const Tensor ints = tensor({1, 2, 3, 4}).to(device());
  EXPECT_EQ(fft::fft(ints).dtype(), kComplexFloat);  // integers: the default float dtype
  expect_near(values(fft::fft(ints)), dft({1, 2, 3, 4}, 4, false), 1e-5);
  EXPECT_EQ(fft::rfft(ints).dtype(), kComplexFloat);
}

TEST_P(Fft, RfftAndIrfftOddAndEven) {
  for (int64_t n : {1, 2, 7, 8, 15, 16}) {
    std::vector<double> xr;
    for (int64_t i = 0; i < n; ++i) xr.push_back(std::sin(0.7 * i) + 0.05 * i * i);
    const std::vector<c128> xc(xr.begin(), xr.end());
    const Tensor t = tensor(xr).to(device(), kDouble);
    const Tensor y = fft::rfft(t);
    EXPECT_EQ(y.size(0), n / 2 + 1);
    std::vector<c128> full = dft(xc, n, false);
    full.resize(static_cast<size_t>(n / 2 + 1));
    expect_near(values(y), full, 1e-9);
    // irfft with n given recovers odd and even lengths.
    const std::vector<double> back = real_values(fft::irfft(y, n));
    ASSERT_EQ(back.size(), xr.size());
    for (size_t i = 0; i < xr.size(); ++i) EXPECT_NEAR(back[i], xr[i], 1e-9);
    // irfft returns a real tensor.
    EXPECT_EQ(fft::irfft(y, n).dtype(), kDouble);
  }
  // Default irfft length is 2 * (m - 1).
  const Tensor y = fft::rfft(tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}).to(device()));
  EXPECT_EQ(fft::irfft(y).size(0), 6);
  // irfft against the Hermitian DFT: x[j] = (1/n) sum_k X[k] e^{+2 pi i jk/n} over the full spectrum.
  const std::vector<c128> half{{4, 0}, {1, -2}, {0.5, 0.5}, {-1, 0}};
  const int64_t n = 6;
  std::vector<c128> herm(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) herm[k] = k < 4 ? half[k] : std::conj(half[n - k]);
  const std::vector<c128> want = scaled(dft(herm, n, true), 1.0 / n);
  const std::vector<double> got = real_values(fft::irfft(tensor(half).to(device()), n));
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(got[i], want[i].real(), 1e-9);
  // Norm modes of rfft / irfft.
  const Tensor x = tensor({1.0, -1.0, 2.0, 0.5, 3.0}).to(device(), kDouble);
  expect_near(values(fft::rfft(x, std::nullopt, -1, "forward")), scaled(values(fft::rfft(x)), 0.2), 1e-12);
  const std::vector<double> ortho = real_values(fft::irfft(fft::rfft(x, std::nullopt, -1, "ortho"), 5, -1, "ortho"));
  EXPECT_NEAR(ortho[2], 2.0, 1e-12);
  // irfft of a real input promotes it to complex.
  EXPECT_EQ(fft::irfft(tensor({1.0f, 2.0f, 3.0f}).to(device())).dtype(), kFloat);
  // The input of irfft is untouched (c2r runs on a copy).
  const Tensor spec = tensor(half).to(device());
  const Tensor before = spec.clone();
  (void)fft::irfft(spec, 6);
  EXPECT_TRUE(spec.equal(before));
}

TEST_P(Fft, MultiDimAndHelpers) {
  std::vector<double> xr;
  for (int i = 0; i < 12; ++i) xr.push_back(std::cos(0.4 * i) * (i % 3 + 1));
  const Tensor t = tensor(xr).to(device(), kDouble).view({3, 4});
  const Tensor f2 = fft::fft2(t);
  // fft2 == fft along each dim.
  expect_near(values(f2), values(fft::fft(fft::fft(t, std::nullopt, 0), std::nullopt, 1)), 1e-9);
  expect_near(values(fft::fftn(t)), values(f2), 1e-12);
  expect_near(values(fft::ifft2(f2)), std::vector<c128>(xr.begin(), xr.end()), 1e-9);
  const Tensor r2 = fft::rfft2(t);
  EXPECT_EQ(r2.sizes(), IntArrayRef({3, 3}));
  expect_near(values(r2), values(f2.slice(1, 0, 3)), 1e-9);
  const std::vector<double> back = real_values(fft::irfft2(r2, std::vector<int64_t>{3, 4}));
  for (size_t i = 0; i < xr.size(); ++i) EXPECT_NEAR(back[i], xr[i], 1e-9);
  EXPECT_EQ(fft::fftn(t, std::vector<int64_t>{5}).sizes(), IntArrayRef({3, 5}));
  // fftfreq / rfftfreq / fftshift / ifftshift as numpy.
  EXPECT_TRUE(fft::fftfreq(5).allclose(tensor({0.0f, 0.2f, 0.4f, -0.4f, -0.2f})));
  EXPECT_TRUE(fft::fftfreq(4, 0.5).allclose(tensor({0.0f, 0.5f, -1.0f, -0.5f})));
  EXPECT_TRUE(fft::rfftfreq(5).allclose(tensor({0.0f, 0.2f, 0.4f})));
  EXPECT_EQ(fft::fftfreq(4).dtype(), kFloat);
  const Tensor s = tensor({0, 1, 2, -2, -1}).to(device());
  EXPECT_TRUE(fft::fftshift(s).cpu().equal(tensor({-2, -1, 0, 1, 2})));
  EXPECT_TRUE(fft::ifftshift(fft::fftshift(s)).cpu().equal(s.cpu()));
  EXPECT_TRUE(fft::fftshift(tensor({0, 1, 2, 3}).to(device())).cpu().equal(tensor({2, 3, 0, 1})));
}

TEST_P(Fft, ErrorsHavePyTorchsMessages) {
  const Tensor c = tensor(std::vector<c128>{{1, 0}, {2, 1}}).to(device(), kComplexFloat);
  const Tensor r = ones({4}, on_device());
  EXPECT_THAT(error_of([&] { (void)fft::fft(r, std::nullopt, -1, "bogus"); }),
              HasSubstr("Invalid normalization mode: \"bogus\""));
  EXPECT_THAT(error_of([&] { (void)fft::fft(r, 0); }), HasSubstr("Invalid number of data points (0) specified"));
  EXPECT_THAT(error_of([&] { (void)fft::ifft(c, -3); }), HasSubstr("Invalid number of data points (-3) specified"));
  EXPECT_THAT(error_of([&] { (void)fft::rfft(c); }), HasSubstr("rfft expects a real input tensor, but got ComplexFloat"));
  EXPECT_THAT(error_of([&] { (void)fft::irfft(ones({1}, on_device())); }),
              HasSubstr("Invalid number of data points (0) specified"));
  EXPECT_THAT(error_of([&] { (void)fft::fft(ones({4}, on_device(kHalf))); }), HasSubstr("Unsupported dtype Half"));
  EXPECT_THAT(error_of<IndexError>([&] { (void)fft::fft(r, std::nullopt, 1); }), HasSubstr("Dimension out of range"));
  EXPECT_THAT(error_of<IndexError>([&] { (void)fft::fft(ones({}, on_device())); }),
              HasSubstr("dimension specified as -1 but tensor has no dimensions"));
  EXPECT_THAT(error_of([&] { (void)fft::fftn(ones({2, 2}, on_device()), std::nullopt, std::vector<int64_t>{0, 0}); }),
              HasSubstr("FFT dims must be unique"));
  EXPECT_THAT(error_of([&] { (void)fft::fftn(ones({2, 2}, on_device()), std::vector<int64_t>{2, 2, 2}); }),
              HasSubstr("Got shape with 3 values but input tensor only has 2 dimensions."));
  EXPECT_THAT(error_of([&] {
                (void)fft::fftn(ones({2, 2}, on_device()), std::vector<int64_t>{2}, std::vector<int64_t>{0, 1});
              }),
              HasSubstr("When given, dim and shape arguments must have the same length"));
  EXPECT_THAT(error_of([&] { (void)fft::rfftn(c); }), HasSubstr("rfftn expects a real-valued input tensor"));
  EXPECT_THAT(error_of<NotImplementedError>([&] { (void)fft::fft(ones({4}, on_device()).requires_grad_(true)); }),
              HasSubstr("autograd"));
}

class FftPlanCache : public DeviceTest {};

TEST_P(FftPlanCache, CountsDistinctTransformsEvictsAndClears) {
  auto cache = backends::cuda::cufft_plan_cache[device().index()];
  cache.clear();
  const int64_t saved = cache.max_size();
  EXPECT_EQ(cache.size(), 0);
  const Tensor a = ones({8}, on_device(kComplexFloat));
  (void)fft::fft(a);
  (void)fft::fft(a);  // same transform: same plan
  EXPECT_EQ(cache.size(), 1);
  (void)fft::ifft(a);  // the other direction
  (void)fft::fft(a, 16);  // another length
  (void)fft::fft(a.to(kComplexDouble));  // another dtype
  (void)fft::rfft(ones({8}, on_device()));  // r2c
  (void)fft::fft(ones({2, 8}, on_device(kComplexFloat)));  // another batch
  EXPECT_EQ(cache.size(), 6);
  EXPECT_EQ(backends::cuda::cufft_plan_cache[1].size(), 0);  // per device
  // Lowering max_size evicts the least recently used plans.
  cache.set_max_size(2);
  EXPECT_EQ(cache.max_size(), 2);
  EXPECT_EQ(cache.size(), 2);
  (void)fft::fft(a, 32);
  EXPECT_EQ(cache.size(), 2);
  cache.set_max_size(0);  // no caching
  (void)fft::fft(a);
  EXPECT_EQ(cache.size(), 0);
  cache.set_max_size(saved);
  (void)fft::fft(a);
  EXPECT_EQ(cache.size(), 1);
  // Results do not depend on the cache.
  const Tensor x = tensor(std::vector<c128>{{1, 2}, {3, 4}, {5, 6}}).to(device());
  const Tensor first = fft::fft(x);
  cache.clear();
  EXPECT_EQ(cache.size(), 0);
  EXPECT_TRUE(fft::fft(x).equal(first));
  // ATen's checks.
  EXPECT_THAT(error_of([&] { cache.set_max_size(-1); }), HasSubstr("cuFFT plan cache size must be non-negative"));
  EXPECT_THAT(error_of([&] { cache.set_max_size(4097); }), HasSubstr("cuFFT plan cache size can not be larger than 4096"));
  cache.clear();
}

TEST_P(FftPlanCache, ClearingWhileATransformIsQueuedIsSafe) {
  auto cache = backends::cuda::cufft_plan_cache[device().index()];
  const Tensor a = ones({1 << 12, 64}, on_device(kComplexFloat));
  const cuda::Stream side(device().index());
  side.wait_stream(cuda::current_stream());
  Tensor out;
  {
    cuda::StreamContext ctx(side);
    out = fft::fft(a);
    cache.clear();  // the queued transform keeps its plan
  }
  cuda::current_stream().wait_stream(side);
  EXPECT_NEAR(values(out.select(0, 7).slice(0, 0, 2))[0].real(), 64.0, 1e-3);
}

CTORCH_INSTANTIATE_DEVICE_TESTS(Fft);
CTORCH_INSTANTIATE_CUDA_TESTS(FftPlanCache);

}  // namespace
}  // namespace ctorch::testing
