// Advanced indexing and the gather family on every device: values against hand-derived PyTorch
// 1.13 results (the docs' examples where they exist), error texts and types, failed calls that
// leave their tensors unchanged, deterministic accumulation, and cuda results equal to cpu's.
#include <gmock/gmock.h>

#include <vector>

#include "device/device_test.h"
#include "test_util.h"

using namespace ctorch;
using ctorch::testing::DeviceTest;
using ctorch::testing::error_of;
using ::testing::HasSubstr;

namespace {

class Indexing : public DeviceTest {
 protected:
  /// A long tensor of the given values on the device under test.
  Tensor longs(std::vector<int64_t> v) const { return tensor(v).to(device()); }
  /// Values (row-major) of any tensor as doubles.
  static std::vector<double> values(const Tensor& t) { return t.cpu().to_vector<double>(); }
  /// The sizes of `t` as a vector.
  static std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }
};
CTORCH_INSTANTIATE_DEVICE_TESTS(Indexing);

using V = std::vector<double>;
using S = std::vector<int64_t>;

}  // namespace

TEST_P(Indexing, IntegerTensorIndexSelectsAlongItsDim) {
  const Tensor x = arange(12, on_device(kLong)).view({4, 3});
  EXPECT_EQ(values(x.index({longs({0, 2})})), (V{0, 1, 2, 6, 7, 8}));
  const Tensor cols = x.index({Slice(), longs({2, 0})});
  EXPECT_EQ(shape(cols), (S{4, 2}));
  EXPECT_EQ(values(cols), (V{2, 0, 5, 3, 8, 6, 11, 9}));
  EXPECT_EQ(values(x.index({longs({-1})})), (V{9, 10, 11}));  // negative indices wrap
  EXPECT_EQ(values(x.index({"...", longs({1})})), (V{1, 4, 7, 10}));
  // The result is a copy: writing it leaves x alone.
  Tensor r = x.index({longs({0})});
  r.fill_(-1);
  EXPECT_EQ(values(x.index({0})), (V{0, 1, 2}));
  // A cpu index may index a device tensor (PyTorch allows dev_tensor[cpu_tensor]).
  EXPECT_EQ(values(x.index({tensor({3})})), (V{9, 10, 11}));
}

TEST_P(Indexing, AdjacentIndicesStayInPlaceSeparatedOnesMoveToTheFront) {
  const Tensor x = arange(24, on_device(kLong)).view({2, 3, 4});  // x[b][i][j] = 12b + 4i + j
  const Tensor adjacent = x.index({Slice(), longs({0, 2}), longs({1, 3})});
  EXPECT_EQ(shape(adjacent), (S{2, 2}));
  EXPECT_EQ(values(adjacent), (V{1, 11, 13, 23}));
  const Tensor separated = x.index({longs({0, 1}), Slice(), longs({1, 3})});
  EXPECT_EQ(shape(separated), (S{2, 3}));
  EXPECT_EQ(values(separated), (V{1, 5, 9, 15, 19, 23}));
  EXPECT_EQ(shape(x.index({None, Slice(), longs({0, 1, 2})})), (S{1, 2, 3, 4}));
}

TEST_P(Indexing, IndexTensorsBroadcastTogether) {
  const Tensor x = arange(12, on_device(kLong)).view({4, 3});
  const Tensor rows = longs({0, 3}).view({2, 1});
  EXPECT_EQ(values(x.index({rows, longs({0, 2})})), (V{0, 2, 9, 11}));  // NumPy's example
  EXPECT_EQ(values(index(x, {rows.view({2}), std::nullopt})), (V{0, 1, 2, 9, 10, 11}));
}

TEST_P(Indexing, BoolMasksIndexTheirNonzeroPositions) {
  const Tensor x = tensor({{1, -2}, {-3, 4}}).to(device());
  EXPECT_EQ(values(x.index({x.gt(0)})), (V{1, 4}));
  EXPECT_EQ(values(x.index({tensor({false, true}).to(device())})), (V{-3, 4}));
  EXPECT_EQ(shape(x.index({x.gt(10)})), (S{0}));
  EXPECT_EQ(shape(x.index({true})), (S{1, 2, 2}));
  EXPECT_EQ(shape(x.index({false})), (S{0, 2, 2}));
  EXPECT_NE(x.index({true}).data_ptr(), x.data_ptr());  // a copy, as PyTorch's
  EXPECT_EQ(values(x.masked_select(x.lt(0))), (V{-2, -3}));
  EXPECT_EQ(values(x.masked_select(tensor({true, false}).to(device()))), (V{1, -3}));  // broadcast over rows
}

