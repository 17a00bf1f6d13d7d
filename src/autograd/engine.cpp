// The backward engine: runs the recorded graph from the outputs to the leaves on the calling
// thread, each node on the device and stream its forward used (PyTorch's stream semantics of
// backward: a gradient made on another stream is waited for with an event, and the caller's
// current streams wait for the backward's streams at the end).
#include <map>
#include <queue>
#include <thread>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "autograd/accumulate_grad.h"
#include "autograd/anomaly.h"
#include "autograd/meta.h"
#include "ctorch/autograd.h"
#include "ctorch/cuda_event.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/warning.h"
#include "ctorch/factories.h"
#include "ops/launch.h"
#include "runtime/current.h"

namespace ctorch::autograd {

namespace {

std::atomic<bool> g_anomaly{false};
std::atomic<bool> g_anomaly_check_nan{true};
thread_local const Node* t_running_node = nullptr;
thread_local const std::function<bool(const Node*)>* t_node_needed = nullptr;  // the running task's
std::atomic<bool> g_create_graph_warned{false};

// A gradient waiting for its node, with the stream that produced it (cuda only).
struct Pending {
  Tensor grad;
  std::optional<Stream> stream;
};

struct NodeTask {
  std::vector<Pending> inputs;
  int dependencies = 0;
};

struct ByPriority {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

// Makes `consumer` wait for the work that produced `grad` on `producer`.
void sync_streams(const std::optional<Stream>& producer, const std::optional<Stream>& consumer) {
  if (!producer || !consumer || *producer == *consumer) return;
  cuda::Event event;
  event.record(cuda::Stream(*producer));
  event.wait(cuda::Stream(*consumer));
}

// Adds `grad` (made on `stream`) into the input slot of a node that runs on `consumer`: a second
// gradient is summed on the consumer's stream once both producers' work is waited for.
void add_gradient(Pending& slot, const Tensor& grad, const std::optional<Stream>& stream,
                  const std::optional<Stream>& consumer) {
  if (!grad.defined()) return;
  if (!slot.grad.defined()) {
    slot.grad = grad;
    slot.stream = stream;
    return;
  }
  const std::optional<Stream> where = consumer ? consumer : stream;
  sync_streams(slot.stream, where);
  sync_streams(stream, where);
  std::optional<impl::StreamGuard> guard;
  if (where) guard.emplace(*where);
  slot.grad = slot.grad + grad;  // out of place: the first gradient may be shared
  slot.stream = where;
}

void check_anomaly(const Node& node, const variable_list& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !g.is_floating_point()) continue;
    if (g.ne(g).any().item<bool>()) {
      // PyTorch warns with the forward's traceback, then raises.
      detail::warn_anomaly_traces(node);
      std::ostringstream os;
      os << "Function '" << node.name() << "' returned nan values in its " << i << "th output.";
      CTORCH_CHECK(false, os.str());
    }
  }
}

// The gradient to start from for `output`: given, or ones for a one-element output.
Tensor root_gradient(const Tensor& output, const Tensor& given, size_t i) {
  if (given.defined()) {
    CTORCH_CHECK(given.sizes() == output.sizes(), "Mismatch in shape: grad_output[", i, "] has a shape of torch.Size(",
                 given.sizes(), ") and output[", i, "] has a shape of torch.Size(", output.sizes(), ").");
    return given;
  }
  CTORCH_CHECK(output.numel() == 1, "grad can be implicitly created only for scalar outputs");
  return ones_like(output);
}

struct RunOptions {
  bool keep_graph = false;
  bool create_graph = false;
  bool accumulate = true;                        // backward(): AccumulateGrad nodes run
  std::vector<Edge> captures;                    // grad(): gradients to return, by edge
  bool restrict_to_captures = false;             // backward(inputs=...): only these leaves
};

// Callbacks queued by queue_callback during the backward running on this thread (null outside one).
thread_local std::vector<std::function<void()>>* t_final_callbacks = nullptr;

// Runs the graph below `roots`; returns the captured gradients (grad()).
variable_list run_graph(const variable_list& roots, const variable_list& root_grads, const RunOptions& opt);

// run_graph, then the callbacks queued while it ran (in order; a callback may queue more).
// Reentrant backward (a node's backward calling backward) nests on the calling thread up to this
// depth; deeper, the nested backward runs on a fresh thread (a fresh stack), as PyTorch's engine
// hands it to a pool thread past its MAX_DEPTH, so thousands of levels do not overflow the stack.
constexpr int kMaxReentrantDepth = 60;
thread_local int t_reentrant_depth = 0;

variable_list run_here(const variable_list& roots, const variable_list& root_grads, const RunOptions& opt);

variable_list run(const variable_list& roots, const variable_list& root_grads, const RunOptions& opt) {
  if (t_reentrant_depth < kMaxReentrantDepth) {
    ++t_reentrant_depth;
    struct Depth {
      ~Depth() { --t_reentrant_depth; }
    } depth;
    return run_here(roots, root_grads, opt);
  }
  variable_list result;
  std::exception_ptr error;
  const bool grad_enabled = GradMode::is_enabled();
  WarningHandler handler = set_warning_handler(nullptr);  // the caller's, carried to the worker
  set_warning_handler(handler);
  const Node* caller = t_running_node;
  std::thread worker([&] {
    try {
      AutoGradMode mode(grad_enabled);
      WarningHandlerGuard warnings(handler);
      t_running_node = caller;
      result = run(roots, root_grads, opt);
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
  return result;
}

variable_list run_here(const variable_list& roots, const variable_list& root_grads, const RunOptions& opt) {
  std::vector<std::function<void()>> callbacks;
  std::vector<std::function<void()>>* const outer = t_final_callbacks;
  t_final_callbacks = &callbacks;
  struct Restore {
    std::vector<std::function<void()>>* outer;
    ~Restore() { t_final_callbacks = outer; }
  } restore{outer};
  variable_list result = run_graph(roots, root_grads, opt);
  for (size_t i = 0; i < callbacks.size(); ++i) {
    std::function<void()> fn = std::move(callbacks[i]);
    fn();
  }
  return result;
}

variable_list run_graph(const variable_list& roots, const variable_list& root_grads, const RunOptions& opt) {
  // Root edges and their gradients.
  std::vector<Edge> root_edges;
  variable_list start;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& t = roots[i];
    CTORCH_CHECK(t.defined(), "element ", i, " of tensors is undefined");
    Edge e = gradient_edge(t);
    CTORCH_CHECK(e.is_valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    root_edges.push_back(e);
    start.push_back(root_gradient(t, i < root_grads.size() ? root_grads[i] : Tensor(), i));
  }

  // Dependencies: how many edges lead into each node.
  std::unordered_map<Node*, NodeTask> tasks;
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  for (const Edge& e : root_edges) {
    if (seen.insert(e.function.get()).second) stack.push_back(e.function.get());
  }
  std::vector<Node*> order;  // discovery order, for the needed-set pass
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    tasks[n].inputs.resize(n->num_inputs());
    for (const Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      tasks[e.function.get()].dependencies++;
      if (seen.insert(e.function.get()).second) stack.push_back(e.function.get());
    }
  }

  // Which nodes must run: with captures (grad, or backward with inputs), those that lead to one.
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> capture_at;
  for (size_t i = 0; i < opt.captures.size(); ++i) {
    const Edge& e = opt.captures[i];
    if (e.is_valid()) capture_at[e.function.get()].push_back({e.input_nr, i});
  }
  std::unordered_set<Node*> needed;
  const bool restricted = !opt.accumulate || opt.restrict_to_captures;
  if (restricted) {
    // Reverse discovery order is not topological in general; iterate to a fixed point.
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {  // children tend to come later
        Node* n = *it;
        if (needed.count(n)) continue;
        bool need = capture_at.count(n) && opt.restrict_to_captures && opt.accumulate;
        if (!need) {
          for (const Edge& e : n->next_edges()) {
            if (e.is_valid() && (needed.count(e.function.get()) || capture_at.count(e.function.get()))) {
              need = true;
              break;
            }
          }
        }
        if (need) {
          needed.insert(n);
          changed = true;
        }
      }
    }
  }
  auto must_run = [&](Node* n) { return !restricted || needed.count(n); };
  // What a custom function's needs_input_grad asks while this task runs (PyTorch's exec_info).
  std::function<bool(const Node*)> node_needed = [&](const Node* n) {
    Node* m = const_cast<Node*>(n);
    return must_run(m) || capture_at.count(m) > 0;
  };
  struct TaskScope {
    const std::function<bool(const Node*)>* previous;
    explicit TaskScope(const std::function<bool(const Node*)>* f) : previous(std::exchange(t_node_needed, f)) {}
    ~TaskScope() { t_node_needed = previous; }
  } task_scope(&node_needed);

  variable_list captured(opt.captures.size());
  std::priority_queue<Node*, std::vector<Node*>, ByPriority> ready;
  for (size_t i = 0; i < root_edges.size(); ++i) {
    Node* n = root_edges[i].function.get();
    std::optional<Stream> stream;
    if (start[i].is_cuda()) stream = ops::stream_for(start[i].device());
    add_gradient(tasks[n].inputs[root_edges[i].input_nr], start[i], stream, n->stream());
  }
  std::unordered_set<Node*> queued;
  for (const Edge& e : root_edges) {
    Node* n = e.function.get();
    if (tasks[n].dependencies == 0 && queued.insert(n).second) ready.push(n);
  }

  std::unordered_set<Stream> used_streams;
  AutoGradMode grad_mode(opt.create_graph);
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    NodeTask& task = tasks[node];
    const std::optional<Stream>& stream = node->stream();
    variable_list inputs;
    inputs.reserve(task.inputs.size());
    for (Pending& p : task.inputs) {
      sync_streams(p.stream, stream);
      inputs.push_back(std::move(p.grad));
    }
    task.inputs.clear();
    inputs = node->run_pre_hooks(std::move(inputs));
    if (auto it = capture_at.find(node); it != capture_at.end()) {
      for (auto [input_nr, index] : it->second) {
        if (input_nr < inputs.size()) captured[index] = inputs[input_nr];
      }
    }
    if (!must_run(node)) continue;
    if (!opt.accumulate && dynamic_cast<AccumulateGrad*>(node) != nullptr) continue;

    variable_list outputs;
    {
      std::optional<impl::StreamGuard> guard;
      if (stream) {
        guard.emplace(*stream);
        used_streams.insert(*stream);
      }
      const Node* caller = detail::set_current_backward_node(node);
      try {
        outputs = node->apply(std::move(inputs));
      } catch (...) {
        detail::set_current_backward_node(caller);
        if (AnomalyMode::is_enabled()) detail::warn_anomaly_traces(*node);
        throw;
      }
      detail::set_current_backward_node(caller);
      if (AnomalyMode::is_enabled() && AnomalyMode::should_check_nan()) check_anomaly(*node, outputs);
    }
    if (!opt.keep_graph) node->release_variables();

    const auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size() && i < outputs.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      NodeTask& next_task = tasks[next];
      if (must_run(next) || capture_at.count(next)) {
        add_gradient(next_task.inputs[e.input_nr], outputs[i], stream, next->stream());
      }
      if (--next_task.dependencies == 0 && queued.insert(next).second) ready.push(next);
    }
  }

