// The zip container of PyTorch checkpoints (caffe2/serialize/inline_container.h): uncompressed
// records under one top-level folder, each record's data aligned to 64 bytes by a padding extra
// field ("FB"), as PyTorchStreamWriter lays them out.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ctorch::serialization::detail {

/// Builds an archive in memory: records are added in order, finish() appends the directory.
class ZipWriter {
 public:
  /// Records go under `archive_name/`.
  explicit ZipWriter(std::string archive_name) : archive_name_(std::move(archive_name)) {}
  /// Adds `archive_name/name` holding `data` (stored, data 64-byte aligned).
  void add(std::string_view name, std::string_view data);
  /// The archive's bytes (central directory and end record appended); the writer is spent.
  std::string finish();

 private:
  struct Entry {
    std::string name;
    uint32_t crc;
    uint64_t size;
    uint64_t offset;
  };
  std::string archive_name_;
  std::string out_;
  std::vector<Entry> entries_;
};

/// Reads an archive held in memory. The constructor checks the whole directory and every
/// record's bounds and CRC, and throws CheckpointError with PyTorchStreamReader's texts.
class ZipReader {
 public:
  explicit ZipReader(std::string_view bytes);
  /// The top-level folder of the records (the first record's).
  const std::string& archive_name() const { return archive_name_; }
  /// True when `archive_name/name` exists.
  bool has_record(std::string_view name) const;
  /// The bytes of `archive_name/name` (a view into the archive); a missing record raises.
  std::string_view record(std::string_view name) const;

 private:
  std::string archive_name_;
  std::unordered_map<std::string, std::string_view> records_;  // by full name
};

/// True when `bytes` start like a zip archive (torch.serialization._is_zipfile).
bool is_zip(std::string_view bytes);

}  // namespace ctorch::serialization::detail
