// Data loading: TensorDataset, batching, drop_last, shuffling (generator draws as PyTorch's
// DataLoader makes them), worker threads (order, errors, early exit) and SyntheticMNIST.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <set>
#include <thread>

#include "ctorch/ctorch.h"
#include "ctorch/torch.h"

namespace ctorch {
namespace {

using data::DataLoader;
using data::DataLoaderOptions;
using data::Example;
using data::TensorDataset;

// data[i] = [i, i + 0.5], target[i] = i: batches reveal which samples they hold.
TensorDataset indexed(int64_t n) {
  Tensor idx = arange(n, TensorOptions().dtype(kLong));
  Tensor data = stack({idx.to(kFloat), idx.to(kFloat) + 0.5}, 1);
  return TensorDataset(data, idx);
}

std::vector<int64_t> epoch_order(DataLoader& loader) {
  std::vector<int64_t> order;
  for (Example& batch : loader) {
    for (int64_t v : batch.target.to_vector<int64_t>()) order.push_back(v);
  }
  return order;
}

TEST(TensorDatasetTest, SlicesAlongTheFirstDimension) {
  TensorDataset ds = indexed(5);
  EXPECT_EQ(ds.size(), 5u);
  Example e = ds.get(3);
  EXPECT_EQ(e.data.sizes().vec(), (std::vector<int64_t>{2}));
  EXPECT_EQ(e.target.item<int64_t>(), 3);
  EXPECT_THROW(ds.get(5), IndexError);
  try {
    TensorDataset(zeros({3, 2}), zeros({4}));
    ADD_FAILURE();
  } catch (const ValueError& err) {
    EXPECT_STREQ(err.what(), "Size mismatch between tensors");
  }
  TensorDataset only_data(std::vector<Tensor>{zeros({4, 2})});
  EXPECT_FALSE(only_data.get(0).target.defined());
  EXPECT_THROW(TensorDataset(std::vector<Tensor>{}), ValueError);
}

TEST(DataLoaderTest, BatchesStackAlongDimZero) {
  DataLoader loader(indexed(10), DataLoaderOptions().batch_size(3));
  EXPECT_EQ(loader.size(), 4u);
  std::vector<int64_t> sizes;
  for (Example& batch : loader) {
    EXPECT_EQ(batch.data.dim(), 2);
    EXPECT_EQ(batch.data.size(1), 2);
    EXPECT_EQ(batch.target.dtype(), kLong);
    EXPECT_EQ(batch.target.size(0), batch.data.size(0));
    EXPECT_TRUE(batch.data.select(1, 0).equal(batch.target.to(kFloat)));
    sizes.push_back(batch.data.size(0));
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 3, 1}));
  std::vector<int64_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(epoch_order(loader), expected);  // no shuffle: index order
}

TEST(DataLoaderTest, DropLastDropsOnlyTheIncompleteBatch) {
  DataLoader loader(indexed(10), DataLoaderOptions(3).drop_last(true));
  EXPECT_EQ(loader.size(), 3u);
  EXPECT_EQ(epoch_order(loader).size(), 9u);
  DataLoader exact(indexed(9), DataLoaderOptions(3).drop_last(true));
  EXPECT_EQ(exact.size(), 3u);
  DataLoader none(indexed(2), DataLoaderOptions(3).drop_last(true));
  EXPECT_EQ(none.size(), 0u);
  EXPECT_TRUE(none.begin() == none.end());
  DataLoader empty_ds(indexed(0), DataLoaderOptions(3));
  EXPECT_EQ(empty_ds.size(), 0u);
  EXPECT_TRUE(empty_ds.begin() == empty_ds.end());
}

TEST(DataLoaderTest, OptionsAreChecked) {
  EXPECT_THROW(DataLoader(indexed(4), DataLoaderOptions(0)), ValueError);
  EXPECT_THROW(DataLoader(indexed(4), DataLoaderOptions(1).num_workers(-1)), ValueError);
  EXPECT_THROW(DataLoader(indexed(4), DataLoaderOptions(1).prefetch_factor(4)), ValueError);
  EXPECT_THROW(DataLoader(indexed(0), DataLoaderOptions(1).shuffle(true)), ValueError);
}

