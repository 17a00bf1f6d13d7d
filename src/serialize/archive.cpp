// torch::serialize::OutputArchive / InputArchive (ctorch/libtorch/serialize_archive.h): archives as
// one flat dict of dotted keys in ctorch's checkpoint format, and module save/load through them.
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <iterator>
#include <ostream>

#include "ctorch/grad_mode.h"
#include "ctorch/torch.h"
#include "ctorch/libtorch/serialize_archive.h"

namespace torch::serialize {

using ::ctorch::IValue;
using ::ctorch::Tensor;

void OutputArchive::write(const std::string& key, const IValue& ivalue) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = ivalue;
      return;
    }
  }
  entries_.emplace_back(key, ivalue);
}

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool /*is_buffer*/) {
  write(key, IValue(tensor.defined() ? tensor.detach() : tensor));
}

void OutputArchive::write(const std::string& key, OutputArchive& nested_archive) {
  for (const auto& [k, v] : nested_archive.entries_) write(key + "." + k, v);
}

IValue OutputArchive::to_value() const {
  IValue::Items items;
  items.reserve(entries_.size());
  for (const auto& [k, v] : entries_) items.emplace_back(IValue(k), v);
  return IValue::dict(std::move(items), /*ordered=*/true);
}

void OutputArchive::save_to(const std::string& filename) { ::ctorch::save(to_value(), filename); }

void OutputArchive::save_to(std::ostream& stream) {
  const std::string bytes = ::ctorch::serialization::save_to_bytes(to_value());
  stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void OutputArchive::save_to(const std::function<size_t(const void*, size_t)>& func) {
  const std::string bytes = ::ctorch::serialization::save_to_bytes(to_value());
  const size_t written = func(bytes.data(), bytes.size());
  CTORCH_CHECK(written == bytes.size(), "[OutputArchive::save_to] Expected the writer to take ", bytes.size(),
               " bytes, but it took ", written);
}

void InputArchive::set_value(const IValue& value) {
  entries_.clear();
  if (value.is_dict()) {
    for (const auto& [k, v] : value.items()) {
      entries_.emplace_back(k.kind() == IValue::Kind::String ? k.to_string() : std::to_string(k.to_int()), v);
    }
  } else if (value.kind() == IValue::Kind::List || value.kind() == IValue::Kind::Tuple) {
    for (size_t i = 0; i < value.elements().size(); ++i) entries_.emplace_back(std::to_string(i), value.elements()[i]);
  } else {
    entries_.emplace_back("0", value);  // a bare object (torch.save(tensor)) reads as entry "0"
  }
}

namespace {
::ctorch::serialization::MapLocation where(const std::optional<::ctorch::Device>& device) {
  ::ctorch::serialization::MapLocation m;
  if (device) m = *device;
  return m;
}
}  // namespace

void InputArchive::load_from(const std::string& filename, std::optional<::ctorch::Device> device) {
  set_value(::ctorch::load(filename, where(device)));
}

void InputArchive::load_from(std::istream& stream, std::optional<::ctorch::Device> device) {
  const std::string bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  set_value(::ctorch::serialization::load_from_bytes(bytes, where(device)));
}

void InputArchive::load_from(const char* data, size_t size, std::optional<::ctorch::Device> device) {
  set_value(::ctorch::serialization::load_from_bytes(std::string_view(data, size), where(device)));
}

void InputArchive::load_from(const std::function<size_t(uint64_t, void*, size_t)>& read_func,
                             const std::function<size_t(void)>& size_func, std::optional<::ctorch::Device> device) {
  const size_t size = size_func();
  std::string bytes(size, '\0');
  size_t pos = 0;
  while (pos < size) {
    const size_t n = read_func(pos, bytes.data() + pos, size - pos);
    if (n == 0) break;
    pos += n;
  }
  CTORCH_CHECK(pos == size, "[InputArchive::load_from] Expected ", size, " bytes from the reader, but got ", pos);
  set_value(::ctorch::serialization::load_from_bytes(bytes, where(device)));
}

const IValue* InputArchive::find(const std::string& key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool InputArchive::try_read(const std::string& key, IValue& ivalue) {
  const IValue* v = find(key);
  if (v == nullptr) return false;
  ivalue = *v;
  return true;
}

void InputArchive::read(const std::string& key, IValue& ivalue) {
  CTORCH_CHECK(try_read(key, ivalue), "Module '", hierarchy_prefix_.empty() ? "__torch__" : hierarchy_prefix_,
               "' does not have a field with name '", key, "'");
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) {
  const IValue* v = find(key);
  if (v == nullptr || !v->is_tensor()) return false;
  const Tensor& read_tensor = v->to_tensor();
  if (tensor.defined()) {
    ::ctorch::NoGradGuard no_grad;
    tensor.set_data(read_tensor);
  } else {
    tensor = read_tensor;
  }
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) {
  CTORCH_CHECK(try_read(key, tensor, is_buffer), "No such serialized tensor '", hierarchy_prefix_, key, "'");
}

bool InputArchive::try_read(const std::string& key, InputArchive& archive) {
  const std::string prefix = key + ".";
  std::vector<std::pair<std::string, IValue>> nested;
  for (const auto& [k, v] : entries_) {
    if (k.compare(0, prefix.size(), prefix) == 0) nested.emplace_back(k.substr(prefix.size()), v);
  }
  if (nested.empty()) return false;
  archive.entries_ = std::move(nested);
  archive.hierarchy_prefix_ = hierarchy_prefix_ + key + ".";
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& archive) {
  CTORCH_CHECK(try_read(key, archive), "No such serialized submodule: '", hierarchy_prefix_, key, "'");
}

std::vector<std::string> InputArchive::keys() {
  std::vector<std::string> out;
  for (const auto& [k, v] : entries_) {
    const std::string head = k.substr(0, k.find('.'));
    bool seen = false;
    for (const auto& o : out) seen = seen || o == head;
    if (!seen) out.push_back(head);
  }
  return out;
}

namespace {
// nn::Functional holds a function, not state: libtorch's is_serializable() is false for it.
bool is_serializable(const ::ctorch::nn::Module& m) { return dynamic_cast<const nn::FunctionalImpl*>(&m) == nullptr; }

bool holds_tensors(const ::ctorch::nn::Module& m) {
  return !m.named_parameters(true).is_empty() || !m.named_buffers(true).is_empty();
}
}  // namespace

void save_module(const ::ctorch::nn::Module& module, OutputArchive& archive) {
  for (const auto& p : module.named_parameters(/*recurse=*/false)) archive.write(p.key(), p.value());
  for (const auto& b : module.named_buffers(/*recurse=*/false)) archive.write(b.key(), b.value(), /*is_buffer=*/true);
  for (const auto& [name, child] : module.named_children()) {
    if (!is_serializable(*child)) continue;
    OutputArchive child_archive;
    save_module(*child, child_archive);
    archive.write(name, child_archive);
  }
}

void load_module(::ctorch::nn::Module& module, InputArchive& archive) {
  for (auto& p : module.named_parameters(/*recurse=*/false)) {
    Tensor t = p.value();
    archive.read(p.key(), t);
  }
  for (auto& b : module.named_buffers(/*recurse=*/false)) {
    Tensor t = b.value();
    archive.read(b.key(), t, /*is_buffer=*/true);
  }
  for (const auto& [name, child] : module.named_children()) {
    if (!is_serializable(*child) || !holds_tensors(*child)) continue;  // nothing of it was saved
    InputArchive child_archive;
    archive.read(name, child_archive);
    load_module(*child, child_archive);
  }
}

}  // namespace torch::serialize
