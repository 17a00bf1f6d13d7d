// DistributedSampler against PyTorch's order, and a DataLoader driven by it.
#include <gtest/gtest.h>

#include "ctorch/ctorch.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

using data::DistributedSampler;

// torch 1.13.1: torch.randperm(20, generator=torch.Generator().manual_seed(0)).
const std::vector<int64_t> kPerm20Seed0 = {4, 5, 13, 19, 7, 14, 3, 6, 9, 17, 11, 2, 16, 18, 10, 12, 15, 8, 1, 0};

TEST(DistributedSampler, ShuffledOrderIsPyTorchs) {
  // 20 samples on 3 replicas: padded with perm[0] to 21, then perm[rank::3].
  EXPECT_EQ(DistributedSampler(20, 3, 0).indices(), (std::vector<int64_t>{4, 19, 3, 17, 16, 12, 1}));
  EXPECT_EQ(DistributedSampler(20, 3, 1).indices(), (std::vector<int64_t>{5, 7, 6, 11, 18, 15, 0}));
  EXPECT_EQ(DistributedSampler(20, 3, 2).indices(), (std::vector<int64_t>{13, 14, 9, 2, 10, 8, 4}));
  EXPECT_EQ(DistributedSampler(20, 3, 0).size(), 7u);
  EXPECT_EQ(DistributedSampler(20, 3, 0).total_size(), 21u);
  // drop_last: 18 samples, the tail cut.
  DistributedSampler dropped(20, 3, 0, true, 0, true);
  EXPECT_EQ(dropped.size(), 6u);
  EXPECT_EQ(dropped.indices(), (std::vector<int64_t>{4, 19, 3, 17, 16, 12}));
  // 20 samples on 2 replicas: no padding, the interleaved halves of the permutation.
  std::vector<int64_t> even, odd;
  for (size_t i = 0; i < kPerm20Seed0.size(); ++i) (i % 2 ? odd : even).push_back(kPerm20Seed0[i]);
  EXPECT_EQ(DistributedSampler(20, 2, 0).indices(), even);
  EXPECT_EQ(DistributedSampler(20, 2, 1).indices(), odd);
}

TEST(DistributedSampler, EpochAndSeedSelectTheGenerator) {
  DistributedSampler s(20, 2, 0, true, /*seed=*/0);
  const auto epoch0 = s.indices();
  EXPECT_EQ(s.indices(), epoch0);  // the same epoch again: the same order
  s.set_epoch(1);
  EXPECT_EQ(s.epoch(), 1);
  EXPECT_NE(s.indices(), epoch0);
  EXPECT_EQ(s.indices(), DistributedSampler(20, 2, 0, true, /*seed=*/1).indices());  // seeded seed + epoch
}

TEST(DistributedSampler, UnshuffledPaddingRepeatsTheList) {
  // 5 samples on 4 replicas: [0 1 2 3 4 0 1 2].
  EXPECT_EQ(DistributedSampler(5, 4, 0, false).indices(), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(DistributedSampler(5, 4, 1, false).indices(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(DistributedSampler(5, 4, 3, false).indices(), (std::vector<int64_t>{3, 2}));
  // 2 samples on 5 replicas: the padding is longer than the list, [0 1 0 1 0].
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(DistributedSampler(2, 5, r, false).indices(), (std::vector<int64_t>{r % 2}));
  }
  // drop_last with fewer samples than replicas: nothing.
  EXPECT_EQ(DistributedSampler(2, 5, 0, false, 0, true).size(), 0u);
}

TEST(DistributedSampler, ArgumentErrors) {
  EXPECT_NE(error_of<ValueError>([] { DistributedSampler(10, 2, 2); })
                .find("Invalid rank 2, rank should be in the interval [0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { DistributedSampler(10, 2, -3); }).find("Invalid rank -3"), std::string::npos);
  EXPECT_NE(error_of<Error>([] { DistributedSampler(10); }).find("Default process group has not been initialized"),
            std::string::npos);
}

TEST(DistributedSampler, DrivesADataLoader) {
  data::TensorDataset dataset(std::vector<Tensor>{arange(20, TensorOptions().dtype(kLong))});
  auto sampler = std::make_shared<DistributedSampler>(dataset, 3, 1);
  data::DataLoader loader(dataset, data::DataLoaderOptions(4).sampler(sampler));
  EXPECT_EQ(loader.size(), 2u);
  std::vector<int64_t> seen;
  for (data::Example& b : loader) {
    for (int64_t v : b.data.to_vector<int64_t>()) seen.push_back(v);
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{5, 7, 6, 11, 18, 15, 0}));
  EXPECT_NE(error_of<ValueError>([&] { data::DataLoader(dataset, data::DataLoaderOptions(4).sampler(sampler).shuffle(true)); })
                .find("sampler option is mutually exclusive with shuffle"),
            std::string::npos);
}

}  // namespace
}  // namespace ctorch::testing
