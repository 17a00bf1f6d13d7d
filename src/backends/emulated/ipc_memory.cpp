// Interprocess device memory of the emulated runtime: Note [Emulated interprocess memory].
#include "backends/emulated/ipc_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <string>

#include "backends/emulated/device_state.h"
#include "backends/emulated/runtime.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::emulated {
namespace {

constexpr uint32_t kMagic = 0x4d495443;  // "CTIM"
constexpr uint32_t kVersion = 1;

struct HandleBits {
  uint32_t magic;
  uint32_t version;
  int32_t pid;
  int32_t fd;
  uint64_t nonce;
  uint64_t offset;  // of the allocation in the exporter's arena
  uint64_t size;    // the allocation's requested bytes
  uint64_t uuid_hash;
  uint64_t reserved[2];
};
static_assert(sizeof(HandleBits) == impl::kIpcMemHandleSize);

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
  return page;
}

}  // namespace

impl::IpcMemBytes make_ipc_mem_handle(const Arena& arena, size_t offset, size_t size, const std::string& uuid) {
  HandleBits b{};
  b.magic = kMagic;
  b.version = kVersion;
  b.pid = static_cast<int32_t>(::getpid());
  b.fd = arena.fd();
  b.nonce = arena.nonce();
  b.offset = offset;
  b.size = size;
  b.uuid_hash = fnv1a(uuid);
  impl::IpcMemBytes out;
  std::memcpy(out.data(), &b, sizeof b);
  return out;
}

IpcImports::~IpcImports() {
  for (auto& [key, imp] : imports_) {
    munmap(imp.alias, imp.mapped);
    munmap(imp.base, imp.mapped);
  }
}

void* IpcImports::open(const impl::IpcMemBytes& handle, const std::string& uuid) {
  HandleBits b;
  std::memcpy(&b, handle.data(), sizeof b);
  CTORCH_CHECK_VALUE(b.magic == kMagic && b.version == kVersion && b.size > 0,
                     "CUDA error: invalid argument (emulated cudaIpcOpenMemHandle: not an emulated IPC memory handle)");
  CTORCH_CHECK(b.pid != static_cast<int32_t>(::getpid()),
               "CUDA error: invalid device context (emulated cudaIpcOpenMemHandle: the handle was made by this "
               "process; a process cannot open its own IPC memory handles)");
  CTORCH_CHECK(b.uuid_hash == fnv1a(uuid), "CUDA error: invalid argument (emulated cudaIpcOpenMemHandle: the "
               "allocation is on another device than ", uuid, ")");
  const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(b.pid)) * 1000003u) ^ b.nonce ^ (b.offset << 1);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [base, imp] : imports_) {
    if (imp.key == key && imp.size == b.size) {
      ++imp.refs;
      return imp.base + imp.start;
    }
  }
  // The exporter's memfd, checked by the nonce in its name.
  const std::string path = "/proc/" + std::to_string(b.pid) + "/fd/" + std::to_string(b.fd);
  char target[256] = {};
  const ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
  char nonce_text[24];
  std::snprintf(nonce_text, sizeof nonce_text, "-%016" PRIx64, b.nonce);
  CTORCH_CHECK(n > 0 && std::strstr(target, "ctorch-emulated-cuda:") && std::strstr(target, nonce_text),
               "CUDA error: invalid argument (emulated cudaIpcOpenMemHandle: process ", b.pid,
               " holds no such emulated device memory; has it exited?)");
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  CTORCH_CHECK(fd >= 0, "CUDA error: invalid argument (emulated cudaIpcOpenMemHandle: cannot open ", path, ": ",
               std::strerror(errno), ")");
  const size_t page = page_size();
  const size_t first = b.offset / page * page;
  const size_t mapped = (b.offset + b.size + page - 1) / page * page - first;
  void* base = mmap(nullptr, mapped, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd, static_cast<off_t>(first));
  void* alias = base == MAP_FAILED ? MAP_FAILED
                                   : mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd,
                                          static_cast<off_t>(first));
  const int err = errno;
  ::close(fd);
  if (alias == MAP_FAILED) {
    if (base != MAP_FAILED) munmap(base, mapped);
    CTORCH_CHECK(false, "CUDA error: out of memory (emulated cudaIpcOpenMemHandle: mmap of ", mapped,
                 " bytes failed: ", std::strerror(err), ")");
  }
  Import imp;
  imp.base = static_cast<char*>(base);
  imp.alias = static_cast<char*>(alias);
  imp.mapped = mapped;
  imp.start = b.offset - first;
  imp.size = b.size;
  imp.key = key;
  imp.refs = 1;
  imports_.emplace(reinterpret_cast<uintptr_t>(base), imp);
  count_.store(imports_.size(), std::memory_order_release);
  return imp.base + imp.start;
}

