// complex64 / complex128: dtype properties, promotion, factories, copies across devices and dtypes,
// views, arithmetic composed from real ops, printing, and typed errors from every other kernel.
#include <gmock/gmock.h>

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

using ::testing::HasSubstr;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

// The values of a complex tensor, read on the host.
std::vector<c128> values(const Tensor& t) {
  const Tensor h = t.to(Device(DeviceType::CPU), kComplexDouble).contiguous();
  const auto* p = static_cast<const c128*>(h.data_ptr());
  return std::vector<c128>(p, p + h.numel());
}

void expect_values(const Tensor& t, const std::vector<c128>& expected, double tol = 1e-6) {
  const std::vector<c128> got = values(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), expected[i].real(), tol) << "element " << i;
    EXPECT_NEAR(got[i].imag(), expected[i].imag(), tol) << "element " << i;
  }
}

TEST(ComplexDtype, PropertiesNamesAndPromotion) {
  EXPECT_EQ(element_size(kComplexFloat), 8);
  EXPECT_EQ(element_size(kComplexDouble), 16);
  EXPECT_TRUE(is_complex(kComplexFloat));
  EXPECT_FALSE(is_floating_point(kComplexFloat));
  EXPECT_EQ(dtype_name(kComplex64), "torch.complex64");
  EXPECT_EQ(dtype_name(kComplex128), "torch.complex128");
  EXPECT_STREQ(scalar_type_cpp_name(kComplexFloat), "ComplexFloat");
  EXPECT_EQ(promote_types(kFloat, kComplexFloat), kComplexFloat);
  EXPECT_EQ(promote_types(kDouble, kComplexFloat), kComplexDouble);
  EXPECT_EQ(promote_types(kComplexFloat, kHalf), kComplexFloat);
  EXPECT_EQ(promote_types(kInt64, kComplexFloat), kComplexFloat);
  EXPECT_EQ(promote_types(kBool, kComplexDouble), kComplexDouble);
  EXPECT_EQ(promote_types(kComplexFloat, kComplexDouble), kComplexDouble);
  EXPECT_FALSE(can_cast(kComplexFloat, kFloat));
  EXPECT_FALSE(can_cast(kComplexFloat, kInt64));
  EXPECT_TRUE(can_cast(kFloat, kComplexFloat));
  EXPECT_EQ((scalar_type_of<std::complex<float>>), kComplexFloat);
  // Tensor-level promotion: a dimensioned float tensor with a 0-dim complex one is complex.
  const Tensor f = ones({3}), z = zeros({}, TensorOptions(kComplexFloat));
  EXPECT_EQ(result_type(f, z), kComplexFloat);
  EXPECT_EQ(result_type(ones({3}, TensorOptions(kDouble)), z), kComplexDouble);
  EXPECT_EQ(result_type(z, Scalar(2.5)), kComplexFloat);
  EXPECT_EQ(result_type(ones({2}, TensorOptions(kInt64)), z), kComplexFloat);
}

class Complex : public DeviceTest {};

TEST_P(Complex, FactoriesAndTensorProperties) {
  Tensor e = empty({2, 3}, on_device(kComplexFloat));
  EXPECT_EQ(e.dtype(), kComplexFloat);
  EXPECT_EQ(e.element_size(), 8);
  EXPECT_TRUE(e.is_complex());
  EXPECT_FALSE(e.is_floating_point());
  expect_values(zeros({2}, on_device(kComplexDouble)), {0, 0});
  expect_values(ones({2}, on_device(kComplexFloat)), {1, 1});
  expect_values(full({3}, 2.5, on_device(kComplexFloat)), {2.5, 2.5, 2.5});
  const Tensor t = tensor(std::vector<c64>{{1, 2}, {3, -1}}, TensorOptions().device(device()));
  EXPECT_EQ(t.dtype(), kComplexFloat);
  EXPECT_EQ(t.device(), device());
  expect_values(t, {{1, 2}, {3, -1}});
  expect_values(tensor(std::vector<c128>{{0.5, -0.25}}, TensorOptions().device(device())), {{0.5, -0.25}});
}

