// ArrayRef / IntArrayRef (non-owning views of values) and DimVector (sizes/strides with inline storage).
#pragma once

#include <cstdint>
#include <array>
#include <cstring>
#include <stdexcept>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <iosfwd>
#include <vector>

namespace ctorch::inline api {

/// A non-owning view of contiguous values (c10::ArrayRef); built from {..}, vectors, arrays or
/// one value. Valid only while what it views lives.
template <class T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;
  /// An empty view.
  constexpr ArrayRef() = default;
  /// A view of one value (PyTorch accepts `size=3` for `size=(3,)`).
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT
  /// A view of `n` values at `data`.
  constexpr ArrayRef(const T* data, size_t n) : data_(data), size_(n) {}
  /// A view of [begin, end).
  constexpr ArrayRef(const T* begin, const T* end) : data_(begin), size_(static_cast<size_t>(end - begin)) {}
  /// A view of an initializer list (valid for the full expression, as c10::ArrayRef).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(std::initializer_list<T> il) : data_(il.begin()), size_(il.size()) {}  // NOLINT
#pragma GCC diagnostic pop
  /// A view of a vector.
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  /// A view of a std::array.
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) : data_(a.data()), size_(N) {}  // NOLINT
  /// A view of a C array.
  template <size_t N>
  constexpr ArrayRef(const T (&a)[N]) : data_(a), size_(N) {}  // NOLINT

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  /// Element `i`, bounds-checked (throws std::out_of_range).
  const T& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("ArrayRef: index out of range");
    return data_[i];
  }
  /// The `m` elements from `n`.
  constexpr ArrayRef slice(size_t n, size_t m) const { return ArrayRef(data_ + n, m); }
  /// The elements from `n` on.
  constexpr ArrayRef slice(size_t n) const { return ArrayRef(data_ + n, size_ - n); }
  /// Copies the values into a vector.
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  /// Element-wise equality.
  bool equals(ArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i) {
      if (!(data_[i] == o.data_[i])) return false;
    }
    return true;
  }
  bool operator==(ArrayRef o) const { return equals(o); }
  bool operator!=(ArrayRef o) const { return !equals(o); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

/// A view of int64 sizes, strides or dims.
using IntArrayRef = ArrayRef<int64_t>;

/// An optional list of dims (c10::OptionalIntArrayRef) that keeps a single dim by value, so that
/// `t.var(0)` does not point at a temporary that died inside std::optional's constructor.
class OptionalIntArrayRef {
 public:
  /// No dims (nullopt): reduce over all of them.
  OptionalIntArrayRef() = default;
  OptionalIntArrayRef(std::nullopt_t) {}  // NOLINT
  /// One dim, kept by value.
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  OptionalIntArrayRef(I dim) : has_(true), one_(true), dim_(static_cast<int64_t>(dim)) {}  // NOLINT
  /// A list of dims; it must outlive this object (as any IntArrayRef).
  OptionalIntArrayRef(IntArrayRef dims) : has_(true), list_(dims) {}  // NOLINT
  OptionalIntArrayRef(std::initializer_list<int64_t> dims) : has_(true), list_(dims) {}  // NOLINT
  OptionalIntArrayRef(const std::vector<int64_t>& dims) : has_(true), list_(dims) {}  // NOLINT
  OptionalIntArrayRef(std::optional<IntArrayRef> dims) : has_(dims.has_value()), list_(dims.value_or(IntArrayRef())) {}  // NOLINT

  bool has_value() const { return has_; }
  explicit operator bool() const { return has_; }
  /// The dims (valid while this object lives); empty when !has_value().
  IntArrayRef value() const { return one_ ? IntArrayRef(&dim_, 1) : list_; }
  IntArrayRef operator*() const { return value(); }
  /// std::optional<IntArrayRef> viewing this object's dims.
  std::optional<IntArrayRef> opt() const { return has_ ? std::optional<IntArrayRef>(value()) : std::nullopt; }

 private:
  bool has_ = false;
  bool one_ = false;
  int64_t dim_ = 0;
  IntArrayRef list_;
};

/// Prints as PyTorch prints a size list: [2, 3].
std::ostream& operator<<(std::ostream& os, IntArrayRef a);

/// A small vector of int64 with inline room for kInline dims; grows on the heap past that.
class DimVector {
 public:
  static constexpr size_t kInline = 6;
  DimVector() = default;
  /// `n` copies of `value`.
  explicit DimVector(size_t n, int64_t value = 0) { resize(n, value); }
  /// Copies a view.
  DimVector(IntArrayRef a) { assign(a); }  // NOLINT
  DimVector(std::initializer_list<int64_t> il) { assign(IntArrayRef(il)); }
  DimVector(const DimVector& o) { assign(o); }
  DimVector(DimVector&& o) noexcept { move_from(o); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o);
    return *this;
  }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) {
      release();
      move_from(o);
    }
    return *this;
  }
  ~DimVector() { release(); }

  /// Replaces the contents with a copy of `a`.
  void assign(IntArrayRef a) {
    reserve(a.size());
    if (a.size()) std::memmove(data_, a.data(), a.size() * 8);
    size_ = a.size();
  }
  /// Resizes, filling new slots with `value`.
  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  /// Appends one value.
  void push_back(int64_t v) {
    reserve(size_ + 1);
    data_[size_++] = v;
  }
  /// Inserts `v` before position `pos`.
  void insert(size_t pos, int64_t v) {
    reserve(size_ + 1);
    std::memmove(data_ + pos + 1, data_ + pos, (size_ - pos) * 8);
    data_[pos] = v;
    ++size_;
  }
  /// Removes the value at `pos`.
  void erase(size_t pos) {
    std::memmove(data_ + pos, data_ + pos + 1, (size_ - pos - 1) * 8);
    --size_;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data_[i]; }
  const int64_t& operator[](size_t i) const { return data_[i]; }
  int64_t& back() { return data_[size_ - 1]; }
  int64_t* begin() { return data_; }
  int64_t* end() { return data_ + size_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  operator IntArrayRef() const { return IntArrayRef(data_, size_); }  // NOLINT
  bool operator==(const DimVector& o) const { return IntArrayRef(*this) == IntArrayRef(o); }

 private:
  void reserve(size_t n) {
    if (n <= capacity_) return;
    size_t cap = n < 2 * capacity_ ? 2 * capacity_ : n;
    auto* heap = new int64_t[cap];
    if (size_) std::memcpy(heap, data_, size_ * 8);
    release();
    data_ = heap;
    capacity_ = cap;
  }
  void release() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    capacity_ = kInline;
  }
  void move_from(DimVector& o) {
    if (o.data_ == o.inline_) {
      std::memcpy(inline_, o.inline_, o.size_ * 8);
      data_ = inline_;
      capacity_ = kInline;
    } else {
      data_ = o.data_;
      capacity_ = o.capacity_;
      o.data_ = o.inline_;
      o.capacity_ = kInline;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  int64_t inline_[kInline];
  int64_t* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = kInline;
};

}  // namespace ctorch::api