TEST(DataLoaderTest, ShuffleIsASeededPermutationRedrawnEachEpoch) {
  DataLoader a(indexed(50), DataLoaderOptions(8).shuffle(true).seed(1234));
  DataLoader b(indexed(50), DataLoaderOptions(8).shuffle(true).seed(1234));
  const auto a1 = epoch_order(a), a2 = epoch_order(a);
  EXPECT_EQ(a1, epoch_order(b));
  EXPECT_EQ(a2, epoch_order(b));
  EXPECT_NE(a1, a2);
  for (const auto& order : {a1, a2}) {
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> expected(50);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(sorted, expected);
  }
}

TEST(DataLoaderTest, ShuffleDrawsWhatPyTorchsDataLoaderDraws) {
  // Per epoch, with generator g: int64 random_ (the base seed), randperm(n) (the order), and
  // randperm(n) again when the sampler is exhausted (Note [DataLoader random draws]).
  const int64_t n = 13;
  Generator g;
  g.manual_seed(7);
  DataLoader loader(indexed(n), DataLoaderOptions(4).shuffle(true).generator(g));
  Generator ref;
  ref.manual_seed(7);
  for (int epoch = 0; epoch < 3; ++epoch) {
    empty({}, TensorOptions().dtype(kLong)).random_(0, std::nullopt, ref);
    const std::vector<int64_t> expected = randperm(n, {}, ref).to_vector<int64_t>();
    (void)randperm(n, {}, ref);
    EXPECT_EQ(epoch_order(loader), expected) << "epoch " << epoch;
  }
  EXPECT_TRUE(g.get_state().equal(ref.get_state()));

  // Without a generator: the base seed and the sampler's seed come from the global generator.
  manual_seed(3);
  DataLoader global(indexed(n), DataLoaderOptions(4).shuffle(true));
  const auto order = epoch_order(global);
  manual_seed(3);
  empty({}, TensorOptions().dtype(kLong)).random_(0, std::nullopt);
  Generator sampler;
  sampler.manual_seed(static_cast<uint64_t>(empty({}, TensorOptions().dtype(kLong)).random_(0, std::nullopt).item<int64_t>()));
  EXPECT_EQ(order, randperm(n, {}, sampler).to_vector<int64_t>());
}

TEST(DataLoaderTest, WorkersDeliverTheSameBatchesInOrder) {
  for (int64_t workers : {1, 2, 3}) {
    DataLoader serial(indexed(37), DataLoaderOptions(5).shuffle(true).seed(9));
    DataLoader parallel(indexed(37), DataLoaderOptions(5).shuffle(true).seed(9).num_workers(workers));
    for (int epoch = 0; epoch < 2; ++epoch) {
      auto it = parallel.begin();
      size_t count = 0;
      for (Example& batch : serial) {
        ASSERT_FALSE(it == parallel.end());
        EXPECT_TRUE(it->data.equal(batch.data));
        EXPECT_TRUE(it->target.equal(batch.target));
        ++it;
        ++count;
      }
      EXPECT_TRUE(it == parallel.end());
      EXPECT_EQ(count, parallel.size());
    }
  }
}

// Throws IndexError for one sample; counts calls from each thread.
class Faulty : public data::Dataset {
 public:
  Faulty(int64_t n, int64_t bad) : n_(n), bad_(bad) {}
  Example get(size_t index) override {
    ++calls;
    CTORCH_CHECK_INDEX(static_cast<int64_t>(index) != bad_, "sample ", index, " is broken");
    return {full({2}, static_cast<double>(index)), full({}, static_cast<int64_t>(index), TensorOptions().dtype(kLong))};
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(n_); }
  static inline std::atomic<int64_t> calls{0};

 private:
  int64_t n_;
  int64_t bad_;
};

