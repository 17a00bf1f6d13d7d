// nn::parallel::Reducer (ctorch/nn_reducer.h): DistributedDataParallel's gradient reducer.
//
// Note [DDP reducer]: parameters that require grad are split into buckets in reverse registration
// order (the order backward usually produces their gradients), per dtype and device, the first
// bucket capped at 1 MiB and the others at bucket_cap_mb (PyTorch's compute_bucket_assignment_by_size).
// prepare_for_backward() arms the reducer; DistributedDataParallel calls it after the wrapped module's forward
// when grad mode is on and synchronization is not disabled by no_sync().
// c10d marks a parameter ready in a hook that runs after its AccumulateGrad; ctorch's leaf hooks run
// before it, so a hook only notes its parameter as pending and the next hook (or the end of the
// backward) marks it ready: the engine runs a leaf's AccumulateGrad right after the leaf's hooks, on
// the same thread, so by then .grad holds the accumulated gradient. Marking ready copies .grad into
// the bucket's flat buffer; when a bucket is full it is divided by the world size and all-reduced
// asynchronously, buckets strictly in order so that every rank issues the same collectives. The
// first hook of a backward queues a callback that runs when that backward ends
// (autograd::queue_callback): once every parameter is ready it waits for every bucket and copies
// the averaged values into the parameters' .grad (finalize).
//
// Note [Gradient as bucket view]: with gradient_as_bucket_view, marking ready makes .grad a view of
// its bucket slot (after copying it there once), so later backward passes accumulate straight into
// the bucket, the all-reduce averages .grad in place and finalize copies nothing.
//
// Note [Unfinished reduction]: a parameter that gets no gradient leaves its bucket, and every later
// one, unlaunched, and the callback leaves the iteration unfinished (c10d's require_finalize_): a
// later backward of the same iteration may still complete it. The next forward with grad mode on
// raises c10d's "Expected to have finished reduction in the prior iteration" error naming the
// parameters without a gradient, and keeps raising it (PyTorch's reducer is not reset either); a
// forward under no_grad still runs. Nothing is dropped: the launched buckets' works stay in place.
//
// Note [Unused parameters]: with find_unused_parameters, the end of a backward that reached this
// iteration's output or any parameter marks every parameter still without a gradient ready (its
// .grad, or zeros, goes into the bucket), so the rank issues all its collectives and its peers do
// not wait. A hook on the forward's output starts the iteration when the backward reaches it, so a
// rank whose output depends on no parameter still takes part. After the last bucket a map of the
// parameters used on this rank is all-reduced; a parameter no rank used keeps its .grad untouched
// (PyTorch's local_used_maps). Unlike c10d, unused parameters are found at the end of the backward
// (not by walking the graph at forward), so their buckets are launched last. A rank whose backward
// reaches neither the output nor a parameter takes no part, and its peers wait until the timeout
// (as in PyTorch).
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "ctorch/autograd.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_reducer.h"

namespace ctorch::nn::parallel {

namespace dist = ctorch::distributed;

struct Reducer::Impl : std::enable_shared_from_this<Reducer::Impl> {
  struct Bucket {
    std::vector<size_t> params;   // indices into `params`
    std::vector<int64_t> offsets;  // start of each parameter in `buffer`
    Tensor buffer;                 // flat, on the parameters' device
    size_t pending = 0;            // gradients still missing in this backward
    std::shared_ptr<dist::Work> work;
    std::optional<cuda::Stream> stream;  // where the reduced values are written back (cuda)
  };

  std::shared_ptr<dist::ProcessGroup> group;
  std::vector<Tensor> params;
  std::vector<Bucket> buckets;
  std::vector<std::pair<size_t, size_t>> where;  // param -> (bucket, slot)
  std::vector<bool> ready;
  std::vector<unsigned> hook_keys;
  std::vector<std::string> names;  // the wrapped module's parameter names (TORCH_DISTRIBUTED_DEBUG)
  bool armed = false;              // hooks of this iteration are expected (expect_autograd_hooks_)
  bool require_finalize = false;   // a parameter was marked ready and finalize() has not run yet
  bool callback_queued = false;    // finalize() is queued on the running backward
  size_t next_launch = 0;
  std::optional<size_t> pending;   // the parameter whose AccumulateGrad runs now (Note [DDP reducer])
  bool bucket_view = false;        // Note [Gradient as bucket view]
  bool find_unused = false;        // Note [Unused parameters]
  std::vector<int32_t> used;       // find_unused: 1 for parameters that got a gradient on this rank
  Tensor used_reduced;             // find_unused: `used` summed over the ranks (once launched)
  std::shared_ptr<dist::Work> used_work;

