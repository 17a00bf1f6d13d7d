// ProcessGroupNCCL (ctorch/distributed.h): collectives of real CUDA tensors through NCCL. Built
// only with the real CUDA backend (cmake/cuda.cmake); it registers itself with init_process_group
// at load time (Note [Backend registry] in distributed_c10d.cpp).
//
// Note [NCCL work]: as PyTorch's ProcessGroupNCCL, each collective runs on a per-device NCCL
// stream that first waits (an event, device side) for the work already queued on the caller's
// current stream; its tensors are recorded on the NCCL stream for the caching allocator; the Work
// holds an event recorded after the NCCL call. Work::wait() polls that event on the host until it
// completes or the group's timeout passes (PyTorch's TORCH_NCCL_BLOCKING_WAIT=1 behaviour: the
// error reaches the caller, naming the rank and the op), then makes the caller's current stream
// wait for it. A timeout or an asynchronous NCCL error aborts the communicator and leaves the group
// broken: later calls fail at once. Communicators are created lazily, one per device, the unique id
// going from rank 0 to the others through the store.
//
// Nothing in this file has run: this machine has no GPU. It is compiled by every CUDA build.
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "ctorch/cuda.h"
#include "ctorch/cuda_event.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/distributed.h"
#include "ctorch/distributed_store.h"
#include "ctorch/emulation.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "distributed/backend_registry.h"
#include "distributed/collective_checks.h"

namespace ctorch::distributed {
namespace {

std::string nccl_version() {
  int v = 0;
  ncclGetVersion(&v);
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

void check_nccl(ncclResult_t r, ncclComm_t comm, const char* file, int line) {
  if (r == ncclSuccess || r == ncclInProgress) return;
  std::string msg = std::string("NCCL error in: ") + file + ":" + std::to_string(line) + ", " + ncclGetErrorString(r) +
                    ", NCCL version " + nccl_version();
  const char* last = ncclGetLastError(comm);
  if (last && *last) msg += std::string("\n") + last;
  throw DistBackendError(msg);
}
#define CTORCH_NCCL_CHECK(expr, comm) check_nccl((expr), (comm), __FILE__, __LINE__)

ncclDataType_t nccl_type(ScalarType t, const char* op) {
  switch (t) {
    case kFloat: return ncclFloat32;
    case kDouble: return ncclFloat64;
    case kHalf: return ncclFloat16;
    case kBFloat16: return ncclBfloat16;
    case kLong: return ncclInt64;
    case kInt: return ncclInt32;
    case kChar: return ncclInt8;
    case kByte: return ncclUint8;
    case kBool: return ncclUint8;
    default: break;
  }
  CTORCH_CHECK_TYPE(false, "[", op, "] Unsupported dtype for the NCCL backend: ", t);
  return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op, ScalarType t) {
  if (t == kBool) {  // PyTorch: bool SUM is a logical or, PRODUCT an and
    if (op == ReduceOp::SUM) return ncclMax;
    if (op == ReduceOp::PRODUCT) return ncclMin;
    CTORCH_CHECK_VALUE(op != ReduceOp::AVG, "Cannot use ReduceOp.AVG with boolean inputs");
  }
  switch (op) {
    case ReduceOp::SUM: return ncclSum;
    case ReduceOp::PRODUCT: return ncclProd;
    case ReduceOp::MIN: return ncclMin;
    case ReduceOp::MAX: return ncclMax;
    case ReduceOp::AVG: return ncclAvg;
  }
  return ncclSum;
}

// Note [Collective checks], then what only NCCL needs: cuda tensors.
void check_tensor(const Tensor& t, const char* op) {
  detail::check_collective_tensor(op, t);
  CTORCH_CHECK_VALUE(t.is_cuda(), "[", op, "] Tensors must be CUDA and dense for the NCCL backend, got a tensor on ",
                     t.device());
}

// A collective's completion (Note [NCCL work]).
class NcclWork : public Work {
 public:
  NcclWork(cuda::Event end, ncclComm_t comm, std::string what, std::chrono::milliseconds timeout,
           std::function<void(const std::string&)> on_failure, std::vector<Tensor> keep, std::vector<Tensor> outputs)
      : end_(std::move(end)), comm_(comm), what_(std::move(what)), timeout_(timeout),
        on_failure_(std::move(on_failure)), keep_(std::move(keep)), outputs_(std::move(outputs)) {}

  bool wait(std::optional<std::chrono::milliseconds> timeout) override {
    const auto limit = timeout.value_or(timeout_);
    const auto start = std::chrono::steady_clock::now();
    while (!end_.query()) {
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      if (async != ncclSuccess && async != ncclInProgress) fail(std::string("NCCL error: ") + ncclGetErrorString(async));
      if (std::chrono::steady_clock::now() - start > limit) {
        fail(what_ + " ran for " +
             std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                                 start).count()) +
             " milliseconds before timing out.");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    end_.wait(cuda::current_stream(end_.device()->index()));
    return true;
  }
  bool is_completed() override { return end_.query(); }
  bool is_success() override { return end_.query(); }
  std::exception_ptr exception() override { return nullptr; }
  // PyTorch's WorkNCCL::getFuture: completed at once; the caller's current stream waits for the op.
  std::shared_ptr<Future> get_future() override {
    std::lock_guard<std::mutex> lock(future_mutex_);
    if (!future_) {
      end_.wait(cuda::current_stream(end_.device()->index()));
      future_ = std::make_shared<Future>();
      future_->mark_completed(outputs_);
    }
    return future_;
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    ncclCommAbort(comm_);
    on_failure_(why);
    throw DistBackendError(why);
  }
  cuda::Event end_;
  ncclComm_t comm_;
  std::string what_;
  std::chrono::milliseconds timeout_;
  std::function<void(const std::string&)> on_failure_;
  std::vector<Tensor> keep_;  // alive until the work is waited for or dropped
  std::vector<Tensor> outputs_;  // the future's value
  std::mutex future_mutex_;
  std::shared_ptr<Future> future_;  // guarded by future_mutex_
};

class ProcessGroupNCCL : public ProcessGroup, public std::enable_shared_from_this<ProcessGroupNCCL> {
 public:
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout)
      : store_(std::move(store)), rank_(rank), size_(size), timeout_(timeout) {}
  ~ProcessGroupNCCL() override {
    for (auto& [device, comm] : comms_) ncclCommDestroy(comm.comm);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend_name() const override { return "nccl"; }
  std::chrono::milliseconds timeout() const override { return timeout_; }

  std::shared_ptr<Work> all_reduce(Tensor tensor, ReduceOp op) override {
    check_tensor(tensor, "all_reduce");
    const ncclDataType_t type = nccl_type(tensor.scalar_type(), "all_reduce");
    const ncclRedOp_t red = nccl_op(op, tensor.scalar_type());
    return run("ALLREDUCE", tensor, {tensor}, {tensor}, [&](ncclComm_t c, cudaStream_t s) {
      return ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), tensor.numel(), type, red, c, s);
    });
  }