TEST_P(Indexing, IndexPutAssignsAndAccumulates) {
  Tensor x = zeros({5}, on_device());
  x.index_put_({longs({0, 2, 4})}, tensor({1.f, 2.f, 3.f}).to(device()));
  EXPECT_EQ(values(x), (V{1, 0, 2, 0, 3}));
  Tensor z = zeros({3}, on_device());
  z.index_put_({longs({0, 0, 2, 0})}, tensor({1.f, 2.f, 3.f, 4.f}).to(device()), true);
  EXPECT_EQ(values(z), (V{7, 0, 3}));
  Tensor m = arange(6, on_device(kLong)).view({2, 3});
  m.index_put_({m.gt(2)}, 0);
  EXPECT_EQ(values(m), (V{0, 1, 2, 0, 0, 0}));
  Tensor rows = zeros({3, 2}, on_device());
  rows.index_put_({longs({2, 0})}, tensor({5.f, 6.f}).to(device()));  // values broadcast over the rows
  EXPECT_EQ(values(rows), (V{5, 6, 0, 0, 5, 6}));
  Tensor y = zeros({2, 2}, on_device());
  y.index_put_({Slice(), longs({1})}, 9.5);
  EXPECT_EQ(values(y), (V{0, 9.5, 0, 9.5}));
  EXPECT_EQ(values(index_put(y, {longs({0})}, tensor(1.f).to(device()), true)), (V{1, 10.5, 0, 9.5}));
}

TEST_P(Indexing, IndexSelectGatherScatterFollowTheDocs) {
  const Tensor x = arange(6, on_device()).view({2, 3});
  EXPECT_EQ(values(x.index_select(1, longs({2, 0, 2}))), (V{2, 0, 2, 5, 3, 5}));
  EXPECT_EQ(values(x.index_select(0, tensor({1}, TensorOptions().dtype(kInt)).to(device()))), (V{3, 4, 5}));
  EXPECT_EQ(values(x.index_select(-1, longs({}))), V{});
  const Tensor t = tensor({{1, 2}, {3, 4}}).to(device());
  EXPECT_EQ(values(t.gather(1, tensor({{0, 0}, {1, 0}}).to(device()))), (V{1, 1, 4, 3}));
  EXPECT_EQ(values(gather(t, 0, tensor({{1, 0}}).to(device()))), (V{3, 2}));
  // torch.Tensor.scatter_ docs: src = arange(1, 11).reshape(2, 5), index = [[0, 1, 2, 0]].
  const Tensor src = arange(1, 11, on_device()).view({2, 5});
  Tensor s = zeros({3, 5}, on_device());
  s.scatter_(0, tensor({{0, 1, 2, 0}}).to(device()), src);
  EXPECT_EQ(values(s), (V{1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0}));
  // scatter_add_ docs: ones(2, 5) into zeros(3, 5).
  const Tensor ones2 = ones({2, 5}, on_device());
  const Tensor idx2 = tensor({{0, 1, 2, 0, 0}, {0, 1, 2, 2, 2}}).to(device());
  EXPECT_EQ(values(zeros({3, 5}, on_device()).scatter_add(0, idx2, ones2)),
            (V{2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1}));
  // index_add_ docs: ones(5, 3) plus rows of t at [0, 4, 2].
  const Tensor rows = tensor({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}, {7.f, 8.f, 9.f}}).to(device());
  Tensor a = ones({5, 3}, on_device());
  a.index_add_(0, longs({0, 4, 2}), rows);
  EXPECT_EQ(values(a), (V{2, 3, 4, 1, 1, 1, 8, 9, 10, 1, 1, 1, 5, 6, 7}));
  EXPECT_EQ(values(ones({5, 3}, on_device()).index_add(0, longs({0, 4, 2}), rows, -1)),
            (V{0, -1, -2, 1, 1, 1, -6, -7, -8, 1, 1, 1, -3, -4, -5}));
  EXPECT_EQ(values(zeros({2}, on_device()).index_add_(0, longs({1, 1, 1}), ones({3}, on_device()))), (V{0, 3}));
}

