// ProcessGroupGloo (ctorch/distributed.h): collectives over Gloo's TCP transport.
//
// Note [Gloo work queue]: each group owns one worker thread that runs its collectives in the order
// they were called (so every rank runs them in the same order, as Gloo requires); a call returns a
// Work at once and the synchronous API waits on it. cuda tensors are staged through host memory,
// since Gloo is host-side: the caller's thread copies them to the host at the call (a blocking copy,
// ordered after the work already queued on the tensor's current stream), the worker runs Gloo on
// the host copies and writes the results back with copy_ on the stream that was current at the call.
// A failed collective (a peer closed its connection, or nothing arrived within the timeout) fails
// its Work with DistBackendError naming this rank, the op, its sequence number and the ranks that did
// not report the failure (Note [Failure report]), and leaves the group broken: later calls fail at
// once with the first error instead of hanging.
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "ctorch/cuda_stream.h"
#include "ctorch/ops.h"
#include "ctorch/distributed.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "distributed/collective_checks.h"

namespace ctorch::distributed {

Work::~Work() = default;
ProcessGroup::~ProcessGroup() = default;

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::AVG: return "AVG";
  }
  return "?";
}

namespace {

// gloo::rendezvous::Store over a ctorch Store (the rendezvous of connectFullMesh).
class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    const std::vector<uint8_t> v = store_->get(key);
    return std::vector<char>(v.begin(), v.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// A collective's completion. Its error is kept as a message and each wait() throws a fresh
// DistBackendError: no exception object is shared between the worker and the waiting threads.
class GlooWork : public Work {
 public:
  /// A work whose future's value will be `outputs`.
  explicit GlooWork(std::vector<Tensor> outputs) : outputs_(std::move(outputs)) {}
  bool wait(std::optional<std::chrono::milliseconds> timeout) override {
    std::string error;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (timeout) {
        if (!cv_.wait_for(lock, *timeout, [&] { return done_; })) {
          throw DistBackendError("Work timed out after " + std::to_string(timeout->count()) + "ms in wait()");
        }
      } else {
        cv_.wait(lock, [&] { return done_; });
      }
      if (!failed_) return true;
      error = error_;
    }
    throw DistBackendError(error);
  }
  bool is_completed() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_;
  }
  bool is_success() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_ && !failed_;
  }
  std::exception_ptr exception() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return failed_ ? std::make_exception_ptr(DistBackendError(error_)) : nullptr;
  }
  std::shared_ptr<Future> get_future() override { return future_; }
  /// Marks the work done; a non-empty `error` fails it. Completes the future last (its callbacks run here).
  void finish(std::optional<std::string> error) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
      failed_ = error.has_value();
      if (error) error_ = *error;
    }
    cv_.notify_all();
    if (error) {
      future_->set_error(std::make_exception_ptr(DistBackendError(*error)));
    } else {
      future_->mark_completed(std::move(outputs_));
    }
  }

 private:
  std::vector<Tensor> outputs_;  // the future's value (worker thread only)
  std::shared_ptr<Future> future_ = std::make_shared<Future>();
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;    // guarded by mutex_
  bool failed_ = false;  // guarded by mutex_
  std::string error_;    // guarded by mutex_
};

template <class F>
void dispatch_gloo_type(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kFloat: f(float{}); return;
    case kDouble: f(double{}); return;
    case kLong: f(int64_t{}); return;
    case kInt: f(int32_t{}); return;
    case kShort: f(int16_t{}); return;
    case kChar: f(int8_t{}); return;
    case kByte: f(uint8_t{}); return;
    default: break;
  }
  CTORCH_CHECK_TYPE(false, "[", op, "] Invalid scalar type: the Gloo backend of ctorch supports float32, float64, "
                    "int64, int32, int16, int8 and uint8, got ", t);
}

