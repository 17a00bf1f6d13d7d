// torch.save / torch.load (ctorch/serialization.h), as PyTorch 1.13's torch/serialization.py
// _save and _load: the object pickled to data.pkl with storages as persistent ids, each storage's
// bytes in data/<key> (keys numbered in order of first use), records after data.pkl in sorted
// key order, then "version" = "3\n".
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/error_rethrow.h"
#include "ctorch/cuda.h"
#include "ctorch/factories.h"
#include "ctorch/serialization.h"
#include "ctorch/tensor_impl.h"
#include "serialize/pickle.h"
#include "serialize/zip_archive.h"

namespace ctorch::serialization {
namespace {

// Errors rethrown from other threads keep this type (core/error_rethrow.h).
const bool g_error_type_registered = [] {
  ::ctorch::detail::register_error_type<CheckpointError>("RuntimeError");
  ::ctorch::detail::register_error_type<UnpicklingError>("UnpicklingError");
  return true;
}();

constexpr const char* kFormatVersion = "3\n";  // torch.serialization's zip format version

// A storage's elements as a 1-d tensor over the same memory.
Tensor whole_storage(const Storage& s, ScalarType dtype, int64_t numel) {
  const int64_t size[] = {numel};
  return Tensor(IntrusivePtr<TensorImpl>::make(s, dtype, IntArrayRef(size)));
}

}  // namespace

namespace detail {
std::string save_archive(const Value& obj, const std::string& archive_name) {
  struct Saved {
    std::string key;
    ScalarType dtype;
    Tensor storage;
  };
  std::unordered_map<const StorageImpl*, Saved> saved;
  auto storage_of = [&](const Tensor& t) -> detail::StorageRef {
    CTORCH_CHECK_VALUE(t.defined(), "torch.save: an undefined tensor cannot be saved");
    const Storage& s = t.impl()->storage();
    const int64_t esize = t.element_size();
    auto it = saved.find(s.get());
    if (it == saved.end()) {
      CTORCH_CHECK(s->nbytes() % static_cast<size_t>(esize) == 0, "torch.save: a ", t.dtype(),
                   " tensor's storage holds ", s->nbytes(), " bytes, not a whole number of elements");
      const int64_t numel = static_cast<int64_t>(s->nbytes()) / esize;
      it = saved.emplace(s.get(), Saved{std::to_string(saved.size()), t.dtype(), whole_storage(s, t.dtype(), numel)}).first;
    }
    CTORCH_CHECK(it->second.dtype == t.dtype(),
                 "Cannot save multiple tensors or storages that view the same data as different types");
    return {t.dtype(), it->second.key, t.device().str(), it->second.storage.numel()};
  };
  const std::string pickled = detail::pickle(obj, storage_of);

  std::map<std::string, const Saved*> by_key;  // Python writes sorted(keys): "0", "1", "10", "2", ...
  for (const auto& [impl, s] : saved) by_key.emplace(s.key, &s);
  detail::ZipWriter zip(archive_name);
  zip.add("data.pkl", pickled);
  for (const auto& [key, s] : by_key) {
    const Tensor host = s->storage.is_cpu() ? s->storage : s->storage.cpu();
    zip.add("data/" + key, std::string_view(static_cast<const char*>(host.data_ptr()), static_cast<size_t>(host.nbytes())));
  }
  zip.add("version", kFormatVersion);
  return zip.finish();
}
}  // namespace detail

namespace {

// Where a storage saved at `location` goes (torch.serialization's default_restore_location).
Device restore_location(const std::string& location, const MapLocation& map_location) {
  std::optional<Device> device;
  if (const auto* d = std::get_if<Device>(&map_location)) {
    device = *d;
  } else if (const auto* f = std::get_if<std::function<Device(const std::string&)>>(&map_location)) {
    device = (*f)(location);
  } else {
    std::string where = location;
    if (const auto* m = std::get_if<std::map<std::string, std::string>>(&map_location)) {
      if (auto it = m->find(location); it != m->end()) where = it->second;
    }
    try {
      device = Device(where);
    } catch (const Error&) {
      throw UnpicklingError("don't know how to restore data location of a storage (tagged with " + where + ")");
    }
  }
  if (device->is_cuda()) {
    if (!cuda::is_available()) {
      throw DeviceError(
          "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
          "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your "
          "storages to the CPU.");
    }
    const int index = device->has_index() ? device->index() : cuda::current_device();
    if (index >= cuda::device_count()) {
      throw DeviceError(::ctorch::detail::str_cat(
          "Attempting to deserialize object on CUDA device ", index, " but torch.cuda.device_count() is ",
          cuda::device_count(), ". Please use torch.load with map_location to map your storages to an existing device."));
    }
    return Device(DeviceType::CUDA, static_cast<DeviceIndex>(index));
  }
  return *device;
}

}  // namespace

std::string save_to_bytes(const Value& obj) { return detail::save_archive(obj, "archive"); }

Value load_from_bytes(std::string_view bytes, const MapLocation& map_location) {
  if (!detail::is_zip(bytes)) {
    throw UnpicklingError(
        "ctorch.load reads the zip checkpoints torch.save writes (PyTorch 1.6 and later); this is not one "
        "(an older torch.save format, or not a checkpoint)");
  }
  detail::ZipReader zip(bytes);
  const std::string_view version = zip.record("version");
  if (version.empty() || version.size() > 8 || version.find_first_not_of("0123456789\n") != std::string_view::npos) {
    throw CheckpointError("PytorchStreamReader: the archive's version record is not a number");
  }
  auto load_storage = [&](const detail::StorageRef& ref) {
    const std::string_view data = zip.record("data/" + ref.key);
    const int64_t esize = element_size(ref.dtype);
    if (ref.numel > static_cast<int64_t>(data.size()) / esize || static_cast<int64_t>(data.size()) != ref.numel * esize) {
      throw CheckpointError(::ctorch::detail::str_cat("ctorch.load: storage ", ref.key, " holds ", data.size(),
                                                      " bytes, its ", ref.numel, " elements of ", ref.dtype,
                                                      " need ", ref.numel * esize));
    }
    const Device device = restore_location(ref.location, map_location);
    Tensor host = empty({ref.numel}, TensorOptions().dtype(ref.dtype));
    if (!data.empty()) std::memcpy(host.data_ptr(), data.data(), data.size());
    return device.is_cpu() ? host : host.to(device);
  };
  return detail::unpickle(zip.record("data.pkl"), load_storage);
}

}  // namespace ctorch::serialization

namespace ctorch::inline api {

void save(const serialization::Value& obj, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path parent = p.parent_path();
  if (!parent.empty() && !fs::is_directory(parent)) {
    throw Error("Parent directory " + parent.string() + " does not exist.");
  }
  // PyTorchStreamWriter names the archive's folder after the file, without its extension.
  const std::string bytes = serialization::detail::save_archive(obj, p.stem().string().empty() ? "archive" : p.stem().string());
  const std::string tmp = path + ".ctorch-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(detail::str_cat("torch.save: cannot create '", tmp, "': ", std::strerror(errno)));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error(detail::str_cat("torch.save: writing '", path, "' failed"));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error(detail::str_cat("torch.save: cannot replace '", path, "': ", std::strerror(err)));
  }
}

serialization::Value load(const std::string& path, const serialization::MapLocation& map_location) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(detail::str_cat("[Errno ", errno, "] ", std::strerror(errno), ": '", path, "'"));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(detail::str_cat("torch.load: cannot read '", path, "'"));
  return serialization::load_from_bytes(ss.view(), map_location);
}

}  // namespace ctorch::api
