// libtorch's torch::save / torch::load for tensors, tensor lists, modules and optimizers, to and
// from a file, a stream, a writer function, bytes or a reader function. The files are PyTorch's
// torch.save format: a tensor, a list of tensors, a module's archive (its state_dict, which Python's
// torch.load reads and module.load_state_dict takes), an optimizer's archive (libtorch's layout,
// torch/serialize_archive.h). Loading a tensor or list also reads what Python's torch.save wrote.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "ctorch/libtorch/nn.h"
#include "ctorch/libtorch/optim.h"
#include "ctorch/libtorch/serialize_archive.h"

namespace torch {

namespace serialize_detail {
/// Writes `value` to a file.
inline void save_value(const ::ctorch::IValue& value, const std::string& path) { ::ctorch::save(value, path); }
/// Writes `value` to a stream.
inline void save_value(const ::ctorch::IValue& value, std::ostream& stream) {
  const std::string bytes = ::ctorch::serialization::save_to_bytes(value);
  stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
/// Writes `value` through `func(data, size)`.
inline void save_value(const ::ctorch::IValue& value, const std::function<size_t(const void*, size_t)>& func) {
  const std::string bytes = ::ctorch::serialization::save_to_bytes(value);
  func(bytes.data(), bytes.size());
}
}  // namespace serialize_detail

/// archive << tensor: the tensor as entry "0" (libtorch's torch/serialize/tensor.h).
inline serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Tensor& tensor) {
  archive.write("0", tensor);
  return archive;
}
/// archive >> tensor: entry "0".
inline serialize::InputArchive& operator>>(serialize::InputArchive& archive, Tensor& tensor) {
  archive.read("0", tensor);
  return archive;
}
/// archive << module_ptr: module.save(archive).
template <class M>
  requires std::is_base_of_v<::ctorch::nn::Module, M>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const std::shared_ptr<M>& module) {
  serialize::save_module(*module, archive);
  return archive;
}
/// archive >> module_ptr: module.load(archive).
template <class M>
  requires std::is_base_of_v<::ctorch::nn::Module, M>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, const std::shared_ptr<M>& module) {
  serialize::load_module(*module, archive);
  return archive;
}

/// torch::save(value, ...) for any value with `archive << value` (samplers, user types), as libtorch's.
template <class Value, class... SaveToArgs>
  requires requires(serialize::OutputArchive& a, const Value& v) { a << v; }
void save(const Value& value, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  archive << value;
  archive.save_to(std::forward<SaveToArgs>(args)...);
}
/// torch::load(value, ...) for any value with `archive >> value`.
template <class Value, class... LoadFromArgs>
  requires requires(serialize::InputArchive& a, Value& v) { a >> v; }
void load(Value& value, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  archive >> value;
}

/// torch::save(tensor, path | stream | writer).
template <class... SaveToArgs>
void save(const Tensor& tensor, SaveToArgs&&... args) {
  serialize_detail::save_value(::ctorch::IValue(tensor), std::forward<SaveToArgs>(args)...);
}
/// torch::save(tensors, ...): a list of tensors.
template <class... SaveToArgs>
void save(const std::vector<Tensor>& tensors, SaveToArgs&&... args) {
  std::vector<::ctorch::IValue> items(tensors.begin(), tensors.end());
  serialize_detail::save_value(::ctorch::IValue::list(std::move(items)), std::forward<SaveToArgs>(args)...);
}
/// torch::save(module, ...): the module's archive (its state_dict).
template <class M, class... SaveToArgs>
void save(const nn::ModuleHolder<M>& module, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  serialize::save_module(*module, archive);
  archive.save_to(std::forward<SaveToArgs>(args)...);
}
/// torch::save(module_ptr, ...).
template <class M, class... SaveToArgs>
  requires std::is_base_of_v<::ctorch::nn::Module, M>
void save(const std::shared_ptr<M>& module, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  serialize::save_module(*module, archive);
  archive.save_to(std::forward<SaveToArgs>(args)...);
}
/// torch::save(optimizer, ...): optimizer.save(archive).
template <class... SaveToArgs>
void save(const optim::Optimizer& optimizer, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  optimizer.save(archive);
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

/// torch::load(tensor, path | stream | bytes | reader [, device]): a defined tensor takes the data in place.
template <class... LoadFromArgs>
void load(Tensor& tensor, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  archive.read("0", tensor);
}
/// torch::load(tensors, ...): appends the saved tensors.
template <class... LoadFromArgs>
void load(std::vector<Tensor>& tensors, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  for (size_t i = 0;; ++i) {
    Tensor value;
    if (!archive.try_read(std::to_string(i), value)) break;
    tensors.push_back(std::move(value));
  }
}
/// torch::load(module, ...): every parameter and buffer takes the saved data (and device).
template <class M, class... LoadFromArgs>
void load(nn::ModuleHolder<M>& module, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  serialize::load_module(*module, archive);
}
/// torch::load(module_ptr, ...).
template <class M, class... LoadFromArgs>
  requires std::is_base_of_v<::ctorch::nn::Module, M>
void load(std::shared_ptr<M>& module, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  serialize::load_module(*module, archive);
}
/// torch::load(optimizer, ...): optimizer.load(archive).
template <class... LoadFromArgs>
void load(optim::Optimizer& optimizer, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  optimizer.load(archive);
}

}  // namespace torch
