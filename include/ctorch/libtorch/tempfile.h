// libtorch's c10::TempFile and c10::make_tempfile (c10/util/tempfile.h): a uniquely named file
// in $TMPDIR that is removed with its owner.
#pragma once

#include <string>
#include <utility>

namespace c10 {
/// A file that is removed when this goes out of scope (c10::TempFile).
struct TempFile {
  /// Creates a file named `name`.
  explicit TempFile(std::string name) : name(std::move(name)) {}
  TempFile(TempFile&& other) noexcept : name(std::move(other.name)) { other.name.clear(); }
  TempFile& operator=(TempFile&& other) noexcept;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();
  std::string name;
};
/// A new empty file in $TMPDIR (default /tmp) named `<prefix>XXXXXX` (c10::make_tempfile).
TempFile make_tempfile(std::string name_prefix = "torch-file-");
}  // namespace c10
