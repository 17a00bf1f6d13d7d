// The default process group and the free-function API of ctorch/distributed.h
// (torch/distributed/distributed_c10d.py and rendezvous.py).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "ctorch/distributed.h"
#include "distributed/backend_registry.h"
#include "distributed/collective_checks.h"

namespace ctorch::distributed {
namespace {

struct DefaultGroup {
  std::mutex mutex;
  std::shared_ptr<Store> store;         // guarded by mutex
  std::shared_ptr<ProcessGroup> group;  // guarded by mutex
  std::chrono::milliseconds timeout{kDefaultTimeout};
  int generation = 0;                   // counts init_process_group calls (key prefixes)
  int groups = 0;                       // counts new_group calls
};

DefaultGroup& state() {
  static DefaultGroup s;
  return s;
}

std::string env_or_raise(const char* name) {
  const char* v = std::getenv(name);
  CTORCH_CHECK_VALUE(v != nullptr && *v != '\0', "Error initializing torch.distributed using env:// rendezvous: "
                     "environment variable ", name, " expected, but not set");
  return v;
}

int parse_int(const std::string& text, const char* what) {
  try {
    size_t pos = 0;
    const int v = std::stoi(text, &pos);
    if (pos == text.size()) return v;
  } catch (const std::exception&) {
  }
  CTORCH_CHECK_VALUE(false, "Error initializing torch.distributed: ", what, " must be an integer, got '", text, "'");
  return 0;
}

// Splits "scheme://rest?k=v&k=v" into its parts.
struct Url {
  std::string scheme;
  std::string rest;
  std::vector<std::pair<std::string, std::string>> query;
  std::optional<std::string> get(const std::string& key) const {
    for (const auto& [k, v] : query) {
      if (k == key) return v;
    }
    return std::nullopt;
  }
};

Url parse_url(const std::string& url) {
  Url u;
  const size_t sep = url.find("://");
  CTORCH_CHECK_VALUE(sep != std::string::npos, "Invalid init_method '", url,
                     "': expected env://, tcp://host:port or file:///path");
  u.scheme = url.substr(0, sep);
  std::string rest = url.substr(sep + 3);
  const size_t q = rest.find('?');
  if (q != std::string::npos) {
    std::string query = rest.substr(q + 1);
    rest = rest.substr(0, q);
    size_t start = 0;
    while (start <= query.size()) {
      size_t amp = query.find('&', start);
      if (amp == std::string::npos) amp = query.size();
      const std::string kv = query.substr(start, amp - start);
      const size_t eq = kv.find('=');
      if (!kv.empty()) u.query.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
      start = amp + 1;
    }
  }
  u.rest = rest;
  return u;
}

GroupFactory g_nccl_factory = nullptr;  // set at load time, before main

std::string check_backend(const std::string& backend) {
  std::string b;
  for (char c : backend) b.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (b == "gloo") return b;
  if (b == "nccl") {
    CTORCH_CHECK(g_nccl_factory != nullptr, "Distributed package doesn't have NCCL built in");
    return b;
  }
  CTORCH_CHECK(b != "mpi", "Distributed package doesn't have MPI built in");
  CTORCH_CHECK(b != "ucc", "Distributed package doesn't have UCC built in");
  CTORCH_CHECK_VALUE(false, "Invalid backend: '", backend, "'");
  return b;
}

std::shared_ptr<ProcessGroup> make_group(const std::string& backend, std::shared_ptr<Store> store, int rank,
                                         int world_size, std::chrono::milliseconds timeout, const std::string& name) {
  if (backend == "nccl") return g_nccl_factory(std::move(store), rank, world_size, timeout, name);
  return new_gloo_group(std::move(store), rank, world_size, timeout, name);
}

std::shared_ptr<ProcessGroup> resolve(const std::shared_ptr<ProcessGroup>& group) {
  return group ? group : default_group();
}

std::shared_ptr<Work> finish(std::shared_ptr<Work> work, bool async_op) {
  if (async_op) return work;
  work->wait();
  return nullptr;
}

}  // namespace

// Note [Collective checks].
namespace detail {

void check_collective_tensor(const char* op, const Tensor& t) {
  CTORCH_CHECK_VALUE(t.defined(), "[", op, "] expected a defined tensor, got an undefined one");
  CTORCH_CHECK_VALUE(t.is_contiguous(), "[", op, "] Tensors must be contiguous (got sizes ", t.sizes(), ", strides ",
                     t.strides(), " on ", t.device().str(), ")");
}

void check_root_rank(const char* op, int root, int size) {
  CTORCH_CHECK_VALUE(root >= 0 && root < size, "[", op, "] invalid root rank: ", root, " (expected a rank in [0, ",
                     size - 1, "])");
}

void check_tensor_list(const char* op, const std::vector<Tensor>& list, const Tensor& t, int size) {
  CTORCH_CHECK_VALUE(!list.empty(), "[", op, "] requires non-empty tensor list");
  CTORCH_CHECK_VALUE(static_cast<int>(list.size()) == size, "[", op, "] requires one tensor per rank: expected ",
                     size, ", got ", list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    check_collective_tensor(op, list[i]);
    CTORCH_CHECK_TYPE(list[i].scalar_type() == t.scalar_type(), "[", op, "] invalid tensor type at index ", i,
                      " (expected ", t.scalar_type(), ", got ", list[i].scalar_type(), ")");
    CTORCH_CHECK_VALUE(list[i].sizes() == t.sizes(), "[", op, "] invalid tensor size at index ", i, " (expected ",
                       t.sizes(), ", got ", list[i].sizes(), ")");
    CTORCH_CHECK_VALUE(list[i].device() == t.device(), "[", op, "] invalid tensor device at index ", i, " (expected ",
                       t.device().str(), ", got ", list[i].device().str(), ")");
  }
}

}  // namespace detail

void init_process_group(const std::string& backend, const std::string& init_method, int world_size, int rank,
                        std::chrono::milliseconds timeout, std::shared_ptr<Store> store) {
  const std::string backend_name = check_backend(backend);
  CTORCH_CHECK_VALUE(timeout.count() > 0, "init_process_group: timeout must be positive, got ", timeout.count(), "ms");
  DefaultGroup& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  CTORCH_CHECK(s.group == nullptr, "trying to initialize the default process group twice!");
  if (store) {
    CTORCH_CHECK_VALUE(init_method.empty(), "Cannot specify both init_method and store.");
    CTORCH_CHECK_VALUE(world_size > 0, "world_size must be positive if using store");
    CTORCH_CHECK_VALUE(rank >= 0, "rank must be non-negative if using store");
  } else {
    const Url url = parse_url(init_method.empty() ? "env://" : init_method);
    auto query_int = [&](const char* key, int& value) {
      if (value == -1) {
        if (auto v = url.get(key)) value = parse_int(*v, key);
      }
    };
    query_int("rank", rank);
    query_int("world_size", world_size);
    if (url.scheme == "env") {
      if (rank == -1) rank = parse_int(env_or_raise("RANK"), "RANK");
      if (world_size == -1) world_size = parse_int(env_or_raise("WORLD_SIZE"), "WORLD_SIZE");
      const std::string addr = env_or_raise("MASTER_ADDR");
      const int port = parse_int(env_or_raise("MASTER_PORT"), "MASTER_PORT");
      CTORCH_CHECK_VALUE(rank >= 0 && rank < world_size, "Invalid rank ", rank, ": expected a rank in [0, ",
                         world_size - 1, "] for WORLD_SIZE ", world_size);
      store = std::make_shared<TCPStore>(addr, port, world_size, rank == 0, timeout);
    } else if (url.scheme == "tcp") {
      CTORCH_CHECK_VALUE(rank != -1, "Error initializing torch.distributed using tcp:// rendezvous: rank parameter missing");
      CTORCH_CHECK_VALUE(world_size != -1,
                         "Error initializing torch.distributed using tcp:// rendezvous: world size parameter missing");
      const size_t colon = url.rest.rfind(':');
      CTORCH_CHECK_VALUE(colon != std::string::npos,
                         "Error initializing torch.distributed using tcp:// rendezvous: port number missing");
      const std::string host = url.rest.substr(0, colon);
      const int port = parse_int(url.rest.substr(colon + 1), "port");
      CTORCH_CHECK_VALUE(rank >= 0 && rank < world_size, "Invalid rank ", rank, ": expected a rank in [0, ",
                         world_size - 1, "] for world_size ", world_size);
      store = std::make_shared<TCPStore>(host, port, world_size, rank == 0, timeout);
    } else if (url.scheme == "file") {
      CTORCH_CHECK_VALUE(rank != -1, "Error initializing torch.distributed using file:// rendezvous: rank parameter missing");
      CTORCH_CHECK_VALUE(world_size != -1,
                         "Error initializing torch.distributed using file:// rendezvous: world size parameter missing");
      CTORCH_CHECK_VALUE(!url.rest.empty(), "Error initializing torch.distributed using file:// rendezvous: path missing");
      store = std::make_shared<FileStore>(url.rest, world_size, timeout);
    } else {
      CTORCH_CHECK_VALUE(false, "No rendezvous handler for ", url.scheme, "://");
    }
  }
  CTORCH_CHECK_VALUE(world_size > 0, "world_size must be positive, got ", world_size);
  CTORCH_CHECK_VALUE(rank >= 0 && rank < world_size, "Invalid rank ", rank, ": expected a rank in [0, ", world_size - 1,
                     "] for world_size ", world_size);
  s.group = make_group(backend_name, store, rank, world_size, timeout, "default_pg/" + std::to_string(s.generation++));
  s.store = std::move(store);
  s.timeout = timeout;
  s.groups = 0;
}

void destroy_process_group() {
  DefaultGroup& s = state();
  std::shared_ptr<ProcessGroup> group;
  std::shared_ptr<Store> store;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    group = std::move(s.group);
    store = std::move(s.store);
    s.group = nullptr;
    s.store = nullptr;
  }
  // Destroyed outside the lock: the group's worker finishes the ops queued before.
}

