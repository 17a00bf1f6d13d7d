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

/// The base of every layer: owns named parameters, buffers and children, in registration order.
class Module : public std::enable_shared_from_this<Module> {
 public:
  /// A module printed as `name` (the class name: "Linear").
  explicit Module(std::string name = "Module");
  virtual ~Module();
  Module& operator=(const Module&) = delete;

  /// The class name printed in the repr.
  const std::string& name() const { return name_; }
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
  /// Direct children.
  std::vector<std::shared_ptr<Module>> children() const;
  /// Direct children with their names.
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const { return children_; }
  /// This module and every descendant, depth first.
  std::vector<std::shared_ptr<Module>> modules();

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
  Module& apply(const std::function<void(Module&)>& fn);

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
  std::shared_ptr<Module> replicate(const TensorMap& map, bool check_members) const;
  void apply_to_tensors(const std::function<Tensor(const Tensor&)>& fn);

  std::string name_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

/// Declares `T` replicable (nn::parallel::replicate, DataParallel): first in T's class body,
/// before `public:`. A class with tensor or child members also overrides rebind() to re-point them.
#define CTORCH_MODULE_REPLICABLE(T) \
 protected:                         \
  std::shared_ptr<::ctorch::nn::Module> shallow_copy() const override { return std::make_shared<T>(*this); }

/// Prints module.repr().
std::ostream& operator<<(std::ostream& os, const Module& module);

}  // namespace ctorch::nn
