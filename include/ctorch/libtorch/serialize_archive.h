// libtorch 1.13's torch::serialize::OutputArchive / InputArchive over ctorch's checkpoint format
// (ctorch/serialization.h). An archive is stored as one flat dict: a nested archive written under
// "a" contributes its entries as "a.<key>", so a module's archive is its state_dict and loads in
// Python with torch.load (libtorch writes TorchScript archives instead). Keys containing '.' are
// therefore ambiguous, and an empty nested archive leaves no trace. Also module save/load through
// archives (libtorch's Module::save/load).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ctorch/nn_module.h"
#include "ctorch/libtorch/tempfile.h"
#include "ctorch/serialization.h"

namespace torch::serialize {

/// Collects tensors, values and nested archives under keys, then writes them (libtorch's OutputArchive).
class OutputArchive {
 public:
  OutputArchive() = default;
  /// Writes a value (int, double, bool, string, list, ...).
  void write(const std::string& key, const ::ctorch::IValue& ivalue);
  /// Writes a tensor (a parameter, or a buffer when is_buffer).
  void write(const std::string& key, const ::ctorch::Tensor& tensor, bool is_buffer = false);
  /// Writes a nested archive.
  void write(const std::string& key, OutputArchive& nested_archive);
  /// Saves to a file (replaced once complete).
  void save_to(const std::string& filename);
  /// Saves to a stream.
  void save_to(std::ostream& stream);
  /// Saves through `func(data, size)`, which returns the bytes it took.
  void save_to(const std::function<size_t(const void*, size_t)>& func);
  /// archive(key, value, ...) is write(key, value, ...).
  template <class... Ts>
  void operator()(Ts&&... ts) {
    write(std::forward<Ts>(ts)...);
  }
  /// The entries as one flat dict (the object that is saved).
  ::ctorch::IValue to_value() const;

 private:
  std::vector<std::pair<std::string, ::ctorch::IValue>> entries_;
};

/// Reads what an OutputArchive saved, or any checkpoint holding a dict (libtorch's InputArchive).
class InputArchive {
 public:
  InputArchive() = default;
  /// Reads a value; "does not have a field with name" when missing.
  void read(const std::string& key, ::ctorch::IValue& ivalue);
  /// Reads a value; false when missing.
  bool try_read(const std::string& key, ::ctorch::IValue& ivalue);
  /// Reads a tensor ("No such serialized tensor '<path>'" when missing): a defined `tensor` takes the
  /// saved data in place (set_data), keeping its identity; an undefined one becomes the saved tensor.
  void read(const std::string& key, ::ctorch::Tensor& tensor, bool is_buffer = false);
  /// Reads a tensor; false when missing.
  bool try_read(const std::string& key, ::ctorch::Tensor& tensor, bool is_buffer = false);
  /// Reads a nested archive ("No such serialized submodule: '<path>'" when missing).
  void read(const std::string& key, InputArchive& archive);
  /// Reads a nested archive; false when missing.
  bool try_read(const std::string& key, InputArchive& archive);
  /// Loads a file (tensors go to `device` when given); a corrupt file raises CheckpointError.
  void load_from(const std::string& filename, std::optional<::ctorch::Device> device = std::nullopt);
  /// Loads from a stream (from its position to its end).
  void load_from(std::istream& stream, std::optional<::ctorch::Device> device = std::nullopt);
  /// Loads from bytes in memory.
  void load_from(const char* data, size_t size, std::optional<::ctorch::Device> device = std::nullopt);
  /// Loads through `read_func(pos, buf, n)` (bytes read) and `size_func()` (total size).
  void load_from(const std::function<size_t(uint64_t pos, void* buf, size_t nbytes)>& read_func,
                 const std::function<size_t(void)>& size_func, std::optional<::ctorch::Device> device = std::nullopt);
  /// The keys at this level, in saved order (a nested archive's name once).
  std::vector<std::string> keys();
  /// archive(key, value, ...) is read(key, value, ...).
  template <class... Ts>
  void operator()(Ts&&... ts) {
    read(std::forward<Ts>(ts)...);
  }
  /// Reads a loaded checkpoint object (a dict; a bare tensor becomes entry "0", a list entries "0", "1", ...).
  void set_value(const ::ctorch::IValue& value);

 private:
  const ::ctorch::IValue* find(const std::string& key) const;
  std::vector<std::pair<std::string, ::ctorch::IValue>> entries_;
  std::string hierarchy_prefix_;
};

/// libtorch's Module::save: parameters, buffers, then each serializable child as a nested archive.
void save_module(const ::ctorch::nn::Module& module, OutputArchive& archive);
/// libtorch's Module::load: every parameter and buffer (and child holding any) must be in `archive`.
void load_module(::ctorch::nn::Module& module, InputArchive& archive);

}  // namespace torch::serialize

namespace c10 {
/// c10::to_string: the printed form of `value`.
template <class T>
std::string to_string(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}
}  // namespace c10
