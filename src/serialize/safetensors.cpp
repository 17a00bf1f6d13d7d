// safetensors reading and writing (ctorch/safetensors.h). Byte layout and checks follow the Rust
// crate behind Python's safetensors (safetensors/src/tensor.rs: prepare, read_metadata, validate);
// error texts start with the Python message "Error while deserializing header: <Rust name>".
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "core/error_rethrow.h"
#include "ctorch/factories.h"
#include "ctorch/safetensors.h"

namespace ctorch::safetensors {
namespace {

// Errors rethrown from other threads keep this type (core/error_rethrow.h).
const bool g_error_type_registered = [] {
  ::ctorch::detail::register_error_type<SafetensorError>("SafetensorError");
  return true;
}();

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

using ordered_json = nlohmann::ordered_json;

constexpr uint64_t kMaxHeaderSize = 100'000'000;  // the crate's MAX_HEADER_SIZE

struct DtypeInfo {
  const char* name;
  ScalarType type;
  int rank;  // position in the crate's `enum Dtype` (increasing alignment); files sort by it, descending
};

// The crate's order: BOOL U8 I8 F8_E5M2 F8_E4M3 I16 U16 F16 BF16 I32 U32 F32 F64 I64 U64.
constexpr DtypeInfo kDtypes[] = {
    {"BOOL", kBool, 0}, {"U8", kByte, 1},   {"I8", kChar, 2},     {"I16", kShort, 5}, {"F16", kHalf, 7},
    {"BF16", kBFloat16, 8}, {"I32", kInt, 9}, {"F32", kFloat, 11}, {"F64", kDouble, 12}, {"I64", kLong, 13},
};

const DtypeInfo& info_of(ScalarType t) {
  for (const DtypeInfo& d : kDtypes) {
    if (d.type == t) return d;
  }
  throw SafetensorError(detail::str_cat("safetensors: dtype ", scalar_type_name(t), " cannot be saved"));
}

const DtypeInfo* info_of(std::string_view name) {
  for (const DtypeInfo& d : kDtypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

[[noreturn]] void header_error(std::string_view kind, std::string_view info) {
  throw SafetensorError(detail::str_cat("Error while deserializing header: ", kind, info.empty() ? "" : " (", info,
                                        info.empty() ? "" : ")"));
}

// One tensor entry of a parsed header.
struct Entry {
  std::string name;
  const DtypeInfo* dtype;
  std::vector<int64_t> shape;
  uint64_t begin;
  uint64_t end;
};

struct Header {
  std::optional<Metadata> metadata;
  std::vector<Entry> entries;  // by data_offsets
  size_t data_start;           // 8 + N
};

uint64_t read_u64_le(std::string_view bytes) {
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  return n;
}

uint64_t as_offset(const nlohmann::json& v, const std::string& name, const char* what) {
  if (!v.is_number_unsigned()) {
    header_error("InvalidHeaderDeserialization",
                 detail::str_cat("tensor '", name, "': ", what, " must be non-negative integers"));
  }
  return v.get<uint64_t>();
}

Entry parse_entry(const std::string& name, const nlohmann::json& v) {
  if (!v.is_object()) header_error("InvalidHeaderDeserialization", detail::str_cat("tensor '", name, "' is not an object"));
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!v.contains(key)) {
      header_error("InvalidHeaderDeserialization", detail::str_cat("tensor '", name, "' has no \"", key, "\""));
    }
  }
  Entry e;
  e.name = name;
  const nlohmann::json& dt = v["dtype"];
  e.dtype = dt.is_string() ? info_of(dt.get_ref<const std::string&>()) : nullptr;
  if (e.dtype == nullptr) {
    header_error("InvalidHeaderDeserialization",
                 detail::str_cat("tensor '", name, "': unknown dtype ", dt.dump(),
                                 " (ctorch reads BOOL U8 I8 I16 F16 BF16 I32 F32 F64 I64)"));
  }
  const nlohmann::json& shape = v["shape"];
  if (!shape.is_array()) header_error("InvalidHeaderDeserialization", detail::str_cat("tensor '", name, "': shape is not a list"));
  for (const nlohmann::json& d : shape) {
    const uint64_t s = as_offset(d, name, "shape entries");
    if (s > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) header_error("ValidationOverflow", name);
    e.shape.push_back(static_cast<int64_t>(s));
  }
  const nlohmann::json& off = v["data_offsets"];
  if (!off.is_array() || off.size() != 2) {
    header_error("InvalidHeaderDeserialization", detail::str_cat("tensor '", name, "': data_offsets is not [begin, end]"));
  }
  e.begin = as_offset(off[0], name, "data_offsets");
  e.end = as_offset(off[1], name, "data_offsets");
  return e;
}

// read_metadata + validate of the crate, plus ctorch's dtype and shape limits.
Header parse_header(std::string_view bytes) {
  if (bytes.size() < 8) header_error("HeaderTooSmall", detail::str_cat(bytes.size(), " bytes, need at least 8"));
  const uint64_t n = read_u64_le(bytes);
  if (n > kMaxHeaderSize) header_error("HeaderTooLarge", detail::str_cat("header length ", n, " > ", kMaxHeaderSize));
  if (n + 8 > bytes.size()) {
    header_error("InvalidHeaderLength", detail::str_cat("header length ", n, " runs past the end of the ", bytes.size(),
                                                        "-byte buffer"));
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes.substr(8, n));
  } catch (const nlohmann::json::exception& err) {
    header_error("InvalidHeaderDeserialization", err.what());
  }
  if (!j.is_object()) header_error("InvalidHeaderDeserialization", "the header is not a JSON object");
  Header h;
  h.data_start = static_cast<size_t>(8 + n);
  for (const auto& [key, value] : j.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) header_error("InvalidHeaderDeserialization", "__metadata__ is not an object");
      Metadata m;
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) {
          header_error("InvalidHeaderDeserialization", detail::str_cat("__metadata__ value of '", mk, "' is not a string"));
        }
        m.emplace(mk, mv.get<std::string>());
      }
      h.metadata = std::move(m);
      continue;
    }
    h.entries.push_back(parse_entry(key, value));
  }
  std::stable_sort(h.entries.begin(), h.entries.end(), [](const Entry& a, const Entry& b) {
    return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
  });
  uint64_t start = 0;
  for (const Entry& e : h.entries) {
    if (e.begin != start || e.end < e.begin) {
      header_error(detail::str_cat("InvalidOffset(\"", e.name, "\")"),
                   detail::str_cat("data_offsets [", e.begin, ", ", e.end, "], expected to start at ", start));
    }
    start = e.end;
    uint64_t count = 1;
    for (int64_t d : e.shape) {
      if (d != 0 && count > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d)) {
        header_error("ValidationOverflow", e.name);
      }
      count *= static_cast<uint64_t>(d);
    }
    const auto item = static_cast<uint64_t>(element_size(e.dtype->type));
    if (count > std::numeric_limits<uint64_t>::max() / item) header_error("ValidationOverflow", e.name);
    if (e.end - e.begin != count * item) {
      header_error("TensorInvalidInfo", detail::str_cat("tensor '", e.name, "': ", e.dtype->name, " of ", count,
                                                        " elements needs ", count * item, " bytes, data_offsets give ",
                                                        e.end - e.begin));
    }
  }
  if (start != bytes.size() - h.data_start) {
    header_error("MetadataIncompleteBuffer", detail::str_cat("the tensors cover ", start, " bytes of a ",
                                                             bytes.size() - h.data_start, "-byte data buffer"));
  }
  return h;
}

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SafetensorError(detail::str_cat("safetensors: cannot open '", path, "': ", std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw SafetensorError(detail::str_cat("safetensors: cannot read '", path, "'"));
  return std::move(ss).str();
}

// Python's safetensors.torch._flatten refuses tensors that share memory.
void check_no_shared_memory(const std::map<std::string, Tensor>& tensors) {
  std::map<const void*, std::vector<std::string>> by_storage;
  for (const auto& [name, t] : tensors) {
    CTORCH_CHECK_VALUE(t.defined(), "safetensors: tensor '", name, "' is undefined");
    const StorageImpl* s = t.impl()->storage().get();
    if (s != nullptr && s->nbytes() != 0) by_storage[s].push_back(name);
  }
  std::string failing;
  for (const auto& [storage, names] : by_storage) {
    if (names.size() < 2) continue;
    failing += failing.empty() ? "[{" : ", {";
    for (size_t i = 0; i < names.size(); ++i) failing += (i ? ", '" : "'") + names[i] + "'";
    failing += "}";
  }
  if (!failing.empty()) {
    throw SafetensorError("Some tensors share memory, this will lead to duplicate memory on disk and potential "
                          "differences when loading them again: " + failing + "].");
  }
}

}  // namespace

