#include "ctorch/device.h"

#include <cctype>
#include <ostream>

#include "ctorch/error.h"

namespace ctorch::inline api {

const char* device_type_name(DeviceType type) {
  return type == DeviceType::CPU ? "cpu" : "cuda";
}

namespace {

DeviceType parse_type(const std::string& name) {
  if (name == "cpu") return DeviceType::CPU;
  if (name == "cuda") return DeviceType::CUDA;
  CTORCH_CHECK(false,
               "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
               "ort, xla, lazy, vulkan, mps, meta, hpu, privateuseone device type at start of "
               "device string: ",
               name);
}

std::string_view non_null(const char* text) {
  CTORCH_CHECK_TYPE(text != nullptr, "Expected a device string, but got a null pointer");
  return text;
}

}  // namespace

// The grammar is c10's: ([a-zA-Z_]+)(?::([1-9]\d*|0))?, parsed by a small state machine.
Device::Device(std::string_view text) : type_(DeviceType::CPU), index_(-1) {
  CTORCH_CHECK(!text.empty(), "Device string must not be empty");
  std::string name;
  std::string index;
  bool in_index = false;
  bool ok = true;
  for (char ch : text) {
    if (!in_index) {
      if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
        name.push_back(ch);
      } else if (ch == ':') {
        in_index = true;
      } else {
        ok = false;
        break;
      }
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      index.push_back(ch);
    } else {
      ok = false;
      break;
    }
  }
  if (name.empty() || (in_index && index.empty()) || (index.size() > 1 && index[0] == '0')) ok = false;
  CTORCH_CHECK(ok, "Invalid device string: '", text, "'");
  type_ = parse_type(name);
  if (!index.empty()) {
    long long value = 0;
    bool overflow = index.size() > 9;
    if (!overflow) value = std::stoll(index);
    CTORCH_CHECK(!overflow && value <= INT32_MAX, "Could not parse device index '", index,
                 "' in device string '", text, "'");
    CTORCH_CHECK(value < 512, "Device index must be less than 512, but got ", value);
    index_ = static_cast<DeviceIndex>(value);
  }
  CTORCH_CHECK(type_ != DeviceType::CPU || index_ <= 0,
               "CPU device index must be -1 or zero, got ", index_);
}

Device::Device(int index) : type_(DeviceType::CUDA), index_(-1) {
  CTORCH_CHECK(index >= 0, "Device index must not be negative");
  CTORCH_CHECK(index < 512, "Device index must be less than 512, but got ", index);
  index_ = static_cast<DeviceIndex>(index);
}

Device::Device(const char* text) : Device(non_null(text)) {}

std::string Device::repr() const {
  std::string s = "device(type='";
  s += device_type_name(type_);
  s += '\'';
  if (has_index()) s += ", index=" + std::to_string(index_);
  return s + ")";
}

std::string Device::str() const {
  std::string s = device_type_name(type_);
  if (has_index()) s += ":" + std::to_string(index_);
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }
std::ostream& operator<<(std::ostream& os, DeviceType t) { return os << device_type_name(t); }

}  // namespace ctorch::api