bool IpcImports::close(void* ptr) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = imports_.begin(); it != imports_.end(); ++it) {
    Import& imp = it->second;
    if (imp.base + imp.start != ptr) continue;
    if (--imp.refs > 0) return true;
    munmap(imp.alias, imp.mapped);
    munmap(imp.base, imp.mapped);
    imports_.erase(it);
    count_.store(imports_.size(), std::memory_order_release);
    return true;
  }
  return false;
}

const IpcImports::Import* IpcImports::find_locked(const void* p) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = imports_.upper_bound(a);
  if (it == imports_.begin()) return nullptr;
  --it;
  return a - it->first < it->second.mapped ? &it->second : nullptr;
}

bool IpcImports::contains(const void* p) const noexcept {
  if (count() == 0) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return find_locked(p) != nullptr;
}

Lookup IpcImports::lookup(const void* p, size_t bytes) const {
  Lookup r;
  std::lock_guard<std::mutex> lock(mu_);
  const Import* imp = find_locked(p);
  const size_t at = imp ? static_cast<size_t>(static_cast<const char*>(p) - imp->base) : 0;
  if (!imp || at < imp->start || at - imp->start > imp->size || (bytes > 0 && at - imp->start == imp->size)) {
    r.reason = "no open IPC memory handle contains it";
    return r;
  }
  if (bytes > imp->size - (at - imp->start)) {
    r.reason = detail::str_cat("it runs ", bytes - (imp->size - (at - imp->start)), " bytes past the end of the ",
                               imp->size, "-byte IPC allocation at ", hex(imp->base + imp->start));
    return r;
  }
  r.ok = true;
  r.offset = at - imp->start;
  r.alias = imp->alias + at;
  return r;
}

// ---------------------------------------------------------------------------------------------
// impl::MemoryIpc of EmulatedRuntime

std::pair<impl::IpcMemBytes, size_t> EmulatedRuntime::ipc_mem_handle(DeviceIndex index, const void* ptr) {
  DeviceState& dev = device(index);
  size_t offset = 0, size = 0;
  CTORCH_CHECK_VALUE(dev.arena->allocation_of(ptr, &offset, &size), "CUDA error: invalid argument (emulated "
                     "cudaIpcGetMemHandle: ", hex(ptr), " is not inside a live allocation of cuda:", index,
                     "; memory of expandable segments and of other processes cannot be shared)");
  const Lookup l = dev.arena->lookup(ptr, 0);  // l.offset: ptr's offset in the arena
  return {make_ipc_mem_handle(*dev.arena, offset, size, dev.props.uuid), l.offset - offset};
}

void* EmulatedRuntime::open_ipc_mem_handle(DeviceIndex index, const impl::IpcMemBytes& handle) {
  DeviceState& dev = device(index);
  return dev.imports->open(handle, dev.props.uuid);
}

void EmulatedRuntime::close_ipc_mem_handle(DeviceIndex index, void* base) noexcept {
  try {
    DeviceState& dev = device(index);
    if (StreamWorker::current() == nullptr) drain_device(dev);
    if (!dev.imports->close(base)) {
      std::lock_guard<std::mutex> lock(dev.error_mu);
      if (dev.device_error.empty()) {
        dev.device_error = "CUDA error: invalid argument (emulated cudaIpcCloseMemHandle: " + hex(base) +
                           " is not an open IPC memory handle of cuda:" + std::to_string(index) + ")";
      }
    }
  } catch (...) {  // an invalid index: nothing to close
  }
}

}  // namespace ctorch::api::backends::emulated
