// libtorch's data loaders: DataLoaderOptions / FullDataLoaderOptions, the shared Iterator<Batch>
// (a lazily started input iterator; every copy shares one position), DataLoaderBase (worker
// threads pulling jobs from a ctorch::data::detail::DataShuttle, results in job order with
// enforce_ordering), StatelessDataLoader (a sampler's requests; each worker owns a copy of the
// dataset), StatefulDataLoader (the dataset keeps its position; workers share it) and
// make_data_loader. A worker's exception is rethrown on the iterating thread as WorkerException
// (the original in original_exception). Workers are joined when the loader is destroyed.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ctorch/data/worker_queue.h"
#include "ctorch/error.h"
#include "ctorch/libtorch/arg.h"
#include "ctorch/libtorch/data/datasets.h"
#include "ctorch/libtorch/data/example.h"
#include "ctorch/libtorch/data/samplers.h"

namespace torch::data {

namespace detail {
using ::ctorch::data::detail::DataShuttle;
using ::ctorch::data::detail::Queue;
namespace sequencers = ::ctorch::data::detail::sequencers;
}  // namespace detail

/// A loader's options as given: unset optional ones take their defaults in FullDataLoaderOptions.
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /// Options with `batch_size`.
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT: implicit as libtorch's
  /// Examples per batch (default 1).
  TORCH_ARG(size_t, batch_size) = 1;
  /// Worker threads (default 0: batches are loaded on the iterating thread).
  TORCH_ARG(size_t, workers) = 0;
  /// Batches requested ahead (default 2 * workers).
  TORCH_ARG(std::optional<size_t>, max_jobs);
  /// How long to wait for a worker's batch before throwing (default: forever).
  TORCH_ARG(std::optional<std::chrono::milliseconds>, timeout);
  /// Hand batches out in request order whatever the workers' timing (default true).
  TORCH_ARG(bool, enforce_ordering) = true;
  /// Drop a last batch smaller than batch_size (default false).
  TORCH_ARG(bool, drop_last) = false;
};

/// DataLoaderOptions with every default filled in.
struct FullDataLoaderOptions {
  /// `options` with max_jobs defaulting to 2 * workers.
  FullDataLoaderOptions(DataLoaderOptions options)  // NOLINT: implicit as libtorch's
      : batch_size(options.batch_size()),
        workers(options.workers()),
        max_jobs(options.max_jobs().value_or(2 * workers)),
        timeout(options.timeout()),
        enforce_ordering(options.enforce_ordering()),
        drop_last(options.drop_last()) {}
  size_t batch_size;                                 ///< Examples per batch.
  size_t workers;                                    ///< Worker threads.
  size_t max_jobs;                                   ///< Batches requested ahead.
  std::optional<std::chrono::milliseconds> timeout;  ///< Wait for a worker's batch at most this long.
  bool enforce_ordering;                             ///< Request order.
  bool drop_last;                                    ///< Drop a last partial batch.
};

namespace detail {
/// An iterator's position: a loader's epoch (lazily started) or the end sentinel.
template <class Batch>
class IteratorState {
 public:
  /// The sentinel.
  IteratorState() = default;
  /// A position in the epoch whose batches `next_batch` produces.
  explicit IteratorState(std::function<std::optional<Batch>()> next_batch) : next_batch_(std::move(next_batch)) {}

  /// Moves to the next batch.
  void next() {
    CTORCH_CHECK(!is_sentinel(), "Incrementing the DataLoader's past-the-end iterator is not allowed");
    lazy_initialize();
    CTORCH_CHECK(batch_.has_value(), "Attempted to increment iterator past the end");
    batch_ = next_batch_();
  }
  /// The current batch.
  Batch& get() {
    CTORCH_CHECK(!is_sentinel(), "Dereferencing the DataLoader's past-the-end iterator is not allowed");
    lazy_initialize();
    CTORCH_CHECK(batch_.has_value(), "Attempted to dereference iterator that was past the end");
    return *batch_;
  }
  /// Sentinels equal each other and exhausted positions; positions equal only themselves.
  bool equals(IteratorState& other) {
    if (is_sentinel() && other.is_sentinel()) return true;
    if (is_sentinel()) return other.exhausted();
    if (other.is_sentinel()) return exhausted();
    return this == &other;
  }

 private:
  bool is_sentinel() const { return !next_batch_; }
  bool exhausted() {
    lazy_initialize();
    return !batch_.has_value();
  }
  void lazy_initialize() {
    if (!initialized_) {
      batch_ = next_batch_();
      initialized_ = true;
    }
  }
  std::function<std::optional<Batch>()> next_batch_;
  std::optional<Batch> batch_;
  bool initialized_ = false;
};
}  // namespace detail

