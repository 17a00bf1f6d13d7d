// c10::TempFile and c10::make_tempfile (ctorch/libtorch/tempfile.h): mkstemp under $TMPDIR or /tmp.
#include "ctorch/libtorch/tempfile.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "ctorch/error.h"

namespace c10 {

TempFile& TempFile::operator=(TempFile&& other) noexcept {
  if (this != &other) {
    if (!name.empty()) std::remove(name.c_str());
    name = std::move(other.name);
    other.name.clear();
  }
  return *this;
}

TempFile::~TempFile() {
  if (!name.empty()) std::remove(name.c_str());
}

TempFile make_tempfile(std::string name_prefix) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/" + name_prefix + "XXXXXX";
  const int fd = ::mkstemp(path.data());
  CTORCH_CHECK(fd != -1, "[make_tempfile] Error generating temporary file ", path);
  ::close(fd);
  return TempFile(std::move(path));
}

}  // namespace c10