  std::shared_ptr<Work> broadcast(Tensor tensor, int src) override {
    check_tensor(tensor, "broadcast");
    detail::check_root_rank("broadcast", src, size_);
    const ncclDataType_t type = nccl_type(tensor.scalar_type(), "broadcast");
    return run("BROADCAST", tensor, {tensor}, {tensor}, [&](ncclComm_t c, cudaStream_t s) {
      return ncclBroadcast(tensor.data_ptr(), tensor.data_ptr(), tensor.numel(), type, src, c, s);
    });
  }

  std::shared_ptr<Work> all_gather(std::vector<Tensor> outputs, Tensor tensor) override {
    check_tensor(tensor, "all_gather");
    detail::check_tensor_list("all_gather", outputs, tensor, size_);
    const ncclDataType_t type = nccl_type(tensor.scalar_type(), "all_gather");
    NoGradGuard no_grad;
    Tensor flat = empty({size_ * tensor.numel()}, tensor.options());
    std::vector<Tensor> keep = outputs;
    keep.push_back(tensor);
    keep.push_back(flat);
    return run("ALLGATHER", tensor, keep, outputs, [&](ncclComm_t c, cudaStream_t s) {
      const ncclResult_t r = ncclAllGather(tensor.data_ptr(), flat.data_ptr(), tensor.numel(), type, c, s);
      if (r != ncclSuccess) return r;
      for (int i = 0; i < size_; ++i) {  // on the NCCL stream: it is current inside run()
        outputs[i].copy_(flat.narrow(0, i * tensor.numel(), tensor.numel()).view(tensor.sizes()));
      }
      return r;
    });
  }

  std::shared_ptr<Work> reduce_scatter(Tensor output, std::vector<Tensor> inputs, ReduceOp op) override {
    check_tensor(output, "reduce_scatter");
    detail::check_tensor_list("reduce_scatter", inputs, output, size_);
    const ncclDataType_t type = nccl_type(output.scalar_type(), "reduce_scatter");
    const ncclRedOp_t red = nccl_op(op, output.scalar_type());
    NoGradGuard no_grad;
    std::vector<Tensor> flat_parts;
    for (const Tensor& in : inputs) flat_parts.push_back(in.reshape({-1}));
    Tensor flat = cat(flat_parts);  // on the caller's stream, before the NCCL stream waits for it
    return run("REDUCE_SCATTER", output, {output, flat}, {output}, [&](ncclComm_t c, cudaStream_t s) {
      return ncclReduceScatter(flat.data_ptr(), output.data_ptr(), output.numel(), type, red, c, s);
    });
  }

