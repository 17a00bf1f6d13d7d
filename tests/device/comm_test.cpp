// torch.cuda.comm between cuda devices (emulated: 2 or 4 devices; real cuda: skipped below 2 GPUs):
// results equal a cpu reference bit for bit, aliasing as PyTorch's (the source device gets the
// source, a scatter piece already in place is a view), PyTorch's checks and messages, and a
// rejected call copies nothing.
#include <gtest/gtest.h>

#include <string>

#include "ctorch/ctorch.h"
#include "device/device_test.h"

namespace ctorch::testing {
namespace {

namespace comm = cuda::comm;

class Comm : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    if (cuda::device_count() < 2) GTEST_SKIP() << "needs two cuda devices";
  }
  /// Four devices where the backend can have them (emulated); skips otherwise.
  void need_four() {
    if (GetParam() == Backend::Emulated) use_emulated_devices(4);
    if (cuda::device_count() < 4) GTEST_SKIP() << "needs four cuda devices";
  }
  static Device dev(int i) { return Device(DeviceType::CUDA, static_cast<DeviceIndex>(i)); }
};

void expect_same_values(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.sizes(), expected.sizes());
  ASSERT_EQ(actual.scalar_type(), expected.scalar_type());
  EXPECT_TRUE(actual.cpu().equal(expected.cpu())) << actual << "\nexpected\n" << expected;
}

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST_P(Comm, BroadcastGivesTheSourceItsOwnTensorAndCopiesElsewhere) {
  manual_seed(0);
  const Tensor ref = randn({3, 5});
  const Tensor src = ref.to(dev(0));
  const std::vector<Tensor> out = comm::broadcast(src, {0, 1});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].is_same(src));  // no copy on the source device
  EXPECT_EQ(out[1].device(), dev(1));
  expect_same_values(out[1], ref);
  // A cpu source: every device gets a copy.
  const std::vector<Tensor> from_cpu = comm::broadcast(ref, {1, 0});
  EXPECT_EQ(from_cpu[0].device(), dev(1));
  EXPECT_EQ(from_cpu[1].device(), dev(0));
  expect_same_values(from_cpu[0], ref);
  expect_same_values(from_cpu[1], ref);
  // A non-contiguous source arrives with its values.
  expect_same_values(comm::broadcast(src.t(), {1})[0], ref.t());
}

TEST_P(Comm, BroadcastChecksItsArguments) {
  const Tensor src = ones({2, 3}, TensorOptions().device(dev(0)));
  EXPECT_EQ(error_of([&] { comm::broadcast(src, {0, -2}); }), "Expected non-negative device index, but got -2");
  Tensor good = zeros({2, 3}, TensorOptions().device(dev(1)));
  const Tensor on_cpu = zeros({2, 3});
  EXPECT_EQ(error_of([&] { comm::broadcast_out(src, {good, on_cpu}); }),
            "Expected all output tensors to be CUDA tensors, but output tensor at index 1 has device 'cpu'");
  const Tensor wrong_shape = zeros({3, 2}, TensorOptions().device(dev(1)));
  EXPECT_EQ(error_of([&] { comm::broadcast_out(src, {good, wrong_shape}); }),
            "Expected all output tensors to have same shape as the source tensor [2, 3], but output tensor at index 1 "
            "has shape [3, 2]");
  EXPECT_EQ(good.sum().item<double>(), 0.0);  // the rejected calls wrote nothing
  comm::broadcast_out(src, {good});
  EXPECT_EQ(good.sum().item<double>(), 6.0);
}

TEST_P(Comm, BroadcastCoalescedKeepsOrderAcrossDtypesAndChunks) {
  manual_seed(1);
  const std::vector<Tensor> ref = {randn({4, 3}), randint(0, 100, {7}), randn({2, 2}).to(kDouble), randn({5}),
                                   randint(0, 9, {2, 3})};
  std::vector<Tensor> inputs;
  for (const Tensor& t : ref) inputs.push_back(t.to(dev(0)));
  for (size_t buffer : {size_t{16}, size_t{64}, comm::kDefaultBufferSize}) {  // many chunks, a few, one per dtype
    const auto out = comm::broadcast_coalesced(inputs, {0, 1}, buffer);
    ASSERT_EQ(out.size(), 2u);
    for (size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_TRUE(out[0][i].is_same(inputs[i]));
      EXPECT_EQ(out[1][i].device(), dev(1));
      expect_same_values(out[1][i], ref[i]);
    }
  }
  const Tensor stray = ones({2}, TensorOptions().device(dev(1)));
  EXPECT_EQ(error_of([&] { comm::broadcast_coalesced({inputs[0], stray}, {0, 1}); }),
            "All tensors must be on devices[0]: 0 (tensor 1 is on cuda:1)");
}