template <class T, class F>
void reduce_loop(void* c, const void* a, const void* b, size_t n, F f) {
  auto* out = static_cast<T*>(c);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

// The element-wise combination Gloo applies to two ranks' buffers (AVG sums; the caller divides).
template <class T>
gloo::AllreduceOptions::Func reduce_function(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      return [](void* c, const void* a, const void* b, size_t n) {
        reduce_loop<T>(c, a, b, n, [](T x, T y) { return static_cast<T>(x + y); });
      };
    case ReduceOp::PRODUCT:
      return [](void* c, const void* a, const void* b, size_t n) {
        reduce_loop<T>(c, a, b, n, [](T x, T y) { return static_cast<T>(x * y); });
      };
    case ReduceOp::MIN:
      return [](void* c, const void* a, const void* b, size_t n) {
        reduce_loop<T>(c, a, b, n, [](T x, T y) { return y < x ? y : x; });
      };
    case ReduceOp::MAX:
      return [](void* c, const void* a, const void* b, size_t n) {
        reduce_loop<T>(c, a, b, n, [](T x, T y) { return y > x ? y : x; });
      };
  }
  return nullptr;
}

// A tensor a collective reads or writes, on the host (cuda tensors: a staged copy).
struct Staged {
  Tensor user;                   // the caller's tensor
  Tensor host;                   // what Gloo reads and writes
  std::optional<cuda::Stream> stream;  // the write-back stream (cuda tensors)
};

