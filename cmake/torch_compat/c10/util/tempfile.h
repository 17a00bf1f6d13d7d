// libtorch's <c10/util/tempfile.h>: c10::make_tempfile() creates a file under $TMPDIR (or /tmp)
// and returns a TempFile that removes it when destroyed (POSIX only, as libtorch's).
// When ctorch's libtorch archives (ctorch/libtorch/serialize_archive.h) are installed, they define
// c10::TempFile and make_tempfile; this header then only forwards to <ctorch/torch.h>.
#pragma once

#if __has_include(<ctorch/libtorch/serialize_archive.h>)
#include <ctorch/torch.h>
#else

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <ctorch/torch.h>

namespace c10 {

/// A temporary file, removed with its owner.
struct TempFile {
  /// Owns `name` (open as `fd`).
  TempFile(std::string name, int fd) : fd(fd), name(std::move(name)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  /// Takes over `other`'s file.
  TempFile(TempFile&& other) noexcept : fd(std::exchange(other.fd, -1)), name(std::move(other.name)) {
    other.name.clear();
  }
  TempFile& operator=(TempFile&&) = delete;
  /// Closes and removes the file.
  ~TempFile() {
    if (!name.empty()) {
      if (fd >= 0) ::close(fd);
      ::unlink(name.c_str());
    }
  }
  int fd;            ///< The open descriptor.
  std::string name;  ///< The file's path.
};

/// A new temporary file whose name starts with `name_prefix`; throws if none can be created.
inline TempFile make_tempfile(std::string name_prefix = "torch-file-") {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/" + name_prefix + "XXXXXX";
  std::vector<char> buffer(path.begin(), path.end());
  buffer.push_back('\0');
  const int fd = ::mkstemp(buffer.data());
  TORCH_CHECK(fd != -1, "Error generating tempfile");
  return TempFile(std::string(buffer.data()), fd);
}

}  // namespace c10

#endif  // __has_include(<ctorch/libtorch/serialize_archive.h>)
