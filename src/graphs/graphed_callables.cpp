// torch.cuda.make_graphed_callables (ctorch/cuda_graphed_callables.h), after PyTorch's
// torch/cuda/graphs.py: warm-up on a side stream, forward graphs in order, backward graphs in
// reverse order, one shared pool; each result is a Graphed function whose backward node replays
// the captured backward.
#include "ctorch/cuda_graphed_callables.h"

#include <memory>
#include <string>

#include "autograd/meta.h"
#include "ctorch/autograd.h"
#include "ctorch/cuda.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_module.h"

namespace ctorch::cuda {
namespace {

// The graphs and static tensors of one graphed callable.
struct Graphed {
  TensorFunction eager;                   // the original callable (modules outside their captured mode)
  nn::Module* module = nullptr;
  bool training_at_capture = false;
  size_t num_user_args = 0;
  std::vector<Tensor> static_inputs;      // sample args, then the module's parameters
  std::vector<Tensor> static_outputs;     // detached after the backward capture
  std::vector<Tensor> static_grad_outputs;  // undefined where the output needs no gradient
  std::vector<Tensor> static_grad_inputs;   // undefined where the input needs no gradient
  CUDAGraph fwd_graph, bwd_graph;
};

// Python's Graphed.backward (once differentiable): gradients into the static gradient outputs,
// replay, the static gradient inputs detached.
class GraphedBackward : public autograd::Node {
 public:
  explicit GraphedBackward(std::shared_ptr<Graphed> g) : g_(std::move(g)) {}
  std::string name() const override { return "GraphedBackward"; }
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    CTORCH_CHECK(!GradMode::is_enabled(),
                 "make_graphed_callables: a graphed callable's backward cannot be differentiated (no double "
                 "backward)");
    for (size_t i = 0; i < g_->static_grad_outputs.size(); ++i) {
      Tensor& sg = g_->static_grad_outputs[i];
      if (!sg.defined()) continue;
      const Tensor in = i < grads.size() ? grads[i] : Tensor();
      if (!in.defined()) {
        sg.zero_();
      } else if (sg.data_ptr() != in.data_ptr()) {
        sg.copy_(in);
      }
    }
    g_->bwd_graph.replay();
    autograd::variable_list out;
    out.reserve(g_->static_grad_inputs.size());
    for (const Tensor& b : g_->static_grad_inputs) out.push_back(b.defined() ? b.detach() : Tensor());
    return out;
  }

 private:
  std::shared_ptr<Graphed> g_;
};

std::vector<Tensor> requiring_grad(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) {
    if (t.defined() && t.requires_grad()) out.push_back(t);
  }
  return out;
}

std::vector<Tensor> run(const std::shared_ptr<Graphed>& g, const std::vector<Tensor>& args) {
  CTORCH_CHECK_VALUE(args.size() == g->num_user_args, "make_graphed_callables: the graphed callable was captured with ",
                     g->num_user_args, " arguments, got ", args.size());
  if (g->module != nullptr && g->module->is_training() != g->training_at_capture) return g->eager(args);
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor& s = g->static_inputs[i];
    const Tensor& a = args[i];
    CTORCH_CHECK_VALUE(a.defined() && a.sizes() == s.sizes() && a.dtype() == s.dtype() && a.device() == s.device(),
                       "make_graphed_callables: argument ", i, " must match the sample argument it was captured with (",
                       s.sizes(), ", ", s.dtype(), ", ", s.device(), "), got ",
                       a.defined() ? ::ctorch::detail::str_cat(a.sizes(), ", ", a.dtype(), ", ", a.device()) : "an undefined tensor");
  }
  {
    NoGradGuard no_grad;
    for (size_t i = 0; i < args.size(); ++i) {
      if (g->static_inputs[i].data_ptr() != args[i].data_ptr()) g->static_inputs[i].copy_(args[i]);
    }
  }
  g->fwd_graph.replay();
  std::vector<Tensor> outputs;
  outputs.reserve(g->static_outputs.size());
  for (const Tensor& o : g->static_outputs) outputs.push_back(o.detach());

  // Function.apply: the outputs join the graph when grad mode is on and an input requires grad.
  std::vector<Tensor> inputs = args;
  for (size_t i = g->num_user_args; i < g->static_inputs.size(); ++i) inputs.push_back(g->static_inputs[i]);
  bool any = false;
  for (const Tensor& t : inputs) any = any || t.requires_grad();
  if (!GradMode::is_enabled() || !any) return outputs;
  auto node = std::make_shared<GraphedBackward>(g);
  for (const Tensor& t : inputs) {
    node->next_edges_.push_back(t.requires_grad() ? autograd::gradient_edge(t) : autograd::Edge{});
    autograd::InputMetadata m;
    m.sizes = DimVector(t.sizes());
    m.dtype = t.scalar_type();
    m.device = t.device();
    node->input_metadata_.push_back(std::move(m));
  }
  node->num_inputs_ = static_cast<uint32_t>(outputs.size());
  node->stream_ = static_cast<::ctorch::Stream>(current_stream(g->static_inputs.front().get_device()));
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].is_floating_point()) continue;
    autograd::AutogradMeta& meta = autograd::materialize_meta(outputs[i]);
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(i);
    outputs[i].impl()->set_requires_grad(true);
  }
  return outputs;
}

}  // namespace

