// Shared pieces of the libtorch layer holders in modules_conv.h, modules_pooling.h and
// modules_layers.h: a Cloneable base whose reset() builds the parameters (so clone() and replicate
// rebuild a layer), and the Python-style tuple text of native reprs.
#pragma once

#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "ctorch/nn_layers.h"

namespace torch::nn::layers_detail {

/// A layer whose reset() (re)creates its parameters and buffers, as libtorch's Cloneable<Derived>;
/// Base is UnaryModule for one-tensor layers (they chain in Sequential) or Module.
template <class Derived, class Base = ::ctorch::nn::UnaryModule>
class LayerCloneable : public Base {
 public:
  explicit LayerCloneable(std::string name) : Base(std::move(name)) {}
  /// Registers the layer's parameters and buffers from its options.
  virtual void reset() = 0;

 protected:
  std::shared_ptr<::ctorch::nn::Module> shallow_copy() const override {
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->clear_registrations();
    copy->reset();
    return copy;
  }
  bool rebuilds_registrations() const override { return true; }
};

/// Python's tuple text: "(3,)", "(3, 4)".
template <class Range>
std::string py_tuple(const Range& values) {
  std::ostringstream os;
  os << "(";
  size_t n = 0;
  for (const auto& v : values) os << (n++ ? ", " : "") << v;
  if (n == 1) os << ",";
  os << ")";
  return os.str();
}

/// Python's float text for the usual option values: "0.0001", "1e-05", "2.0".
inline std::string py_float(double v) {
  std::ostringstream os;
  os << v;
  std::string t = os.str();
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
  return t;
}

/// Python's bool text.
inline const char* py_bool(bool b) { return b ? "True" : "False"; }

}  // namespace torch::nn::layers_detail
