// A minimal intrusive reference-counted pointer (one atomic counter in the object).
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

namespace ctorch::inline api {

/// Base class for objects owned by IntrusivePtr.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  /// Current number of owners.
  size_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

  virtual ~RefCounted() = default;

 private:
  template <class T>
  friend class IntrusivePtr;
  mutable std::atomic<size_t> refcount_{0};
};

/// Shared ownership of a RefCounted object.
template <class T>
class IntrusivePtr {
 public:
  IntrusivePtr() = default;
  /// Takes shared ownership of `p` (which may already have owners).
  explicit IntrusivePtr(T* p) : p_(p) { retain(); }
  IntrusivePtr(const IntrusivePtr& o) : p_(o.p_) { retain(); }
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  IntrusivePtr(const IntrusivePtr<U>& o) : p_(o.get()) { retain(); }  // NOLINT
  IntrusivePtr& operator=(const IntrusivePtr& o) {
    IntrusivePtr(o).swap(*this);
    return *this;
  }
  IntrusivePtr& operator=(IntrusivePtr&& o) noexcept {
    IntrusivePtr(std::move(o)).swap(*this);
    return *this;
  }
  ~IntrusivePtr() { release(); }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  void swap(IntrusivePtr& o) noexcept { std::swap(p_, o.p_); }
  void reset() { IntrusivePtr().swap(*this); }
  size_t use_count() const { return p_ ? p_->use_count() : 0; }
  bool operator==(const IntrusivePtr& o) const { return p_ == o.p_; }

  /// Allocates a T owned by the returned pointer.
  template <class... Args>
  static IntrusivePtr make(Args&&... args) {
    return IntrusivePtr(new T(std::forward<Args>(args)...));
  }

 private:
  void retain() {
    if (p_) static_cast<const RefCounted*>(p_)->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  void release() {
    if (p_ && static_cast<const RefCounted*>(p_)->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete p_;
    }
    p_ = nullptr;
  }
  T* p_ = nullptr;
};

}  // namespace ctorch::api
