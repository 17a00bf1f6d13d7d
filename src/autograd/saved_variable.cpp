#include "autograd/saved_variable.h"

#include <sstream>

#include "autograd/meta.h"
#include "ctorch/autograd.h"
#include "ctorch/error.h"

namespace ctorch::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output, std::optional<uint32_t> version) {
  if (!t.defined()) return;
  saved_ = true;
  is_output_ = is_output;
  version_ = version.value_or(t._version());
  data_ = is_output ? t.detach() : t;
}

SavedVariable SavedVariable::overwritten(const Tensor& t, uint32_t version) {
  SavedVariable v(t.detach(), false, version);
  if (AutogradMeta* meta = meta_of(t)) v.alias_meta_ = meta->weak_from_this();
  return v;
}

void SavedVariable::reset() {
  if (!saved_) return;
  data_ = Tensor();
  released_ = true;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner, const char* node_name) const {
  if (!saved_) return Tensor();
  CTORCH_CHECK(!released_, kBackwardTwice);
  if (data_._version() != version_) {
    std::ostringstream os;
    os << "one of the variables needed for gradient computation has been modified by an inplace operation: ["
       << (data_.is_cuda() ? "torch.cuda." : "torch.") << scalar_type_cpp_name(data_.dtype()) << "Tensor "
       << data_.sizes() << "]";
    if (is_output_) {
      os << ", which is output " << output_nr_ << " of " << node_name << ",";
    } else {
      const std::shared_ptr<AutogradMeta> alias = alias_meta_.lock();
      AutogradMeta* meta = alias != nullptr ? alias.get() : meta_of(data_);
      if (meta != nullptr && current_grad_fn(data_, *meta)) {
        os << ", which is output " << meta->output_nr << " of " << meta->grad_fn->name() << ",";  // its current producer
      }
    }
    os << " is at version " << data_._version() << "; expected version " << version_ << " instead. Hint: ";
    if (AnomalyMode::is_enabled()) {
      os << "the backtrace further above shows the operation that failed to compute its gradient. The variable in "
            "question was changed in there or anywhere later. Good luck!";
    } else {
      os << "enable anomaly detection to find the operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True).";
    }
    CTORCH_CHECK(false, os.str());
  }
  if (!is_output_ || !GradMode::is_enabled() || owner == nullptr) return data_;
  // create_graph: the saved output is differentiable again, through its own node.
  Tensor out = data_.detach();
  AutogradMeta& meta = materialize_meta(out);
  meta.grad_fn = owner;
  meta.output_nr = output_nr_;
  out.impl()->set_requires_grad(true);
  return out;
}

}  // namespace ctorch::autograd
