// serialization::Value (ctorch/serialization.h): a pickled object's tree with Python's semantics
// for the kinds torch.save checkpoints hold.
#include "ctorch/serialization.h"

namespace ctorch::serialization {

Value::Value(const std::vector<std::pair<std::string, Tensor>>& state_dict) {
  Items items;
  items.reserve(state_dict.size());
  for (const auto& [name, t] : state_dict) items.emplace_back(Value(name), Value(t));
  *this = dict(std::move(items), /*ordered=*/true);
}

Value Value::list(std::vector<Value> items) {
  Value v;
  v.data_ = std::make_shared<Sequence>(Sequence{std::move(items), false});
  return v;
}

Value Value::tuple(std::vector<Value> items) {
  Value v;
  v.data_ = std::make_shared<Sequence>(Sequence{std::move(items), true});
  return v;
}

Value Value::dict(Items items, bool ordered) {
  Value v;
  auto d = std::make_shared<Dict>(Dict{{}, ordered, nullptr, {}});
  v.data_ = d;
  for (auto& [k, x] : items) v.set(std::move(k), std::move(x));
  return v;
}

Value::Kind Value::kind() const {
  switch (data_.index()) {
    case 0: return Kind::None;
    case 1: return Kind::Bool;
    case 2: return Kind::Int;
    case 3: return Kind::Float;
    case 4: return Kind::String;
    case 5: return Kind::Tensor;
    case 6: return std::get<6>(data_)->is_tuple ? Kind::Tuple : Kind::List;
    default: return Kind::Dict;
  }
}

const char* Value::kind_name(Kind k) {
  switch (k) {
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::Tensor: return "Tensor";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
  }
  return "?";
}

namespace {
[[noreturn]] void wrong_kind(const char* expected, Value::Kind got) {
  throw TypeError(detail::str_cat("expected a ", expected, " but the value is a ", Value::kind_name(got)));
}
}  // namespace

bool Value::is_ordered_dict() const { return is_dict() && std::get<7>(data_)->ordered; }
bool Value::is_parameter() const { return is_tensor() && std::get<5>(data_).is_parameter; }

bool Value::to_bool() const {
  if (kind() != Kind::Bool) wrong_kind("bool", kind());
  return std::get<1>(data_);
}

int64_t Value::to_int() const {
  if (kind() == Kind::Bool) return std::get<1>(data_) ? 1 : 0;
  if (kind() != Kind::Int) wrong_kind("int", kind());
  return std::get<2>(data_);
}

double Value::to_double() const {
  if (kind() == Kind::Int || kind() == Kind::Bool) return static_cast<double>(to_int());
  if (kind() != Kind::Float) wrong_kind("float", kind());
  return std::get<3>(data_);
}

const std::string& Value::to_string() const {
  if (kind() != Kind::String) wrong_kind("str", kind());
  return std::get<4>(data_);
}

const Tensor& Value::to_tensor() const {
  if (kind() != Kind::Tensor) wrong_kind("Tensor", kind());
  return std::get<5>(data_).tensor;
}

const std::vector<Value>& Value::elements() const {
  if (data_.index() != 6) wrong_kind("list or tuple", kind());
  return std::get<6>(data_)->elements;
}

const Value::Items& Value::items() const {
  if (!is_dict()) wrong_kind("dict", kind());
  return std::get<7>(data_)->items;
}

void Value::append(Value v) {
  if (kind() != Kind::List) wrong_kind("list", kind());
  std::get<6>(data_)->elements.push_back(std::move(v));
}

void Value::set(Value key, Value v) {
  if (!is_dict()) wrong_kind("dict", kind());
  Dict& d = *std::get<7>(data_);
  if (key.kind() == Kind::String) {  // the common case (state_dicts): one hash lookup
    auto [it, added] = d.string_keys.emplace(key.to_string(), d.items.size());
    if (!added) {
      d.items[it->second].second = std::move(v);
    } else {
      d.items.emplace_back(std::move(key), std::move(v));
    }
    return;
  }
  for (auto& [k, x] : d.items) {
    if (k == key) {
      x = std::move(v);
      return;
    }
  }
  d.items.emplace_back(std::move(key), std::move(v));
}

const Value* Value::find(const Value& key) const {
  (void)items();  // a TypeError unless this is a dict
  if (key.kind() == Kind::String) {
    const Dict& d = *std::get<7>(data_);
    auto it = d.string_keys.find(key.to_string());
    return it == d.string_keys.end() ? nullptr : &d.items[it->second].second;
  }
  for (const auto& [k, x] : items()) {
    if (k == key) return &x;
  }
  return nullptr;
}

const Value& Value::at(const Value& key) const {
  if (const Value* v = find(key)) return *v;
  std::string shown = key.kind() == Kind::String ? "'" + key.to_string() + "'"
                      : key.kind() == Kind::Int  ? std::to_string(key.to_int())
                                                 : kind_name(key.kind());
  throw IndexError("KeyError: " + shown);
}

std::vector<std::pair<std::string, Tensor>> Value::to_state_dict() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [k, x] : items()) {
    if (k.kind() != Kind::String || x.kind() != Kind::Tensor) {
      throw TypeError(detail::str_cat("a state_dict maps str to Tensor, but an entry maps ", kind_name(k.kind()),
                                      " to ", kind_name(x.kind())));
    }
    out.emplace_back(k.to_string(), x.to_tensor());
  }
  return out;
}

const Value* Value::attributes() const { return is_dict() ? std::get<7>(data_)->attributes.get() : nullptr; }

void Value::set_attributes(Value attrs) {
  if (!is_dict()) wrong_kind("dict", kind());
  std::get<7>(data_)->attributes = std::make_shared<Value>(std::move(attrs));
}

const void* Value::container_id() const {
  if (data_.index() == 6) return std::get<6>(data_).get();
  if (data_.index() == 7) return std::get<7>(data_).get();
  return nullptr;
}

bool Value::operator==(const Value& other) const {
  const Kind a = kind(), b = other.kind();
  const auto numeric = [](Kind k) { return k == Kind::Bool || k == Kind::Int || k == Kind::Float; };
  if (numeric(a) && numeric(b)) {  // 1 == 1.0 == True, as in Python
    if (a != Kind::Float && b != Kind::Float) return to_int() == other.to_int();
    return to_double() == other.to_double();
  }
  if (a != b) return false;
  switch (a) {
    case Kind::None: return true;
    case Kind::String: return to_string() == other.to_string();
    case Kind::Tensor: return to_tensor().is_same(other.to_tensor());
    case Kind::List:
    case Kind::Tuple: return container_id() == other.container_id() || elements() == other.elements();
    case Kind::Dict: {
      if (container_id() == other.container_id()) return true;
      if (items().size() != other.items().size()) return false;
      for (const auto& [k, x] : items()) {
        const Value* y = other.find(k);
        if (y == nullptr || !(*y == x)) return false;
      }
      return true;
    }
    default: return false;
  }
}

}  // namespace ctorch::serialization
