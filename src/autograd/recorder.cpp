// The recorder the ops call (ops/grad_hook.h, Note [Recording hook]): builds one node per recorded
// call, links it to the inputs' gradient edges and makes it the output's grad_fn.
#include <atomic>
#include <sstream>
#include <string_view>

#include "autograd/accumulate_grad.h"
#include "autograd/anomaly.h"
#include "autograd/copy_slices.h"
#include "autograd/formula_node.h"
#include "autograd/meta.h"
#include "ctorch/autograd.h"
#include "memory/backtrace.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"
#include "tensor/print_format.h"

namespace ctorch::autograd {

AutogradMeta& materialize_meta(const Tensor& t) {
  TensorImpl* impl = t.impl();
  if (AutogradMeta* m = impl->autograd_meta()) return *m;
  return *impl->attach_autograd_meta(std::make_shared<AutogradMeta>());  // one compare-exchange
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& meta = materialize_meta(t);
  std::lock_guard<std::mutex> lock(meta.mutex);
  if (std::shared_ptr<Node> existing = meta.grad_accumulator.lock()) return existing;
  auto acc = std::make_shared<AccumulateGrad>(t);
  meta.grad_accumulator = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  if (AutogradMeta* meta = meta_of(t); meta != nullptr) {
    if (const std::shared_ptr<Node>& fn = current_grad_fn(t, *meta)) return {fn, meta->output_nr};
  }
  if (t.requires_grad()) return {grad_accumulator(t), 0};
  return {};
}

unsigned next_hook_key() {
  static std::atomic<unsigned> key{0};
  return key.fetch_add(1);
}

namespace {

bool differentiable(ScalarType t) { return is_floating_point(t); }

// True when `t` covers less than its storage (a slice, a select, a narrowed view).
bool is_part_of_storage(const Tensor& t) {
  if (t.storage_offset() != 0) return true;
  int64_t extent = t.numel() == 0 ? 0 : 1;
  for (int64_t d = 0; d < t.dim() && extent > 0; ++d) extent += (t.sizes()[d] - 1) * t.strides()[d];
  return static_cast<size_t>(extent * t.element_size()) < t.impl()->storage()->nbytes();
}

// The C++ frames of the forward call being recorded (anomaly mode; PyTorch keeps the Python traceback).
std::string forward_trace() {
  static thread_local memory::FrameSymbolizer symbolize;
  std::ostringstream out;
  out << "Traceback of forward call that caused the error:";
  for (const cuda::Frame& f : symbolize(memory::capture_frames(/*skip=*/2))) {
    out << "\n  " << f.name;
    if (!f.filename.empty()) {
      out << " (" << f.filename;
      if (f.line > 0) out << ":" << f.line;
      out << ")";
    }
  }
  return out.str();
}

class Recorder final : public ops::GradRecorder {
 public:
  void check_inplace(const Tensor& self) override {
    AutogradMeta* meta = meta_of(self);
    if (meta != nullptr && meta->view_base.defined()) {
      const Tensor& base = meta->view_base;
      AutogradMeta* base_meta = meta_of(base);
      CTORCH_CHECK(!(base.requires_grad() && (base_meta == nullptr || !base_meta->grad_fn)),
                   "a view of a leaf Variable that requires grad is being used in an in-place operation.");
      return;
    }
    CTORCH_CHECK(!((meta == nullptr || !current_grad_fn(self, *meta)) && self.requires_grad()),
                 "a leaf Variable that requires grad is being used in an in-place operation.");
    // A view that does not record its base (made under no_grad, or of a tensor that did not require
    // grad) cannot give the base the history of a value that requires grad.
    CTORCH_CHECK_NOT_IMPLEMENTED(
        self.requires_grad() || !is_part_of_storage(self),
        "ctorch: writing a tensor that requires grad into a view whose base does not record it (a view made under "
        "no_grad, or of a tensor that did not require grad) is not supported; write with index_put_ (x[i] = y) on the "
        "base, which records the write on it, or build the result with cat or stack");
  }

