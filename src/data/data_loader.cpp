// DataLoader (ctorch/data.h): the sampler order, batching, worker threads and pinning.
//
// Note [DataLoader random draws]: each begin() draws from the generators exactly what PyTorch
// 1.13's DataLoader draws per epoch, so that shuffled orders equal Python's for the same seed:
//   1. _BaseDataLoaderIter: base_seed = torch.empty((), dtype=torch.int64).random_(generator=g)
//      from the loader's generator g (the global generator when none is set);
//   2. RandomSampler.__iter__ (shuffle only): without g, a fresh Generator seeded with another
//      int64 random_() of the global generator; then torch.randperm(n, generator=...) for the
//      epoch's order, and one more randperm when the sampler is exhausted (its
//      `yield from torch.randperm(n)[:num_samples % n]`), which Python draws at the end of the epoch.
// ctorch makes all of them at begin(); the sequence on each generator is the same. base_seed only
// seeds worker processes in Python; worker threads here share the process's generators, so it
// is drawn and dropped.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "core/error_rethrow.h"
#include "ctorch/cuda.h"
#include "ctorch/data.h"
#include "ctorch/factories.h"
#include "ctorch/random.h"

namespace ctorch::data {

Sampler::~Sampler() = default;

namespace {

int64_t draw_int64(const Generator& g) {
  Tensor t = empty({}, TensorOptions().dtype(kLong));
  t.random_(0, std::nullopt, g);
  return t.item<int64_t>();
}

// Re-raises a worker's error in the consumer with the same ctorch type, naming the worker (as
// Python's ExceptionWrapper.reraise: "Caught ValueError in DataLoader worker process 0.").
[[noreturn]] void rethrow_from_worker(const std::exception_ptr& error, int64_t worker) {
  ::ctorch::detail::rethrow_with_message(error, [worker](const char* type, const char* what) {
    return ::ctorch::detail::str_cat("Caught ", type, " in DataLoader worker thread ", worker, ".\nOriginal message: ",
                                     what);
  });
}

}  // namespace

namespace detail {

// One epoch: its sample order, its position and (with workers) the threads loading ahead.
class Epoch {
 public:
  Epoch(std::shared_ptr<Dataset> dataset, const DataLoaderOptions& options, std::vector<int64_t> order,
        size_t num_batches)
      : dataset_(std::move(dataset)),
        order_(std::move(order)),
        batch_size_(static_cast<size_t>(options.batch_size())),
        num_batches_(num_batches),
        pin_(options.pin_memory() && cuda::is_available()),
        num_workers_(static_cast<size_t>(options.num_workers())),
        prefetch_(static_cast<size_t>(options.prefetch_factor())),
        timeout_(options.timeout()) {
    if (num_workers_ == 0) return;
    queues_.resize(num_workers_);
    threads_.reserve(num_workers_);
    try {
      for (size_t w = 0; w < num_workers_; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
    } catch (...) {
      stop();
      throw;
    }
  }
  Epoch(const Epoch&) = delete;
  Epoch& operator=(const Epoch&) = delete;
  ~Epoch() { stop(); }

  // Makes the next batch current; false at the end of the epoch. A worker's error for that batch
  // is rethrown here (the epoch then continues with the batch after it).
  bool advance() {
    current_ = Example{};
    if (next_ >= num_batches_) return false;
    if (num_workers_ == 0) {
      current_ = load(next_++);
      return true;
    }
    const size_t w = next_ % num_workers_;
    Slot slot;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto ready = [&] { return !queues_[w].empty(); };
      if (timeout_ > 0) {
        // Python's _MultiProcessingDataLoaderIter._try_get_data text; the batch stays next.
        CTORCH_CHECK(ready_.wait_for(lock, std::chrono::duration<double>(timeout_), ready),
                     "DataLoader timed out after ", timeout_, " seconds");
      } else {
        ready_.wait(lock, ready);
      }
      slot = std::move(queues_[w].front());
      queues_[w].pop_front();
      ++next_;
    }
    ready_.notify_all();
    if (slot.error) rethrow_from_worker(slot.error, static_cast<int64_t>(w));
    current_ = std::move(slot.batch);
    return true;
  }

  Example& current() { return current_; }

 private:
  struct Slot {
    Example batch;
    std::exception_ptr error;
  };

  // Batch b: the examples of order_[b * batch_size, ...) stacked, then pinned if asked.
  Example load(size_t b) const {
    const size_t begin = b * batch_size_;
    const size_t end = std::min(begin + batch_size_, order_.size());
    std::vector<Example> examples;
    examples.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) examples.push_back(dataset_->get(static_cast<size_t>(order_[i])));
    Example batch = collate(examples);
    if (pin_) {
      batch.data = batch.data.pin_memory();
      if (batch.target.defined()) batch.target = batch.target.pin_memory();
    }
    return batch;
  }