/// A loader's input iterator; copies share one position (incrementing one moves all).
template <class Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;             ///< Iterator trait.
  using value_type = Batch;                           ///< Iterator trait.
  using pointer = Batch*;                             ///< Iterator trait.
  using reference = Batch&;                           ///< Iterator trait.
  using iterator_category = std::input_iterator_tag;  ///< Iterator trait.

  /// Shares `state`.
  explicit Iterator(std::shared_ptr<detail::IteratorState<Batch>> state) : state_(std::move(state)) {}
  /// Loads the next batch.
  Iterator& operator++() {
    state_->next();
    return *this;
  }
  /// The current batch.
  Batch& operator*() { return state_->get(); }
  /// The current batch's members.
  Batch* operator->() { return &state_->get(); }
  /// True for the same position, or for the end and an exhausted position.
  bool operator==(const Iterator& other) const { return state_->equals(*other.state_); }
  /// Not ==.
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  std::shared_ptr<detail::IteratorState<Batch>> state_;
};

/// The machinery shared by both loaders: jobs (batch requests) go to worker threads, results come
/// back in request order (enforce_ordering) or as they finish; without workers, batches are
/// loaded on the iterating thread.
template <class Dataset, class Batch, class BatchRequest>
class DataLoaderBase {
 public:
  using BatchType = Batch;                ///< What the iterator yields.
  using BatchRequestType = BatchRequest;  ///< What a job asks for.

  /// A loader with `options`; `main_thread_dataset` serves batches when there are no workers.
  explicit DataLoaderBase(DataLoaderOptions options, std::unique_ptr<Dataset> main_thread_dataset = nullptr)
      : options_(std::move(options)),
        main_thread_dataset_(std::move(main_thread_dataset)),
        sequencer_(new_sequencer()) {}
  DataLoaderBase(const DataLoaderBase&) = delete;
  DataLoaderBase& operator=(const DataLoaderBase&) = delete;
  /// Joins the workers.
  virtual ~DataLoaderBase() { join(); }

  /// Starts an epoch (only when no other iterator is still in flight).
  Iterator<Batch> begin() {
    CTORCH_CHECK(shuttle_.in_flight_jobs() == 0,
                 "Attempted to get a new DataLoader iterator while another iterator is not yet exhausted");
    reset();
    return Iterator<Batch>(std::make_shared<detail::IteratorState<Batch>>([this] { return this->next(); }));
  }
  /// The end of any epoch.
  Iterator<Batch> end() { return Iterator<Batch>(std::make_shared<detail::IteratorState<Batch>>()); }

  /// Drops outstanding jobs, tells the workers to quit and joins them (idempotent).
  void join() {
    if (joined_) return;
    joined_ = true;
    try {
      shuttle_.drain();
    } catch (...) {  // a timed-out drain must not stop the join
    }
    for (size_t w = 0; w < workers_.size(); ++w) push_job(QuitWorker());
    for (std::thread& t : workers_) {
      if (t.joinable()) t.join();
    }
  }
  /// The options, defaults filled in.
  const FullDataLoaderOptions& options() const noexcept { return options_; }

 protected:
  /// A job or result's position in the epoch.
  struct Sequenced {
    Sequenced() = default;
    explicit Sequenced(size_t n) : sequence_number(n) {}
    size_t sequence_number = 0;  ///< Its index among the epoch's jobs.
  };
  /// Tells a worker to exit.
  struct QuitWorker {};
  /// A batch request or a quit order.
  struct Job : Sequenced {
    Job() = default;
    Job(QuitWorker q, size_t n) : Sequenced(n), quit(q) {}
    Job(BatchRequest&& r, size_t n) : Sequenced(n), batch_request(std::move(r)) {}
    std::optional<QuitWorker> quit;             ///< Set for a quit order.
    std::optional<BatchRequest> batch_request;  ///< Set for a batch request.
  };
  /// A worker's batch (nullopt: a stateful dataset's end) or exception.
  struct Result : Sequenced {
    Result() = default;
    Result(std::optional<Batch>&& b, size_t n) : Sequenced(n), batch(std::move(b)) {}
    Result(std::exception_ptr e, size_t n) : Sequenced(n), exception(std::move(e)) {}
    std::optional<Batch> batch;    ///< The batch.
    std::exception_ptr exception;  ///< The worker's exception.
  };

  /// The next batch request; nullopt at the end of the epoch.
  virtual std::optional<BatchRequest> get_batch_request() = 0;

  /// Starts an epoch: drains the previous one and requests max_jobs batches.
  virtual void reset() {
    shuttle_.drain();
    sequence_number_ = 0;
    sequencer_ = new_sequencer();
    prefetch();
  }

  /// Requests up to `requested_jobs` more batches.
  void prefetch(size_t requested_jobs) {
    for (size_t r = 0; r < requested_jobs; ++r) {
      std::optional<BatchRequest> request = get_batch_request();
      if (!request) break;
      push_job(std::move(*request));
    }
  }
  /// Requests max_jobs batches.
  void prefetch() { prefetch(options_.max_jobs); }

  /// The next batch of the epoch; nullopt at its end.
  std::optional<Batch> next() {
    if (options_.workers > 0) {
      while (std::optional<Result> result = pop_result()) {
        if (result->exception) throw WorkerException(result->exception);
        if (result->batch) {
          prefetch(1);
          return std::move(result->batch);
        }
      }
    } else if (std::optional<BatchRequest> request = get_batch_request()) {
      return main_thread_dataset_->get_batch(std::move(*request));
    }
    return std::nullopt;
  }

