// torch.save / torch.load in PyTorch's own checkpoint format: a zip archive holding the object
// pickled (protocol 2, as torch.save) as `<archive>/data.pkl`, each storage's bytes as
// `<archive>/data/<key>` and `<archive>/version`. Files written here load in Python with
// torch.load, and Python's files load here. The object is a serialization::Value: None, bool,
// int, float, str, Tensor, list, tuple, dict and OrderedDict (what state_dicts, optimizer states
// and training checkpoints hold). Anything else in a file (an arbitrary Python class) is refused
// with UnpicklingError, never executed. A damaged file raises CheckpointError.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ctorch/device.h"
#include "ctorch/error.h"
#include "ctorch/ordered_dict.h"
#include "ctorch/tensor.h"

namespace ctorch::serialization {

/// A file that is not a readable checkpoint: a bad or truncated zip archive, a missing record
/// (PyTorchStreamReader's RuntimeError in Python).
class CheckpointError : public Error {
  using Error::Error;
};

/// A pickle ctorch does not read, or an object it refuses (Python's pickle.UnpicklingError).
class UnpicklingError : public CheckpointError {
  using CheckpointError::CheckpointError;
};

/// One pickled object: None, bool, int, float, str, Tensor, list, tuple or (ordered) dict.
class Value {
 public:
  /// What a Value holds.
  enum class Kind { None, Bool, Int, Float, String, Tensor, List, Tuple, Dict };
  /// A dict's entries, in insertion order (Python's dicts keep it).
  using Items = std::vector<std::pair<Value, Value>>;

  /// None.
  Value() = default;
  Value(bool v) : data_(v) {}                                     // NOLINT: implicit, as Python's
  Value(int v) : data_(static_cast<int64_t>(v)) {}                // NOLINT
  Value(int64_t v) : data_(v) {}                                  // NOLINT
  Value(double v) : data_(v) {}                                   // NOLINT
  Value(std::string v) : data_(std::move(v)) {}                   // NOLINT
  Value(const char* v) : data_(std::string(v)) {}                 // NOLINT
  Value(Tensor v, bool is_parameter = false) : data_(TensorBox{std::move(v), is_parameter}) {}  // NOLINT
  /// An OrderedDict of name -> tensor (a module's state_dict()).
  Value(const std::vector<std::pair<std::string, Tensor>>& state_dict);  // NOLINT
  /// A module's state_dict() (an OrderedDict of name -> tensor).
  Value(const OrderedDict<std::string, Tensor>& state_dict) : Value(state_dict.pairs()) {}  // NOLINT
  /// A list.
  static Value list(std::vector<Value> items);
  /// A tuple.
  static Value tuple(std::vector<Value> items);
  /// A dict (`ordered`: collections.OrderedDict, which state_dicts are).
  static Value dict(Items items = {}, bool ordered = false);

  Kind kind() const;
  bool is_none() const { return kind() == Kind::None; }
  bool is_tensor() const { return kind() == Kind::Tensor; }
  bool is_dict() const { return kind() == Kind::Dict; }
  /// True for a dict that is a collections.OrderedDict.
  bool is_ordered_dict() const;
  /// True for a tensor pickled as torch.nn.Parameter.
  bool is_parameter() const;

  /// The value; a Value of another kind raises TypeError naming both kinds.
  bool to_bool() const;
  /// An int (a bool is an int, as in Python).
  int64_t to_int() const;
  /// A float (an int converts, as in Python).
  double to_double() const;
  const std::string& to_string() const;
  const Tensor& to_tensor() const;
  /// A list's or tuple's elements.
  const std::vector<Value>& elements() const;
  /// A dict's entries.
  const Items& items() const;
  /// Appends to a list or adds/replaces a dict entry (keys compare as Python's ==).
  void append(Value v);
  void set(Value key, Value v);
  /// The dict entry under `key`, or null.
  const Value* find(const Value& key) const;
  /// The dict entry under `key`; a missing key raises KeyError-style IndexError.
  const Value& at(const Value& key) const;
  /// A dict of str -> Tensor as a state_dict (tensors in insertion order); other entries raise TypeError.
  std::vector<std::pair<std::string, Tensor>> to_state_dict() const;
  /// Attributes pickled with an OrderedDict (a state_dict's `_metadata`), kept for saving it again.
  const Value* attributes() const;
  void set_attributes(Value attrs);

  /// The address of a list's, tuple's or dict's shared contents, null for other kinds: copies of a
  /// Value share their contents, as references to one Python object do.
  const void* container_id() const;

  /// Python's ==: same kind and equal contents (tensors: the same tensor object).
  bool operator==(const Value& other) const;
  /// The kind's Python type name: "NoneType", "bool", "int", "float", "str", "Tensor", "list", "tuple", "dict".
  static const char* kind_name(Kind k);

  // libtorch's IValue spellings (ctx->saved_data["k"].toDouble()).
  double toDouble() const { return to_double(); }
  int64_t toInt() const { return to_int(); }
  bool toBool() const { return to_bool(); }
  const Tensor& toTensor() const { return to_tensor(); }
  const std::string& toStringRef() const { return to_string(); }
  bool isNone() const { return is_none(); }
  bool isTensor() const { return is_tensor(); }
  bool isDouble() const { return kind() == Kind::Float; }
  bool isInt() const { return kind() == Kind::Int; }
  bool isBool() const { return kind() == Kind::Bool; }
  bool isString() const { return kind() == Kind::String; }

 private:
  struct TensorBox {
    Tensor tensor;
    bool is_parameter;
  };
  struct Sequence {
    std::vector<Value> elements;
    bool is_tuple;
  };
  struct Dict {
    Items items;
    bool ordered;
    std::shared_ptr<Value> attributes;
    std::unordered_map<std::string, size_t> string_keys;  // where each str key sits in items
  };
  std::variant<std::monostate, bool, int64_t, double, std::string, TensorBox, std::shared_ptr<Sequence>,
               std::shared_ptr<Dict>>
      data_;
};

/// Where load() puts each storage: where it was saved (monostate), everything on one device,
/// saved locations renamed ({"cuda:1": "cuda:0"}; locations not named stay), or a function of the
/// saved location ("cpu", "cuda:1") giving the device (torch.load's map_location forms).
using MapLocation = std::variant<std::monostate, Device, std::map<std::string, std::string>,
                                 std::function<Device(const std::string& location)>>;

/// The checkpoint bytes of `obj` (torch.save into a BytesIO). Cuda tensors are saved from the host
/// with their device as location; tensors sharing memory share one storage record, as in PyTorch.
std::string save_to_bytes(const Value& obj);
/// load() from checkpoint bytes (torch.load of a BytesIO).
Value load_from_bytes(std::string_view bytes, const MapLocation& map_location = {});

}  // namespace ctorch::serialization

namespace ctorch::inline api {

/// A generic value (libtorch's IValue): what checkpoints and custom functions' saved_data hold.
using IValue = serialization::Value;

/// torch.save(obj, path): writes the checkpoint to `path` (replaced only once it is complete).
void save(const serialization::Value& obj, const std::string& path);
/// torch.load(path, map_location): a tensor saved on cuda:1 comes back on cuda:1 unless remapped;
/// a missing device raises DeviceError with PyTorch's advice. The whole file is checked before
/// anything is returned: a corrupt or truncated file raises CheckpointError.
serialization::Value load(const std::string& path, const serialization::MapLocation& map_location = {});

}  // namespace ctorch::api