class ProcessGroupGloo : public ProcessGroup {
 public:
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout,
                   const std::string& name)
      : rank_(rank), size_(size), timeout_(timeout), store_(store) {
    gloo::transport::tcp::attr attr;
    const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
    if (ifname && *ifname) {
      attr.iface = ifname;
    } else {
      attr.hostname = "127.0.0.1";
      const char* addr = std::getenv("MASTER_ADDR");
      if (addr && std::string(addr) != "127.0.0.1" && std::string(addr) != "localhost") {
        char host[256] = {0};
        if (::gethostname(host, sizeof(host) - 1) == 0) attr.hostname = host;
      }
    }
    try {
      device_ = gloo::transport::tcp::CreateDevice(attr);
      auto context = std::make_shared<gloo::rendezvous::Context>(rank_, size_);
      context->setTimeout(timeout_);
      GlooStore gloo_store(store);
      context->connectFullMesh(gloo_store, device_);
      context_ = std::move(context);
    } catch (const std::exception& e) {
      // connectFullMesh publishes each rank's addresses under the key "<rank>": name the absent ones.
      std::string missing;
      try {
        for (int r = 0; r < size_; ++r) {
          if (r != rank_ && !store->check({std::to_string(r)})) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        }
      } catch (const std::exception&) {
      }
      throw DistBackendError("[Rank " + std::to_string(rank_) + "]: Gloo rendezvous of group '" + name +
                             "' (world_size=" + std::to_string(size_) + ", timeout=" + std::to_string(timeout_.count()) +
                             "ms) failed" + (missing.empty() ? "" : ": rank(s) " + missing + " did not join") + ": " +
                             e.what());
    }
    worker_ = std::thread([this] { loop(); });
  }

  ~ProcessGroupGloo() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend_name() const override { return "gloo"; }
  std::chrono::milliseconds timeout() const override { return timeout_; }

  std::shared_ptr<Work> all_reduce(Tensor tensor, ReduceOp op) override {
    detail::check_collective_tensor("all_reduce", tensor);
    dispatch_gloo_type(tensor.scalar_type(), "all_reduce", [](auto) {});
    auto staged = std::make_shared<std::vector<Staged>>();
    staged->push_back(stage(tensor, true));
    return enqueue("all_reduce", staged, {tensor}, [this, staged, op](uint32_t tag) {
      Tensor& h = (*staged)[0].host;
      dispatch_gloo_type(h.scalar_type(), "all_reduce", [&](auto zero) {
        using T = decltype(zero);
        gloo::AllreduceOptions opts(context_);
        opts.setOutput(h.data_ptr<T>(), static_cast<size_t>(h.numel()));
        opts.setReduceFunction(reduce_function<T>(op));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
      });
      if (op == ReduceOp::AVG) {
        if (is_floating_point(h.scalar_type())) {
          h.div_(static_cast<double>(size_));
        } else {
          h.copy_(h.div(static_cast<double>(size_), "floor"));
        }
      }
    });
  }

  std::shared_ptr<Work> broadcast(Tensor tensor, int src) override {
    detail::check_collective_tensor("broadcast", tensor);
    detail::check_root_rank("broadcast", src, size_);
    dispatch_gloo_type(tensor.scalar_type(), "broadcast", [](auto) {});
    auto staged = std::make_shared<std::vector<Staged>>();
    staged->push_back(stage(tensor, rank_ == src));
    return enqueue("broadcast", staged, {tensor}, [this, staged, src](uint32_t tag) {
      Tensor& h = (*staged)[0].host;
      dispatch_gloo_type(h.scalar_type(), "broadcast", [&](auto zero) {
        using T = decltype(zero);
        gloo::BroadcastOptions opts(context_);
        opts.setOutput(h.data_ptr<T>(), static_cast<size_t>(h.numel()));
        opts.setRoot(src);
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::broadcast(opts);
      });
    });
  }

  std::shared_ptr<Work> all_gather(std::vector<Tensor> outputs, Tensor tensor) override {
    detail::check_collective_tensor("all_gather", tensor);
    detail::check_tensor_list("all_gather", outputs, tensor, size_);
    dispatch_gloo_type(tensor.scalar_type(), "all_gather", [](auto) {});
    auto staged = std::make_shared<std::vector<Staged>>();
    staged->push_back(stage(tensor, true));
    for (const Tensor& o : outputs) staged->push_back(stage(o, false));
    return enqueue("all_gather", staged, outputs, [this, staged](uint32_t tag) {
      const Tensor& in = (*staged)[0].host;
      const int64_t n = in.numel();
      Tensor flat = empty({n * size_}, TensorOptions().dtype(in.dtype()));
      dispatch_gloo_type(in.scalar_type(), "all_gather", [&](auto zero) {
        using T = decltype(zero);
        gloo::AllgatherOptions opts(context_);
        opts.setInput(const_cast<T*>(in.data_ptr<T>()), static_cast<size_t>(n));
        opts.setOutput(flat.data_ptr<T>(), static_cast<size_t>(n * size_));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::allgather(opts);
      });
      for (int r = 0; r < size_; ++r) {
        Tensor& out = (*staged)[static_cast<size_t>(r) + 1].host;
        out.copy_(flat.narrow(0, r * n, n).view(out.sizes()));
      }
    });
  }

  std::shared_ptr<Work> reduce_scatter(Tensor output, std::vector<Tensor> inputs, ReduceOp op) override {
    detail::check_collective_tensor("reduce_scatter", output);
    detail::check_tensor_list("reduce_scatter", inputs, output, size_);
    dispatch_gloo_type(output.scalar_type(), "reduce_scatter", [](auto) {});
    auto staged = std::make_shared<std::vector<Staged>>();
    staged->push_back(stage(output, false));
    for (const Tensor& i : inputs) staged->push_back(stage(i, true));
    // Gloo has no reduce-scatter for this API: all-reduce the concatenated inputs, keep this rank's part.
    return enqueue("reduce_scatter", staged, {output}, [this, staged, op](uint32_t tag) {
      Tensor& out = (*staged)[0].host;
      const int64_t n = out.numel();
      std::vector<Tensor> parts;
      for (size_t i = 1; i < staged->size(); ++i) parts.push_back((*staged)[i].host.reshape({n}));
      Tensor flat = cat(parts, 0);
      dispatch_gloo_type(out.scalar_type(), "reduce_scatter", [&](auto zero) {
        using T = decltype(zero);
        gloo::AllreduceOptions opts(context_);
        opts.setOutput(flat.data_ptr<T>(), static_cast<size_t>(flat.numel()));
        opts.setReduceFunction(reduce_function<T>(op));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
      });
      Tensor mine = flat.narrow(0, rank_ * n, n).view(out.sizes());
      if (op == ReduceOp::AVG) {
        mine = is_floating_point(mine.scalar_type()) ? mine.div(static_cast<double>(size_))
                                                  : mine.div(static_cast<double>(size_), "floor");
      }
      out.copy_(mine);
    });
  }

  std::shared_ptr<Work> barrier() override {
    auto staged = std::make_shared<std::vector<Staged>>();
    return enqueue("barrier", staged, {}, [this](uint32_t tag) {
      gloo::BarrierOptions opts(context_);
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      gloo::barrier(opts);
    });
  }

 private:
  struct Task {
    std::string op;
    uint64_t seq;
    std::shared_ptr<std::vector<Staged>> staged;
    std::function<void(uint32_t)> run;
    std::shared_ptr<GlooWork> work;
  };

  // Note [Gloo work queue]: cuda tensors are copied to the host here, on the caller's thread.
  static Staged stage(const Tensor& t, bool read) {
    Staged s;
    s.user = t;
    if (t.device().is_cpu()) {
      s.host = t;
    } else {
      s.stream = cuda::current_stream(t.device());
      s.host = read ? t.to(Device(DeviceType::CPU)) : empty(t.sizes(), TensorOptions().dtype(t.dtype()));
    }
    return s;
  }

  std::shared_ptr<Work> enqueue(const char* op, std::shared_ptr<std::vector<Staged>> staged,
                                std::vector<Tensor> outputs, std::function<void(uint32_t)> run) {
    auto work = std::make_shared<GlooWork>(std::move(outputs));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(Task{op, ++seq_, std::move(staged), std::move(run), work});
    }
    cv_.notify_all();
    return work;
  }

  void loop() {
    for (;;) {
      Task task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task.work->finish(execute(task));
    }
  }

  std::optional<std::string> execute(Task& task) {
    if (broken_) {
      return "[Rank " + std::to_string(rank_) + "]: " + task.op + " (SeqNum=" + std::to_string(task.seq) +
             ") not run: the process group failed earlier: " + broken_message_;
    }
    const auto start = std::chrono::steady_clock::now();
    NoGradGuard no_grad;  // the write-back copy_ may target a leaf that requires grad (parameters)
    try {
      task.run(static_cast<uint32_t>(task.seq));
      for (Staged& s : *task.staged) {
        if (s.stream) {
          cuda::StreamContext ctx(*s.stream);
          s.user.copy_(s.host);
        }
      }
      return std::nullopt;
    } catch (const std::exception& e) {
      return fail(task, start, e.what());
    }
  }

  // Note [Failure report]: the failing rank closes its connections (so peers blocked on it fail at
  // once instead of at their own timeout, and close theirs in turn), records the failure of SeqNum n
  // in the store, and waits a short grace period for the other ranks' records. A rank without one is
  // dead, hung, or not in this collective: the error names it.
  std::string failure_report(uint64_t seq) {
    context_.reset();
    const auto grace = std::min<std::chrono::milliseconds>(timeout_ / 2, std::chrono::milliseconds(2000));
    const std::string key = "failure/" + std::to_string(seq) + "/";
    std::vector<int> missing;
    try {
      store_->set(key + std::to_string(rank_), std::string("1"));
      const auto deadline = std::chrono::steady_clock::now() + grace;
      for (;;) {
        missing.clear();
        for (int r = 0; r < size_; ++r) {
          if (r != rank_ && !store_->check({key + std::to_string(r)})) missing.push_back(r);
        }
        if (missing.empty() || std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    } catch (const std::exception& e) {
      return std::string("; the store is unreachable (") + e.what() +
             "): the rank hosting it (rank 0 for TCPStore) may have died";
    }
    if (missing.empty()) return "; every rank reported this failure";
    std::string ranks;
    for (int r : missing) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    return "; rank(s) " + ranks + " did not report this failure within " + std::to_string(grace.count()) +
           "ms: dead, hung, or not in this collective";
  }

  std::string fail(const Task& task, std::chrono::steady_clock::time_point start, const std::string& what) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    std::string msg = "[Rank " + std::to_string(rank_) + "]: Gloo " + task.op + " (SeqNum=" +
                      std::to_string(task.seq) + ", world_size=" + std::to_string(size_) + ", timeout=" +
                      std::to_string(timeout_.count()) + "ms) failed after " + std::to_string(ms.count()) +
                      "ms: " + what;
    if (what.find("Timed out") != std::string::npos || what.find("timed out") != std::string::npos) {
      msg += " (a peer did not reach this collective in time)";
    } else if (what.find("closed") != std::string::npos || what.find("reset") != std::string::npos) {
      msg += " (a peer closed its connection)";
    }
    msg += failure_report(task.seq);
    broken_ = true;
    broken_message_ = msg;
    return msg;
  }

  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<Store> store_;  // the group's (prefixed) store: rendezvous and failure reports
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::Context> context_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Task> queue_;  // guarded by mutex_
  uint64_t seq_ = 0;        // guarded by mutex_
  bool stop_ = false;       // guarded by mutex_
  bool broken_ = false;     // worker thread only
  std::string broken_message_;
  std::thread worker_;
};

}  // namespace

