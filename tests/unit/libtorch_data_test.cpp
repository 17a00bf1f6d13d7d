// libtorch's torch::data templates (ctorch/libtorch/data/*.h) with their threads: a stateless loader's
// workers deliver in request order, each on its own dataset copy; a stateful loader's workers share one
// dataset and end the epoch together; ChunkDataset's preloaders cover every example once per epoch and
// are joined when it is destroyed mid-epoch; a loader waits at most `timeout` for a worker.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "ctorch/torch.h"

namespace {

namespace data = torch::data;

// get(i) = i, after a delay that makes later indices finish first.
struct Reversed : data::datasets::Dataset<Reversed, size_t> {
  size_t get(size_t index) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(index % 4 == 0 ? 6 : 1));
    return index;
  }
  std::optional<size_t> size() const override { return 32; }
};

TEST(LibtorchData, WorkersDeliverInRequestOrderOrAsTheyFinish) {
  auto ordered = data::make_data_loader<data::samplers::SequentialSampler>(
      Reversed(), data::DataLoaderOptions(1).workers(4));
  std::vector<size_t> got;
  for (auto& batch : *ordered) got.push_back(batch.at(0));
  std::vector<size_t> expected(32);
  std::iota(expected.begin(), expected.end(), size_t(0));
  EXPECT_EQ(got, expected);

  auto unordered = data::make_data_loader<data::samplers::SequentialSampler>(
      Reversed(), data::DataLoaderOptions(1).workers(4).enforce_ordering(false));
  std::multiset<size_t> all;
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto& batch : *unordered) all.insert(batch.at(0));
  }
  EXPECT_EQ(all.size(), 64u);
  EXPECT_EQ(all.count(31), 2u);
}

// A counter shared by all workers through SharedBatchDataset.
struct Counter : data::datasets::StatefulDataset<Counter, std::vector<int>, size_t> {
  std::optional<std::vector<int>> get_batch(size_t batch_size) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (next >= 50) return std::nullopt;
    std::vector<int> batch;
    for (size_t i = 0; i < batch_size && next < 50; ++i) batch.push_back(next++);
    return batch;
  }
  std::optional<size_t> size() const override { return 50; }
  void reset() override { next = 0; }
  void save(torch::serialize::OutputArchive&) const override {}
  void load(torch::serialize::InputArchive&) override {}
  std::mutex mutex;
  int next = 0;
};

TEST(LibtorchData, StatefulWorkersShareTheDatasetAndEndTheEpochTogether) {
  auto loader = data::make_data_loader(data::datasets::make_shared_dataset<Counter>(),
                                       data::DataLoaderOptions(7).workers(3));
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::multiset<int> seen;
    for (auto& batch : *loader) seen.insert(batch.begin(), batch.end());
    EXPECT_EQ(seen.size(), 50u) << "epoch " << epoch;
    EXPECT_EQ(std::set<int>(seen.begin(), seen.end()).size(), 50u);
  }
}

// 6 chunks of 10 consecutive values.
struct Chunks : data::datasets::ChunkDataReader<int> {
  std::vector<int> read_chunk(size_t chunk_index) override {
    std::vector<int> chunk(10);
    std::iota(chunk.begin(), chunk.end(), static_cast<int>(chunk_index * 10));
    return chunk;
  }
  size_t chunk_count() override { return 6; }
  void reset() override {}
};

using ChunkSet = data::datasets::ChunkDataset<Chunks, data::samplers::RandomSampler, data::samplers::RandomSampler>;

TEST(LibtorchData, ChunkPreloadersCoverEveryExampleAndJoinMidEpoch) {
  auto dataset = data::datasets::make_shared_dataset<ChunkSet>(
      Chunks(), data::samplers::RandomSampler(0), data::samplers::RandomSampler(0),
      data::datasets::ChunkDatasetOptions(/*preloader_count=*/3, /*batch_size=*/4, /*cache_size=*/8));
  auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(4).workers(2));
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::multiset<int> seen;
    for (auto& batch : *loader) seen.insert(batch.begin(), batch.end());
    EXPECT_EQ(seen.size(), 60u);
    EXPECT_EQ(std::set<int>(seen.begin(), seen.end()).size(), 60u);
  }
  // Leave an epoch after one batch: the loader and the dataset join their threads on destruction.
  auto it = loader->begin();
  EXPECT_EQ(it->size(), 4u);
  loader.reset();
  EXPECT_THROW(dataset->get_batch(5), torch::Error);  // batch size 5 was not configured
}

TEST(LibtorchData, TimeoutBoundsTheWaitForAWorker) {
  struct Slow : data::datasets::Dataset<Slow, int> {
    int get(size_t) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return 0;
    }
    std::optional<size_t> size() const override { return 2; }
  };
  auto loader = data::make_data_loader(Slow(), data::DataLoaderOptions(1).workers(1).timeout(std::chrono::milliseconds(5)));
  try {
    (void)*loader->begin();
    FAIL() << "no timeout";
  } catch (const torch::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Timeout in DataLoader queue while waiting for next batch (timeout was 5 ms)"),
              std::string::npos);
  }
}

}  // namespace