  bool needs_original_self(ops::GradFn fn, const ops::GradArgs& args) const override {
    return derivative_of(fn, args)->saves.input[0] != 0;  // its formula reads self
  }

  void record(ops::GradFn fn, ArrayRef<const Tensor*> inputs, Tensor& output, const ops::GradArgs& args) override {
    if (!output.defined() || !differentiable(output.dtype()) || !any_requires_grad(inputs)) return;
    const Derivative& d = *derivative_of(fn, args);
    std::shared_ptr<FormulaNode> node = make_node(d, inputs, output, args, std::nullopt);
    AutogradMeta& meta = materialize_meta(output);
    meta.grad_fn = std::move(node);
    meta.output_nr = 0;
    if (d.is_view) make_view_of(output, *inputs[0]);
    output.impl()->set_requires_grad(true);
  }

  void record_inplace(ops::GradFn fn, ArrayRef<const Tensor*> inputs, Tensor& self, const ops::GradArgs& args,
                      uint32_t version_before) override {
    if (!differentiable(self.dtype()) || !any_requires_grad(inputs)) return;
    const Derivative& d = *derivative_of(fn, args);
    std::shared_ptr<FormulaNode> node = make_node(d, inputs, self, args, version_before);
    AutogradMeta& meta = materialize_meta(self);
    if (meta.view_base.defined()) {
      rebase_history(self, std::move(node));  // Note [In-place on views]
      return;
    }
    set_inplace_history(meta, std::move(node));
    self.impl()->set_requires_grad(true);
  }

  void track_view(const Tensor& view, const Tensor& base) override {
    if (!view.is_same(base) && !view.requires_grad()) make_view_of(view, base);
  }

 private:
  static bool any_requires_grad(ArrayRef<const Tensor*> inputs) {
    for (const Tensor* t : inputs) {
      if (t->defined() && t->requires_grad()) return true;
    }
    return false;
  }

  // The node of one call; operands that share an in-place output's storage are saved with the
  // version it had before the write.
  static std::shared_ptr<FormulaNode> make_node(const Derivative& d, ArrayRef<const Tensor*> inputs,
                                                const Tensor& output, const ops::GradArgs& args,
                                                std::optional<uint32_t> version_before) {
    auto node = std::make_shared<FormulaNode>(d, args, d.pick_node != nullptr ? d.pick_node(args, inputs) : d.node);
    node->next_edges_.reserve(inputs.size());
    node->input_metadata_.reserve(inputs.size());
    for (const Tensor* t : inputs) {
      node->next_edges_.push_back(t->defined() && t->requires_grad() ? gradient_edge(*t) : Edge{});
      node->input_metadata_.push_back(InputMetadata::of(*t));
    }
    node->save(inputs, output, version_before);
    if (output.is_cuda()) node->stream_ = ops::stream_for(output.device());
    if (AnomalyMode::is_enabled()) detail::record_anomaly_trace(*node, forward_trace());
    return node;
  }
};

std::string grad_fn_name(const Tensor& t) {
  AutogradMeta* meta = meta_of(t);
  if (meta == nullptr) return std::string();
  const std::shared_ptr<Node>& fn = current_grad_fn(t, *meta);
  if (!fn) return std::string();
  std::string name = fn->name();  // the repr shows Python's class name: CopySlices, not torch::autograd::CopySlices
  constexpr std::string_view kPrefix = "torch::autograd::";
  return name.starts_with(kPrefix) ? name.substr(kPrefix.size()) : name;
}

// Installs the recorder and the repr's grad_fn lookup when the library loads.
const bool g_installed = [] {
  static Recorder recorder;
  ops::set_grad_recorder(&recorder);
  print_detail::set_grad_fn_name_provider(&grad_fn_name);
  return true;
}();

}  // namespace

}  // namespace ctorch::autograd
