// A small fixed thread pool. One parallel region runs at a time (others wait); the caller runs
// task 0..k like any worker, so a region of n tasks wakes n-1 workers. Workers sleep on a
// condition variable between regions. OpenBLAS gets the same thread count, and since BLAS calls
// are made from the caller outside of parallel regions the two pools never run at once.
#include "backends/cpu/parallel.h"

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/parallel.h"

extern "C" void openblas_set_num_threads(int num_threads);

namespace ctorch::inline api::backends::cpu {
namespace {

thread_local bool t_in_region = false;

class ThreadPool {
 public:
  static ThreadPool& instance() {
    static auto* pool = new ThreadPool();  // leaked on purpose: workers may outlive static dtors
    return *pool;
  }

  int threads() const { return threads_.load(std::memory_order_relaxed); }

  void set_threads(int n) {
    std::lock_guard<std::mutex> region(region_mutex_);
    std::unique_lock<std::mutex> lock(mutex_);
    while (static_cast<int>(workers_.size()) < n - 1) {
      workers_.emplace_back([this, id = workers_.size() + 1] { worker_loop(static_cast<int64_t>(id)); });
    }
    threads_.store(n, std::memory_order_relaxed);
  }

  void run(int64_t n_tasks, const std::function<void(int64_t)>& task) {
    std::lock_guard<std::mutex> region(region_mutex_);
    uint64_t gen;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      n_tasks_ = n_tasks;
      next_ = 0;
      pending_ = n_tasks;
      error_ = nullptr;
      gen = ++generation_;
    }
    cv_.notify_all();
    t_in_region = true;
    drain(gen);
    t_in_region = false;
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  ThreadPool() {
    // Cores this process may run on (the affinity mask), not all cores of the machine.
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
                                                         : static_cast<int>(std::thread::hardware_concurrency());
    if (const char* env = std::getenv("OMP_NUM_THREADS")) n = std::atoi(env);
    if (n < 1) n = 1;
    set_threads(n);
  }

  // Claims tasks of region `gen` until none are left; a late worker finds the generation moved on.
  void drain(uint64_t gen) {
    for (;;) {
      const std::function<void(int64_t)>* task;
      int64_t i;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (generation_ != gen || task_ == nullptr || next_ >= n_tasks_) return;
        i = next_++;
        task = task_;
      }
      try {
        (*task)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_cv_.notify_all();
    }
  }

  void worker_loop(int64_t) {
    t_in_region = true;
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return generation_ != seen && task_ != nullptr; });
        seen = generation_;
      }
      drain(seen);
    }
  }

  std::mutex region_mutex_;  // one parallel region at a time
  std::mutex mutex_;         // guards task_, n_tasks_, next_, pending_, error_, generation_, workers_
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  const std::function<void(int64_t)>* task_ = nullptr;
  int64_t n_tasks_ = 0;
  int64_t next_ = 0;
  int64_t pending_ = 0;
  uint64_t generation_ = 0;
  std::exception_ptr error_;
  std::atomic<int> threads_{1};
};

}  // namespace

void run_tasks(int64_t n_tasks, const std::function<void(int64_t)>& task) {
  if (n_tasks <= 1 || t_in_region) {
    for (int64_t i = 0; i < n_tasks; ++i) task(i);
    return;
  }
  ThreadPool::instance().run(n_tasks, task);
}

int num_threads() { return ThreadPool::instance().threads(); }
bool in_parallel_region() { return t_in_region; }

}  // namespace ctorch::api::backends::cpu

namespace ctorch::inline api {

void set_num_threads(int n) {
  CTORCH_CHECK_VALUE(n > 0, "set_num_threads expects a positive integer, but got ", n);
  backends::cpu::ThreadPool::instance().set_threads(n);
  openblas_set_num_threads(n);
}

int get_num_threads() { return backends::cpu::num_threads(); }

}  // namespace ctorch::api
