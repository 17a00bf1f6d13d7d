// Tensor's autograd methods (declared in ctorch/tensor.h): grad, grad_fn, backward, hooks.
#include "autograd/meta.h"

#include <utility>
#include "ctorch/autograd.h"
#include "ctorch/warning.h"

namespace ctorch::inline api {

using autograd::AutogradMeta;
using autograd::materialize_meta;
using autograd::meta_of;

namespace {
const Tensor kUndefined;
const std::shared_ptr<autograd::Node> kNoNode;
}  // namespace

Tensor& Tensor::requires_grad_(bool value) {
  CTORCH_CHECK(!value || is_floating_point(), "only Tensors of floating point dtype can require gradients");
  if (!value) {
    AutogradMeta* meta = meta_of(*this);
    CTORCH_CHECK(meta == nullptr || !meta->grad_fn,
                 "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                 "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  }
  impl_->set_requires_grad(value);
  return *this;
}

const Tensor& Tensor::grad() const {
  AutogradMeta* meta = meta_of(*this);
  if (meta != nullptr && meta->grad_fn && !meta->retains_grad) {
    warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
         "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
         "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
         "you access the leaf Tensor instead.");
  }
  return meta != nullptr ? meta->grad : kUndefined;
}

Tensor& Tensor::mutable_grad() const { return materialize_meta(*this).grad; }

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  AutogradMeta* meta = meta_of(*this);
  return meta != nullptr ? autograd::current_grad_fn(*this, *meta) : kNoNode;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

int64_t Tensor::output_nr() const {
  AutogradMeta* meta = meta_of(*this);
  return meta != nullptr ? meta->output_nr : 0;
}

bool Tensor::is_view() const {
  AutogradMeta* meta = meta_of(*this);
  return meta != nullptr && meta->view_base.defined();
}

const Tensor& Tensor::_base() const {
  AutogradMeta* meta = meta_of(*this);
  CTORCH_CHECK(meta != nullptr && meta->view_base.defined(), "Can't get base of non-view Tensor");
  return meta->view_base;
}

void Tensor::retain_grad() const {
  CTORCH_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // leaves keep their gradient anyway
  AutogradMeta& meta = materialize_meta(*this);
  {
    std::lock_guard<std::mutex> lock(meta.mutex);
    if (meta.retains_grad) return;
    meta.retains_grad = true;
  }
  autograd::install_retain_grad_hook(meta);
}

bool Tensor::retains_grad() const {
  if (is_leaf()) return requires_grad();
  AutogradMeta* meta = meta_of(*this);
  if (meta == nullptr) return false;
  std::lock_guard<std::mutex> lock(meta->mutex);
  return meta->retains_grad;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      std::optional<std::vector<Tensor>> inputs) const {
  CTORCH_CHECK(!inputs || !inputs->empty(), "'inputs' argument to backward() cannot be empty.");
  autograd::backward({*this}, {gradient}, retain_graph, create_graph, inputs.value_or(std::vector<Tensor>{}));
}

unsigned Tensor::add_grad_hook(std::function<Tensor(const Tensor&)> hook) const {
  CTORCH_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& meta = materialize_meta(*this);
  if (meta.grad_fn) return meta.grad_fn->add_pre_hook(meta.output_nr, std::move(hook));
  std::lock_guard<std::mutex> lock(meta.mutex);
  const unsigned key = autograd::next_hook_key();
  meta.hooks.emplace_back(key, std::move(hook));
  return key;
}

// A removed hook stays as an empty slot, so removing it again is a no-op; a key this tensor never
// issued raises libtorch's "Invalid index" error.
void Tensor::remove_hook(unsigned key) const {
  AutogradMeta* meta = meta_of(*this);
  CTORCH_CHECK(meta != nullptr, "Invalid index, no hook at position ", key);
  if (meta->grad_fn) {
    meta->grad_fn->remove_pre_hook(key);
    return;
  }
  std::lock_guard<std::mutex> lock(meta->mutex);
  for (auto& [k, hook] : meta->hooks) {
    if (k == key) {
      hook = nullptr;
      return;
    }
  }
  CTORCH_CHECK(false, "Invalid index, no hook at position ", key);
}

Tensor& Tensor::detach_() {
  if (AutogradMeta* meta = meta_of(*this)) {
    meta->grad_fn.reset();
    meta->output_nr = 0;
  }
  impl_->set_requires_grad(false);
  return *this;
}

}  // namespace ctorch::api

namespace ctorch::autograd {

void install_retain_grad_hook(AutogradMeta& meta) {
  // The hook lives on grad_fn, which may outlive the tensor: it holds the tensor's state weakly.
  std::weak_ptr<AutogradMeta> weak = meta.weak_from_this();
  meta.retain_grad_hook = meta.grad_fn->add_pre_hook(meta.output_nr, [weak](const Tensor& g) {
    std::shared_ptr<AutogradMeta> m = weak.lock();
    if (m == nullptr) return Tensor();
    std::lock_guard<std::mutex> lock(m->mutex);  // backward passes in other threads may reach it too
    if (!m->grad.defined()) {
      m->grad = GradMode::is_enabled() ? g.clone() : g.detach().clone();
    } else {
      m->grad = m->grad + g;
    }
    return Tensor();
  });
}

void set_inplace_history(AutogradMeta& meta, std::shared_ptr<Node> fn) {
  std::shared_ptr<Node> old = std::exchange(meta.grad_fn, std::move(fn));
  meta.output_nr = 0;
  if (meta.retains_grad && old != nullptr) {  // the tensor's gradient is that of its newest value
    old->remove_pre_hook(meta.retain_grad_hook);
    install_retain_grad_hook(meta);
  }
}

void adopt(const Tensor& dst, const Tensor& src) {
  dst.set_data(src);
  const AutogradMeta* from = meta_of(src);
  if (from != nullptr && from->grad_fn) {
    AutogradMeta& to = materialize_meta(dst);
    to.grad_fn = from->grad_fn;
    to.output_nr = from->output_nr;
    dst.impl()->set_requires_grad(true);
  } else {
    if (AutogradMeta* to = meta_of(dst)) to->grad_fn.reset();
    dst.impl()->set_requires_grad(src.requires_grad());
  }
}

}  // namespace ctorch::autograd
