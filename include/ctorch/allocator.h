// DataPtr (owning pointer to device or host memory) and the Allocator interface.
#pragma once

#include <cstddef>
#include <utility>

#include "ctorch/device.h"

namespace ctorch::inline api {

/// Deleter of a DataPtr: receives the context it was created with.
using DeleterFn = void (*)(void* ctx);

/// Owns one allocation: `ptr` is the data, `ctx` is what the deleter needs to free it.
class DataPtr {
 public:
  DataPtr() = default;
  /// Memory at `ptr` on `device`, freed by `deleter(ctx)` (no deleter: not owned).
  DataPtr(void* ptr, void* ctx, DeleterFn deleter, Device device)
      : ptr_(ptr), ctx_(ctx), deleter_(deleter), device_(device) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { *this = std::move(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    if (this != &o) {
      clear();
      ptr_ = std::exchange(o.ptr_, nullptr);
      ctx_ = std::exchange(o.ctx_, nullptr);
      deleter_ = std::exchange(o.deleter_, nullptr);
      device_ = o.device_;
    }
    return *this;
  }
  ~DataPtr() { clear(); }

  void* get() const { return ptr_; }
  void* context() const { return ctx_; }
  DeleterFn deleter() const { return deleter_; }
  Device device() const { return device_; }
  /// Frees the memory now (if owned) and becomes empty.
  void clear() {
    if (deleter_) deleter_(ctx_);
    ptr_ = ctx_ = nullptr;
    deleter_ = nullptr;
  }

 private:
  void* ptr_ = nullptr;
  void* ctx_ = nullptr;
  DeleterFn deleter_ = nullptr;
  Device device_ = Device(DeviceType::CPU);
};

/// Hands out memory for tensor storages of one kind (cpu, pinned host, one device type).
class Allocator {
 public:
  virtual ~Allocator() = default;
  /// Allocates `nbytes` (0 gives an empty DataPtr on the right device). Throws on failure.
  virtual DataPtr allocate(size_t nbytes) = 0;
};

/// The allocator for ordinary cpu tensors (64-byte aligned, large blocks cached for reuse).
Allocator* cpu_allocator();

}  // namespace ctorch::api
