// Custom autograd functions (ctorch/autograd_function.h), as PyTorch's CppNode / THPFunction_apply
// (torch/csrc/autograd/custom_function.{h,cpp}): forward runs with grad mode off; outputs get the
// node as grad_fn (an input returned as is becomes a view of it first; a dirty input is rebased);
// backward receives zeros for outputs without a gradient unless set_materialize_grads(false), and
// must return one gradient per forward argument.
#include "core/demangle.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include "autograd/meta.h"
#include "autograd/saved_variable.h"
#include "ctorch/autograd_function.h"
#include "autograd/anomaly.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ops/launch.h"

namespace ctorch::autograd {

std::string demangled_name(const char* mangled) { return ::ctorch::detail::demangle(mangled); }

/// The backward node of one custom-function call.
class CustomNode final : public Node {
 public:
  CustomNode(std::string name, std::shared_ptr<AutogradContext> ctx,
             std::function<variable_list(AutogradContext*, variable_list)> backward, std::vector<size_t> positions,
             size_t num_arguments)
      : name_(std::move(name)), ctx_(std::move(ctx)), backward_(std::move(backward)), positions_(std::move(positions)),
        num_arguments_(num_arguments) {}

  std::string name() const override { return name_; }

  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < grads.size() && i < outputs_.size(); ++i) {
      if (!grads[i].defined() && ctx_->materialize_grads_) {
        grads[i] = zeros(IntArrayRef(outputs_[i].sizes), TensorOptions().dtype(outputs_[i].dtype).device(outputs_[i].device));
      }
    }
    variable_list given = backward_(ctx_.get(), std::move(grads));
    // PyTorch accepts exactly one gradient per argument, or extra undefined ones.
    size_t returned = given.size();
    while (returned > num_arguments_ && !given[returned - 1].defined()) --returned;
    CTORCH_CHECK(returned == num_arguments_, "function ", name_, " returned an incorrect number of gradients (expected ",
                 num_arguments_, ", got ", given.size(), ")");
    variable_list out(num_outputs());
    for (size_t i = 0; i < out.size(); ++i) {
      const Tensor& g = given[positions_[i]];
      if (!next_edges_[i].is_valid() || !g.defined()) continue;
      out[i] = fit(g, i);
    }
    return out;
  }

  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    ctx_->saved_.clear();
    ctx_->released_ = true;
  }

  std::vector<InputMetadata> outputs_;  // what a missing output gradient is materialized as

 private:
  std::string name_;
  std::shared_ptr<AutogradContext> ctx_;
  std::function<variable_list(AutogradContext*, variable_list)> backward_;
  std::vector<size_t> positions_;
  size_t num_arguments_;
  std::mutex mutex_;
};

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

