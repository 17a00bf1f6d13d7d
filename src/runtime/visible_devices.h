// CUDA_VISIBLE_DEVICES, parsed exactly as torch.cuda._parse_visible_devices (spec §1.7).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ctorch::inline api::impl {

/// The parsed variable: ordinals, or "GPU-"/"MIG-" UUID prefixes.
struct VisibleDevices {
  bool uuids = false;
  std::vector<int64_t> ordinals;   // when !uuids
  std::vector<std::string> names;  // when uuids
};

/// Parses the value (nullptr: unset, meaning ordinals 0..63).
VisibleDevices parse_visible_devices(const char* value);

/// Physical ordinals visible to the process out of `physical_count` devices: the list is cut at
/// the first ordinal >= physical_count; UUID prefixes are matched against `uuids` and cut at the
/// first unknown or ambiguous one (as PyTorch's NVML-based count).
std::vector<int> visible_ordinals(const VisibleDevices& v, int physical_count,
                                  const std::vector<std::string>& uuids);

}  // namespace ctorch::api::impl
