// Device and DeviceType: where a tensor lives, with PyTorch's string grammar ("cpu", "cuda:1").
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace ctorch::inline api {

/// The kinds of device. An emulated GPU is a CUDA device backed by the emulated runtime.
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

/// Number of device types (size of the runtime registry).
inline constexpr int kNumDeviceTypes = 2;

/// Index of a device within its type; -1 means "the current one".
using DeviceIndex = int16_t;

/// "cpu" or "cuda".
const char* device_type_name(DeviceType type);

/// A device type plus an optional index. `cuda` (index -1) != `cuda:0`, as in PyTorch.
class Device {
 public:
  /// c10::Device::Type.
  using Type = DeviceType;
  /// A device of `type` with `index` (-1: none given).
  constexpr Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {}  // NOLINT
  /// cuda:index, as torch.device(0); a negative index throws ctorch::Error.
  explicit Device(int index);
  /// Parses PyTorch's grammar: "cpu", "cuda", "cuda:1", "cpu:0". Throws ctorch::Error on bad text.
  Device(std::string_view text);  // NOLINT(google-explicit-constructor)
  /// Same as Device(std::string_view); a null pointer throws ctorch::Error.
  Device(const char* text);  // NOLINT(google-explicit-constructor)
  /// Same as Device(std::string_view).
  Device(const std::string& text) : Device(std::string_view(text)) {}  // NOLINT

  /// The device type.
  constexpr DeviceType type() const { return type_; }
  /// The index, or -1 when none was given.
  constexpr DeviceIndex index() const { return index_; }
  /// True when an index was given.
  constexpr bool has_index() const { return index_ != -1; }
  /// True for cpu devices.
  constexpr bool is_cpu() const { return type_ == DeviceType::CPU; }
  /// True for cuda devices (real or emulated).
  constexpr bool is_cuda() const { return type_ == DeviceType::CUDA; }
  /// "cuda:0", "cuda", "cpu".
  std::string str() const;
  /// PyTorch's repr: "device(type='cuda', index=0)", "device(type='cpu')".
  std::string repr() const;

  /// Equal when type and index are equal.
  constexpr bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  /// Negation of ==.
  constexpr bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  DeviceType type_;
  DeviceIndex index_;
};

/// The cpu device type (converts to the cpu Device), as c10::kCPU.
inline constexpr DeviceType kCPU = DeviceType::CPU;
/// The cuda device type (converts to the index-less Device: the current cuda device), as c10::kCUDA.
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

/// Prints Device::str().
std::ostream& operator<<(std::ostream& os, const Device& d);
/// Prints device_type_name().
std::ostream& operator<<(std::ostream& os, DeviceType t);

}  // namespace ctorch::api

/// Hash as in c10: (type << 16) | uint16(index).
template <>
struct std::hash<ctorch::Device> {
  size_t operator()(const ctorch::Device& d) const noexcept {
    uint32_t bits = (static_cast<uint32_t>(static_cast<uint8_t>(d.type())) << 16) |
                    static_cast<uint32_t>(static_cast<uint16_t>(d.index()));
    return std::hash<uint32_t>{}(bits);
  }
};