  /// A worker's loop: load the batch of each job on `dataset` until told to quit.
  void worker_thread(Dataset& dataset) {
    while (true) {
      Job job = shuttle_.pop_job();
      if (job.quit) break;
      try {
        std::optional<Batch> batch(dataset.get_batch(std::move(*job.batch_request)));
        shuttle_.push_result(Result(std::move(batch), job.sequence_number));
      } catch (...) {
        shuttle_.push_result(Result(std::current_exception(), job.sequence_number));
      }
    }
  }

  /// Queues a job numbered with the next sequence number.
  template <class T>
  void push_job(T value) {
    shuttle_.push_job(Job(std::move(value), sequence_number_++));
  }
  /// The next result, in the sequencer's order.
  std::optional<Result> pop_result() {
    return sequencer_->next([this] { return shuttle_.pop_result(options_.timeout); });
  }
  /// Ordered with enforce_ordering (a ring of max_jobs), else as results arrive.
  std::unique_ptr<detail::sequencers::Sequencer<Result>> new_sequencer() {
    if (options_.enforce_ordering) {
      return std::make_unique<detail::sequencers::OrderedSequencer<Result>>(std::max<size_t>(options_.max_jobs, 1));
    }
    return std::make_unique<detail::sequencers::NoSequencer<Result>>();
  }

  const FullDataLoaderOptions options_;           ///< The options.
  std::unique_ptr<Dataset> main_thread_dataset_;  ///< Serves batches without workers (and resets stateful ones).
  size_t sequence_number_ = 0;                    ///< The next job's number.
  std::vector<std::thread> workers_;              ///< The worker threads.
  detail::DataShuttle<Job, Result> shuttle_;      ///< Jobs out, results back.
  std::unique_ptr<detail::sequencers::Sequencer<Result>> sequencer_;  ///< Result order.
  bool joined_ = false;                                               ///< True after join().
};

/// A loader of a stateless dataset: batches are the dataset's answers to a sampler's requests.
/// Each worker thread owns a copy of the dataset.
template <class Dataset, class Sampler>
class StatelessDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType,
                                                  typename Sampler::BatchRequestType> {
 public:
  using super = DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType>;
  using typename super::BatchRequestType;

  /// Starts `options.workers` threads, each with a copy of `dataset`.
  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : super(std::move(options)), sampler_(std::move(sampler)) {
    try {
      for (size_t w = 0; w < this->options_.workers; ++w) {
        this->workers_.emplace_back([this, copy = dataset]() mutable { this->worker_thread(copy); });
      }
    } catch (...) {
      this->join();
      throw;
    }
    if (this->options_.workers == 0) this->main_thread_dataset_ = std::make_unique<Dataset>(std::move(dataset));
  }
  /// Joins the workers before the sampler goes.
  ~StatelessDataLoader() override { this->join(); }

 private:
  void reset() override {
    sampler_.reset();
    super::reset();  // last: it prefetches from the sampler
  }
  std::optional<BatchRequestType> get_batch_request() override {
    auto request = sampler_.next(this->options_.batch_size);
    if (!request || (request->size() < this->options_.batch_size && this->options_.drop_last)) return std::nullopt;
    CTORCH_INTERNAL_ASSERT(request->size() > 0);
    return request;
  }

  Sampler sampler_;
};

/// A loader of a stateful dataset: each request is the batch size, the dataset decides what comes
/// next and ends the epoch with nullopt. Worker threads share the dataset (make it a
/// SharedBatchDataset, thread-safe).
template <class Dataset>
class StatefulDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                                                 typename Dataset::BatchRequestType> {
 public:
  using super =
      DataLoaderBase<Dataset, typename Dataset::BatchType::value_type, typename Dataset::BatchRequestType>;
  using typename super::BatchRequestType;

  /// Keeps a copy of `dataset` and starts `options.workers` threads that use it.
  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : super(std::move(options), std::make_unique<Dataset>(std::move(dataset))) {
    try {
      for (size_t w = 0; w < this->options_.workers; ++w) {
        this->workers_.emplace_back([this] { this->worker_thread(*this->main_thread_dataset_); });
      }
    } catch (...) {
      this->join();
      throw;
    }
  }
  /// Joins the workers.
  ~StatefulDataLoader() override { this->join(); }

 private:
  void reset() override {
    this->main_thread_dataset_->reset();
    super::reset();  // last: it prefetches
  }
  std::optional<BatchRequestType> get_batch_request() override { return this->options_.batch_size; }
};

/// A stateless loader over `dataset` with `sampler`.
template <class Sampler, class Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                        DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}

/// A stateless loader over a sized `dataset` with a Sampler(size) (RandomSampler by default).
template <class Sampler = samplers::RandomSampler, class Dataset>
  requires(!Dataset::is_stateful)
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  CTORCH_CHECK(size.has_value(), "Expected the dataset to be sized in order to construct the Sampler");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

/// A stateful loader over `dataset`.
template <class Dataset>
  requires(Dataset::is_stateful)
std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(Dataset dataset,
                                                              DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), std::move(options));
}

}  // namespace torch::data
