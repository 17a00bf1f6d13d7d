// nn::Module: registration, traversal, device moves, state_dict and the repr.
#include "ctorch/nn_module.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <sstream>
#include <typeinfo>

#include "autograd/meta.h"
#include "autograd/zero_grad.h"
#include "core/demangle.h"
#include "ctorch/cuda.h"
#include "ctorch/error.h"
#include "ctorch/grad_mode.h"
#include "ctorch/print_options.h"

namespace ctorch::nn {

namespace {

void check_name(const std::string& name, const char* what) {
  CTORCH_CHECK_TYPE(!name.empty(), what, " name can't be empty string \"\"");
  CTORCH_CHECK(name.find('.') == std::string::npos, what, " name can't contain \".\", got: ", name);
}

std::string torch_size(IntArrayRef sizes) {
  std::ostringstream os;
  os << "torch.Size([";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "])";
  return os.str();
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}

Module::Module() = default;

const std::string& Module::name() const {
  // Derived on first use (the dynamic type is not known in the constructor); the lock makes that
  // first write safe when several threads ask at once.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (name_.empty()) name_ = detail::demangle(typeid(*this).name());
  return name_;
}

Module::~Module() = default;

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_name(name, "parameter");
  for (auto& [n, t] : parameters_) CTORCH_CHECK(n != name, "attribute '", name, "' already exists");
  if (tensor.defined()) tensor.requires_grad_(requires_grad);
  parameters_.emplace_back(std::move(name), std::move(tensor));
  return parameters_.back().second;
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_name(name, "buffer");
  for (auto& [n, t] : buffers_) CTORCH_CHECK(n != name, "attribute '", name, "' already exists");
  buffers_.emplace_back(std::move(name), std::move(tensor));
  return buffers_.back().second;
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
  check_name(name, "module");
  CTORCH_CHECK(module != nullptr, "register_module: module '", name, "' is null");
  for (auto& [n, m] : children_) CTORCH_CHECK(n != name, "attribute '", name, "' already exists");
  children_.emplace_back(std::move(name), std::move(module));
}

void Module::replace_child(const std::string& name, std::shared_ptr<Module> module) {
  CTORCH_CHECK(module != nullptr, "replace_module: module '", name, "' is null");
  for (auto& [n, m] : children_) {
    if (n == name) {
      m = std::move(module);
      return;
    }
  }
  CTORCH_CHECK(false, "Module '", name, "' is not defined");
}

void Module::unregister_module(const std::string& name) {
  auto it = std::find_if(children_.begin(), children_.end(), [&](const auto& c) { return c.first == name; });
  CTORCH_CHECK(it != children_.end(), "No Module with name `", name, "` is registered");
  children_.erase(it);
}

Tensor Module::registered_parameter(const std::string& name) const {
  for (const auto& [n, t] : parameters_) {
    if (n == name) return t;
  }
  return Tensor();
}

Tensor Module::registered_buffer(const std::string& name) const {
  for (const auto& [n, t] : buffers_) {
    if (n == name) return t;
  }
  return Tensor();
}

namespace {

/// Gives `fresh` (a tree rebuilt by reset()) the mapped tensors of `original`, by name.
void adopt_tree(Module& fresh, const Module& original, const Module::TensorMap& map) {
  auto find = [&](const auto& entries, const std::string& name, const char* what) {
    auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == name; });
    CTORCH_CHECK(it != entries.end(), fresh.name(), ": reset() registered ", what, " '", name,
                 "' the original does not have");
    return it->second;
  };
  const NamedTensors params = original.named_parameters(false), buffers = original.named_buffers(false);
  for (const auto& [name, t] : fresh.named_parameters(false)) autograd::adopt(t, map(find(params, name, "parameter"), true));
  for (const auto& [name, t] : fresh.named_buffers(false)) autograd::adopt(t, map(find(buffers, name, "buffer"), false));
  const auto children = original.named_children();
  for (const auto& [name, child] : fresh.named_children()) adopt_tree(*child, *find(children, name, "module"), map);
}

}  // namespace

void Module::clear_registrations() {
  parameters_.clear();
  buffers_.clear();
  children_.clear();
}

std::shared_ptr<Module> Module::replicate_with(const TensorMap& map) const { return replicate(map, false); }