TEST_P(Complex, CopiesAcrossDevicesAndDtypes) {
  const Tensor host = tensor(std::vector<c64>{{1, 2}, {3, -1}, {-5, 0.5}});
  const Tensor dev = host.to(device());
  expect_values(dev, {{1, 2}, {3, -1}, {-5, 0.5}});
  expect_values(dev.cpu(), {{1, 2}, {3, -1}, {-5, 0.5}});
  // complex64 -> complex128 on the device, and back to the host.
  const Tensor wide = dev.to(kComplexDouble);
  EXPECT_EQ(wide.dtype(), kComplexDouble);
  expect_values(wide, {{1, 2}, {3, -1}, {-5, 0.5}});
  // real -> complex: imaginary parts 0.
  const Tensor r = tensor({1.5, -2.0}, on_device(kFloat)).to(kComplexFloat);
  expect_values(r, {{1.5, 0}, {-2, 0}});
  const Tensor i = tensor({3, 4}, on_device(kInt64)).to(kComplexDouble);
  expect_values(i, {{3, 0}, {4, 0}});
  // complex -> real drops the imaginary parts with PyTorch's warning.
  std::vector<std::string> warnings;
  {
    WarningHandlerGuard guard([&](const std::string& m) { warnings.push_back(m); });
    const Tensor re = dev.to(kFloat);
    EXPECT_EQ(re.dtype(), kFloat);
    EXPECT_TRUE(re.cpu().equal(tensor({1.0f, 3.0f, -5.0f})));
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("Casting complex values to real discards the imaginary part"));
  // copy_ into a strided complex destination.
  Tensor dst = zeros({2, 3}, on_device(kComplexFloat));
  dst.select(0, 1).copy_(dev);
  expect_values(dst, {0, 0, 0, {1, 2}, {3, -1}, {-5, 0.5}});
  if (is_cuda() && cuda::device_count() > 1) {  // device to device
    const Tensor other = dev.to(Device(DeviceType::CUDA, 1));
    expect_values(other, {{1, 2}, {3, -1}, {-5, 0.5}});
  }
}

TEST_P(Complex, ViewsReshapeContiguousAndIndexing) {
  const Tensor t = tensor(std::vector<c64>{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}}).to(device()).view({2, 3});
  const Tensor tt = t.t();
  EXPECT_FALSE(tt.is_contiguous());
  const Tensor c = tt.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  expect_values(c, {{0, 1}, {6, 7}, {2, 3}, {8, 9}, {4, 5}, {10, 11}});
  expect_values(t.reshape({3, 2}).select(0, 2), {{8, 9}, {10, 11}});
  expect_values(t.select(1, 1), {{2, 3}, {8, 9}});
  expect_values(t.slice(1, 1, 3).flatten(), {{2, 3}, {4, 5}, {8, 9}, {10, 11}});
  // view_as_real / view_as_complex share storage.
  Tensor r = view_as_real(t);
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3, 2}));
  EXPECT_EQ(r.strides(), IntArrayRef({6, 2, 1}));
  EXPECT_EQ(r.dtype(), kFloat);
  r.select(-1, 1).fill_(0);
  expect_values(t.select(0, 0), {0, 2, 4});
  const Tensor back = view_as_complex(r);
  EXPECT_EQ(back.dtype(), kComplexFloat);
  EXPECT_EQ(back.data_ptr(), t.data_ptr());
  // real / imag are views.
  Tensor im = t.imag();
  im.fill_(-1);
  expect_values(t.select(0, 1), {{6, -1}, {8, -1}, {10, -1}});
  EXPECT_TRUE(t.real().cpu().equal(tensor({0.0f, 2.0f, 4.0f, 6.0f, 8.0f, 10.0f}).view({2, 3})));
  EXPECT_EQ(view_as_real(tt).strides(), IntArrayRef({2, 6, 1}));
}

TEST_P(Complex, ViewErrorsHavePyTorchsMessages) {
  const Tensor f = zeros({3, 2}, on_device(kFloat));
  EXPECT_THAT(error_of([&] { (void)view_as_real(f); }), HasSubstr("view_as_real is only supported for complex tensors"));
  EXPECT_THAT(error_of([&] { (void)view_as_complex(zeros({3}, on_device(kInt64))); }),
              HasSubstr("view_as_complex is only supported for half, float and double tensors, but got a tensor of "
                        "scalar type: Long"));
  EXPECT_THAT(error_of([&] { (void)view_as_complex(zeros({}, on_device())); }),
              HasSubstr("Input tensor must have one or more dimensions"));
  EXPECT_THAT(error_of([&] { (void)view_as_complex(zeros({2, 3}, on_device())); }),
              HasSubstr("Tensor must have a last dimension of size 2"));
  EXPECT_THAT(error_of([&] { (void)view_as_complex(zeros({2, 2}, on_device()).t()); }),
              HasSubstr("Tensor must have a last dimension with stride 1"));
  EXPECT_THAT(error_of([&] { (void)view_as_complex(zeros({3, 3}, on_device()).slice(1, 0, 2)); }),
              HasSubstr("Tensor must have a stride divisible by 2 for all but last dimension"));
  EXPECT_THAT(error_of([&] { (void)view_as_complex(zeros({5}, on_device()).slice(0, 1, 3)); }),
              HasSubstr("Tensor must have a storage_offset divisible by 2"));
  EXPECT_THAT(error_of([&] { (void)f.imag(); }), HasSubstr("imag is not implemented for tensors with non-complex dtypes."));
  EXPECT_TRUE(f.real().is_same(f));
}

