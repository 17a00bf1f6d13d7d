// libtorch's ChunkDataset: a stateful dataset over data stored in chunks (files, shards). Preloader
// threads take chunk indices from a chunk sampler, read the chunks with a ChunkDataReader, reorder
// each chunk's examples with an example sampler and cut them into batches in a bounded buffer
// (BatchDataBuffer); get_batch() takes the next batch, nullopt when every chunk is consumed.
// Threads: preloaders start at reset() and are stopped and joined at the next reset() and at
// destruction; the chunk sampler is used under a mutex, the buffer under its own; read_chunk is
// called from several preloaders at once (preloader_count > 1), as in libtorch.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <utility>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/libtorch/arg.h"
#include "ctorch/libtorch/data/datasets.h"
#include "ctorch/libtorch/data/example.h"
#include "ctorch/libtorch/data/samplers.h"

namespace torch::data::datasets {

/// Reads whole chunks of examples; subclass it for a storage format.
template <class ExampleType_, class ChunkType_ = std::vector<ExampleType_>>
class ChunkDataReader {
 public:
  using ChunkType = ChunkType_;      ///< One chunk of examples.
  using ExampleType = ExampleType_;  ///< One example.
  using BatchType = ChunkType;       ///< A batch has the chunk's type.
  virtual ~ChunkDataReader() = default;
  /// The examples of chunk `chunk_index`.
  virtual ChunkType read_chunk(size_t chunk_index) = 0;
  /// The number of chunks.
  virtual size_t chunk_count() = 0;
  /// Called at the start of each epoch.
  virtual void reset() = 0;
};

namespace detail {

/// Batches cut from preloaded chunks, at most about `queue_capacity` examples at a time.
template <class UnwrappedBatch, class ExampleSampler = samplers::RandomSampler>
class BatchDataBuffer {
 public:
  using UnwrappedBatchType = UnwrappedBatch;                            ///< A batch.
  using BatchType = std::optional<UnwrappedBatchType>;                  ///< A batch or the end.
  using BatchRequestType = typename ExampleSampler::BatchRequestType;  ///< The sampler's indices.

  /// Batches of `batch_size`, examples ordered by `example_sampler` (used under the buffer's lock).
  BatchDataBuffer(size_t batch_size, ExampleSampler& example_sampler, size_t queue_capacity)
      : batch_size_(batch_size), example_sampler_(example_sampler), queue_capacity_(queue_capacity) {}

  /// The next batch, waiting for a full one (a partial one once stopped); nullopt when stopped and
  /// empty. A preloader's exception is rethrown as WorkerException.
  BatchType get_batch() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_read_.wait(lock, [this] {
      return total_example_count_in_queue_ >= batch_size_ || stop_ ||
             (!batch_queue_.empty() && batch_queue_.front().exception);
    });
    if (batch_queue_.empty()) return std::nullopt;
    Entry entry = std::move(batch_queue_.front());
    batch_queue_.pop();
    if (entry.exception) {
      lock.unlock();
      cv_write_.notify_all();
      throw WorkerException(entry.exception);
    }
    total_example_count_in_queue_ -= entry.batch_data.size();
    lock.unlock();
    cv_write_.notify_all();
    return std::move(entry.batch_data);
  }

  /// Adds a chunk's examples (waiting while the buffer is full): first topping up the last
  /// partial batch, then in new batches. Nothing is added once stopped.
  void add_chunk_data(UnwrappedBatchType data) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_write_.wait(lock, [this] { return total_example_count_in_queue_ < queue_capacity_ || stop_; });
    if (stop_) return;
    const size_t data_size = data.size();
    size_t remaining = data_size;
    example_sampler_.reset(data_size);
    auto fill = [&](size_t count, UnwrappedBatchType& batch) {
      auto indices = example_sampler_.next(count);
      CTORCH_INTERNAL_ASSERT(indices.has_value() && indices->size() == count);
      for (const size_t i : *indices) {
        CTORCH_CHECK(i < data_size, "Index out of range");
        batch.emplace_back(std::move(data[i]));
      }
      remaining -= count;
    };
    if (!batch_queue_.empty() && !batch_queue_.back().exception) {
      UnwrappedBatchType& last = batch_queue_.back().batch_data;
      if (last.size() < batch_size_) fill(std::min(remaining, batch_size_ - last.size()), last);
    }
    while (remaining > 0) {
      UnwrappedBatchType batch;
      batch.reserve(batch_size_);
      fill(std::min(remaining, batch_size_), batch);
      batch_queue_.emplace(std::move(batch));
    }
    total_example_count_in_queue_ += data_size;
    lock.unlock();
    cv_read_.notify_all();
  }

