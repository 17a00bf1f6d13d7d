// FileStore (ctorch/distributed_store.h): an append-only log of (op, key, value) records in one
// file, appended under an exclusive flock and replayed incrementally under a shared one. Blocking
// calls poll the file. The last of `num_workers` users to close the store removes the file
// (PyTorch's cleanup key), so a path can be reused by the next job.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "ctorch/distributed_store.h"

namespace ctorch::distributed {

struct FileStore::State {
  int fd = -1;
  off_t offset = 0;  // bytes of the log already replayed into `map`
  std::map<std::string, std::vector<uint8_t>> map;
  std::mutex mutex;  // guards everything above
};

namespace {

constexpr uint8_t kSet = 0;
constexpr uint8_t kDelete = 1;
constexpr const char* kRefCountKey = "cleanup/refcount";
constexpr const char* kFinishedKey = "cleanup/finished";

class FileLock {
 public:
  FileLock(int fd, int op) : fd_(fd) {
    while (::flock(fd_, op) != 0) {
      if (errno != EINTR) throw DistStoreError(std::string("FileStore: flock failed: ") + std::strerror(errno));
    }
  }
  ~FileLock() { ::flock(fd_, LOCK_UN); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

void append_u32(std::vector<uint8_t>& out, uint32_t v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + 4);
}

// Reads the records appended since the last replay (the caller holds a flock).
void replay(FileStore::State& s, const std::string& path) {
  const off_t end = ::lseek(s.fd, 0, SEEK_END);
  if (end <= s.offset) return;
  std::vector<uint8_t> buf(static_cast<size_t>(end - s.offset));
  size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = ::pread(s.fd, buf.data() + got, buf.size() - got, s.offset + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw DistStoreError("FileStore: reading " + path + " failed: " + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  size_t pos = 0;
  auto u32 = [&](uint32_t& v) {
    if (pos + 4 > buf.size()) return false;
    std::memcpy(&v, buf.data() + pos, 4);
    pos += 4;
    return true;
  };
  while (pos < buf.size()) {
    const size_t start = pos;
    const uint8_t op = buf[pos++];
    uint32_t klen = 0, vlen = 0;
    if (!u32(klen) || pos + klen > buf.size()) { pos = start; break; }
    std::string key(reinterpret_cast<const char*>(buf.data() + pos), klen);
    pos += klen;
    if (!u32(vlen) || pos + vlen > buf.size()) { pos = start; break; }
    if (op == kSet) {
      s.map[key].assign(buf.begin() + static_cast<std::ptrdiff_t>(pos), buf.begin() + static_cast<std::ptrdiff_t>(pos + vlen));
    } else {
      s.map.erase(key);
    }
    pos += vlen;
  }
  s.offset += static_cast<off_t>(pos);
}

void write_record(FileStore::State& s, const std::string& path, uint8_t op, const std::string& key,
                  const std::vector<uint8_t>& value) {
  std::vector<uint8_t> rec;
  rec.push_back(op);
  append_u32(rec, static_cast<uint32_t>(key.size()));
  rec.insert(rec.end(), key.begin(), key.end());
  append_u32(rec, static_cast<uint32_t>(value.size()));
  rec.insert(rec.end(), value.begin(), value.end());
  const off_t end = ::lseek(s.fd, 0, SEEK_END);
  size_t put = 0;
  while (put < rec.size()) {
    const ssize_t n = ::pwrite(s.fd, rec.data() + put, rec.size() - put, end + static_cast<off_t>(put));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw DistStoreError("FileStore: writing " + path + " failed: " + std::strerror(errno));
    put += static_cast<size_t>(n);
  }
}

int64_t add_locked(FileStore::State& s, const std::string& path, const std::string& key, int64_t amount) {
  FileLock lock(s.fd, LOCK_EX);
  replay(s, path);
  int64_t value = 0;
  if (auto it = s.map.find(key); it != s.map.end()) value = std::stoll(std::string(it->second.begin(), it->second.end()));
  value += amount;
  const std::string text = std::to_string(value);
  write_record(s, path, kSet, key, std::vector<uint8_t>(text.begin(), text.end()));
  replay(s, path);
  return value;
}

std::string join_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i];
  return out;
}

}  // namespace

FileStore::FileStore(std::string path, int num_workers, std::chrono::milliseconds timeout)
    : Store(timeout), path_(std::move(path)), num_workers_(num_workers), state_(std::make_unique<State>()) {
  CTORCH_CHECK_VALUE(!path_.empty(), "FileStore: the path is empty");
  CTORCH_CHECK_VALUE(num_workers_ == -1 || num_workers_ > 0, "FileStore: num_workers must be positive or -1, got ",
                     num_workers_);
  state_->fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (state_->fd < 0) {
    throw DistStoreError("FileStore: cannot open " + path_ + ": " + std::strerror(errno));
  }
  std::lock_guard<std::mutex> guard(state_->mutex);
  add_locked(*state_, path_, kRefCountKey, 1);
}

FileStore::~FileStore() {
  try {
    std::lock_guard<std::mutex> guard(state_->mutex);
    const int64_t finished = add_locked(*state_, path_, kFinishedKey, 1);
    const int64_t refs = add_locked(*state_, path_, kRefCountKey, -1);
    if (refs == 0 || (num_workers_ > 0 && finished >= num_workers_)) ::unlink(path_.c_str());
  } catch (...) {  // a destructor does not throw; the file stays
  }
  ::close(state_->fd);
}

void FileStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  FileLock lock(state_->fd, LOCK_EX);
  write_record(*state_, path_, kSet, key, value);
}

std::vector<uint8_t> FileStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::lock_guard<std::mutex> guard(state_->mutex);
  auto it = state_->map.find(key);
  if (it == state_->map.end()) {  // deleted between wait and get
    throw DistStoreError("FileStore::get: key " + key + " was deleted while waiting");
  }
  return it->second;
}

int64_t FileStore::add(const std::string& key, int64_t amount) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  return add_locked(*state_, path_, key, amount);
}

bool FileStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  FileLock lock(state_->fd, LOCK_SH);
  replay(*state_, path_);
  for (const std::string& k : keys) {
    if (!state_->map.count(k)) return false;
  }
  return true;
}

bool FileStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  FileLock lock(state_->fd, LOCK_EX);
  replay(*state_, path_);
  const bool existed = state_->map.count(key) > 0;
  write_record(*state_, path_, kDelete, key, {});
  replay(*state_, path_);
  return existed;
}

void FileStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  auto sleep = std::chrono::microseconds(100);
  while (!check(keys)) {
    if (timeout.count() > 0 && std::chrono::steady_clock::now() - start > timeout) {
      throw DistStoreError("Wait timeout after " + std::to_string(timeout.count()) + "ms, keys: " + join_keys(keys) +
                           " (FileStore " + path_ + ")");
    }
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, std::chrono::microseconds(10000));
  }
}

}  // namespace ctorch::distributed