  std::shared_ptr<Work> barrier() override {
    // PyTorch: an all_reduce of one element on the current device, then a device synchronize.
    Tensor one = ones({1}, TensorOptions().device(Device(DeviceType::CUDA, cuda::current_device())));
    all_reduce(one, ReduceOp::SUM)->wait();
    cuda::synchronize();
    return std::make_shared<DoneWork>();
  }

 private:
  struct DoneWork : Work {
    bool wait(std::optional<std::chrono::milliseconds>) override { return true; }
    bool is_completed() override { return true; }
    bool is_success() override { return true; }
    std::exception_ptr exception() override { return nullptr; }
    std::shared_ptr<Future> get_future() override { return future; }
    std::shared_ptr<Future> future = [] {
      auto f = std::make_shared<Future>();
      f->mark_completed({});
      return f;
    }();
  };
  struct DeviceComm {
    ncclComm_t comm = nullptr;
    cuda::Stream stream;
  };

  DeviceComm& comm_for(int device) {
    auto it = comms_.find(device);
    if (it != comms_.end()) return it->second;
    // Every rank creates its communicators in the same order (its first collective on each device).
    const std::string key = "nccl_id/" + std::to_string(comms_.size());
    ncclUniqueId id{};
    if (rank_ == 0) {
      CTORCH_NCCL_CHECK(ncclGetUniqueId(&id), nullptr);
      store_->set(key, std::vector<uint8_t>(reinterpret_cast<uint8_t*>(&id), reinterpret_cast<uint8_t*>(&id) + sizeof id));
    } else {
      const std::vector<uint8_t> bytes = store_->get(key);
      CTORCH_CHECK(bytes.size() == sizeof id, "[Rank ", rank_, "] malformed NCCL unique id in the store");
      std::memcpy(&id, bytes.data(), sizeof id);
    }
    cuda::device guard(device);
    DeviceComm dc{nullptr, cuda::Stream(device)};
    CTORCH_NCCL_CHECK(ncclCommInitRank(&dc.comm, size_, id, rank_), nullptr);
    return comms_.emplace(device, std::move(dc)).first->second;
  }

  template <class F>
  std::shared_ptr<Work> run(const char* op, const Tensor& tensor, std::vector<Tensor> keep, std::vector<Tensor> outputs,
                            F&& launch) {
    std::lock_guard<std::mutex> lock(mutex_);
    CTORCH_CHECK(broken_.empty(), "[Rank ", rank_, "] the NCCL process group is broken by an earlier failure: ", broken_);
    const int device = tensor.get_device();
    DeviceComm& dc = comm_for(device);
    const cuda::Stream caller = cuda::current_stream(device);
    dc.stream.wait_stream(caller);
    for (const Tensor& t : keep) t.record_stream(dc.stream);
    ++seq_;
    {
      cuda::StreamContext on_nccl(dc.stream);
      cuda::device guard(device);
      CTORCH_NCCL_CHECK(launch(dc.comm, reinterpret_cast<cudaStream_t>(dc.stream.cuda_stream())), dc.comm);
    }
    cuda::Event end;
    end.record(dc.stream);
    const std::string what = "[Rank " + std::to_string(rank_) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" +
                             std::to_string(seq_) + ", OpType=" + op + ", NumelIn=" + std::to_string(tensor.numel()) +
                             ", Timeout(ms)=" + std::to_string(timeout_.count()) + ")";
    std::weak_ptr<ProcessGroupNCCL> self = weak_from_this();
    return std::make_shared<NcclWork>(std::move(end), dc.comm, what, timeout_,
                                      [self](const std::string& why) {
                                        if (auto g = self.lock()) {
                                          std::lock_guard<std::mutex> l(g->mutex_);
                                          if (g->broken_.empty()) g->broken_ = why;
                                        }
                                      },
                                      std::move(keep), std::move(outputs));
  }

  std::shared_ptr<Store> store_;
  int rank_, size_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::map<int, DeviceComm> comms_;  // guarded by mutex_
  uint64_t seq_ = 0;                 // guarded by mutex_
  std::string broken_;               // guarded by mutex_
};

std::shared_ptr<ProcessGroup> make_nccl_group(std::shared_ptr<Store> store, int rank, int world_size,
                                              std::chrono::milliseconds timeout, const std::string& group_name) {
  CTORCH_CHECK(!cuda::is_emulated() && cuda::device_count() > 0,
               "ProcessGroupNCCL is only supported with GPUs, no GPUs found!");
  auto prefixed = std::make_shared<PrefixStore>(group_name, std::move(store));
  prefixed->set_timeout(timeout);
  return std::make_shared<ProcessGroupNCCL>(prefixed, rank, world_size, timeout);
}

const bool registered = (register_nccl_backend(&make_nccl_group), true);

}  // namespace
}  // namespace ctorch::distributed