  // Worker w loads batches w, w + W, w + 2W, ... keeping at most prefetch_factor of them queued.
  void worker_loop(size_t w) {
    for (size_t b = w; b < num_batches_; b += num_workers_) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || queues_[w].size() < prefetch_; });
        if (stopping_) return;
      }
      Slot slot;
      try {
        slot.batch = load(b);
      } catch (...) {
        slot.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) return;
        queues_[w].push_back(std::move(slot));
      }
      ready_.notify_all();
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

  std::shared_ptr<Dataset> dataset_;
  std::vector<int64_t> order_;
  size_t batch_size_;
  size_t num_batches_;
  bool pin_;
  size_t num_workers_;
  size_t prefetch_;
  double timeout_;
  size_t next_ = 0;
  Example current_;

  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::deque<Slot>> queues_;  // per worker, in batch order
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace detail

// ---- DataLoader ---------------------------------------------------------------------------------

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  CTORCH_CHECK_VALUE(dataset_ != nullptr, "DataLoader: the dataset is null");
  CTORCH_CHECK_VALUE(options_.batch_size() > 0, "batch_size should be a positive integer value, but got batch_size=",
                     options_.batch_size());
  CTORCH_CHECK_VALUE(options_.num_workers() >= 0,
                     "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  CTORCH_CHECK_VALUE(options_.num_workers() > 0 || options_.prefetch_factor() == 2,
                     "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to "
                     "enable multiprocessing.");
  CTORCH_CHECK_VALUE(options_.timeout() >= 0, "timeout option should be non-negative");
  CTORCH_CHECK_VALUE(options_.num_workers() > 0 || options_.timeout() == 0,
                     "timeout option could only be specified with num_workers > 0 (it bounds the wait for a worker)");
  CTORCH_CHECK_VALUE(options_.prefetch_factor() > 0, "prefetch_factor should be positive, but got prefetch_factor=",
                     options_.prefetch_factor());
  const std::optional<size_t> n = dataset_->size();
  CTORCH_CHECK_TYPE(n.has_value(), "DataLoader needs a dataset with a size (Dataset::size() returned nullopt)");
  dataset_size_ = *n;
  CTORCH_CHECK_VALUE(!options_.shuffle() || dataset_size_ > 0,
                     "num_samples should be a positive integer value, but got num_samples=", dataset_size_);
  CTORCH_CHECK_VALUE(options_.sampler() == nullptr || !options_.shuffle(),
                     "sampler option is mutually exclusive with shuffle");
  if (options_.sampler()) dataset_size_ = options_.sampler()->size();
  if (options_.generator()) {
    CTORCH_CHECK_VALUE(options_.generator()->device().is_cpu(),
                       "DataLoader: the generator must be a cpu generator, got one for ",
                       options_.generator()->device().str());
  }
}

size_t DataLoader::size() const {
  const auto bs = static_cast<size_t>(options_.batch_size());
  return options_.drop_last() ? dataset_size_ / bs : (dataset_size_ + bs - 1) / bs;
}

DataLoader::Iterator DataLoader::begin() {
  // Note [DataLoader random draws].
  const Generator loader_gen = options_.generator() ? *options_.generator() : default_generator();
  (void)draw_int64(loader_gen);
  std::vector<int64_t> order(dataset_size_);
  if (options_.sampler()) {
    order = options_.sampler()->indices();
    CTORCH_CHECK_VALUE(order.size() == dataset_size_, "DataLoader: the sampler yielded ", order.size(),
                       " indices, but its size() is ", dataset_size_);
    const size_t n = *dataset_->size();
    for (int64_t i : order) {
      CTORCH_CHECK_INDEX(i >= 0 && static_cast<size_t>(i) < n, "DataLoader: the sampler yielded index ", i,
                         " for a dataset of size ", n);
    }
  } else if (options_.shuffle()) {
    Generator sampler_gen;
    if (options_.generator()) {
      sampler_gen = *options_.generator();
    } else {
      sampler_gen.manual_seed(static_cast<uint64_t>(draw_int64(default_generator())));
    }
    const auto n = static_cast<int64_t>(dataset_size_);
    const Tensor perm = randperm(n, TensorOptions().dtype(kLong), sampler_gen);
    const int64_t* p = perm.data_ptr<int64_t>();
    order.assign(p, p + n);
    (void)randperm(n, TensorOptions().dtype(kLong), sampler_gen);
  } else {
    for (size_t i = 0; i < dataset_size_; ++i) order[i] = static_cast<int64_t>(i);
  }
  auto epoch = std::make_shared<detail::Epoch>(dataset_, options_, std::move(order), size());
  if (!epoch->advance()) return Iterator();
  return Iterator(std::move(epoch));
}

DataLoader::Iterator::Iterator(std::shared_ptr<detail::Epoch> epoch) : epoch_(std::move(epoch)) {}

Example& DataLoader::Iterator::operator*() const {
  CTORCH_CHECK_INDEX(epoch_ != nullptr, "DataLoader iterator: dereferencing the end");
  return epoch_->current();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  CTORCH_CHECK_INDEX(epoch_ != nullptr, "DataLoader iterator: incrementing past the end");
  if (!epoch_->advance()) epoch_.reset();
  return *this;
}

bool DataLoader::Iterator::operator==(const Iterator& other) const { return epoch_ == other.epoch_; }

}  // namespace ctorch::data
