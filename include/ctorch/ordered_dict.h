// OrderedDict: keys in insertion order with lookup by key (libtorch's torch::OrderedDict, what
// named_parameters(), named_buffers() and state_dict() return).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ctorch/error.h"

namespace ctorch::inline api {

/// An insertion-ordered map with unique keys (torch::OrderedDict).
template <class Key, class Value>
class OrderedDict {
 public:
  /// One entry: key() and value() as libtorch's, and first/second as the std::pair it is.
  struct Item : std::pair<Key, Value> {
    Item(Key key, Value value) : std::pair<Key, Value>(std::move(key), std::move(value)) {}
    /// The key.
    const Key& key() const noexcept { return this->first; }
    /// The value.
    Value& value() noexcept { return this->second; }
    /// The value.
    const Value& value() const noexcept { return this->second; }
    /// The entry as a pair.
    const std::pair<Key, Value>& pair() const noexcept { return *this; }
    /// The value.
    Value& operator*() noexcept { return this->second; }
    /// The value.
    const Value& operator*() const noexcept { return this->second; }
    /// The value's members.
    Value* operator->() noexcept { return &this->second; }
    /// The value's members.
    const Value* operator->() const noexcept { return &this->second; }
  };
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  /// An empty dict whose errors call a key `key_description` ("Key", "Parameter", "Module").
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  /// The entries of `items`, in order; a repeated key throws.
  OrderedDict(std::initializer_list<Item> items) : OrderedDict() {
    for (const Item& item : items) insert(item.key(), item.value());
  }
  /// The entries of `pairs`, in order; a repeated key throws.
  OrderedDict(const std::vector<std::pair<Key, Value>>& pairs) : OrderedDict() {  // NOLINT: implicit
    for (const auto& [k, v] : pairs) insert(k, v);
  }
  /// The entries as a vector of pairs.
  operator std::vector<std::pair<Key, Value>>() const { return pairs(); }  // NOLINT: implicit

  /// What errors call a key.
  const std::string& key_description() const noexcept { return key_description_; }

  /// The first entry; throws when empty.
  Item& front() { return items_.at(checked_index(0, "front")); }
  const Item& front() const { return items_.at(checked_index(0, "front")); }
  /// The last entry; throws when empty.
  Item& back() { return items_.at(checked_index(items_.size() - 1, "back")); }
  const Item& back() const { return items_.at(checked_index(items_.size() - 1, "back")); }
  /// The entry at `index`; throws when out of bounds.
  Item& operator[](size_t index) { return items_[checked_index(index, nullptr)]; }
  const Item& operator[](size_t index) const { return items_[checked_index(index, nullptr)]; }
  /// The value of `key`; throws "<Key> '<key>' is not defined" when absent.
  Value& operator[](const Key& key) { return items_[index_of(key)].value(); }
  const Value& operator[](const Key& key) const { return items_[index_of(key)].value(); }

  /// The value of `key`, or nullptr.
  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  /// True when `key` is present.
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }

  /// Number of entries.
  size_t size() const noexcept { return items_.size(); }
  /// True when there are no entries.
  bool is_empty() const noexcept { return items_.empty(); }
  /// True when there are no entries (std containers' spelling).
  bool empty() const noexcept { return items_.empty(); }
  /// Reserves room for `capacity` entries.
  void reserve(size_t capacity) {
    index_.reserve(capacity);
    items_.reserve(capacity);
  }

  /// Appends `key` -> `value`; throws "<Key> '<key>' already defined" for a present key.
  template <class K, class V>
  Value& insert(K&& key, V&& value) {
    CTORCH_CHECK(index_.count(key) == 0, key_description_, " '", key, "' already defined");
    items_.emplace_back(Key(key), Value(std::forward<V>(value)));
    index_.emplace(std::forward<K>(key), items_.size() - 1);
    return items_.back().value();
  }
  /// Inserts every entry of `other` (a present key throws).
  void update(const OrderedDict& other) {
    reserve(size() + other.size());
    for (const Item& item : other) insert(item.key(), item.value());
  }
  /// Removes `key`; throws when absent.
  void erase(const Key& key) {
    auto it = index_.find(key);
    CTORCH_CHECK(it != index_.end(), "Key '", key, "' doesn't exist");
    const size_t index = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(index));
    for (auto& [k, i] : index_) {
      if (i > index) --i;
    }
  }
  /// Removes every entry.
  void clear() {
    index_.clear();
    items_.clear();
  }

  /// The entries.
  const std::vector<Item>& items() const noexcept { return items_; }
  /// The keys, in order.
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.key());
    return out;
  }
  /// The values, in order.
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.value());
    return out;
  }
  /// The entries as pairs, in order.
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.pair());
    return out;
  }

 private:
  size_t checked_index(size_t index, const char* called) const {
    if (called != nullptr) CTORCH_CHECK(!items_.empty(), "Called ", called, "() on an empty OrderedDict");
    CTORCH_CHECK(index < items_.size(), "Index ", index, " is out of bounds");
    return index;
  }
  size_t index_of(const Key& key) const {
    auto it = index_.find(key);
    CTORCH_CHECK(it != index_.end(), key_description_, " '", key, "' is not defined");
    return it->second;
  }

  std::unordered_map<Key, size_t> index_;
  std::vector<Item> items_;
  std::string key_description_;
};

}  // namespace ctorch::api
