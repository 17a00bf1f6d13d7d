#include "runtime/visible_devices.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace ctorch::inline api::impl {
namespace {

std::string strip(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// strtoul-like: optional sign, then the longest run of digits; -1 when there are none.
int64_t parse_ordinal(const std::string& raw) {
  const std::string s = strip(raw);
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return -1;
  int64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && v < (int64_t{1} << 40)) {
    v = v * 10 + (s[i++] - '0');
  }
  return negative ? -v : v;
}

}  // namespace

VisibleDevices parse_visible_devices(const char* value) {
  VisibleDevices v;
  if (!value) {
    for (int64_t i = 0; i < 64; ++i) v.ordinals.push_back(i);
    return v;
  }
  const std::string s = value;
  for (const char* prefix : {"GPU-", "MIG-"}) {
    if (s.rfind(prefix, 0) == 0) {
      v.uuids = true;
      std::set<std::string> seen;
      for (const std::string& item : split(s)) {
        if (item.rfind(prefix, 0) != 0) break;
        if (!seen.insert(item).second) return VisibleDevices{true, {}, {}};
        v.names.push_back(item);
      }
      return v;
    }
  }
  std::set<int64_t> seen;
  for (const std::string& item : split(s)) {
    const int64_t ordinal = parse_ordinal(item);
    if (ordinal < 0) break;
    if (!seen.insert(ordinal).second) return VisibleDevices{};
    v.ordinals.push_back(ordinal);
  }
  return v;
}

std::vector<int> visible_ordinals(const VisibleDevices& v, int physical_count, const std::vector<std::string>& uuids) {
  std::vector<int> out;
  if (!v.uuids) {
    for (int64_t o : v.ordinals) {
      if (o >= physical_count) break;
      out.push_back(static_cast<int>(o));
    }
    return out;
  }
  for (const std::string& prefix : v.names) {
    int match = -1, matches = 0;
    for (int i = 0; i < static_cast<int>(uuids.size()); ++i) {
      if (uuids[i].rfind(prefix, 0) == 0) {
        match = i;
        ++matches;
      }
    }
    if (matches != 1) break;
    if (std::find(out.begin(), out.end(), match) != out.end()) return {};
    out.push_back(match);
  }
  return out;
}

}  // namespace ctorch::api::impl