variable_list AutogradContext::get_saved_variables() const {
  CTORCH_CHECK(!released_, kBackwardTwice);
  const std::shared_ptr<Node> node = node_.lock();
  if (node == nullptr) return to_save_;  // forward ran without recording
  variable_list out;
  out.reserve(saved_.size());
  for (size_t i = 0; i < saved_.size(); ++i) {
    const auto& [t, is_output] = saved_[i];
    if (t.defined() && t._version() != saved_versions_[i]) {
      CTORCH_CHECK(false, "one of the variables needed for gradient computation has been modified by an inplace "
                          "operation: [", t.is_cuda() ? "torch.cuda." : "torch.", scalar_type_cpp_name(t.dtype()),
                   "Tensor ", t.sizes(), "]", is_output ? ", which is output " + std::to_string(saved_output_nrs_[i]) + " of " + node->name() + "," : std::string(),
                   " is at version ", t._version(), "; expected version ", saved_versions_[i],
                   " instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                   "gradient, with torch.autograd.set_detect_anomaly(True).");
    }
    if (!is_output || !t.defined() || !GradMode::is_enabled()) {
      out.push_back(t);
      continue;
    }
    Tensor o = t.detach();  // create_graph: a saved output is differentiable again, through this node
    AutogradMeta& meta = materialize_meta(o);
    meta.grad_fn = node;
    meta.output_nr = saved_output_nrs_[i];
    o.impl()->set_requires_grad(true);
    out.push_back(std::move(o));
  }
  return out;
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs) dirty_.insert(t.impl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.insert(t.impl());
}

bool AutogradContext::needs_input_grad(size_t index) const {
  if (index >= needs_input_grad_.size() || !needs_input_grad_[index]) return false;
  const std::shared_ptr<Node> node = node_.lock();
  if (!node || index >= input_of_argument_.size() || input_of_argument_[index] < 0) return true;
  const auto input = static_cast<size_t>(input_of_argument_[index]);
  return input >= node->next_edges().size() || detail::edge_needed(node->next_edges()[input]);
}

variable_list CustomFunctionCall::run() {
  auto ctx = std::make_shared<AutogradContext>();
  bool any = false;
  ctx->needs_input_grad_.assign(num_arguments, false);
  ctx->input_of_argument_.assign(num_arguments, -1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool needs = inputs[i].defined() && inputs[i].requires_grad();
    ctx->needs_input_grad_[input_positions[i]] = needs;
    ctx->input_of_argument_[input_positions[i]] = static_cast<int>(i);
    any = any || needs;
  }
  const bool record = any && GradMode::is_enabled();
  variable_list outputs;
  {
    NoGradGuard no_grad;
    outputs = forward(ctx.get());
  }
  for (const Tensor& out : outputs) {  // modified in place, whatever forward wrote through (libtorch's bump)
    if (out.defined() && ctx->dirty_.count(out.impl())) out.impl()->storage()->bump_version();
  }
  if (!record) return outputs;

  auto node = std::make_shared<CustomNode>(name, ctx, backward, input_positions, num_arguments);
  for (const Tensor& t : inputs) {
    node->next_edges_.push_back(t.defined() && t.requires_grad() ? gradient_edge(t) : Edge{});
    node->input_metadata_.push_back(InputMetadata::of(t));
  }
  node->num_inputs_ = static_cast<uint32_t>(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    node->outputs_.push_back(InputMetadata::of(out));
    if (!out.defined()) continue;
    if (out.is_cuda() && !node->stream_) node->stream_ = ops::stream_for(out.device());
    const bool differentiable = (is_floating_point(out.dtype()) || is_complex(out.dtype())) &&
                                !ctx->non_differentiable_.count(out.impl());
    const Tensor* same_input = nullptr;
    for (const Tensor& in : inputs) {
      if (same_input == nullptr && in.defined() && in.is_same(out)) same_input = &in;
    }
    if (ctx->dirty_.count(out.impl())) {
      AutogradMeta* meta = meta_of(out);
      CTORCH_CHECK(!(out.requires_grad() && (meta == nullptr || !meta->grad_fn)),
                   "a leaf Variable that requires grad has been used in an in-place operation.");
    } else if (same_input != nullptr) {
      NoGradGuard no_grad;  // an input returned as is: the output is a new view of it (PyTorch's view_as)
      out = out.as_strided(out.sizes(), out.strides(), out.storage_offset());
      if (differentiable) make_view_of(out, *same_input);
    }
    if (!differentiable) continue;
    AutogradMeta& meta = materialize_meta(out);
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(i);
    out.impl()->set_requires_grad(true);
  }
  // What forward saved: outputs are kept without their history (the node would own itself).
  for (const Tensor& t : ctx->to_save_) {
    bool is_output = false;
    uint32_t output_nr = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (t.defined() && outputs[i].defined() && t.impl() == outputs[i].impl()) {
        is_output = true;
        output_nr = static_cast<uint32_t>(i);
      }
    }
    ctx->saved_.emplace_back(is_output ? t.detach() : t, is_output);
    ctx->saved_versions_.push_back(t.defined() ? t._version() : 0);
    ctx->saved_output_nrs_.push_back(output_nr);
  }
  ctx->to_save_.clear();
  ctx->node_ = node;  // weak: the node owns ctx
  return outputs;
}

}  // namespace ctorch::autograd
