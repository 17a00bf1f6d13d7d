// Node's shared parts: creation order, pre-hooks and fitting gradients to their inputs.
#include <algorithm>
#include <atomic>

#include "autograd/functional.h"
#include "ctorch/autograd_node.h"
#include "ctorch/error.h"

namespace ctorch::autograd {

namespace {
std::atomic<uint64_t> g_sequence_nr{0};
}  // namespace

Node::Node() : sequence_nr_(g_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

Node::~Node() = default;

unsigned Node::add_pre_hook(uint32_t input_nr, GradHook hook) {
  std::lock_guard<std::mutex> lock(hooks_mutex_);
  static std::atomic<unsigned> next_key{1u << 30};
  const unsigned key = next_key.fetch_add(1);
  pre_hooks_.push_back({key, input_nr, std::move(hook)});
  return key;
}

void Node::remove_pre_hook(unsigned key) {
  std::lock_guard<std::mutex> lock(hooks_mutex_);
  for (PreHook& h : pre_hooks_) {
    if (h.key == key) {
      h.fn = nullptr;  // an empty slot: removing it again is a no-op
      return;
    }
  }
  CTORCH_CHECK(false, "Invalid index, no hook at position ", key);
}

variable_list Node::run_pre_hooks(variable_list grads) {
  std::vector<PreHook> hooks;
  {
    std::lock_guard<std::mutex> lock(hooks_mutex_);
    if (pre_hooks_.empty()) return grads;
    hooks = pre_hooks_;
  }
  for (const PreHook& h : hooks) {
    if (!h.fn || h.input_nr >= grads.size() || !grads[h.input_nr].defined()) continue;
    Tensor replaced = h.fn(grads[h.input_nr]);
    if (replaced.defined()) grads[h.input_nr] = std::move(replaced);
  }
  return grads;
}

Tensor Node::fit(const Tensor& grad, size_t i) const {
  if (!grad.defined() || i >= input_metadata_.size()) return grad;
  const InputMetadata& meta = input_metadata_[i];
  Tensor g = grad;
  if (g.sizes() != IntArrayRef(meta.sizes)) {
    CTORCH_CHECK(is_expandable_to(meta.sizes, g.sizes()), "Function ", name(),
                 " returned an invalid gradient at index ", i, " - got ", g.sizes(),
                 " but expected shape compatible with ", IntArrayRef(meta.sizes));
    g = sum_to(g, meta.sizes);
  }
  if (g.dtype() != meta.dtype) g = g.to(meta.dtype);
  if (g.device() != meta.device) g = g.to(meta.device);
  return g;
}

}  // namespace ctorch::autograd