TEST_P(Comm, ReduceAddSumsInPyTorchsOrderOntoTheDestination) {
  manual_seed(2);
  const Tensor a = randn({6, 4}), b = randn({6, 4});
  const Tensor sum = comm::reduce_add({a.to(dev(0)), b.to(dev(1))}, 1);
  EXPECT_EQ(sum.device(), dev(1));
  expect_same_values(sum, b + a);  // root (the destination's input) first, then the others in order
  const Tensor only = a.to(dev(0));
  EXPECT_TRUE(comm::reduce_add({only}, 0).is_same(only));
  cuda::device on1(1);
  EXPECT_EQ(comm::reduce_add({a.to(dev(0)), b.to(dev(1))}).device(), dev(1));  // the current device
}

TEST_P(Comm, ReduceAddChecksItsArguments) {
  const Tensor x = ones({2, 3}, TensorOptions().device(dev(0)));
  EXPECT_EQ(error_of([&] { comm::reduce_add({x, ones({2, 3})}, 0); }),
            "reduce_add expects all inputs to be on GPUs (input 1 is on cpu)");
  try {
    comm::reduce_add({x, ones({3, 2}, TensorOptions().device(dev(1)))}, 0);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "input 1 has invalid size: got 3x2, but expected 2x3");
  }
  EXPECT_EQ(error_of([&] { comm::reduce_add({x, x}, 1); }),
            "reduce_add expects destination to be on the same GPU with one of the tensors (destination cuda:1; inputs "
            "on cuda:0, cuda:0)");
}

TEST_P(Comm, ReduceAddCoalescedMatchesReduceAddPerTensor) {
  manual_seed(3);
  std::vector<std::vector<Tensor>> inputs(2);
  std::vector<Tensor> expected;
  for (int i = 0; i < 4; ++i) {
    const Tensor a = i == 2 ? randint(0, 50, {3, 3}) : randn({i + 1, 2});
    const Tensor b = i == 2 ? randint(0, 50, {3, 3}) : randn({i + 1, 2});
    inputs[0].push_back(a.to(dev(0)));
    inputs[1].push_back(b.to(dev(1)));
    expected.push_back(a + b);
  }
  const std::vector<Tensor> out = comm::reduce_add_coalesced(inputs, 0, /*buffer_size=*/24);
  ASSERT_EQ(out.size(), 4u);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].device(), dev(0));
    expect_same_values(out[i], expected[i]);
  }
}

TEST_P(Comm, ScatterFollowsChunkSemantics) {
  need_four();
  const Tensor ref = arange(10).view({5, 2});
  const Tensor src = ref.to(dev(2));
  // 5 rows over 4 devices: chunk() gives 2, 2, 1 -- three pieces, not four.
  const std::vector<Tensor> pieces = comm::scatter(src, {0, 1, 2, 3});
  ASSERT_EQ(pieces.size(), 3u);
  expect_same_values(pieces[0], ref.narrow(0, 0, 2));
  expect_same_values(pieces[1], ref.narrow(0, 2, 2));
  expect_same_values(pieces[2], ref.narrow(0, 4, 1));
  EXPECT_EQ(pieces[0].device(), dev(0));
  // The piece for the source's own device is a view of the source.
  EXPECT_EQ(pieces[2].data_ptr(), static_cast<char*>(src.data_ptr()) + 8 * src.element_size());
  const std::vector<Tensor> sized = comm::scatter(src, {3, 1}, std::vector<int64_t>{1, 4}, 0);
  expect_same_values(sized[0], ref.narrow(0, 0, 1));
  expect_same_values(sized[1], ref.narrow(0, 1, 4));
  const std::vector<Tensor> cols = comm::scatter(ref, {0, 1}, std::nullopt, -1);
  expect_same_values(cols[1], ref.narrow(1, 1, 1));
}

