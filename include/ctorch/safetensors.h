// safetensors checkpoints (Python's safetensors.torch save/load/save_file/load_file): an 8-byte
// little-endian header length N, N bytes of JSON header padded with spaces to a multiple of 8
// ({"__metadata__": {...}, "name": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}}),
// then the tensors' bytes, row-major and little-endian. Files are byte-identical to the Python
// library's: tensors ordered by dtype (widest first, the Rust crate's Dtype order) then name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ctorch/device.h"
#include "ctorch/error.h"
#include "ctorch/tensor.h"

namespace ctorch::safetensors {

/// A malformed file, or tensors that cannot be saved (safetensors_rust.SafetensorError).
class SafetensorError : public Error {
  using Error::Error;
};

/// The free-form string map stored under "__metadata__".
using Metadata = std::map<std::string, std::string>;

/// The file's bytes for `tensors` (cuda tensors are copied to the host; non-contiguous views are
/// saved as their contiguous copies, where Python raises). Tensors sharing memory are refused, as in Python.
/// Without metadata the header has no "__metadata__" entry; an empty map writes {}.
std::string save(const std::map<std::string, Tensor>& tensors, const std::optional<Metadata>& metadata = std::nullopt);
/// Writes save(tensors, metadata) to `path`.
void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
               const std::optional<Metadata>& metadata = std::nullopt);

/// The tensors in safetensors `bytes`, on `device`. Validates the whole header first and throws
/// SafetensorError (with the Rust crate's error name) before allocating anything.
std::map<std::string, Tensor> load(std::string_view bytes, Device device = Device(DeviceType::CPU));
/// load() of the file at `path`.
std::map<std::string, Tensor> load_file(const std::string& path, Device device = Device(DeviceType::CPU));
/// The "__metadata__" map of safetensors `bytes` (nullopt when absent), validated as load() does.
std::optional<Metadata> load_metadata(std::string_view bytes);

}  // namespace ctorch::safetensors