std::string save(const std::map<std::string, Tensor>& tensors, const std::optional<Metadata>& metadata) {
  check_no_shared_memory(tensors);
  struct Item {
    const std::string* name;
    const DtypeInfo* dtype;
    Tensor host;
  };
  std::vector<Item> items;
  items.reserve(tensors.size());
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") throw SafetensorError("safetensors: a tensor cannot be named __metadata__");
    const DtypeInfo& d = info_of(t.dtype());
    items.push_back({&name, &d, t.contiguous().cpu()});
  }
  // prepare(): descending dtype order, then name.
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.dtype->rank != b.dtype->rank) return a.dtype->rank > b.dtype->rank;
    return *a.name < *b.name;
  });
  ordered_json header = ordered_json::object();
  if (metadata) {
    ordered_json m = ordered_json::object();
    for (const auto& [k, v] : *metadata) m[k] = v;
    header["__metadata__"] = std::move(m);
  }
  uint64_t offset = 0;
  for (const Item& it : items) {
    const auto n = static_cast<uint64_t>(it.host.nbytes());
    ordered_json entry = ordered_json::object();
    entry["dtype"] = it.dtype->name;
    entry["shape"] = std::vector<int64_t>(it.host.sizes().begin(), it.host.sizes().end());
    entry["data_offsets"] = {offset, offset + n};
    header[*it.name] = std::move(entry);
    offset += n;
  }
  std::string json;
  try {
    json = header.dump();
  } catch (const nlohmann::json::exception& err) {
    throw SafetensorError(detail::str_cat("safetensors: a name or metadata string is not valid UTF-8 (", err.what(), ")"));
  }
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + json.size() + offset);
  const uint64_t n = json.size();
  out.append(reinterpret_cast<const char*>(&n), 8);
  out += json;
  for (const Item& it : items) {
    out.append(static_cast<const char*>(it.host.data_ptr()), static_cast<size_t>(it.host.nbytes()));
  }
  return out;
}

void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
               const std::optional<Metadata>& metadata) {
  const std::string bytes = save(tensors, metadata);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw SafetensorError(detail::str_cat("safetensors: cannot create '", path, "': ", std::strerror(errno)));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) throw SafetensorError(detail::str_cat("safetensors: cannot write '", path, "'"));
}

std::map<std::string, Tensor> load(std::string_view bytes, Device device) {
  const Header h = parse_header(bytes);  // every check happens before the first allocation
  std::map<std::string, Tensor> out;
  for (const Entry& e : h.entries) {
    Tensor t = empty(e.shape, TensorOptions().dtype(e.dtype->type));
    if (e.end > e.begin) {
      std::memcpy(t.data_ptr(), bytes.data() + h.data_start + e.begin, static_cast<size_t>(e.end - e.begin));
    }
    if (!device.is_cpu()) t = t.to(device);
    out.emplace(e.name, std::move(t));
  }
  return out;
}

std::map<std::string, Tensor> load_file(const std::string& path, Device device) {
  return load(read_whole_file(path), device);
}

std::optional<Metadata> load_metadata(std::string_view bytes) { return parse_header(bytes).metadata; }

}  // namespace ctorch::safetensors
