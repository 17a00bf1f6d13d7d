// Tensor printing beyond the reference examples: print options, non-contiguous views, every dtype,
// suffix rules, type_string() and libtorch's cpp_repr() layout quirks.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {

// Restores the global print options and default dtype when a test ends.
class OptionsGuard {
 public:
  OptionsGuard() : saved_(get_printoptions()), dtype_(get_default_dtype()) {}
  ~OptionsGuard() {
    set_printoptions(saved_);
    set_default_dtype(dtype_);
  }

 private:
  PrintOptions saved_;
  ScalarType dtype_;
};

const ScalarType kAllTypes[] = {kUInt8, kInt8,     kInt16,   kInt32,        kInt64,        kFloat16,
                                kFloat32, kFloat64, kBool, kBFloat16, kComplexFloat, kComplexDouble};

}  // namespace

TEST(PrintRepr, StreamOperatorPrintsTheSelectedStyle) {
  // This test binary includes <ctorch/torch.h> (torch_compat_test), which selects libtorch's
  // format program-wide at static initialization; a program without it starts with Python's
  // (scripts/check-install.sh runs one of each).
  const TensorPrintStyle initial = get_tensor_print_style();
  EXPECT_EQ(initial, TensorPrintStyle::Libtorch);
  std::ostringstream os;
  os << tensor({1.5, 2.0});
  EXPECT_EQ(os.str(), " 1.5000\n 2.0000\n[ CPUFloatType{2} ]");
  set_tensor_print_style(TensorPrintStyle::Python);
  std::ostringstream py;
  py << tensor({1.5, 2.0});
  EXPECT_EQ(py.str(), "tensor([1.5000, 2.0000])");
  set_tensor_print_style(initial);
}

TEST(PrintRepr, TransposedView) {
  const Tensor t = arange(6.).as_strided({3, 2}, {1, 3}, 0);
  EXPECT_EQ(t.repr(),
            "tensor([[0., 3.],\n"
            "        [1., 4.],\n"
            "        [2., 5.]])");
}

TEST(PrintRepr, ViewWithStorageOffsetAndStep) {
  EXPECT_EQ(arange(10).as_strided({3}, {2}, 1).repr(), "tensor([1, 3, 5])");
}

TEST(PrintRepr, ExpandedZeroStride) {
  EXPECT_EQ(arange(3).as_strided({2, 3}, {0, 1}, 0).repr(),
            "tensor([[0, 1, 2],\n"
            "        [0, 1, 2]])");
}

TEST(PrintRepr, SummarisedTransposedView) {
  const Tensor t = arange(2000.).as_strided({1000, 2}, {1, 1000}, 0);
  EXPECT_EQ(t.repr(),
            "tensor([[0.0000e+00, 1.0000e+03],\n"
            "        [1.0000e+00, 1.0010e+03],\n"
            "        [2.0000e+00, 1.0020e+03],\n"
            "        ...,\n"
            "        [9.9700e+02, 1.9970e+03],\n"
            "        [9.9800e+02, 1.9980e+03],\n"
            "        [9.9900e+02, 1.9990e+03]])");
}

TEST(PrintRepr, FormatterSeesOnlySummarisedValues) {
  // 1e-6 sits in the hidden middle, so it does not force scientific notation.
  Tensor u = arange(1001.);
  u.as_strided({1}, {1}, 500).fill_(1e-6);
  EXPECT_EQ(u.repr(), "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])");
}

TEST(PrintRepr, FourDimBlankLines) {
  EXPECT_EQ(arange(4).as_strided({2, 1, 1, 2}, {2, 2, 2, 1}, 0).repr(),
            "tensor([[[[0, 1]]],\n"
            "\n"
            "\n"
            "        [[[2, 3]]]])");
}

TEST(PrintRepr, NegativeNanPrintsNan) {
  EXPECT_EQ(tensor({-std::numeric_limits<double>::quiet_NaN(), 1.5}).repr(), "tensor([   nan, 1.5000])");
}

TEST(PrintRepr, AllNonFiniteKeepsMinimalWidth) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(tensor({inf, -inf, std::numeric_limits<double>::quiet_NaN()}).repr(), "tensor([inf, -inf, nan])");
}