// Note [Clone checks members]: a shallow copy's members are copies of the original's handles; rebind()
// re-points them at the copy's registrations. A class that forgets to override it would leave the
// clone computing with the original's tensors or children, silently. clone() maps every tensor to a
// fresh one, so after rebind() nothing in the copy may still hold an original tensor or child: each
// one's reference count must be back to what it was before the copy. A higher count names the member
// the class forgot. (replicate_with skips the check: DataParallel's replica 0 shares the originals on
// purpose.) The counts assume no other thread takes or drops handles to this module's tensors while
// clone() runs.
std::shared_ptr<Module> Module::replicate(const TensorMap& map, bool check_members) const {
  struct Held {
    const char* kind;
    std::string name;
    Tensor tensor;
    std::shared_ptr<Module> child;
    long count = 0;  // references before the copy existed (this entry's own included)
  };
  std::vector<Held> held;
  if (check_members) {
    for (const auto& [n, t] : parameters_) {
      if (t.defined()) held.push_back({"parameter", n, t, nullptr, 0});
    }
    for (const auto& [n, t] : buffers_) {
      if (t.defined()) held.push_back({"buffer", n, t, nullptr, 0});
    }
    for (const auto& [n, c] : children_) held.push_back({"child module", n, Tensor(), c, 0});
  }
  for (Held& h : held) h.count = h.child ? h.child.use_count() : static_cast<long>(h.tensor.use_count());
  std::shared_ptr<Module> copy = shallow_copy();
  // A subclass that inherits its base's shallow_copy would come back as the base: refuse it.
  CTORCH_CHECK_NOT_IMPLEMENTED(copy != nullptr && typeid(*copy) == typeid(*this), name_,
                               " cannot be replicated: add CTORCH_MODULE_REPLICABLE(", name_,
                               ") to its class (and override rebind() if it keeps tensor or module members)");
  auto check = [&] {
    for (Held& h : held) {
      const long now = h.child ? h.child.use_count() : static_cast<long>(h.tensor.use_count());
      CTORCH_CHECK(now <= h.count, name(), ".clone(): the clone of ",
                   detail::demangle(typeid(*this).name()), " still refers to the original's ", h.kind, " '", h.name,
                   "' through a member of the class (the copy constructor copied it and rebind() did not re-point "
                   "it): override rebind() in ", detail::demangle(typeid(*this).name()),
                   " to re-point every tensor and module member at the clone's registrations (as Linear::rebind() "
                   "does with registered_parameter(\"weight\")), or rebuild the registrations as libtorch's "
                   "Cloneable::reset() does");
    }
  };
  if (copy->rebuilds_registrations()) {
    adopt_tree(*copy, *this, map);
    check();
    return copy;
  }
  for (auto& [n, t] : copy->parameters_) {
    if (t.defined()) t = map(t, true);
  }
  for (auto& [n, t] : copy->buffers_) {
    if (t.defined()) t = map(t, false);
  }
  for (auto& [n, child] : copy->children_) child = child->replicate(map, check_members);
  copy->rebind();
  check();
  return copy;
}

std::shared_ptr<Module> Module::clone(std::optional<Device> device) const {
  NoGradGuard no_grad;
  return replicate(
      [&](const Tensor& t, bool) {
        Tensor c = t.detach().to(device.value_or(t.device()), /*non_blocking=*/false, /*copy=*/true);
        c.requires_grad_(t.requires_grad());
        return c;
      },
      /*check_members=*/true);
}

NamedTensors Module::named_parameters(bool recurse) const {
  NamedTensors out;
  std::set<const TensorImpl*> seen;
  auto visit = [&](const auto& self, const Module& m, const std::string& prefix) -> void {
    for (const auto& [n, t] : m.parameters_) {
      if (t.defined() && seen.insert(t.impl()).second) out.insert(prefix + n, t);
    }
    if (!recurse) return;
    for (const auto& [n, c] : m.children_) self(self, *c, prefix + n + ".");
  };
  visit(visit, *this, "");
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_parameters(recurse)) out.push_back(t);
  return out;
}

NamedTensors Module::named_buffers(bool recurse) const {
  NamedTensors out;
  auto visit = [&](const auto& self, const Module& m, const std::string& prefix) -> void {
    for (const auto& [n, t] : m.buffers_) {
      if (t.defined()) out.insert(prefix + n, t);
    }
    if (!recurse) return;
    for (const auto& [n, c] : m.children_) self(self, *c, prefix + n + ".");
  };
  visit(visit, *this, "");
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_buffers(recurse)) out.push_back(t);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& [n, c] : children_) out.push_back(c);
  return out;
}

NamedModules Module::named_children() const {
  NamedModules out("Module");
  for (const auto& [n, c] : children_) out.insert(n, c);
  return out;
}

