// TensorOptions: dtype, device, requires_grad and pinned_memory for factories (libtorch style).
#pragma once

#include <optional>
#include <type_traits>

#include "ctorch/device.h"
#include "ctorch/dtype.h"
#include "ctorch/layout.h"

namespace ctorch::inline api {

/// Options for creating a tensor; unset fields take the defaults (default dtype, cpu).
class TensorOptions {
 public:
  TensorOptions() = default;
  /// Options with this dtype.
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}  // NOLINT
  /// Options on this device.
  TensorOptions(Device device) : device_(device) {}  // NOLINT
  /// Options on a device of this type (kCUDA: the current cuda device), as libtorch's ones({2}, kCUDA).
  TensorOptions(DeviceType type) : device_(Device(type)) {}  // NOLINT
  /// Options on the device named by `device` ("cuda:1"). A template so that a literal 0 (a null
  /// pointer constant) does not convert: arange(0, 10, 0) means a step of 0.
  template <class Text>
    requires(std::is_same_v<Text, const char*> || std::is_same_v<Text, char*>)
  TensorOptions(Text device) : device_(Device(device)) {}  // NOLINT
  /// Options with this layout.
  TensorOptions(Layout layout) : layout_(layout) {}  // NOLINT

  /// Copy with dtype set.
  TensorOptions dtype(ScalarType t) const { auto o = *this; o.dtype_ = t; return o; }
  /// Copy with dtype set or cleared.
  TensorOptions dtype(std::optional<ScalarType> t) const { auto o = *this; o.dtype_ = t; return o; }
  /// Copy with device set.
  TensorOptions device(Device d) const { auto o = *this; o.device_ = d; return o; }
  /// Copy with device Device(type, index) (libtorch's device(kCUDA, 1)).
  TensorOptions device(DeviceType type, DeviceIndex index = -1) const { return device(Device(type, index)); }
  /// Copy on cuda:index (libtorch's device_index()).
  TensorOptions device_index(DeviceIndex index) const { return device(Device(DeviceType::CUDA, index)); }
  /// Copy with the device named by `d` ("cuda:1").
  TensorOptions device(const char* d) const { return device(Device(d)); }
  /// Copy with device set or cleared.
  TensorOptions device(std::optional<Device> d) const { auto o = *this; o.device_ = d; return o; }
  /// Copy with layout set (factories implement kStrided only and throw NotImplementedError for others).
  TensorOptions layout(Layout l) const { auto o = *this; o.layout_ = l; return o; }
  /// Copy with layout set or cleared.
  TensorOptions layout(std::optional<Layout> l) const { auto o = *this; o.layout_ = l; return o; }
  /// Copy with requires_grad set.
  TensorOptions requires_grad(bool v) const { auto o = *this; o.requires_grad_ = v; return o; }
  /// Copy with pinned_memory set (cpu tensors in page-locked memory).
  TensorOptions pinned_memory(bool v) const { auto o = *this; o.pinned_memory_ = v; return o; }

  /// The dtype, or the default dtype when unset.
  ScalarType dtype() const { return dtype_.value_or(get_default_dtype()); }
  /// The device, or cpu when unset.
  Device device() const { return device_.value_or(Device(DeviceType::CPU)); }
  /// The layout, or kStrided when unset.
  Layout layout() const { return layout_.value_or(Layout::Strided); }
  bool requires_grad() const { return requires_grad_; }
  bool pinned_memory() const { return pinned_memory_; }
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  bool has_layout() const { return layout_.has_value(); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  bool requires_grad_ = false;
  bool pinned_memory_ = false;
};

/// TensorOptions().dtype(t).
inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
/// TensorOptions().device(d).
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
/// TensorOptions().layout(l).
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
/// TensorOptions().device_index(index): cuda:index.
inline TensorOptions device_index(DeviceIndex index) { return TensorOptions().device_index(index); }
/// TensorOptions().requires_grad(v).
inline TensorOptions requires_grad(bool v = true) { return TensorOptions().requires_grad(v); }

}  // namespace ctorch::api