TEST_P(Complex, ArithmeticComparisonAndAbs) {
  const Tensor a = tensor(std::vector<c64>{{1, 2}, {3, -1}}).to(device());
  const Tensor b = tensor(std::vector<c64>{{0.5, 1}, {-2, 4}}).to(device());
  expect_values(a + b, {{1.5, 3}, {1, 3}});
  expect_values(a - b, {{0.5, 1}, {5, -5}});
  expect_values(a * b, {c128(1, 2) * c128(0.5, 1), c128(3, -1) * c128(-2, 4)});
  expect_values(a / b, {c128(1, 2) / c128(0.5, 1), c128(3, -1) / c128(-2, 4)}, 1e-6);
  expect_values(-a, {{-1, -2}, {-3, 1}});
  expect_values(a.conj(), {{1, -2}, {3, 1}});
  expect_values(a.add(b, 2), {{2, 4}, {-1, 7}});
  // Real operands promote: tensor, scalar, and a 0-dim cpu tensor beside a device tensor.
  expect_values(a + ones({2}, on_device(kDouble)), {{2, 2}, {4, -1}});
  EXPECT_EQ((a + ones({2}, on_device(kDouble))).dtype(), kComplexDouble);
  expect_values(a * 2, {{2, 4}, {6, -2}});
  expect_values(1 - a, {{0, -2}, {-2, 1}});
  expect_values(a * full({}, 3.0), {{3, 6}, {9, -3}});
  // Broadcasting.
  expect_values(a.view({2, 1}) + b, {{1.5, 3}, {-1, 6}, {3.5, 0}, {1, 3}});
  // In place.
  Tensor c = a.clone();
  c.mul_(b);
  expect_values(c, {c128(1, 2) * c128(0.5, 1), c128(3, -1) * c128(-2, 4)});
  c.add_(1);
  Tensor f = ones({2}, on_device(kFloat));
  EXPECT_THAT(error_of([&] { f.add_(a); }), HasSubstr("result type ComplexFloat can't be cast to the desired output type Float"));
  EXPECT_TRUE(f.cpu().equal(ones({2})));  // unchanged
  // abs is real.
  const Tensor m = a.abs();
  EXPECT_EQ(m.dtype(), kFloat);
  EXPECT_TRUE(m.cpu().allclose(tensor({std::sqrt(5.0f), std::sqrt(10.0f)})));
  // ==, !=, equal, allclose.
  EXPECT_TRUE(a.eq(a.clone()).all().item<bool>());
  EXPECT_TRUE(a.ne(b).all().item<bool>());
  const Tensor a2 = tensor(std::vector<c64>{{1, 2}, {3, 0}}).to(device());
  EXPECT_TRUE(a.eq(a2).cpu().equal(tensor({true, false})));
  EXPECT_TRUE(a.equal(a.clone()));
  EXPECT_FALSE(a.equal(a2));
  EXPECT_TRUE(a.allclose(a + 1e-7));
  EXPECT_FALSE(a.allclose(a2));
}

