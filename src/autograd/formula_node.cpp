// FormulaNode and the FormulaContext its entry's formula reads (Note [Gradient table]).
#include "autograd/formula_node.h"

namespace ctorch::autograd {

const ops::GradArgs& FormulaContext::args() const { return node_.args_; }

Tensor FormulaContext::input(size_t i) const {
  CTORCH_INTERNAL_ASSERT(i < 3 && node_.inputs_[i].defined(), node_.name_, " reads input ", i,
                         ", which its gradient-table entry does not save");
  return node_.unpack(node_.inputs_[i]);
}

Tensor FormulaContext::result() const {
  CTORCH_INTERNAL_ASSERT(node_.result_.defined(), node_.name_,
                         " reads its result, which its gradient-table entry does not save");
  return node_.unpack(node_.result_);
}

bool FormulaContext::needs(size_t i) const { return i < node_.next_edges_.size() && node_.next_edges_[i].is_valid(); }

IntArrayRef FormulaContext::sizes(size_t i) const { return IntArrayRef(node_.input_metadata_.at(i).sizes); }

size_t FormulaContext::num_inputs() const { return node_.input_metadata_.size(); }

void FormulaNode::save(ArrayRef<const Tensor*> inputs, const Tensor& output, std::optional<uint32_t> version_before) {
  uint8_t wanted = 0;  // a bit per input whose gradient is wanted
  for (size_t i = 0; i < inputs.size() && i < 8; ++i) {
    if (inputs[i]->defined() && inputs[i]->requires_grad()) wanted |= grad_of(static_cast<int>(i));
  }
  const Saves& s = derivative_.saves;
  for (size_t i = 0; i < 3 && i < inputs.size(); ++i) {
    if ((s.input[i] & wanted) == 0) continue;
    const Tensor& in = *inputs[i];
    const bool overwritten = version_before && in.defined() && in.impl()->storage() == output.impl()->storage();
    inputs_[i] = overwritten ? SavedVariable::overwritten(in, *version_before) : SavedVariable(in, false);
  }
  if ((s.result & wanted) != 0) result_ = SavedVariable(output, true);
}

void FormulaNode::release_variables() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (SavedVariable& v : inputs_) v.reset();
  result_.reset();
  args_.indices = Tensor();
  args_.index_list.clear();
}

Tensor FormulaNode::unpack(const SavedVariable& v) { return v.unpack(shared_from_this(), name_); }

variable_list FormulaNode::apply(variable_list&& grads) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Tensor g = grads.empty() ? Tensor() : grads[0];
  variable_list out;
  if (g.defined()) out = derivative_.formula(FormulaContext(*this), g);
  out.resize(num_outputs());
  for (size_t i = 0; i < out.size(); ++i) out[i] = next_edges_[i].is_valid() ? fit(out[i], i) : Tensor();
  return out;
}

}  // namespace ctorch::autograd
