// nn::Module: parameters, buffers and child modules, moved between devices as one (torch.nn.Module).
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ctorch/ordered_dict.h"
#include "ctorch/tensor.h"

namespace ctorch::nn {

/// An ordered name -> tensor dict (state_dict, named_parameters; libtorch's OrderedDict<string, Tensor>).
using NamedTensors = OrderedDict<std::string, Tensor>;

class Module;
/// An ordered name -> module dict (named_children, named_modules).
using NamedModules = OrderedDict<std::string, std::shared_ptr<Module>>;

/// The base of every layer: owns named parameters, buffers and children, in registration order.
class Module : public std::enable_shared_from_this<Module> {
 public:
  /// What apply() calls on each module (libtorch's ModuleApplyFunction and its variants).
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction = std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  /// A module printed as `name` (the class name: "Linear").
  explicit Module(std::string name);
  /// A module named after its C++ class (the demangled type name, as libtorch's; Python's class name).
  Module();
  virtual ~Module();
  Module& operator=(const Module&) = delete;

  /// The class name printed in the repr.
  const std::string& name() const;
  /// The text inside the parentheses of this module's repr line (PyTorch's extra_repr).
  virtual std::string extra_repr() const { return ""; }

  /// Adds a parameter (a leaf that requires grad unless `requires_grad` is false); returns it.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  /// Adds a buffer (state that is not trained: running statistics); returns it.
  Tensor& register_buffer(std::string name, Tensor tensor);
  /// Adds a child module; returns it.
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    add_child(std::move(name), module);
    return module;
  }
  /// Adds the module a holder owns (libtorch's ModuleHolder: `fc = register_module("fc", Linear(3, 1))`).
  template <class Holder>
    requires requires(const Holder& h) { h.ptr(); }
  Holder register_module(std::string name, Holder holder) {
    add_child(std::move(name), holder.ptr());
    return holder;
  }