  /// Queues a preloader's exception for get_batch() to rethrow.
  void add_chunk_data(std::exception_ptr error) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_write_.wait(lock, [this] { return total_example_count_in_queue_ < queue_capacity_ || stop_; });
    if (stop_) return;
    batch_queue_.emplace(std::move(error));
    lock.unlock();
    cv_read_.notify_all();
  }

  /// Wakes every waiter: readers get what is left then nullopt, writers give up.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_write_.notify_all();
    cv_read_.notify_all();
  }

 private:
  struct Entry {
    explicit Entry(UnwrappedBatchType data) : batch_data(std::move(data)) {}
    explicit Entry(std::exception_ptr e) : exception(std::move(e)) {}
    UnwrappedBatchType batch_data;
    std::exception_ptr exception;
  };

  size_t batch_size_;
  ExampleSampler& example_sampler_;
  size_t queue_capacity_;
  size_t total_example_count_in_queue_ = 0;
  std::queue<Entry> batch_queue_;
  std::mutex mutex_;
  std::condition_variable cv_read_;
  std::condition_variable cv_write_;
  bool stop_ = false;
};

}  // namespace detail

/// ChunkDataset's options: preloader threads, batch size, buffer size in examples, and how many
/// chunks are read together and shuffled across (cross_chunk_shuffle_count).
struct ChunkDatasetOptions {
  ChunkDatasetOptions() = delete;
  /// Checks each value as libtorch does.
  ChunkDatasetOptions(size_t preloader_count, size_t batch_size, size_t cache_size = 2048,
                      size_t cross_chunk_shuffle_count = 1)
      : preloader_count_(preloader_count),
        batch_size_(batch_size),
        cache_size_(cache_size),
        cross_chunk_shuffle_count_(cross_chunk_shuffle_count) {
    CTORCH_CHECK(preloader_count_ > 0, "Preloader count is 0. At least one preloader needs to be specified.");
    CTORCH_CHECK(batch_size_ > 0, "Batch size is 0. A positive batch size needs to be specified.");
    CTORCH_CHECK(cache_size_ > 0, "Cache size is 0. A positive cache size needs to be specified.");
    CTORCH_CHECK(cache_size_ >= batch_size_,
                 "Cache size is less than batch size. Cache needs to be large enough to hold at least one batch.");
    CTORCH_CHECK(cross_chunk_shuffle_count_ > 0, "cross_chunk_shuffle_count needs to be greater than 0.");
  }
  /// Threads reading chunks.
  TORCH_ARG(size_t, preloader_count);
  /// Examples per batch.
  TORCH_ARG(size_t, batch_size);
  /// Examples the buffer holds before preloaders wait.
  TORCH_ARG(size_t, cache_size) = 2048;
  /// Chunks read together whose examples the example sampler reorders as one.
  TORCH_ARG(size_t, cross_chunk_shuffle_count) = 1;
};

/// A stateful dataset of batches preloaded from chunks (see the file comment).
template <class ChunkReader, class ChunkSampler = samplers::RandomSampler,
          class ExampleSampler = samplers::RandomSampler>