TEST_P(Indexing, MaskedFillAndNonzero) {
  const Tensor mask = tensor({true, false, true}).to(device());
  Tensor x = zeros({2, 3}, on_device());
  x.masked_fill_(mask, 7);
  EXPECT_EQ(values(x), (V{7, 0, 7, 7, 0, 7}));
  x.masked_fill_(mask.logical_not(), full({}, 2.5, on_device()));
  EXPECT_EQ(values(x), (V{7, 2.5, 7, 7, 2.5, 7}));
  const Tensor filled = arange(3, on_device(kLong)).masked_fill(tensor({{true}, {false}}).to(device()), -1);
  EXPECT_EQ(shape(filled), (S{2, 3}));
  EXPECT_EQ(values(filled), (V{-1, -1, -1, 0, 1, 2}));
  const Tensor nz = tensor({{0, 1}, {2, 0}}).to(device()).nonzero();
  EXPECT_EQ(nz.dtype(), kLong);
  EXPECT_EQ(nz.device(), device());
  EXPECT_EQ(values(nz), (V{0, 1, 1, 0}));
  EXPECT_EQ(values(tensor({0.f, 3.f, 0.f, 5.f}).to(device()).nonzero()), (V{1, 3}));
  EXPECT_EQ(shape(zeros({2, 2}, on_device()).nonzero()), (S{0, 2}));
}

TEST_P(Indexing, OutOfRangeIndicesFailAndLeaveTensorsUnchanged) {
  const Tensor x = zeros({3}, on_device());
  EXPECT_THAT(error_of<IndexError>([&] { x.index({longs({5})}); }),
              HasSubstr("index 5 is out of bounds for dimension 0 with size 3"));
  EXPECT_THAT(error_of<IndexError>([&] { x.index({longs({-4})}); }),
              HasSubstr("index -4 is out of bounds for dimension 0 with size 3"));
  Tensor y = arange(3, on_device());
  EXPECT_THAT(error_of<IndexError>([&] { y.index_put_({longs({0, 5})}, tensor({9.f, 9.f}).to(device())); }),
              HasSubstr("index 5 is out of bounds for dimension 0 with size 3"));
  EXPECT_THAT(error_of<IndexError>([&] { y.index_put_({longs({0, 5})}, tensor({9.f, 9.f}).to(device()), true); }),
              HasSubstr("index 5 is out of bounds"));
  EXPECT_THAT(error_of([&] { y.gather(0, longs({0, 5})); }),
              HasSubstr("index 5 is out of bounds for dimension 0 with size 3"));
  EXPECT_THAT(error_of([&] { y.scatter_add_(0, longs({0, 3}), ones({2}, on_device())); }),
              HasSubstr("index 3 is out of bounds for dimension 0 with size 3"));
  EXPECT_THAT(error_of([&] { y.scatter_(0, longs({-1}), ones({1}, on_device())); }),
              HasSubstr("index -1 is out of bounds for dimension 0 with size 3"));
  EXPECT_THAT(error_of<IndexError>([&] { y.index_select(0, longs({1, 3})); }), HasSubstr("index out of range in self"));
  EXPECT_THAT(error_of<IndexError>([&] { y.index_add_(0, longs({0, -1}), ones({2}, on_device())); }),
              HasSubstr("index out of range in self"));
  EXPECT_EQ(values(y), (V{0, 1, 2}));
  const Tensor x2 = zeros({2, 3}, on_device());
  EXPECT_THAT(error_of<IndexError>([&] { x2.index({Slice(), longs({0, 3})}); }),
              HasSubstr("index 3 is out of bounds for dimension 0 with size 3"));  // PyTorch names the index's position
}