  /// Parameters of this module and (recurse) its descendants.
  std::vector<Tensor> parameters(bool recurse = true) const;
  /// Parameters with dotted names ("0.weight").
  NamedTensors named_parameters(bool recurse = true) const;
  /// Buffers of this module and (recurse) its descendants.
  std::vector<Tensor> buffers(bool recurse = true) const;
  /// Buffers with dotted names.
  NamedTensors named_buffers(bool recurse = true) const;
  /// Replaces the child `name` in place (same position); returns the new one.
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    replace_child(name, module);
    return module;
  }
  /// replace_module() for the module a holder owns.
  template <class Holder>
    requires requires(const Holder& h) { h.ptr(); }
  auto replace_module(const std::string& name, Holder holder) {
    return replace_module(name, holder.ptr());
  }
  /// Removes the child `name` (error when there is none).
  void unregister_module(const std::string& name);

  /// Direct children.
  std::vector<std::shared_ptr<Module>> children() const;
  /// Direct children with their names, in registration order.
  NamedModules named_children() const;
  /// This module (with include_self) and every descendant, depth first, each once.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  /// modules() with dotted names under `name_prefix` (this module's own name is the prefix).
  NamedModules named_modules(const std::string& name_prefix = std::string(), bool include_self = true) const;

  /// This module as `T` (a module class, or a holder's contained class), or nullptr.
  template <class T>
  auto* as() noexcept {
    if constexpr (requires { typename T::ContainedType; }) {
      return dynamic_cast<typename T::ContainedType*>(this);
    } else {
      return dynamic_cast<T*>(this);
    }
  }
  /// as() on a const module.
  template <class T>
  const auto* as() const noexcept {
    return const_cast<Module*>(this)->as<T>();
  }

  /// Moves parameters, their gradients and buffers to `device` in place (the tensors keep their identity).
  virtual Module& to(Device device, bool non_blocking = false);
  /// Converts floating parameters and buffers to `dtype` in place.
  virtual Module& to(ScalarType dtype, bool non_blocking = false);
  /// Moves and converts in one step.
  Module& to(Device device, ScalarType dtype, bool non_blocking = false);
  /// Moves to cuda:`index` (the current device when -1).
  Module& cuda(int index = -1);
  /// Moves to the cpu.
  Module& cpu();

  /// Sets training mode on this module and its descendants (Dropout and BatchNorm read it).
  virtual Module& train(bool on = true);
  /// Same as train(false).
  Module& eval() { return train(false); }
  /// True in training mode.
  bool is_training() const { return training_; }

  /// Zeroes (or, with set_to_none, clears) every parameter's gradient; PyTorch 1.13 zeroes by default.
  void zero_grad(bool set_to_none = false);
  /// Calls `fn` on this module and every descendant (children first, as PyTorch's apply).
  Module& apply(const ModuleApplyFunction& fn);
  /// Calls `fn` on this module, then on every descendant depth first (libtorch's overloads below too).
  void apply(const ConstModuleApplyFunction& fn) const;
  /// Calls `fn(name, module)` with dotted names under `name_prefix`, this module first.
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = std::string());
  /// The named form on a const module.
  void apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix = std::string()) const;
  /// Calls `fn` with the shared pointer of this module and of every descendant.
  void apply(const ModulePointerApplyFunction& fn) const;
  /// The named form with shared pointers.
  void apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix = std::string()) const;

  /// Writes this module's own line of libtorch's pretty print (without children): its name by default.
  virtual void pretty_print(std::ostream& stream) const;
  /// libtorch's pretty print of the whole tree ("torch::nn::Sequential(\n  (0): ...\n)").
  std::string pretty_repr() const;
  /// True when torch::save can write the module (libtorch's is_serializable).
  virtual bool is_serializable() const { return true; }

  /// Parameters and buffers by dotted name, sharing storage with the module (detached).
  NamedTensors state_dict() const;
  /// Copies `state` into the parameters and buffers; strict: missing or unexpected keys are an
  /// error (PyTorch's message). Everything is checked before anything is copied.
  void load_state_dict(const NamedTensors& state, bool strict = true);

  /// PyTorch's module repr, with children indented.
  std::string repr() const;

  /// What replicate_with does to each parameter (`is_parameter`) or buffer of the original.
  using TensorMap = std::function<Tensor(const Tensor& tensor, bool is_parameter)>;
  /// A copy of this module tree (same classes, settings and training mode) whose parameters and
  /// buffers are `map(tensor)` (nn::parallel::replicate). NotImplementedError for a class that does
  /// not declare CTORCH_MODULE_REPLICABLE.
  std::shared_ptr<Module> replicate_with(const TensorMap& map) const;
  /// A deep copy (libtorch's clone): fresh leaves with copied values, on `device` when given.
  /// Error when a class's tensor or module member still refers to the original's afterwards (a
  /// forgotten rebind(); Note [Clone checks members]).
  std::shared_ptr<Module> clone(std::optional<Device> device = std::nullopt) const;

 protected:
  /// Copies registrations and settings (for shallow_copy); the copy's tensors alias this module's.
  Module(const Module&) = default;
  /// A copy of this module's own class (CTORCH_MODULE_REPLICABLE); nullptr when it has none.
  virtual std::shared_ptr<Module> shallow_copy() const { return nullptr; }
  /// Points a shallow copy's members at its (replaced) registered tensors and children.
  virtual void rebind() {}
  /// True when shallow_copy() rebuilds the registrations (libtorch's Cloneable::reset): the
  /// copy's own tensors then take the mapped ones' data and history in place.
  virtual bool rebuilds_registrations() const { return false; }
  /// Forgets every registered parameter, buffer and child (before a Cloneable's reset()).
  void clear_registrations();
  /// The registered parameter `name` (an undefined tensor when absent).
  Tensor registered_parameter(const std::string& name) const;
  /// The registered buffer `name` (an undefined tensor when absent).
  Tensor registered_buffer(const std::string& name) const;

  /// Registered parameters (name, tensor) in order.
  std::vector<std::pair<std::string, Tensor>> parameters_;
  /// Registered buffers in order.
  std::vector<std::pair<std::string, Tensor>> buffers_;

 private:
  void add_child(std::string name, std::shared_ptr<Module> module);
  void replace_child(const std::string& name, std::shared_ptr<Module> module);
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;
  std::shared_ptr<Module> replicate(const TensorMap& map, bool check_members) const;
  void apply_to_tensors(const std::function<Tensor(const Tensor&)>& fn);

  mutable std::string name_;  // empty until name() derives it from the class (under name()'s lock)
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

/// Declares `T` replicable (nn::parallel::replicate, DataParallel): first in T's class body,
/// before `public:`. A class with tensor or child members also overrides rebind() to re-point them.
#define CTORCH_MODULE_REPLICABLE(T) \
 protected:                         \
  std::shared_ptr<::ctorch::nn::Module> shallow_copy() const override { return std::make_shared<T>(*this); }

/// Prints module.repr() (PyTorch's), or pretty_repr() (libtorch's) in a program that selected
/// libtorch's print style (<ctorch/torch.h>; set_tensor_print_style).
std::ostream& operator<<(std::ostream& os, const Module& module);

}  // namespace ctorch::nn
