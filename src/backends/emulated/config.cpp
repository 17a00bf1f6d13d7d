// Configuration of the emulated devices: the CTORCH_EMULATED_CUDA grammar (documented in
// include/ctorch/emulation.h), validation, and the device properties a configuration implies.
#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "backends/emulated/runtime.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::emulated {
namespace {

constexpr const char* kVar = "CTORCH_EMULATED_CUDA";
constexpr const char* kKeys = "devices, memory, name, capability, sms, peer, reorder, seed";

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

[[noreturn]] void bad_value(std::string_view key, std::string_view value, const char* expected) {
  CTORCH_CHECK_VALUE(false, kVar, ": invalid value '", value, "' for key '", key, "' (expected ",
                     expected, ")");
  __builtin_unreachable();
}

// A non-negative integer no larger than `max`.
uint64_t parse_uint(std::string_view key, std::string_view value, uint64_t max, const char* expected) {
  if (!all_digits(value) || value.size() > 19) bad_value(key, value, expected);
  uint64_t v = std::strtoull(std::string(value).c_str(), nullptr, 10);
  if (v > max) bad_value(key, value, expected);
  return v;
}

// "8GiB", "512MiB", "1.5G", "1000000", "64KB".
size_t parse_size(std::string_view key, std::string_view value) {
  const char* expected = "a size such as 8GiB, 512MiB, 64KB or 1073741824";
  size_t i = 0;
  while (i < value.size() && (std::isdigit(static_cast<unsigned char>(value[i])) || value[i] == '.')) ++i;
  std::string number(value.substr(0, i));
  std::string unit(trim(value.substr(i)));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (number.empty() || number.front() == '.' || number.back() == '.' ||
      number.find('.') != number.rfind('.')) {
    bad_value(key, value, expected);
  }
  double scale;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k" || unit == "kib") scale = 1024.0;
  else if (unit == "m" || unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else if (unit == "tb") scale = 1e12;
  else bad_value(key, value, expected);
  const double bytes = std::strtod(number.c_str(), nullptr) * scale;
  if (!(bytes >= 1) || bytes > 1e15) bad_value(key, value, "a size between 1 byte and 1 PB");
  return static_cast<size_t>(bytes);
}

bool parse_bool(std::string_view key, std::string_view value) {
  if (value == "1" || value == "true" || value == "on" || value == "yes") return true;
  if (value == "0" || value == "false" || value == "off" || value == "no") return false;
  bad_value(key, value, "0 or 1");
}

std::vector<std::pair<int, int>> parse_peers(std::string_view key, std::string_view value) {
  const char* expected = "all, none, or pairs a-b separated by ';' (device a may access device b)";
  std::vector<std::pair<int, int>> pairs;
  if (value == "none") return pairs;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(';', start);
    if (end == std::string_view::npos) end = value.size();
    std::string_view pair = trim(value.substr(start, end - start));
    const size_t dash = pair.find('-');
    if (dash == std::string_view::npos) bad_value(key, pair, expected);
    std::string_view a = trim(pair.substr(0, dash)), b = trim(pair.substr(dash + 1));
    if (!all_digits(a) || !all_digits(b) || a.size() > 4 || b.size() > 4) bad_value(key, pair, expected);
    pairs.emplace_back(std::atoi(std::string(a).c_str()), std::atoi(std::string(b).c_str()));
    start = end + 1;
  }
  return pairs;
}

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::optional<cuda::EmulationConfig> parse_config(std::string_view spec) {
  spec = trim(spec);
  if (spec.empty() || spec == "0") return std::nullopt;
  cuda::EmulationConfig config;
  if (all_digits(spec)) {
    config.devices = static_cast<int>(parse_uint("devices", spec, kMaxDevices, "a device count 0..64"));
    return config;
  }
  std::set<std::string, std::less<>> seen;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view item = trim(spec.substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;  // tolerate "a=1,,b=2" and a trailing comma
    const size_t eq = item.find('=');
    CTORCH_CHECK_VALUE(eq != std::string_view::npos, kVar, ": expected key=value or a device count, got '",
                       item, "' in '", spec, "'");
    std::string_view key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    CTORCH_CHECK_VALUE(seen.emplace(key).second, kVar, ": key '", key, "' is given twice in '", spec, "'");
    if (key == "devices") {
      config.devices = static_cast<int>(parse_uint(key, value, kMaxDevices, "a device count 0..64"));
    } else if (key == "memory") {
      config.memory = parse_size(key, value);
    } else if (key == "name") {
      CTORCH_CHECK_VALUE(!value.empty(), kVar, ": invalid value '' for key 'name' (expected a device name)");
      config.name = std::string(value);
    } else if (key == "capability") {
      const size_t dot = value.find('.');
      if (dot == std::string_view::npos || !all_digits(value.substr(0, dot)) ||
          !all_digits(value.substr(dot + 1)) || dot > 2 || value.size() - dot - 1 > 1) {
        bad_value(key, value, "major.minor such as 8.0 or 9.0");
      }
      config.major = std::atoi(std::string(value.substr(0, dot)).c_str());
      config.minor = std::atoi(std::string(value.substr(dot + 1)).c_str());
    } else if (key == "sms") {
      config.multi_processor_count = static_cast<int>(parse_uint(key, value, 100000, "a count 1..100000"));
    } else if (key == "peer") {
      if (value == "all") {
        config.peer_access.reset();
      } else {
        config.peer_access = parse_peers(key, value);
      }
    } else if (key == "reorder") {
      config.reorder = parse_bool(key, value);
    } else if (key == "seed") {
      config.seed = parse_uint(key, value, UINT64_MAX, "a non-negative integer");
    } else {
      CTORCH_CHECK_VALUE(false, kVar, ": unknown key '", key, "' in '", spec, "' (known keys: ", kKeys, ")");
    }
  }
  validate_config(config);
  return config;
}

void validate_config(const cuda::EmulationConfig& c) {
  CTORCH_CHECK_VALUE(c.devices >= 0 && c.devices <= kMaxDevices,
                     "emulated CUDA: devices must be in [0, 64], got ", c.devices);
  CTORCH_CHECK_VALUE(c.memory >= 1, "emulated CUDA: memory must be at least 1 byte, got ", c.memory);
  CTORCH_CHECK_VALUE(c.major >= 1 && c.major <= 99 && c.minor >= 0 && c.minor <= 9,
                     "emulated CUDA: invalid compute capability ", c.major, ".", c.minor);
  CTORCH_CHECK_VALUE(c.multi_processor_count >= 1,
                     "emulated CUDA: sms (multi_processor_count) must be positive, got ", c.multi_processor_count);
  CTORCH_CHECK_VALUE(c.name.find(',') == std::string::npos, "emulated CUDA: invalid value '", c.name,
                     "' for key 'name' (commas are not allowed)");
  if (c.peer_access) {
    for (auto [a, b] : *c.peer_access) {
      CTORCH_CHECK_VALUE(a >= 0 && a < c.devices && b >= 0 && b < c.devices, "emulated CUDA: invalid value '",
                         a, "-", b, "' for key 'peer' (device out of range for ", c.devices, " devices)");
      CTORCH_CHECK_VALUE(a != b, "emulated CUDA: invalid value '", a, "-", b,
                         "' for key 'peer' (a device always accesses its own memory)");
    }
  }
}

impl::DeviceProperties make_properties(const cuda::EmulationConfig& c, DeviceIndex index) {
  impl::DeviceProperties p;
  p.name = c.name.empty() ? std::string("ctorch Virtual GPU") : c.name;
  if (p.name.find("(emulated)") == std::string::npos) p.name += " (emulated)";
  p.major = c.major;
  p.minor = c.minor;
  p.total_memory = c.memory;
  p.multi_processor_count = c.multi_processor_count;
  p.max_threads_per_multi_processor = 2048;
  p.warp_size = 32;
  p.l2_cache_size = size_t{40} << 20;  // A100: 40 MiB
  p.is_integrated = false;
  p.is_multi_gpu_board = false;
  // Stable per (name, index): "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as nvidia-smi prints.
  const uint64_t h1 = fnv1a(p.name, fnv1a("ctorch-emulated-" + std::to_string(index)));
  const uint64_t h2 = fnv1a(std::to_string(h1), h1 ^ 0x9e3779b97f4a7c15ull);
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "GPU-%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
                h1 >> 32, (h1 >> 16) & 0xffff, h1 & 0xffff, h2 >> 48, static_cast<uint64_t>(h2 & 0xffffffffffffull));
  p.uuid = uuid;
  p.pci_domain_id = 0;
  p.pci_bus_id = index + 1;
  p.pci_device_id = 0;
  return p;
}

}  // namespace ctorch::api::backends::emulated