class ChunkDataset final
    : public StatefulDataset<ChunkDataset<ChunkReader, ChunkSampler, ExampleSampler>,
                             typename ChunkReader::BatchType, size_t> {
 public:
  using BatchType = std::optional<typename ChunkReader::BatchType>;  ///< A batch or the end.
  using UnwrappedBatchType = typename ChunkReader::BatchType;        ///< A batch.
  using BatchRequestType = size_t;                                   ///< The batch size.
  using ChunkSamplerType = ChunkSampler;                             ///< Orders chunks.
  using ExampleSamplerType = ExampleSampler;                         ///< Orders examples in chunks.

  /// Reads with `chunk_reader`; `preprocessing_policy` (if any) edits each chunk before batching.
  ChunkDataset(ChunkReader chunk_reader, ChunkSampler chunk_sampler, ExampleSampler example_sampler,
               ChunkDatasetOptions options,
               std::function<void(UnwrappedBatchType&)> preprocessing_policy = {})
      : chunk_reader_(std::move(chunk_reader)),
        chunk_sampler_(std::move(chunk_sampler)),
        example_sampler_(std::move(example_sampler)),
        options_(std::move(options)),
        preprocessing_policy_(std::move(preprocessing_policy)) {}
  ChunkDataset(const ChunkDataset&) = delete;
  ChunkDataset& operator=(const ChunkDataset&) = delete;
  /// Stops and joins the preloaders.
  ~ChunkDataset() override { stop_preloaders(); }

  /// The next batch (`batch_size` must be the options' batch size); nullopt at the end of the epoch.
  BatchType get_batch(size_t batch_size) override {
    CTORCH_CHECK(batch_buffer_ != nullptr, "Dataset needs to call reset() before calling get_batch().");
    CTORCH_CHECK(batch_size == options_.batch_size(),
                 "The requested batch size does not match with the initialized batch size.\n"
                 " The requested batch size is ",
                 batch_size, ", while the dataset is created with batch size equal to ", options_.batch_size());
    return batch_buffer_->get_batch();
  }
  /// The next batch of the options' batch size.
  BatchType get_batch() { return get_batch(options_.batch_size()); }

  /// Starts an epoch: stops the previous preloaders, resets the reader and the chunk sampler
  /// (unless a checkpoint was just loaded) and starts preloader_count new ones.
  void reset() override {
    stop_preloaders();
    if (!load_checkpoint_) {
      chunk_reader_.reset();
      chunk_sampler_.reset(chunk_reader_.chunk_count());
    }
    load_checkpoint_ = false;
    batch_buffer_ = std::make_unique<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSamplerType>>(
        options_.batch_size(), example_sampler_, options_.cache_size());
    quit_ = false;
    running_preloaders_ = options_.preloader_count();
    for (size_t i = 0; i < options_.preloader_count(); ++i) preload_threads_.emplace_back([this] { preloader(); });
  }
  /// Unknown: nullopt.
  std::optional<size_t> size() const override { return std::nullopt; }
  /// The chunk sampler.
  ChunkSamplerType& chunk_sampler() { return chunk_sampler_; }
  /// Writes the chunk sampler's state.
  void save(serialize::OutputArchive& archive) const override {
    std::lock_guard<std::mutex> lock(chunk_index_guard_);
    chunk_sampler_.save(archive);
  }
  /// Reads the chunk sampler's state; the next reset() continues from it.
  void load(serialize::InputArchive& archive) override {
    std::lock_guard<std::mutex> lock(chunk_index_guard_);
    chunk_sampler_.load(archive);
    load_checkpoint_ = true;
  }

 private:
  // Reads chunk groups until the chunk sampler is exhausted or quit_ is set; the last preloader
  // to finish stops the buffer, so get_batch() hands out what is left and then nullopt.
  void preloader() {
    while (!quit_.load()) {
      try {
        std::vector<size_t> chunks;
        {
          std::lock_guard<std::mutex> lock(chunk_index_guard_);
          auto next = chunk_sampler_.next(options_.cross_chunk_shuffle_count());
          if (!next) break;
          chunks = std::move(*next);
        }
        UnwrappedBatchType data = chunk_reader_.read_chunk(chunks.at(0));
        for (size_t i = 1; i < chunks.size(); ++i) {
          UnwrappedBatchType more = chunk_reader_.read_chunk(chunks[i]);
          std::move(more.begin(), more.end(), std::back_inserter(data));
        }
        if (preprocessing_policy_) preprocessing_policy_(data);
        if (!data.empty()) batch_buffer_->add_chunk_data(std::move(data));
      } catch (...) {
        batch_buffer_->add_chunk_data(std::current_exception());
      }
    }
    if (--running_preloaders_ == 0) batch_buffer_->stop();
  }

  void stop_preloaders() {
    quit_ = true;
    if (batch_buffer_) batch_buffer_->stop();
    for (std::thread& t : preload_threads_) {
      if (t.joinable()) t.join();
    }
    preload_threads_.clear();
  }

  ChunkReader chunk_reader_;
  ChunkSamplerType chunk_sampler_;
  ExampleSamplerType example_sampler_;
  const ChunkDatasetOptions options_;
  std::function<void(UnwrappedBatchType&)> preprocessing_policy_;
  std::unique_ptr<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSamplerType>> batch_buffer_;
  std::vector<std::thread> preload_threads_;
  std::atomic<bool> quit_{false};
  std::atomic<size_t> running_preloaders_{0};
  mutable std::mutex chunk_index_guard_;
  bool load_checkpoint_ = false;
};

}  // namespace torch::data::datasets
