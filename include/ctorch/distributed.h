// torch.distributed (c10d) with the Gloo backend: process groups, collectives on cpu and
// (staged through host memory) cuda tensors, and the default group of init_process_group.
#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ctorch/distributed_store.h"
#include "ctorch/future.h"
#include "ctorch/tensor.h"

namespace ctorch::distributed {

/// How a collective combines tensors (torch.distributed.ReduceOp).
enum class ReduceOp { SUM, PRODUCT, MIN, MAX, AVG };

/// The name PyTorch prints for `op` ("SUM").
const char* reduce_op_name(ReduceOp op);

/// The handle of a collective (torch.distributed.Work): asynchronous ops return it.
class Work {
 public:
  virtual ~Work();
  /// Blocks until the op finished; rethrows its error (DistBackendError). Always returns true.
  virtual bool wait(std::optional<std::chrono::milliseconds> timeout = std::nullopt) = 0;
  /// True once the op finished, successfully or not.
  virtual bool is_completed() = 0;
  /// True once the op finished without an error.
  virtual bool is_success() = 0;
  /// The op's error (null while running or after a success).
  virtual std::exception_ptr exception() = 0;
  /// A future of the op's output tensors (c10d's Work::getFuture): the tensor of all_reduce and
  /// broadcast, all_gather's tensor list, reduce_scatter's output, nothing for barrier. Gloo completes
  /// it when the op finishes (with its DistBackendError on failure); NCCL at once, the caller's current
  /// stream waiting for the op (PyTorch's CUDA future). Every call returns the same future.
  virtual std::shared_ptr<Future> get_future() = 0;
};

/// A group of ranks that run collectives together (torch.distributed.ProcessGroup).
/// Collectives are queued in call order and run in that order on the group's worker thread;
/// every rank must issue the same collectives in the same order.
class ProcessGroup {
 public:
  virtual ~ProcessGroup();
  /// This process's rank in the group.
  virtual int rank() const = 0;
  /// Number of ranks.
  virtual int size() const = 0;
  /// The backend's name ("gloo").
  virtual std::string backend_name() const = 0;
  /// Reduces `tensor` across ranks in place; every rank gets the result.
  virtual std::shared_ptr<Work> all_reduce(Tensor tensor, ReduceOp op = ReduceOp::SUM) = 0;
  /// Copies rank `src`'s tensor into every rank's `tensor`.
  virtual std::shared_ptr<Work> broadcast(Tensor tensor, int src = 0) = 0;
  /// Gathers every rank's `tensor` into `outputs` (one per rank, same shape and dtype).
  virtual std::shared_ptr<Work> all_gather(std::vector<Tensor> outputs, Tensor tensor) = 0;
  /// Reduces inputs[i] across ranks into rank i's `output`.
  virtual std::shared_ptr<Work> reduce_scatter(Tensor output, std::vector<Tensor> inputs,
                                               ReduceOp op = ReduceOp::SUM) = 0;
  /// Completes once every rank entered it.
  virtual std::shared_ptr<Work> barrier() = 0;
  /// The group's timeout for each collective.
  virtual std::chrono::milliseconds timeout() const = 0;
};

/// Creates a Gloo process group of `world_size` ranks meeting in `store` (ProcessGroupGloo).
/// Blocks until every rank connected, or throws DistBackendError after `timeout`.
/// `group_name` separates several groups in one store.
std::shared_ptr<ProcessGroup> new_gloo_group(std::shared_ptr<Store> store, int rank, int world_size,
                                             std::chrono::milliseconds timeout = kDefaultTimeout,
                                             const std::string& group_name = "default_pg");

/// Initializes the default process group (torch.distributed.init_process_group). `init_method` is
/// "env://" (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE), "tcp://host:port" or "file:///path";
/// rank and world_size of -1 come from the environment (env://) or the URL's query (?rank=&world_size=).
/// With `store` given, init_method must be empty and rank and world_size set.
void init_process_group(const std::string& backend = "gloo", const std::string& init_method = "",
                        int world_size = -1, int rank = -1,
                        std::chrono::milliseconds timeout = kDefaultTimeout, std::shared_ptr<Store> store = nullptr);
/// Destroys the default group (torch.distributed.destroy_process_group).
void destroy_process_group();
/// True after init_process_group and before destroy_process_group.
bool is_initialized();
/// True: the Gloo backend is built in.
bool is_gloo_available();
/// True when the NCCL backend is built in (builds with the real CUDA backend); it needs real GPUs.
bool is_nccl_available();
/// The default group (ValueError when not initialized).
std::shared_ptr<ProcessGroup> default_group();
/// The rank in `group` (the default group when null; ValueError when it is not initialized).
int get_rank(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// The number of ranks in `group` (the default group when null).
int get_world_size(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// The backend of `group` ("gloo" or "nccl").
std::string get_backend(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// A new group of all ranks of the default group (torch.distributed.new_group(ranks=None));
/// every rank must call it. Subsets of ranks are not supported.
std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks = {},
                                        std::optional<std::chrono::milliseconds> timeout = std::nullopt);

/// Reduces `tensor` in place across the group (torch.distributed.all_reduce); null unless async_op.
std::shared_ptr<Work> all_reduce(Tensor tensor, ReduceOp op = ReduceOp::SUM,
                                 const std::shared_ptr<ProcessGroup>& group = nullptr, bool async_op = false);
/// Broadcasts `src`'s tensor (torch.distributed.broadcast).
std::shared_ptr<Work> broadcast(Tensor tensor, int src, const std::shared_ptr<ProcessGroup>& group = nullptr,
                                bool async_op = false);
/// Gathers every rank's tensor into `tensor_list` (torch.distributed.all_gather).
std::shared_ptr<Work> all_gather(std::vector<Tensor> tensor_list, Tensor tensor,
                                 const std::shared_ptr<ProcessGroup>& group = nullptr, bool async_op = false);
/// Reduces input_list[i] across ranks into rank i's output (torch.distributed.reduce_scatter).
std::shared_ptr<Work> reduce_scatter(Tensor output, std::vector<Tensor> input_list, ReduceOp op = ReduceOp::SUM,
                                     const std::shared_ptr<ProcessGroup>& group = nullptr, bool async_op = false);
/// Waits for every rank (torch.distributed.barrier).
std::shared_ptr<Work> barrier(const std::shared_ptr<ProcessGroup>& group = nullptr, bool async_op = false);

}  // namespace ctorch::distributed