namespace {

// Gloo's tcp transport writes to peers without MSG_NOSIGNAL: a peer that has gone would kill the
// whole process with SIGPIPE instead of failing the collective. Python ignores SIGPIPE at startup,
// so every PyTorch program sees EPIPE there; ctorch does the same, once, and only when SIGPIPE is
// still at its default disposition (a handler the program installed is left alone).
void ignore_sigpipe_like_python() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
  });
}

}  // namespace

std::shared_ptr<ProcessGroup> new_gloo_group(std::shared_ptr<Store> store, int rank, int world_size,
                                             std::chrono::milliseconds timeout, const std::string& group_name) {
  ignore_sigpipe_like_python();
  CTORCH_CHECK_VALUE(store != nullptr, "new_gloo_group: the store is null");
  CTORCH_CHECK_VALUE(world_size > 0, "new_gloo_group: world_size must be positive, got ", world_size);
  CTORCH_CHECK_VALUE(rank >= 0 && rank < world_size, "Invalid rank ", rank, ": expected a rank in [0, ",
                     world_size - 1, "] for world_size ", world_size);
  CTORCH_CHECK_VALUE(timeout.count() > 0, "new_gloo_group: timeout must be positive, got ", timeout.count(), "ms");
  auto prefixed = std::make_shared<PrefixStore>(group_name, store);
  prefixed->set_timeout(timeout);
  // Every rank must agree with rank 0 on the world size (Gloo would wait for ranks that never come).
  prefixed->set("world_size/" + std::to_string(rank), std::to_string(world_size));
  std::string rank0;
  try {
    rank0 = prefixed->get_string("world_size/0");
  } catch (const DistStoreError& e) {
    throw DistBackendError("[Rank " + std::to_string(rank) + "]: rank 0 did not join group '" + group_name +
                           "' within " + std::to_string(timeout.count()) + "ms: " + e.what());
  }
  CTORCH_CHECK_VALUE(rank0 == std::to_string(world_size), "[Rank ", rank, "]: mismatched world_size in group '",
                     group_name, "': rank 0 was initialized with world_size=", rank0, ", this rank with world_size=",
                     world_size);
  return std::make_shared<ProcessGroupGloo>(prefixed, rank, world_size, timeout, group_name);
}

}  // namespace ctorch::distributed