bool is_initialized() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().group != nullptr;
}

bool is_gloo_available() { return true; }
bool is_nccl_available() { return g_nccl_factory != nullptr; }

void register_nccl_backend(GroupFactory factory) noexcept { g_nccl_factory = factory; }

std::shared_ptr<ProcessGroup> default_group() {
  std::lock_guard<std::mutex> lock(state().mutex);
  // RuntimeError, as PyTorch 1.13's _get_default_group (2.x made it a ValueError).
  CTORCH_CHECK(state().group != nullptr,
               "Default process group has not been initialized, please make sure to call init_process_group.");
  return state().group;
}

int get_rank(const std::shared_ptr<ProcessGroup>& group) { return resolve(group)->rank(); }

int get_world_size(const std::shared_ptr<ProcessGroup>& group) { return resolve(group)->size(); }

std::string get_backend(const std::shared_ptr<ProcessGroup>& group) { return resolve(group)->backend_name(); }

std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks, std::optional<std::chrono::milliseconds> timeout) {
  std::shared_ptr<Store> store;
  std::shared_ptr<ProcessGroup> base;
  std::string name;
  std::chrono::milliseconds t{};
  {
    DefaultGroup& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    CTORCH_CHECK(s.group != nullptr,
                 "Default process group has not been initialized, please make sure to call init_process_group.");
    store = s.store;
    base = s.group;
    t = timeout.value_or(s.timeout);
    name = "default_pg/" + std::to_string(s.generation - 1) + "/group/" + std::to_string(s.groups++);
  }
  if (!ranks.empty()) {
    std::vector<int> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    bool all = static_cast<int>(sorted.size()) == base->size();
    for (size_t i = 0; all && i < sorted.size(); ++i) all = sorted[i] == static_cast<int>(i);
    CTORCH_CHECK_NOT_IMPLEMENTED(all, "new_group: ctorch supports only groups of all ", base->size(),
                                 " ranks, got ", sorted.size(), " ranks");
  }
  return make_group(base->backend_name(), store, base->rank(), base->size(), t, name);
}

std::shared_ptr<Work> all_reduce(Tensor tensor, ReduceOp op, const std::shared_ptr<ProcessGroup>& group,
                                 bool async_op) {
  return finish(resolve(group)->all_reduce(std::move(tensor), op), async_op);
}

std::shared_ptr<Work> broadcast(Tensor tensor, int src, const std::shared_ptr<ProcessGroup>& group, bool async_op) {
  return finish(resolve(group)->broadcast(std::move(tensor), src), async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor> tensor_list, Tensor tensor,
                                 const std::shared_ptr<ProcessGroup>& group, bool async_op) {
  return finish(resolve(group)->all_gather(std::move(tensor_list), std::move(tensor)), async_op);
}

std::shared_ptr<Work> reduce_scatter(Tensor output, std::vector<Tensor> input_list, ReduceOp op,
                                     const std::shared_ptr<ProcessGroup>& group, bool async_op) {
  return finish(resolve(group)->reduce_scatter(std::move(output), std::move(input_list), op), async_op);
}

std::shared_ptr<Work> barrier(const std::shared_ptr<ProcessGroup>& group, bool async_op) {
  return finish(resolve(group)->barrier(), async_op);
}

}  // namespace ctorch::distributed