TEST_P(Indexing, ArgumentErrorsUsePyTorchsTexts) {
  const Tensor x = zeros({3}, on_device());
  EXPECT_THAT(error_of<IndexError>([&] { x.index({ones({1}, on_device())}); }),
              HasSubstr("tensors used as indices must be long, byte or bool tensors"));
  EXPECT_THAT(error_of<IndexError>([&] { x.index({tensor({true, false}).to(device())}); }),
              HasSubstr("The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3] at "
                        "index 0"));
  const Tensor x2 = zeros({5, 5}, on_device());
  EXPECT_THAT(error_of<IndexError>([&] { x2.index({longs({0, 1}), longs({0, 1, 2})}); }),
              HasSubstr("shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"));
  Tensor y = zeros({3}, on_device());
  EXPECT_THAT(error_of([&] { y.index_put_({longs({0, 1, 2})}, zeros({2}, on_device())); }),
              HasSubstr("shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape "
                        "[3]"));
  EXPECT_THAT(error_of([&] { y.index_put_(std::vector<std::optional<Tensor>>{longs({0})}, zeros({1}, on_device(kLong))); }),
              HasSubstr("Index put requires the source and destination dtypes match, got Float for the destination "
                        "and Long for the source."));
  EXPECT_THAT(error_of([&] { y.gather(0, tensor({0}, TensorOptions().dtype(kInt)).to(device())); }),
              HasSubstr("gather(): Expected dtype int64 for index"));
  EXPECT_THAT(error_of([&] { y.scatter_(0, longs({0}), ones({1}, on_device(kLong))); }),
              HasSubstr("scatter(): Expected self.dtype to be equal to src.dtype"));
  EXPECT_THAT(error_of([&] { zeros({2, 2}, on_device()).gather(0, longs({0})); }),
              HasSubstr("Index tensor must have the same number of dimensions as input tensor"));
  EXPECT_THAT(error_of([&] { y.index_add_(0, longs({0, 1}), ones({3}, on_device())); }),
              HasSubstr("index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for dim: 0"));
  EXPECT_THAT(error_of([&] { y.masked_fill_(ones({3}, on_device()), 1); }),
              HasSubstr("masked_fill_ only supports boolean masks"));
  EXPECT_THAT(error_of([&] { y.masked_fill_(tensor({true}).to(device()), zeros({1}, on_device())); }),
              HasSubstr("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."));
  EXPECT_EQ(values(y), (V{0, 0, 0}));
  if (is_cuda()) {
    EXPECT_THAT(error_of([&] { y.gather(0, tensor({0})); }),
                HasSubstr("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
                          "cpu!"));
  }
}

TEST_P(Indexing, AccumulationIsDeterministicInRowMajorOrder) {
  // 1000 float values into 3 slots: the result is the sequential float sum in index order.
  std::vector<float> v(1000);
  std::vector<int64_t> idx(1000);
  float expect[3] = {0, 0, 0};
  for (int i = 0; i < 1000; ++i) {
    v[i] = 0.1f * static_cast<float>(i % 7) + 1e-3f * static_cast<float>(i);
    idx[i] = (i * 7) % 3;
    expect[idx[i]] += v[i];
  }
  const Tensor values_t = tensor(v).to(device());
  const Tensor index_t = tensor(idx).to(device());
  const V want{expect[0], expect[1], expect[2]};
  EXPECT_EQ(values(zeros({3}, on_device()).index_put_({index_t}, values_t, true)), want);
  EXPECT_EQ(values(zeros({3}, on_device()).scatter_add_(0, index_t, values_t)), want);
  EXPECT_EQ(values(zeros({3}, on_device()).index_add_(0, index_t, values_t)), want);
}

TEST_P(Indexing, DeviceResultsEqualCpuResults) {
  manual_seed(0);
  const Tensor x = randn({4, 5, 6});
  const Tensor i0 = randint(-4, 4, {3, 1});
  const Tensor i2 = randint(0, 6, {1, 2});
  const Tensor mask = x.gt(0.5);
  const Tensor xd = x.to(device());
  auto same = [&](const Tensor& cpu, const Tensor& dev) {
    EXPECT_EQ(shape(cpu), shape(dev));
    EXPECT_TRUE(cpu.equal(dev.cpu()));
  };
  same(x.index({i0, Slice(), i2}), xd.index({i0.to(device()), Slice(), i2.to(device())}));
  same(x.index({Slice(), Slice(1, 4), i2}), xd.index({Slice(), Slice(1, 4), i2.to(device())}));
  same(x.index({mask}), xd.index({mask.to(device())}));
  same(x.transpose(0, 2).index_select(1, tensor({4, 0, 4})), xd.transpose(0, 2).index_select(1, tensor({4, 0, 4}).to(device())));
  const Tensor g = randint(0, 5, {4, 3, 6});
  same(x.gather(1, g), xd.gather(1, g.to(device())));
  same(zeros({4, 5, 6}).scatter_add(1, g, x.narrow(1, 0, 3)),
       zeros({4, 5, 6}, on_device()).scatter_add(1, g.to(device()), xd.narrow(1, 0, 3)));
  Tensor a = x.clone(), ad = xd.clone();
  a.index_put_({i0, std::nullopt, i2}, full({}, 3.0), true);
  ad.index_put_({i0.to(device()), std::nullopt, i2.to(device())}, full({}, 3.0, on_device()), true);
  same(a, ad);
  same(x.masked_select(mask), xd.masked_select(mask.to(device())));
  same(x.nonzero(), xd.nonzero());
}