TEST(PrintRepr, IntegralFloatsWithInf) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(tensor({1.0, inf, 100.0}).repr(), "tensor([  1.,  inf, 100.])");
}

TEST(PrintRepr, HalfAndBFloat16UseTheirFloatValues) {
  EXPECT_EQ(tensor({0.1, 1e-5}, dtype(kFloat16)).repr(), "tensor([9.9976e-02, 1.0014e-05], dtype=torch.float16)");
  EXPECT_EQ(tensor({0.1, 3.0}, dtype(kBFloat16)).repr(), "tensor([0.1001, 3.0000], dtype=torch.bfloat16)");
}

TEST(PrintRepr, SmallIntegerDtypes) {
  EXPECT_EQ(tensor({-128, 0, 127}, dtype(kInt8)).repr(), "tensor([-128,    0,  127], dtype=torch.int8)");
  EXPECT_EQ(tensor({255, 0}, dtype(kUInt8)).repr(), "tensor([255,   0], dtype=torch.uint8)");
}

TEST(PrintRepr, EmptyShapes) {
  EXPECT_EQ(empty({2, 0, 3}).repr(), "tensor([], size=(2, 0, 3))");
  EXPECT_EQ(empty({0, 2}, dtype(kInt32)).repr(), "tensor([], size=(0, 2), dtype=torch.int32)");
  EXPECT_EQ(empty({0}, dtype(kFloat64)).repr(), "tensor([], dtype=torch.float64)");
}

TEST(PrintRepr, RequiresGradSuffixes) {
  EXPECT_EQ(tensor(2.0, dtype(kFloat64)).requires_grad_(true).repr(), "tensor(2., dtype=torch.float64, requires_grad=True)");
  EXPECT_EQ(empty({0}).requires_grad_(true).repr(), "tensor([], requires_grad=True)");
}

TEST(PrintRepr, SuffixWrapsAfterLongLine) {
  // 8 elements of width 7 fill the line; the dtype moves to its own line aligned under "tensor(".
  Tensor t = tensor({1.5, -2.25, 3.0, 4.5, -5.5, 6.0, 7.25, 8.5}, dtype(kFloat64));
  EXPECT_EQ(t.repr(),
            "tensor([ 1.5000, -2.2500,  3.0000,  4.5000, -5.5000,  6.0000,  7.2500,  8.5000],\n"
            "       dtype=torch.float64)");
  // Later suffixes continue on the new line while they fit.
  t.requires_grad_(true);
  EXPECT_EQ(t.repr(),
            "tensor([ 1.5000, -2.2500,  3.0000,  4.5000, -5.5000,  6.0000,  7.2500,  8.5000],\n"
            "       dtype=torch.float64, requires_grad=True)");
}

TEST(PrintRepr, DefaultDtypeFloat64) {
  OptionsGuard guard;
  set_default_dtype(kFloat64);
  EXPECT_EQ(tensor({1.5, 2.0}, dtype(kFloat64)).repr(), "tensor([1.5000, 2.0000])");
  EXPECT_EQ(tensor({1.5, 2.0}, dtype(kFloat32)).repr(), "tensor([1.5000, 2.0000], dtype=torch.float32)");
  EXPECT_EQ(empty({0}, dtype(kFloat64)).repr(), "tensor([])");
  EXPECT_EQ(empty({0}, dtype(kFloat32)).repr(), "tensor([], dtype=torch.float32)");
}

TEST(PrintRepr, EveryDtypeAndLayoutPrintsWithoutChangingTheTensor) {
  for (ScalarType t : kAllTypes) {
    const std::vector<Tensor> cases = {
        empty({0}, dtype(t)),
        empty({3, 0}, dtype(t)),
        ones({}, dtype(t)),
        ones({2, 3}, dtype(t)),
        arange(12).to(t).as_strided({3, 2}, {1, 3}, 0),
        arange(12).to(t).as_strided({2, 2}, {6, 2}, 1),
        zeros({40, 40}, dtype(t)),
        zeros({3, 4, 5, 6, 7}, dtype(t)),
    };
    for (const Tensor& x : cases) {
      const auto version = x._version();
      const std::vector<int64_t> strides(x.strides().begin(), x.strides().end());
      EXPECT_NO_THROW({
        (void)x.repr();
        (void)x.cpp_repr();
        (void)x.type_string();
      }) << dtype_name(t);
      EXPECT_EQ(x._version(), version);
      EXPECT_EQ(std::vector<int64_t>(x.strides().begin(), x.strides().end()), strides);
    }
  }
}