std::vector<TensorFunction> make_graphed_callables(const std::vector<GraphableCallable>& callables,
                                                   const std::vector<std::vector<Tensor>>& sample_args,
                                                   int num_warmup_iters, bool allow_unused_input,
                                                   std::optional<MempoolId> pool) {
  CTORCH_CHECK_VALUE(callables.size() == sample_args.size(), "make_graphed_callables: got ", callables.size(),
                     " callables and ", sample_args.size(), " sample argument lists");
  CTORCH_CHECK_VALUE(num_warmup_iters >= 0, "make_graphed_callables: num_warmup_iters must be >= 0, got ",
                     num_warmup_iters);
  std::vector<std::shared_ptr<Graphed>> graphed;
  for (size_t i = 0; i < callables.size(); ++i) {
    CTORCH_CHECK_VALUE(static_cast<bool>(callables[i].fn), "make_graphed_callables: callable ", i, " is empty");
    CTORCH_CHECK_VALUE(!sample_args[i].empty(), "make_graphed_callables: callable ", i, " has no sample arguments");
    for (const Tensor& a : sample_args[i]) {
      CTORCH_CHECK_VALUE(a.defined(), "In the beta API, sample_args for each callable must contain only Tensors. "
                         "Other types are not allowed.");
      CTORCH_CHECK_VALUE(a.is_cuda(), "make_graphed_callables: sample_args must be CUDA tensors, got a tensor on ",
                         a.device());
    }
    auto g = std::make_shared<Graphed>();
    g->eager = callables[i].fn;
    g->module = callables[i].module;
    g->num_user_args = sample_args[i].size();
    g->static_inputs = sample_args[i];
    if (g->module != nullptr) {
      for (const Tensor& b : g->module->buffers()) {
        CTORCH_CHECK_VALUE(!b.requires_grad(), "In any nn::Module passed to make_graphed_callables, only parameters "
                           "may be trainable. All buffers must have requires_grad=false.");
      }
      g->training_at_capture = g->module->is_training();
      for (const Tensor& p : g->module->parameters()) g->static_inputs.push_back(p);
    }
    graphed.push_back(std::move(g));
  }

  // Warm-up on a side stream: lazy initialization happens outside the captures.
  synchronize();
  {
    Stream side;
    StreamContext on_side(side);
    for (const auto& g : graphed) {
      for (int it = 0; it < num_warmup_iters; ++it) {
        const std::vector<Tensor> outs = requiring_grad(g->eager(g->static_inputs));
        const std::vector<Tensor> ins = requiring_grad(g->static_inputs);
        if (outs.empty() || ins.empty()) continue;
        std::vector<Tensor> grad_outs;
        for (const Tensor& o : outs) grad_outs.push_back(empty_like(o));
        (void)autograd::grad(outs, ins, grad_outs, std::nullopt, false, allow_unused_input);
      }
    }
  }
  synchronize();

  const MempoolId mempool = pool.value_or(graph_pool_handle());
  for (const auto& g : graphed) {
    graph scope(g->fwd_graph, mempool);
    g->static_outputs = g->eager(g->static_inputs);
  }
  for (auto it = graphed.rbegin(); it != graphed.rend(); ++it) {
    Graphed& g = **it;
    std::vector<Tensor> grad_outs;
    for (const Tensor& o : g.static_outputs) {
      g.static_grad_outputs.push_back(o.requires_grad() ? empty_like(o) : Tensor());
      if (o.requires_grad()) grad_outs.push_back(g.static_grad_outputs.back());
    }
    const std::vector<Tensor> outs = requiring_grad(g.static_outputs);
    const std::vector<Tensor> ins = requiring_grad(g.static_inputs);
    std::vector<Tensor> grads;
    {
      graph scope(g.bwd_graph, mempool);
      if (!outs.empty() && !ins.empty()) grads = autograd::grad(outs, ins, grad_outs, std::nullopt, false, allow_unused_input);
    }
    size_t k = 0;
    for (const Tensor& in : g.static_inputs) g.static_grad_inputs.push_back(in.requires_grad() && k < grads.size() ? grads[k++] : Tensor());
    for (Tensor& o : g.static_outputs) o = o.detach();  // the captured forward's nodes are no longer needed
  }

  std::vector<TensorFunction> result;
  for (const auto& g : graphed) result.push_back([g](const std::vector<Tensor>& args) { return run(g, args); });
  return result;
}

TensorFunction make_graphed_callables(const GraphableCallable& callable, const std::vector<Tensor>& sample_args,
                                      int num_warmup_iters, bool allow_unused_input, std::optional<MempoolId> pool) {
  return make_graphed_callables(std::vector<GraphableCallable>{callable}, {sample_args}, num_warmup_iters,
                                allow_unused_input, pool)
      .front();
}

}  // namespace ctorch::cuda