TEST_P(Comm, ScatterUsesTheGivenStreamsAndChecksThem) {
  const Tensor ref = arange(8.0);
  cuda::Stream side(1);
  const std::vector<Tensor> pieces = comm::scatter(ref, {0, 1}, std::nullopt, 0, {std::nullopt, side});
  side.synchronize();
  expect_same_values(pieces[1], ref.narrow(0, 4, 4));
  EXPECT_EQ(error_of([&] { comm::scatter(ref, {0, 1}, std::nullopt, 0, {side, std::nullopt}); }),
            "Expected the device associated with the stream at index 0 (was 1) to match the device supplied at that "
            "index (expected 0)");
  EXPECT_EQ(error_of([&] { comm::scatter(ref, {}); }), "Expected at least one device to scatter to");
  EXPECT_EQ(error_of([&] { comm::scatter(ref, {0, 1}, std::vector<int64_t>{8}); }),
            "Expected devices and chunk_sizes to be of same length, but got len(devices) = 2 and len(chunk_sizes) = 1");
}

TEST_P(Comm, ScatterOutCopiesIntoTheGivenTensors) {
  const Tensor ref = arange(12.0).view({6, 2});
  Tensor a = zeros({2, 2}, TensorOptions().device(dev(0))), b = zeros({4, 2}, TensorOptions().device(dev(1)));
  comm::scatter_out(ref, {a, b});
  expect_same_values(a, ref.narrow(0, 0, 2));
  expect_same_values(b, ref.narrow(0, 2, 4));
  Tensor c = zeros({3, 2}, TensorOptions().device(dev(1)));
  EXPECT_EQ(error_of([&] { comm::scatter_out(ref, {a, c}); }),
            "Total size for output tensors along scatter dim 0 does not match the source tensor size at dim 0. "
            "Expected 6, but got total size 5");
  Tensor d = zeros({4, 3}, TensorOptions().device(dev(1)));
  EXPECT_EQ(error_of([&] { comm::scatter_out(ref, {a, d}); }),
            "Output tensor at index 1 has incorrect shape: [4, 3]. Expected same shape except for scatter dim 0 as the "
            "source tensor: [6, 2]");
  EXPECT_EQ(c.sum().item<double>(), 0.0);
}

TEST_P(Comm, GatherConcatenatesOnTheDestination) {
  const Tensor a = arange(6.0).view({3, 2}), b = arange(6.0, 10.0).view({2, 2});
  const std::vector<Tensor> parts = {a.to(dev(0)), b.to(dev(1))};
  const Tensor on1 = comm::gather(parts, 0, dev(1));
  EXPECT_EQ(on1.device(), dev(1));
  expect_same_values(on1, cat({a, b}));
  EXPECT_TRUE(comm::gather(parts, 0, Device("cpu")).is_cpu());
  {
    cuda::device current(1);
    EXPECT_EQ(comm::gather(parts).device(), dev(1));  // no destination: the current device
  }
  std::vector<std::string> warnings;
  {
    WarningHandlerGuard capture([&](const std::string& m) { warnings.push_back(m); });
    EXPECT_TRUE(comm::gather(parts, 0, -1).is_cpu());
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("Using -1 to represent CPU tensor is deprecated"), std::string::npos);
  Tensor out = zeros({5, 2}, TensorOptions().device(dev(0)));
  comm::gather_out(parts, out, 0);
  expect_same_values(out, cat({a, b}));
}

TEST_P(Comm, GatherChecksItsArguments) {
  const Tensor a = ones({3, 2}, TensorOptions().device(dev(0)));
  EXPECT_EQ(error_of([&] { comm::gather({}); }), "Expected at least one tensor to gather from");
  EXPECT_EQ(error_of([&] { comm::gather({a, ones({3, 2})}); }),
            "Expected all input tensors to be CUDA tensors, but tensor at index 1 has device 'cpu'");
  EXPECT_EQ(error_of([&] { comm::gather({a, ones({3}, TensorOptions().device(dev(1)))}); }),
            "Expected all input tensors to have the same number of dimensions, but tensor at index 1has 1 dimensions, "
            "(expected 2)");
  EXPECT_EQ(error_of([&] { comm::gather({a, ones({3, 3}, TensorOptions().device(dev(1)))}); }),
            "Input tensor at index 1 has invalid shape [3, 3], but expected [3, 2]");
  Tensor out = zeros({5, 2}, TensorOptions().device(dev(0)));
  EXPECT_EQ(error_of([&] { comm::gather_out({a, a}, out, 0); }), "Expected out tensor to have shape [6, 2], but got [5, 2]");
}

CTORCH_INSTANTIATE_CUDA_TESTS(Comm);

}  // namespace
}  // namespace ctorch::testing