TEST(PrintRepr, UndefinedTensor) {
  EXPECT_EQ(Tensor().repr(), "tensor(undefined)");
  EXPECT_EQ(Tensor().cpp_repr(), "[ Tensor (undefined) ]");
}

// ---- print options (torch.set_printoptions) ----------------------------------------------------

TEST(PrintOptions, DefaultsMatchPyTorch) {
  const PrintOptions o = get_printoptions();
  EXPECT_EQ(o.precision, 4);
  EXPECT_EQ(o.threshold, 1000);
  EXPECT_EQ(o.edgeitems, 3);
  EXPECT_EQ(o.linewidth, 80);
  EXPECT_FALSE(o.sci_mode.has_value());
}

TEST(PrintOptions, Precision) {
  OptionsGuard guard;
  PrintOptions o;
  o.precision = 2;
  set_printoptions(o);
  EXPECT_EQ(tensor({1.12345}).repr(), "tensor([1.12])");
  EXPECT_EQ(tensor({1.5e10, 1.0}).repr(), "tensor([1.50e+10, 1.00e+00])");
  o.precision = 0;
  set_printoptions(o);
  EXPECT_EQ(tensor({1.5, 2.25}).repr(), "tensor([2, 2])");
}

TEST(PrintOptions, ThresholdAndEdgeitems) {
  OptionsGuard guard;
  PrintOptions o;
  o.threshold = 5;
  set_printoptions(o);
  EXPECT_EQ(arange(10).repr(), "tensor([0, 1, 2,  ..., 7, 8, 9])");
  EXPECT_EQ(arange(6).repr(), "tensor([0, 1, 2, 3, 4, 5])");  // numel > threshold but size <= 2 * edgeitems
  o.edgeitems = 1;
  set_printoptions(o);
  EXPECT_EQ(arange(12).as_strided({3, 4}, {4, 1}, 0).repr(),
            "tensor([[ 0,  ...,  3],\n"
            "        ...,\n"
            "        [ 8,  ..., 11]])");
  o.edgeitems = 0;  // Python's self[-0:] keeps the whole last dimension
  set_printoptions(o);
  EXPECT_EQ(arange(10).repr(), "tensor([ ..., 0, 1, 2, 3, 4, 5, 6, 7, 8, 9])");
}

TEST(PrintOptions, Linewidth) {
  OptionsGuard guard;
  PrintOptions o;
  o.linewidth = 20;
  set_printoptions(o);
  EXPECT_EQ(arange(10).repr(),
            "tensor([0, 1, 2, 3,\n"
            "        4, 5, 6, 7,\n"
            "        8, 9])");
  o.linewidth = 5;  // narrower than the indent: one element per line
  set_printoptions(o);
  EXPECT_EQ(arange(3).repr(),
            "tensor([0,\n"
            "        1,\n"
            "        2])");
}

TEST(PrintOptions, SciModeForced) {
  OptionsGuard guard;
  PrintOptions o;
  o.sci_mode = true;
  set_printoptions(o);
  EXPECT_EQ(tensor({1.5, 2.0}).repr(), "tensor([1.5000e+00, 2.0000e+00])");
  EXPECT_EQ(tensor({1.0, 2.0}).repr(), "tensor([1.0000e+00, 2.0000e+00])");
  // No finite non-zero value: PyTorch returns before applying sci_mode.
  EXPECT_EQ(zeros({2}).repr(), "tensor([0., 0.])");
  EXPECT_EQ(tensor({1, 2}).repr(), "tensor([1, 2])");
  o.sci_mode = false;
  set_printoptions(o);
  EXPECT_EQ(tensor({1e-5, 1.0}).repr(), "tensor([    0.0000,     1.0000])");
  // float32(1.5e10) is 15000000512; the width was chosen for scientific notation (10) before
  // sci_mode turned it off.
  EXPECT_EQ(tensor({1.5e10, 1.0}).repr(), "tensor([15000000512.,         1.])");
}

