// StorageImpl: the reference-counted memory block behind one or more tensors.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

#include "ctorch/allocator.h"
#include "ctorch/intrusive_ptr.h"

namespace ctorch::inline api {

/// A block of bytes on one device, shared by a tensor and its views.
class StorageImpl : public RefCounted {
 public:
  /// Takes ownership of `data` of `nbytes` bytes; `allocator` may be null (from_blob).
  StorageImpl(DataPtr data, size_t nbytes, Allocator* allocator, bool pinned = false)
      : data_(std::move(data)), nbytes_(nbytes), allocator_(allocator), pinned_(pinned) {}

  void* data() const { return data_.get(); }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device(); }
  Allocator* allocator() const { return allocator_; }
  /// True when the memory is page-locked host memory.
  bool pinned() const { return pinned_; }
  /// The DataPtr (for allocators that need the context back).
  const DataPtr& data_ptr() const { return data_; }

  /// Exchanges the memory (data, size, allocator, pinned) with `other`'s; versions stay (Tensor::resize_).
  void swap_memory(StorageImpl& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(nbytes_, other.nbytes_);
    std::swap(allocator_, other.allocator_);
    std::swap(pinned_, other.pinned_);
  }

  /// Version counter shared by all views of this storage (bumped by in-place ops).
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  /// Records one in-place modification.
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  DataPtr data_;
  size_t nbytes_;
  Allocator* allocator_;
  bool pinned_;
  std::atomic<uint32_t> version_{0};
};

/// Shared handle to a StorageImpl.
using Storage = IntrusivePtr<StorageImpl>;

}  // namespace ctorch::api