TEST(DataLoaderTest, WorkerErrorsAreRethrownNamingTheWorker) {
  DataLoader loader(std::make_shared<Faulty>(12, 5), DataLoaderOptions(2).num_workers(2));
  auto it = loader.begin();  // batches [0,1] [2,3] [4,5] ...: batch 2 fails, on worker 0
  std::vector<int64_t> seen;
  bool thrown = false;
  while (!(it == loader.end())) {
    for (int64_t v : it->target.to_vector<int64_t>()) seen.push_back(v);
    try {
      ++it;
    } catch (const IndexError& e) {
      thrown = true;
      EXPECT_NE(std::string(e.what()).find("Caught IndexError in DataLoader worker thread 0."), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("sample 5 is broken"), std::string::npos) << e.what();
      ++it;  // the epoch continues after the failed batch
    }
  }
  EXPECT_TRUE(thrown);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 6, 7, 8, 9, 10, 11}));
  // Without workers the error is the dataset's own.
  DataLoader serial(std::make_shared<Faulty>(12, 0), DataLoaderOptions(2));
  EXPECT_THROW(serial.begin(), IndexError);
}

TEST(DataLoaderTest, LeavingAnEpochEarlyStopsItsWorkers) {
  Faulty::calls = 0;
  {
    DataLoader loader(std::make_shared<Faulty>(10000, -1), DataLoaderOptions(10).num_workers(2).prefetch_factor(2));
    int batches = 0;
    for (Example& batch : loader) {
      (void)batch;
      if (++batches == 3) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // 3 consumed, at most 2 per worker queued and one in flight per worker: bounded prefetch.
  EXPECT_LE(Faulty::calls.load(), (3 + 2 * 2 + 2) * 10);
}

TEST(DataLoaderTest, TimeoutRaisesAndTheBatchStaysNext) {
  struct Slow : data::Dataset {
    Example get(size_t index) override {
      if (index == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      return {full({1}, static_cast<double>(index)), full({}, static_cast<int64_t>(index), TensorOptions().dtype(kLong))};
    }
    std::optional<size_t> size() const override { return 4; }
  };
  EXPECT_THROW(DataLoader(std::make_shared<Slow>(), DataLoaderOptions(1).timeout(1)), ValueError);
  EXPECT_THROW(DataLoader(std::make_shared<Slow>(), DataLoaderOptions(1).num_workers(1).timeout(-1)), ValueError);
  DataLoader loader(std::make_shared<Slow>(), DataLoaderOptions(1).num_workers(2).timeout(0.01));
  auto it = loader.begin();
  EXPECT_EQ(it->target.item<int64_t>(), 0);
  int timeouts = 0;
  while (true) {
    try {
      ++it;
      break;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("DataLoader timed out after 0.01 seconds"), std::string::npos) << e.what();
      ++timeouts;
    }
  }
  EXPECT_GE(timeouts, 1);
  EXPECT_EQ(it->target.item<int64_t>(), 1);  // the timed-out batch, not the one after it
  ++it;
  EXPECT_EQ(it->target.item<int64_t>(), 2);
}

TEST(DataLoaderTest, SizelessDatasetsAreRefused) {
  struct Stream : data::Dataset {
    Example get(size_t) override { return {}; }
    std::optional<size_t> size() const override { return std::nullopt; }
  };
  EXPECT_THROW(DataLoader(Stream{}, DataLoaderOptions(2)), TypeError);
}

TEST(SyntheticMNISTTest, DeterministicImagesAndLabels) {
  data::datasets::SyntheticMNIST a(100, 42), b(100, 42), c(100, 43);
  EXPECT_EQ(a.size(), 100u);
  std::set<int64_t> labels;
  bool differs = false;
  for (size_t i = 0; i < 100; ++i) {
    Example e = a.get(i);
    EXPECT_EQ(e.data.sizes().vec(), (std::vector<int64_t>{1, 28, 28}));
    EXPECT_EQ(e.data.dtype(), kFloat);
    EXPECT_EQ(e.target.dtype(), kLong);
    EXPECT_EQ(e.target.dim(), 0);
    EXPECT_GE(e.data.min().item<double>(), 0.0);
    EXPECT_LE(e.data.max().item<double>(), 1.0);
    EXPECT_EQ(e.target.item<int64_t>(), a.label(i));
    EXPECT_TRUE(e.data.equal(b.get(i).data));
    differs = differs || !e.data.equal(c.get(i).data);
    labels.insert(e.target.item<int64_t>());
  }
  EXPECT_TRUE(differs);
  EXPECT_EQ(labels.size(), 10u);
  EXPECT_THROW(a.get(100), IndexError);
}

TEST(SyntheticMNISTTest, ALinearClassifierLearnsIt) {
  // Softmax regression (a one-layer MLP) by full-batch gradient descent on 1000 images, gradients
  // written out (no autograd): it must classify 500 unseen images well.
  auto ds = std::make_shared<data::datasets::SyntheticMNIST>(1500, 0);
  DataLoader loader(ds, DataLoaderOptions(1000));
  auto it = loader.begin();
  const Tensor x = it->data.reshape({1000, 784});
  const Tensor onehot = zeros({1000, 10});
  const auto y = it->target.to_vector<int64_t>();
  for (int64_t i = 0; i < 1000; ++i) onehot.select(0, i).select(0, y[i]).fill_(1.0);
  Tensor w = zeros({784, 10});
  Tensor b = zeros({10});
  for (int step = 0; step < 150; ++step) {
    const Tensor p = x.matmul(w).add(b).softmax(1);
    const Tensor g = (p - onehot) / 1000.0;
    w = w - x.t().matmul(g) * 0.5;
    b = b - g.sum(0) * 0.5;
  }
  ++it;
  const Tensor x_test = it->data.reshape({500, 784});
  const Tensor predicted = x_test.matmul(w).add(b).argmax(1);
  const int64_t correct = predicted.eq(it->target).sum().item<int64_t>();
  EXPECT_GT(correct, 450) << correct << " / 500";
}

// A libtorch-style dataset and loader (torch::data spellings).
class Squares : public torch::data::datasets::Dataset<Squares> {
 public:
  torch::data::Example<> get(size_t index) override {
    const auto i = static_cast<int64_t>(index);
    return {torch::full({1}, static_cast<double>(i * i)), torch::full({}, i, torch::kLong)};
  }
  std::optional<size_t> size() const override { return 6; }
};

TEST(DataLoaderTest, LibtorchSpellings) {
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      Squares().map(torch::data::transforms::Stack<>()), torch::data::DataLoaderOptions().batch_size(4).workers(1));
  std::vector<int64_t> sizes;
  for (auto& batch : *loader) sizes.push_back(batch.data.size(0));
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 2}));
  // Without Stack a batch is a vector of examples; the default sampler is a RandomSampler.
  auto shuffled = torch::data::make_data_loader(Squares(), 6);
  EXPECT_EQ(shuffled->options().batch_size, 6u);
  std::multiset<int64_t> seen;
  for (auto& batch : *shuffled) {
    for (auto& e : batch) seen.insert(e.target.item<int64_t>());
  }
  EXPECT_EQ(seen, (std::multiset<int64_t>{0, 1, 2, 3, 4, 5}));
}

// libtorch's loader with worker threads: a worker's exception arrives as WorkerException holding the
// original, batches come in request order, and the loader joins its workers even mid-epoch.
TEST(DataLoaderTest, LibtorchWorkerThreads) {
  struct Fails : torch::data::datasets::Dataset<Fails, int> {
    int get(size_t index) override {
      if (index == 7) throw IndexError("sample 7 is broken");
      return static_cast<int>(index);
    }
    std::optional<size_t> size() const override { return 20; }
  };
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      Fails(), torch::data::DataLoaderOptions(2).workers(3));
  std::vector<int> seen;
  auto it = loader->begin();
  try {
    for (; it != loader->end(); ++it) seen.insert(seen.end(), it->begin(), it->end());
    FAIL() << "no error";
  } catch (const torch::data::WorkerException& e) {
    EXPECT_STREQ(e.what(), "Caught exception in DataLoader worker thread. Original message: sample 7 is broken");
    EXPECT_THROW(std::rethrow_exception(e.original_exception), IndexError);
  }
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

}  // namespace
}  // namespace ctorch