// ---- type_string (Tensor.type()) -------------------------------------------------------------------

TEST(PrintTypeString, NamesEveryDtype) {
  const char* expected[] = {"torch.ByteTensor",  "torch.CharTensor",   "torch.ShortTensor", "torch.IntTensor",
                            "torch.LongTensor",  "torch.HalfTensor",   "torch.FloatTensor", "torch.DoubleTensor",
                            "torch.BoolTensor",  "torch.BFloat16Tensor", "torch.ComplexFloatTensor",
                            "torch.ComplexDoubleTensor"};
  for (int i = 0; i < kNumScalarTypes; ++i) {
    EXPECT_EQ(ones({1}, dtype(kAllTypes[i])).type_string(), expected[i]);
  }
}

// ---- cpp_repr (libtorch's operator<<) -------------------------------------------------------------

TEST(PrintCpp, ThreeDimBlocks) {
  EXPECT_EQ(arange(8.).as_strided({2, 2, 2}, {4, 2, 1}, 0).cpp_repr(),
            "(1,.,.) = \n"
            "  0  1\n"
            "  2  3\n"
            "\n"
            "(2,.,.) = \n"
            "  4  5\n"
            "  6  7\n"
            "[ CPUFloatType{2,2,2} ]");
}

TEST(PrintCpp, FourDimFirstLeadingDimVariesFastest) {
  EXPECT_EQ(arange(4.).as_strided({2, 2, 1, 1}, {2, 1, 1, 1}, 0).cpp_repr(),
            "(1,1,.,.) = \n"
            "  0\n"
            "\n"
            "(2,1,.,.) = \n"
            "  2\n"
            "\n"
            "(1,2,.,.) = \n"
            "  1\n"
            "\n"
            "(2,2,.,.) = \n"
            "  3\n"
            "[ CPUFloatType{2,2,1,1} ]");
}

TEST(PrintCpp, ScaleLine) {
  EXPECT_EQ(tensor({0.001, 0.002}).cpp_repr(),
            "0.001 *\n"
            " 1.0000\n"
            " 2.0000\n"
            "[ CPUFloatType{2} ]");
}

TEST(PrintCpp, ColumnsSplit) {
  std::string row1, row2;
  for (int i = 0; i < 26; ++i) row1 += i == 0 ? " 1" : "  1";
  for (int i = 0; i < 4; ++i) row2 += i == 0 ? " 1" : "  1";
  EXPECT_EQ(ones({2, 30}).cpp_repr(), "Columns 1 to 26" + row1 + "\n" + row1 + "\n\nColumns 27 to 30" + row2 + "\n" +
                                          row2 + "\n[ CPUFloatType{2,30} ]");
}

TEST(PrintCpp, NonContiguousAndTypes) {
  EXPECT_EQ(arange(6).as_strided({3, 2}, {1, 3}, 0).cpp_repr(),
            " 0  3\n"
            " 1  4\n"
            " 2  5\n"
            "[ CPULongType{3,2} ]");
  EXPECT_EQ(tensor({1.5, 2.0}, dtype(kFloat64)).cpp_repr(),
            " 1.5000\n"
            " 2.0000\n"
            "[ CPUDoubleType{2} ]");
  EXPECT_EQ(tensor(7, dtype(kInt8)).cpp_repr(), "7\n[ CPUCharType{} ]");
  EXPECT_EQ(empty({2, 0, 3}, dtype(kHalf)).cpp_repr(), "[ CPUHalfType{2,0,3} ]");
}

TEST(PrintCpp, ScaledMatrixIndentsLaterRows) {
  EXPECT_EQ(tensor({{0.001, 0.002}, {0.003, 0.004}}).cpp_repr(),
            "0.001 *\n"
            " 1.0000  2.0000\n"
            "  3.0000  4.0000\n"
            "[ CPUFloatType{2,2} ]");
}

TEST(PrintCpp, ScientificColumn) {
  EXPECT_EQ(tensor({1e-5, 1.0}).cpp_repr(),
            " 1.0000e-05\n"
            " 1.0000e+00\n"
            "[ CPUFloatType{2} ]");
}