namespace {

/// `self` as a shared pointer: modules() and apply() with pointers need the module to be owned by one.
std::shared_ptr<Module> shared_self(const Module& self) {
  std::shared_ptr<Module> ptr = std::const_pointer_cast<Module>(self.weak_from_this().lock());
  CTORCH_CHECK(ptr != nullptr,
               "It looks like you attempted to retrieve your top-level module as a shared_ptr, but it is not stored "
               "in a shared_ptr. Use std::make_shared<", self.name(), "> instead of creating your module on the stack, "
               "or alternatively do not try to access your top-level module at all by passing /*include_self=*/false "
               "to modules() or named_modules()");
  return ptr;
}

/// Every descendant of `m` with its dotted name, depth first, each module once (PyTorch's memo).
void visit_descendants(const Module& m, const std::string& prefix, std::set<const Module*>& seen,
                       const std::function<void(const std::string&, const std::shared_ptr<Module>&)>& fn) {
  for (const auto& [n, c] : m.named_children()) {
    if (!seen.insert(c.get()).second) continue;
    const std::string name = prefix.empty() ? n : prefix + "." + n;
    fn(name, c);
    visit_descendants(*c, name, seen, fn);
  }
}

}  // namespace

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& [n, m] : named_modules("", include_self)) out.push_back(m);
  return out;
}

NamedModules Module::named_modules(const std::string& name_prefix, bool include_self) const {
  NamedModules out("Module");
  std::set<const Module*> seen{this};
  if (include_self) out.insert(name_prefix, shared_self(*this));
  visit_descendants(*this, name_prefix, seen, [&](const std::string& n, const std::shared_ptr<Module>& c) { out.insert(n, c); });
  return out;
}

void Module::apply(const ConstModuleApplyFunction& fn) const {
  fn(*this);
  std::set<const Module*> seen{this};
  visit_descendants(*this, "", seen, [&](const std::string&, const std::shared_ptr<Module>& c) { fn(*c); });
}

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  std::set<const Module*> seen{this};
  visit_descendants(*this, name_prefix, seen, [&](const std::string& n, const std::shared_ptr<Module>& c) { fn(n, *c); });
}

void Module::apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix) const {
  fn(name_prefix, *this);
  std::set<const Module*> seen{this};
  visit_descendants(*this, name_prefix, seen, [&](const std::string& n, const std::shared_ptr<Module>& c) { fn(n, *c); });
}

void Module::apply(const ModulePointerApplyFunction& fn) const {
  fn(shared_self(*this));
  std::set<const Module*> seen{this};
  visit_descendants(*this, "", seen, [&](const std::string&, const std::shared_ptr<Module>& c) { fn(c); });
}

void Module::apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix) const {
  fn(name_prefix, shared_self(*this));
  std::set<const Module*> seen{this};
  visit_descendants(*this, name_prefix, seen, [&](const std::string& n, const std::shared_ptr<Module>& c) { fn(n, c); });
}

void Module::apply_to_tensors(const std::function<Tensor(const Tensor&)>& fn) {
  NoGradGuard no_grad;
  for (auto& [n, c] : children_) c->apply_to_tensors(fn);
  for (auto& [n, t] : parameters_) {
    if (!t.defined()) continue;
    t.set_data(fn(t.detach()));
    if (t.grad().defined()) t.mutable_grad().set_data(fn(t.grad()));
  }
  for (auto& [n, t] : buffers_) {
    if (t.defined()) t.set_data(fn(t));
  }
}

Module& Module::to(Device device, bool non_blocking) {
  if (device.is_cuda() && device.index() < 0) device = Device(DeviceType::CUDA, cuda::current_device());
  apply_to_tensors([&](const Tensor& t) { return t.to(device, non_blocking); });
  return *this;
}

Module& Module::to(ScalarType dtype, bool non_blocking) {
  CTORCH_CHECK_TYPE(is_floating_point(dtype), "nn.Module.to only accepts floating point dtypes, but got desired dtype=",
                    scalar_type_cpp_name(dtype));
  apply_to_tensors([&](const Tensor& t) { return t.is_floating_point() ? t.to(dtype, non_blocking) : t; });
  return *this;
}

Module& Module::to(Device device, ScalarType dtype, bool non_blocking) {
  to(dtype, non_blocking);
  return to(device, non_blocking);
}

Module& Module::cuda(int index) {
  return to(Device(DeviceType::CUDA, static_cast<DeviceIndex>(index < 0 ? cuda::current_device() : index)));
}

Module& Module::cpu() { return to(Device(DeviceType::CPU)); }