  // Parameter i's slot in its bucket, shaped like the parameter.
  Tensor slot_view(size_t i) {
    const auto [b, slot] = where[i];
    return buckets[b].buffer.narrow(0, buckets[b].offsets[slot], params[i].numel()).view(params[i].sizes());
  }

  // Note [Unfinished reduction]: c10d's Reducer::ensure_prior_reduction_finished, with its text.
  void ensure_prior_reduction_finished() const {
    if (!require_finalize) return;
    std::ostringstream indices;
    std::vector<std::string> unmarked_names;
    for (size_t i = 0; i < params.size(); ++i) {
      if (ready[i]) continue;
      indices << (indices.tellp() > 0 ? " " : "") << i;
      unmarked_names.push_back(names[i]);
    }
    std::string msg =
        "Expected to have finished reduction in the prior iteration before starting a new one. This error "
        "indicates that your module has parameters that were not used in producing loss. You can enable unused "
        "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
        "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
        "participate in calculating loss. \nIf you already have done the above, then the distributed data parallel "
        "module wasn't able to locate the output tensors in the return value of your module's `forward` function. "
        "Please include the loss function and the structure of the return value of `forward` of your module when "
        "reporting this issue (e.g. list, dict, iterable).";
    const std::string indices_info = "\nParameter indices which did not receive grad for rank " +
                                     std::to_string(group->rank()) + ": " + indices.str();
    const char* debug = std::getenv("TORCH_DISTRIBUTED_DEBUG");
    const std::string level = debug ? debug : "";
    if (level == "INFO" || level == "DETAIL") {
      std::string joined;
      for (const std::string& n : unmarked_names) joined += (joined.empty() ? "" : ", ") + n;
      msg += "\nParameters which did not receive grad for rank " + std::to_string(group->rank()) + ": " + joined;
      msg += indices_info;
    } else {
      msg += indices_info;
      msg += "\n In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or "
             "DETAIL to print out information about which particular parameters did not receive gradient on this "
             "rank as part of this error";
    }
    CTORCH_CHECK(false, msg);
  }

  void arm() {
    armed = true;
    callback_queued = false;
    pending.reset();
    next_launch = 0;
    std::fill(ready.begin(), ready.end(), false);
    std::fill(used.begin(), used.end(), 0);
    used_work = nullptr;
    for (Bucket& b : buckets) {
      b.pending = b.params.size();
      b.work = nullptr;
      b.stream.reset();
    }
  }

  void launch_ready() {
    while (next_launch < buckets.size() && buckets[next_launch].pending == 0) {
      Bucket& b = buckets[next_launch++];
      NoGradGuard no_grad;
      b.buffer.div_(static_cast<double>(group->size()));
      if (b.buffer.is_cuda()) b.stream = cuda::current_stream(b.buffer.device());
      b.work = group->all_reduce(b.buffer, dist::ReduceOp::SUM);
    }
  }

  static bool is_alias_of(const Tensor& a, const Tensor& b) {
    return a.impl()->storage().get() == b.impl()->storage().get() && a.storage_offset() == b.storage_offset();
  }

  // c10d's mark_variable_ready_dense: parameter i's .grad (accumulated) goes into its slot.
  void mark_ready(size_t i) {
    NoGradGuard no_grad;
    Tensor view = slot_view(i);
    Tensor& grad = params[i].mutable_grad();
    if (!grad.defined()) {
      view.zero_();
    } else if (!is_alias_of(grad, view)) {
      view.copy_(grad);
      if (bucket_view) grad = view;
    }
    ready[i] = true;
    require_finalize = true;
    --buckets[where[i].first].pending;
  }

  // The pending parameter's AccumulateGrad has run: it is ready.
  void confirm_pending() {
    if (!pending) return;
    const size_t i = *pending;
    pending.reset();
    mark_ready(i);
    launch_ready();
  }

  // Queues on_backward_end on the running backward (once per backward).
  void queue_end_of_backward() {
    if (callback_queued) return;
    callback_queued = true;
    autograd::queue_callback([weak = weak_from_this()] {
      if (auto self = weak.lock()) self->on_backward_end();
    });
  }

