// torch.nn.utils.rnn against PyTorch 1.13.1 (values from python3-torch) and parameters_to_vector.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctorch/ctorch.h"

using namespace ctorch;
namespace rnn = ctorch::nn::utils::rnn;

namespace {

std::vector<float> values(const Tensor& t) { return t.to(kFloat).contiguous().to_vector<float>(); }
std::vector<int64_t> longs(const Tensor& t) { return t.to(ScalarType::Int64).contiguous().to_vector<int64_t>(); }

TEST(NnRnnUtils, PackUnsortedAndPadBackAsPyTorch) {
  const Tensor a = tensor({1.f, 2.f, 3.f}), b = tensor({4.f, 5.f}), c = tensor({6.f});
  // rnn.pack_sequence([b, c, a], enforce_sorted=False)
  const rnn::PackedSequence p = rnn::pack_sequence({b, c, a}, /*enforce_sorted=*/false);
  EXPECT_EQ(values(p.data()), (std::vector<float>{1, 4, 6, 2, 5, 3}));
  EXPECT_EQ(longs(p.batch_sizes()), (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(longs(p.sorted_indices()), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(longs(p.unsorted_indices()), (std::vector<int64_t>{1, 2, 0}));
  // rnn.pad_packed_sequence(p, batch_first=True, padding_value=-1, total_length=4)
  const auto [out, lengths] = rnn::pad_packed_sequence(p, /*batch_first=*/true, -1, 4);
  EXPECT_EQ(values(out), (std::vector<float>{4, 5, -1, -1, 6, -1, -1, -1, 1, 2, 3, -1}));
  EXPECT_EQ(longs(lengths), (std::vector<int64_t>{2, 1, 3}));
  try {
    rnn::pad_packed_sequence(p, false, 0, 2);
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Expected total_length to be at least the length of the longest sequence in "
                                         "input, but got total_length=2 and max sequence length being 3"),
              std::string::npos);
  }
  EXPECT_THROW(rnn::pack_sequence({b, c, a}, /*enforce_sorted=*/true), Error);
}

TEST(NnRnnUtils, PackPaddedSequenceIsDifferentiable) {
  // x = torch.arange(12.).view(3, 2, 2); rnn.pack_padded_sequence(x, torch.tensor([3, 1]))
  const Tensor x = arange(12).to(kFloat).view({3, 2, 2}).requires_grad_();
  const rnn::PackedSequence p = rnn::pack_padded_sequence(x, tensor({int64_t{3}, int64_t{1}}));
  EXPECT_EQ(values(p.data()), (std::vector<float>{0, 1, 2, 3, 4, 5, 8, 9}));
  EXPECT_EQ(longs(p.batch_sizes()), (std::vector<int64_t>{2, 1, 1}));
  EXPECT_FALSE(p.sorted_indices().defined());
  p.data().sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0}));
}

TEST(NnUtils, ParametersToVectorAndBack) {
  std::vector<Tensor> params = {arange(3).to(kFloat), arange(4).to(kFloat).view({2, 2})};
  const Tensor vec = nn::utils::parameters_to_vector(params);
  EXPECT_EQ(values(vec), (std::vector<float>{0, 1, 2, 0, 1, 2, 3}));
  std::vector<Tensor> targets = {zeros({3}), zeros({2, 2})};
  nn::utils::vector_to_parameters(vec * 2, targets);
  EXPECT_EQ(values(targets[1]), (std::vector<float>{0, 2, 4, 6}));
  EXPECT_EQ(targets[1].sizes(), IntArrayRef({2, 2}));
}

}  // namespace