Module& Module::train(bool on) {
  training_ = on;
  for (auto& [n, c] : children_) c->train(on);
  return *this;
}

void Module::zero_grad(bool set_to_none) { autograd::zero_grad(parameters(), set_to_none); }

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& [n, c] : children_) c->apply(fn);
  fn(*this);
  return *this;
}

NamedTensors Module::state_dict() const {
  NamedTensors out;
  auto visit = [&](const auto& self, const Module& m, const std::string& prefix) -> void {
    for (const auto& [n, t] : m.parameters_) {
      if (t.defined()) out.insert(prefix + n, t.detach());
    }
    for (const auto& [n, t] : m.buffers_) {
      if (t.defined()) out.insert(prefix + n, t.detach());
    }
    for (const auto& [n, c] : m.children_) self(self, *c, prefix + n + ".");
  };
  visit(visit, *this, "");
  return out;
}

void Module::load_state_dict(const NamedTensors& state, bool strict) {
  // Everything is checked before any tensor is written, so a failed load changes nothing.
  std::map<std::string, Tensor> own;
  std::vector<std::string> own_order;
  auto visit = [&](const auto& self, Module& m, const std::string& prefix) -> void {
    for (auto& [n, t] : m.parameters_) {
      if (t.defined()) {
        own[prefix + n] = t;
        own_order.push_back(prefix + n);
      }
    }
    for (auto& [n, t] : m.buffers_) {
      if (t.defined()) {
        own[prefix + n] = t;
        own_order.push_back(prefix + n);
      }
    }
    for (auto& [n, c] : m.children_) self(self, *c, prefix + n + ".");
  };
  visit(visit, *this, "");
  std::map<std::string, Tensor> given;
  std::vector<std::string> unexpected, mismatches;
  for (const auto& [n, t] : state) {
    given[n] = t;
    auto it = own.find(n);
    if (it == own.end()) {
      unexpected.push_back(n);
    } else if (t.sizes() != it->second.sizes()) {
      mismatches.push_back("size mismatch for " + n + ": copying a param with shape " + torch_size(t.sizes()) +
                           " from checkpoint, the shape in current model is " + torch_size(it->second.sizes()) + ".");
    }
  }
  std::vector<std::string> missing;
  for (const std::string& n : own_order) {
    if (!given.count(n)) missing.push_back(n);
  }
  std::ostringstream errors;
  auto keys = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
    return s;
  };
  bool failed = !mismatches.empty();
  if (strict && !unexpected.empty()) {
    errors << "\n\tUnexpected key(s) in state_dict: " << keys(unexpected) << ". ";
    failed = true;
  }
  if (strict && !missing.empty()) {
    errors << "\n\tMissing key(s) in state_dict: " << keys(missing) << ". ";
    failed = true;
  }
  for (const std::string& m : mismatches) errors << "\n\t" << m;
  // PyTorch lists missing keys before unexpected ones.
  std::string text = errors.str();
  if (strict && !unexpected.empty() && !missing.empty()) {
    text = "\n\tMissing key(s) in state_dict: " + keys(missing) + ". \n\tUnexpected key(s) in state_dict: " +
           keys(unexpected) + ". ";
    for (const std::string& m : mismatches) text += "\n\t" + m;
  }
  CTORCH_CHECK(!failed, "Error(s) in loading state_dict for ", name(), ":", text);
  NoGradGuard no_grad;
  for (const auto& [n, t] : state) {
    auto it = own.find(n);
    if (it != own.end()) it->second.copy_(t);
  }
}

std::string Module::repr() const {
  std::ostringstream os;
  os << name() << "(";
  const std::string extra = extra_repr();
  if (children_.empty()) {
    os << extra << ")";
    return os.str();
  }
  if (!extra.empty()) os << "\n  " << extra;
  for (const auto& [n, c] : children_) {
    std::string child = c->repr();
    std::string indented;
    for (char ch : child) {
      indented += ch;
      if (ch == '\n') indented += "  ";
    }
    os << "\n  (" << n << "): " << indented;
  }
  os << "\n)";
  return os.str();
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& [n, c] : children_) {
    stream << next << "(" << n << "): ";
    c->pretty_print_recursive(stream, next);
    stream << '\n';
  }
  stream << indentation << ")";
}

std::string Module::pretty_repr() const {
  std::ostringstream os;
  pretty_print_recursive(os, "");
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Module& module) {
  return os << (get_tensor_print_style() == TensorPrintStyle::Libtorch ? module.pretty_repr() : module.repr());
}

}  // namespace ctorch::nn