  // A hook on parameter i: its gradient is about to be accumulated (Note [DDP reducer]).
  void on_gradient(size_t i) {
    if (!armed || ready[i] || pending == i) return;
    confirm_pending();
    pending = i;
    if (find_unused) used[i] = 1;
    queue_end_of_backward();
  }

  // Note [Unused parameters]: the backward reached this iteration's output.
  void on_output_gradient() {
    if (armed) queue_end_of_backward();
  }

  // Note [Unfinished reduction]: without every gradient the iteration stays open, unless
  // Note [Unused parameters] marks the rest.
  void on_backward_end() {
    callback_queued = false;
    if (!armed) return;
    confirm_pending();
    if (find_unused) {
      for (size_t i = 0; i < params.size(); ++i) {
        if (!ready[i]) mark_ready(i);
      }
      launch_ready();
    }
    if (next_launch < buckets.size()) return;
    if (find_unused) {
      NoGradGuard no_grad;
      Tensor flags = tensor(used).to(params[0].device());
      used_reduced = flags;
      used_work = group->all_reduce(flags, dist::ReduceOp::SUM);  // after the last bucket, on every rank
    }
    finalize();
  }

  void finalize() {
    armed = false;
    require_finalize = false;
    for (Bucket& b : buckets) b.work->wait();
    std::vector<int64_t> users;  // find_unused: how many ranks used each parameter
    if (used_work) {
      used_work->wait();
      const Tensor counts = used_reduced.to(kLong).cpu();
      for (int64_t i = 0; i < counts.numel(); ++i) users.push_back(counts[i].item<int64_t>());
    }
    NoGradGuard no_grad;
    for (Bucket& b : buckets) {
      if (b.stream) {
        cuda::Stream current = cuda::current_stream(b.buffer.device());
        if (!(current == *b.stream)) current.wait_stream(*b.stream);
      }
      for (size_t slot = 0; slot < b.params.size(); ++slot) {
        const size_t i = b.params[slot];
        if (!users.empty() && users[i] == 0) continue;  // unused on every rank: .grad untouched
        Tensor value = slot_view(i);
        Tensor& grad = params[i].mutable_grad();
        if (bucket_view) {  // Note [Gradient as bucket view]
          if (!grad.defined()) grad = value;
          CTORCH_CHECK(is_alias_of(grad, value),
                       "Detected at least one parameter gradient is not the expected DDP bucket view with "
                       "gradient_as_bucket_view=True. This may happen (for example) if multiple allreduce hooks were "
                       "registered onto the same parameter. If you hit this error, please file an issue with a "
                       "minimal repro.");
        } else if (grad.defined()) {
          grad.copy_(value);
        } else {
          grad = value.clone();
        }
      }
    }
  }
};

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::string> names, std::shared_ptr<dist::ProcessGroup> group,
                 double bucket_cap_mb, bool find_unused_parameters, bool gradient_as_bucket_view)
    : impl_(std::make_shared<Impl>()) {
  CTORCH_CHECK_VALUE(group != nullptr, "Reducer: the process group is null");
  CTORCH_CHECK_VALUE(names.size() == params.size(), "Reducer: got ", params.size(), " parameters but ", names.size(),
                     " names");
  CTORCH_CHECK_VALUE(bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive, got ", bucket_cap_mb);
  Impl& r = *impl_;
  r.group = std::move(group);
  r.params = std::move(params);
  r.names = std::move(names);
  CTORCH_CHECK(!r.params.empty(),
               "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
               "gradient.");
  Device device = r.params[0].device();
  for (const Tensor& p : r.params) {
    CTORCH_CHECK_VALUE(p.requires_grad(), "Reducer: every parameter must require grad");
    CTORCH_CHECK_VALUE(p.device() == device, "DistributedDataParallel: expected every parameter on ", device.str(),
                       ", got one on ", p.device().str(), " (multi-device modules are not supported)");
  }
  // Every rank must hold the same model (PyTorch's _verify_param_shape_across_processes).
  int64_t total = 0;
  for (const Tensor& p : r.params) total += p.numel();
  const int world = r.group->size();
  Tensor mine = tensor(std::vector<int64_t>{static_cast<int64_t>(r.params.size()), total});
  std::vector<Tensor> all;
  for (int i = 0; i < world; ++i) all.push_back(zeros({2}, TensorOptions().dtype(kLong)));
  r.group->all_gather(all, mine)->wait();
  const int me = r.group->rank();
  for (int i = 0; i < world; ++i) {
    const auto theirs = all[static_cast<size_t>(i)][0].item<int64_t>();
    CTORCH_CHECK(theirs == static_cast<int64_t>(r.params.size()), "DDP expects same model across all ranks, but Rank ",
                 me, " has ", r.params.size(), " params, while rank ", i, " has inconsistent ", theirs, " params.");
  }
  // Same counts but other sizes: every rank raises (a rank that went on would wait in the broadcasts).
  const auto elements0 = all[0][1].item<int64_t>();
  for (int i = 1; i < world; ++i) {
    const auto elements = all[static_cast<size_t>(i)][1].item<int64_t>();
    CTORCH_CHECK(elements == elements0, "[", me, "]: the ", r.params.size(), " params of process ", i, " hold ",
                 elements, " elements, which appears not to match the ", elements0,
                 " elements of the same params in process 0.");
  }


  // Note [DDP reducer]: buckets in reverse order, per (dtype, device).
  const auto cap = static_cast<int64_t>(bucket_cap_mb * 1024 * 1024);
  const int64_t first_cap = std::min<int64_t>(1024 * 1024, cap);
  struct Open {
    ScalarType dtype;
    std::vector<size_t> params;
    int64_t bytes = 0;
  };
  std::vector<Open> open;
  bool first_closed = false;
  auto close = [&](Open& o) {
    Impl::Bucket b;
    b.params = o.params;
    int64_t offset = 0;
    for (size_t i : b.params) {
      b.offsets.push_back(offset);
      offset += r.params[i].numel();
    }
    b.buffer = zeros({offset}, TensorOptions().dtype(o.dtype).device(device));
    r.buckets.push_back(std::move(b));
    o.params.clear();
    o.bytes = 0;
    first_closed = true;
  };
  for (size_t k = r.params.size(); k-- > 0;) {
    const Tensor& p = r.params[k];
    auto it = std::find_if(open.begin(), open.end(), [&](const Open& o) { return o.dtype == p.scalar_type(); });
    if (it == open.end()) {
      open.push_back(Open{p.scalar_type(), {}, 0});
      it = open.end() - 1;
    }
    it->params.push_back(k);
    it->bytes += p.nbytes();
    if (it->bytes >= (first_closed ? cap : first_cap)) close(*it);
  }
  for (Open& o : open) {
    if (!o.params.empty()) close(o);
  }
  r.where.assign(r.params.size(), {0, 0});
  for (size_t b = 0; b < r.buckets.size(); ++b) {
    for (size_t slot = 0; slot < r.buckets[b].params.size(); ++slot) r.where[r.buckets[b].params[slot]] = {b, slot};
  }
  r.ready.assign(r.params.size(), false);
  r.find_unused = find_unused_parameters;
  r.bucket_view = gradient_as_bucket_view;
  if (r.bucket_view) {  // gradients that exist already move into their slots (c10d's initialize_bucket_views)
    NoGradGuard no_grad;
    for (size_t i = 0; i < r.params.size(); ++i) {
      Tensor& grad = r.params[i].mutable_grad();
      if (!grad.defined()) continue;
      Tensor view = r.slot_view(i);
      view.copy_(grad);
      grad = view;
    }
  }
  if (r.find_unused) r.used.assign(r.params.size(), 0);
  for (size_t i = 0; i < r.params.size(); ++i) {
    Impl* reducer = impl_.get();
    r.hook_keys.push_back(r.params[i].register_hook([reducer, i](const Tensor&) { reducer->on_gradient(i); }));
  }
}


Reducer::~Reducer() {
  for (size_t i = 0; i < impl_->params.size(); ++i) impl_->params[i].remove_hook(impl_->hook_keys[i]);
}

void Reducer::ensure_prior_reduction_finished() const { impl_->ensure_prior_reduction_finished(); }

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  impl_->arm();
  if (!impl_->find_unused) return;
  std::weak_ptr<Impl> weak = impl_;
  for (const Tensor& output : outputs) {
    if (!output.defined() || !output.grad_fn()) continue;
    output.register_hook([weak](const Tensor&) {
      if (auto r = weak.lock()) r->on_output_gradient();
    });
  }
}

const std::vector<Tensor>& Reducer::parameters() const { return impl_->params; }

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : impl_->buckets) out.push_back(b.params);
  return out;
}

bool Reducer::find_unused_parameters() const { return impl_->find_unused; }

}  // namespace ctorch::nn::parallel