// abs is a hypot (PyTorch's std::abs): no overflow above ~1e19 (float32) or ~1e154 (float64), no underflow
// below ~1e-19 / ~1e-154, +inf for an infinite part even beside a NaN, and the value of std::hypot.
TEST_P(Complex, AbsIsHypotWithoutOverflowOrUnderflow) {
  const float finf = std::numeric_limits<float>::infinity(), fnan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<c64> f = {{1e20f, 1e20f}, {3e38f, 3e38f}, {1e-30f, 1e-30f}, {-3, 4}, {0, 0}, {0, -2e-45f},
                              {finf, fnan},   {fnan, -finf},  {fnan, 1},        {1, 2}};
  const Tensor mf = tensor(f).to(device()).abs().cpu();
  ASSERT_EQ(mf.dtype(), kFloat);
  const auto* pf = static_cast<const float*>(mf.data_ptr());
  for (size_t i = 0; i < f.size(); ++i) {
    const float want = std::hypot(f[i].real(), f[i].imag());
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(pf[i])) << "element " << i << " got " << pf[i];
    } else {
      EXPECT_EQ(pf[i], want) << "element " << i;  // hypotf rounds once, as the float64 squares do
    }
  }
  EXPECT_TRUE(std::isfinite(pf[0]));  // the naive sqrt(re^2 + im^2) gives inf
  EXPECT_EQ(pf[1], finf);            // |z| above FLT_MAX is inf, as hypotf's
  EXPECT_GT(pf[2], 1.4e-30f);        // the naive form gives 0

  const double dinf = std::numeric_limits<double>::infinity(), dnan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<c128> d = {{1e300, 1e300}, {1e-300, -1e-300}, {-3, 4}, {0, 0}, {dinf, dnan}, {dnan, 2}, {5e-324, 0},
                               {1, 1e-20},     {1.5, -2.25}};
  const Tensor md = tensor(d).to(device()).abs().cpu();
  ASSERT_EQ(md.dtype(), kDouble);
  const auto* pd = static_cast<const double*>(md.data_ptr());
  for (size_t i = 0; i < d.size(); ++i) {
    const double want = std::hypot(d[i].real(), d[i].imag());
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(pd[i])) << "element " << i << " got " << pd[i];
    } else if (std::isinf(want)) {
      EXPECT_EQ(pd[i], want) << "element " << i;
    } else {
      EXPECT_NEAR(pd[i], want, 4e-16 * want) << "element " << i;
    }
  }
  EXPECT_TRUE(std::isfinite(pd[0]));
  EXPECT_GT(pd[1], 1.4e-300);
}

TEST_P(Complex, OtherKernelsRaiseTypedErrors) {
  const Tensor a = tensor(std::vector<c64>{{1, 2}, {3, -1}}).to(device());
  EXPECT_THAT(error_of<TypeError>([&] { (void)a.exp(); }), HasSubstr("not implemented for 'ComplexFloat'"));
  EXPECT_THAT(error_of<TypeError>([&] { (void)a.sum(); }), HasSubstr("not implemented for 'ComplexFloat'"));
  EXPECT_THAT(error_of<NotImplementedError>([&] { (void)a.lt(a); }),
              HasSubstr("\"lt\" not implemented for 'ComplexFloat'"));
  EXPECT_THAT(error_of<TypeError>([&] { (void)a.matmul(a); }), HasSubstr("ComplexFloat"));
  EXPECT_THAT(error_of<Error>([&] { (void)a.select(0, 0).item(); }), HasSubstr("not implemented for 'ComplexFloat'"));
  EXPECT_THAT(error_of<Error>([&] { (void)a.index_select(0, tensor({0L}).to(device())); }), HasSubstr("ComplexFloat"));
  EXPECT_THAT(error_of<Error>([&] { ones({2}, on_device()).requires_grad_(true).to(kComplexFloat); }),
              HasSubstr("autograd through complex tensors is not supported"));
  expect_values(a, {{1, 2}, {3, -1}});  // unchanged
}

TEST_P(Complex, PrintsAsPyTorch) {
  PrintStyleScope python(TensorPrintStyle::Python);
  const std::string suffix = is_cuda() ? ", device='" + device().str() + "')" : ")";
  auto repr = [&](const Tensor& t) { return t.to(device()).repr(); };
  EXPECT_EQ(repr(tensor(std::vector<c64>{{1, 2}, {3, -1}})), "tensor([1.+2.j, 3.-1.j]" + suffix);
  EXPECT_EQ(repr(tensor(std::vector<c64>{{1.5, -0.25}, {-3, 10}})), "tensor([ 1.5000-0.2500j, -3.0000+10.0000j]" + suffix);
  EXPECT_EQ(repr(tensor(std::vector<c128>{{1, 2}})), "tensor([1.+2.j]" + suffix.substr(0, suffix.size() - 1) +
                                                          ", dtype=torch.complex128)");
  EXPECT_EQ(repr(zeros({}, TensorOptions(kComplexFloat))), "tensor(0.+0.j" + suffix);
  EXPECT_EQ(repr(tensor(std::vector<c64>{{1, 2}, {3, 4}, {5, 6}, {7, 8}}).view({2, 2})),
            "tensor([[1.+2.j, 3.+4.j],\n        [5.+6.j, 7.+8.j]]" + suffix);
}

CTORCH_INSTANTIATE_DEVICE_TESTS(Complex);

}  // namespace
}  // namespace ctorch::testing
