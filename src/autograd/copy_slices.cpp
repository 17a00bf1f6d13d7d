// CopySlices and the grad_fn of differentiable views (Note [In-place on views]).
#include "autograd/copy_slices.h"

#include "autograd/derivatives.h"
#include "autograd/formula_node.h"
#include "autograd/meta.h"
#include "autograd/saved_variable.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ops/launch.h"

namespace ctorch::autograd {

namespace {

// AsStridedBackward0 from `base`'s current history to `view` (PyTorch regenerates a view's grad_fn
// as as_strided of its base when the view has no replayable view function).
std::shared_ptr<Node> as_strided_from_base(const Tensor& view, const Tensor& base) {
  ops::GradArgs args;
  args.dims = DimVector(view.sizes());
  args.strides = DimVector(view.strides());
  args.start = view.storage_offset();
  args.self_strides = DimVector(base.strides());
  args.self_offset = base.storage_offset();
  args.self_storage = static_cast<int64_t>(base.impl()->storage()->nbytes() / base.element_size());
  const Derivative& d = *derivative_of(ops::GradFn::AsStrided, args);
  auto node = std::make_shared<FormulaNode>(d, std::move(args), d.node);
  node->next_edges_.push_back(gradient_edge(base));
  node->input_metadata_.push_back(InputMetadata::of(base));
  if (view.is_cuda()) node->stream_ = ops::stream_for(view.device());
  return node;
}

}  // namespace

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_(Geometry::of(base)), view_(Geometry::of(view)), fn_(std::move(fn)) {
  next_edges_.reserve(fn_->num_outputs());
  input_metadata_.reserve(fn_->num_outputs());
  next_edges_.push_back(base.requires_grad() ? gradient_edge(base) : Edge{});
  input_metadata_.push_back(InputMetadata::of(base));
  for (size_t i = 1; i < fn_->num_outputs(); ++i) {
    next_edges_.push_back(fn_->next_edges_[i]);
    input_metadata_.push_back(fn_->input_metadata_[i]);
  }
  stream_ = fn_->stream_;
  forward_trace_ = fn_->forward_trace_;
}

variable_list CopySlices::apply(variable_list&& grads) {
  const Tensor grad = grads.empty() ? Tensor() : grads[0];
  if (!grad.defined()) return variable_list(num_outputs());
  std::lock_guard<std::mutex> lock(mutex_);
  CTORCH_CHECK(fn_ != nullptr, kBackwardTwice);
  // The base's gradient, with the view's part replaced by fn's gradient for the view's old value.
  Tensor result = empty_strided(base_.sizes, base_.strides, grad.options());
  result.copy_(grad);
  Tensor grad_slice = result.as_strided(view_.sizes, view_.strides, view_.storage_offset - base_.storage_offset);
  if (GradMode::is_enabled() && grad.requires_grad()) make_view_of(grad_slice, result);  // create_graph
  variable_list res = fn_->apply({grad_slice.clone()});
  variable_list out(num_outputs());
  for (size_t i = 0; i < out.size() && i < res.size(); ++i) {
    if (!next_edges_[i].is_valid()) continue;
    if (i == 0) {
      // A formula without a gradient for the overwritten value (a custom function) means zero.
      if (res[0].defined()) {
        grad_slice.copy_(res[0]);
      } else {
        grad_slice.zero_();
      }
      out[0] = result;
    } else {
      out[i] = std::move(res[i]);
    }
  }
  return out;
}

void CopySlices::release_variables() {
  std::lock_guard<std::mutex> lock(mutex_);
  fn_.reset();
}

void rebase_history(const Tensor& view, std::shared_ptr<Node> fn) {
  AutogradMeta& meta = *meta_of(view);
  const Tensor base = meta.view_base;
  auto copy_slices = std::make_shared<CopySlices>(base, view, std::move(fn));
  AutogradMeta& base_meta = materialize_meta(base);
  base_meta.grad_fn = std::move(copy_slices);
  base_meta.output_nr = 0;
  base.impl()->set_requires_grad(true);
  std::lock_guard<std::mutex> lock(meta.mutex);
  set_inplace_history(meta, as_strided_from_base(view, base));
  meta.view_version.store(view._version(), std::memory_order_release);
  view.impl()->set_requires_grad(true);
}

const std::shared_ptr<Node>& current_grad_fn(const Tensor& t, AutogradMeta& meta) {
  if (!meta.view_base.defined()) return meta.grad_fn;
  const uint32_t version = t._version();
  if (meta.view_version.load(std::memory_order_acquire) == version) return meta.grad_fn;
  std::lock_guard<std::mutex> lock(meta.mutex);
  if (meta.view_version.load(std::memory_order_relaxed) != version) {
    // Written since: the view's values now come from the base's current history.
    if (meta.view_base.requires_grad()) {
      meta.grad_fn = as_strided_from_base(t, meta.view_base);
      meta.output_nr = 0;
      t.impl()->set_requires_grad(true);
    }
    meta.view_version.store(version, std::memory_order_release);
  }
  return meta.grad_fn;
}

void make_view_of(const Tensor& view, const Tensor& base) {
  AutogradMeta* base_meta = meta_of(base);
  const Tensor root = base_meta != nullptr && base_meta->view_base.defined() ? base_meta->view_base : base;
  AutogradMeta& meta = materialize_meta(view);
  meta.view_base = root;
  meta.view_version.store(view._version(), std::memory_order_release);
}

}  // namespace ctorch::autograd