  // The caller's current streams wait for the streams backward used.
  for (const Stream& s : used_streams) sync_streams(s, ops::stream_for(s.device()));
  return captured;
}

}  // namespace

void queue_callback(std::function<void()> fn) {
  CTORCH_CHECK_VALUE(fn != nullptr, "queue_callback: the callback is empty");
  CTORCH_CHECK(t_final_callbacks != nullptr, "Final callbacks can only be installed during backward pass.");
  t_final_callbacks->push_back(std::move(fn));
}

bool AnomalyMode::is_enabled() noexcept { return g_anomaly.load(std::memory_order_relaxed); }

void AnomalyMode::set_enabled(bool enabled, bool check_nan) noexcept {
  g_anomaly.store(enabled, std::memory_order_relaxed);
  g_anomaly_check_nan.store(check_nan, std::memory_order_relaxed);
}

bool AnomalyMode::should_check_nan() noexcept { return g_anomaly_check_nan.load(std::memory_order_relaxed); }

DetectAnomalyGuard::DetectAnomalyGuard(bool check_nan)
    : previous_(AnomalyMode::is_enabled()), previous_check_nan_(AnomalyMode::should_check_nan()) {
  warn("This mode should be enabled only for debugging as the different tests will slow down your program "
       "execution.");
  AnomalyMode::set_enabled(true, check_nan);
}

DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(previous_, previous_check_nan_); }

namespace detail {

const Node* current_backward_node() { return t_running_node; }

bool edge_needed(const Edge& edge) {
  if (t_node_needed == nullptr) return true;
  return edge.is_valid() && (*t_node_needed)(edge.function.get());
}

const Node* set_current_backward_node(const Node* node) { return std::exchange(t_running_node, node); }

void record_anomaly_trace(Node& node, std::string trace) {
  node.forward_trace_ = std::move(trace);
  const Node* parent = t_running_node;
  if (parent == nullptr || parent->forward_trace_.empty()) return;
  std::string text = parent->forward_trace_;
  const std::string caused = "Traceback of forward call that caused the error:";
  if (text.compare(0, caused.size(), caused) == 0) text = text.substr(caused.size());
  node.anomaly_parents_.push_back("\n\nPrevious calculation was induced by " + parent->name() +
                                  ". Traceback of forward call that induced the previous calculation:" + text);
  for (const std::string& p : parent->anomaly_parents_) node.anomaly_parents_.push_back(p);
}

void warn_anomaly_traces(const Node& node) {
  if (node.forward_trace_.empty()) return;
  warn("Error detected in " + node.name() + ". " + node.forward_trace_);
  for (const std::string& p : node.anomaly_parents_) warn(p);
}

}  // namespace detail

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  if (create_graph) {  // torch/csrc/autograd/autograd.cpp's TORCH_WARN_ONCE
    warn_once(g_create_graph_warned,
              "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
              "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
              "avoid this. If you have to use this function, make sure to reset the .grad fields of your "
              "parameters to None after use to break the cycle and avoid the leak.");
  }
  RunOptions opt;
  opt.keep_graph = retain_graph.value_or(create_graph);
  opt.create_graph = create_graph;
  for (size_t i = 0; i < inputs.size(); ++i) {
    CTORCH_CHECK(inputs[i].requires_grad(), "One of the differentiated Tensors does not require grad");
    if (!inputs[i].is_leaf()) inputs[i].retain_grad();  // PyTorch's run_backward: .grad is filled for non-leaves too
    opt.captures.push_back(gradient_edge(inputs[i]));
  }
  opt.restrict_to_captures = !inputs.empty();
  run(tensors, grad_tensors, opt);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  RunOptions opt;
  opt.keep_graph = retain_graph.value_or(create_graph);
  opt.create_graph = create_graph;
  opt.accumulate = false;
  CTORCH_CHECK(!inputs.empty(), "grad requires non-empty inputs.");
  for (size_t i = 0; i < inputs.size(); ++i) {
    CTORCH_CHECK(inputs[i].requires_grad(), "One of the differentiated Tensors does not require grad");
    opt.captures.push_back(gradient_edge(inputs[i]));
  }
  variable_list result = run(outputs, grad_outputs, opt);
  for (size_t i = 0; i < result.size(); ++i) {
    CTORCH_CHECK(allow_unused || result[i].defined(),
                 "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True "
                 "if this is the desired behavior.");
  }
  return result;
}

}  // namespace ctorch::autograd
