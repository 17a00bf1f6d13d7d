// Python's pickle, the subset torch.save needs: a protocol-2 writer (as torch.save's default
// pickle_protocol) and a reader of the opcodes protocols 2-5 use for None, bools, ints, floats,
// strings, tuples, lists, dicts, collections.OrderedDict and tensors. Globals come from an allow
// list and are interpreted here, never looked up or executed.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "ctorch/serialization.h"

namespace ctorch::serialization::detail {

/// A storage record a pickled tensor points at: the persistent id
/// ('storage', torch.<Type>Storage, key, location, numel).
struct StorageRef {
  ScalarType dtype;
  std::string key;
  std::string location;
  int64_t numel;
};

/// The pickle of `obj`; `storage_of(t)` names (and records) the storage of each tensor met.
std::string pickle(const Value& obj, const std::function<StorageRef(const Tensor&)>& storage_of);

/// The object pickled in `data`; `load_storage(ref)` gives the storage's elements as a 1-d tensor.
/// Anything outside the subset raises UnpicklingError naming it.
Value unpickle(std::string_view data, const std::function<Tensor(const StorageRef&)>& load_storage);

}  // namespace ctorch::serialization::detail
