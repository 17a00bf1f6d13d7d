#include "memory/allocator_stats.h"

#include <utility>

namespace ctorch::inline api::memory {
namespace {

void add_stat(std::map<std::string, int64_t>& out, const std::string& prefix, const Stat& s) {
  out[prefix + ".current"] = s.current;
  out[prefix + ".peak"] = s.peak;
  out[prefix + ".allocated"] = s.allocated;
  out[prefix + ".freed"] = s.freed;
}

void add_array(std::map<std::string, int64_t>& out, const std::string& name, const StatArray& a) {
  add_stat(out, name + ".all", a[static_cast<size_t>(StatType::kAggregate)]);
  add_stat(out, name + ".small_pool", a[static_cast<size_t>(StatType::kSmallPool)]);
  add_stat(out, name + ".large_pool", a[static_cast<size_t>(StatType::kLargePool)]);
}

template <class F>
void for_each_array(DeviceStats& s, F&& f) {
  for (StatArray* a : {&s.allocation, &s.segment, &s.active, &s.inactive_split, &s.allocated_bytes,
                       &s.reserved_bytes, &s.active_bytes, &s.inactive_split_bytes, &s.requested_bytes}) {
    for (Stat& stat : *a) f(stat);
  }
  f(s.oversize_allocations);
  f(s.oversize_segments);
}

}  // namespace

void DeviceStats::reset_peak() {
  for_each_array(*this, [](Stat& s) { s.reset_peak(); });
}

void DeviceStats::reset_accumulated() {
  for_each_array(*this, [](Stat& s) { s.reset_accumulated(); });
  num_alloc_retries = num_ooms = num_sync_all_streams = num_device_alloc = num_device_free = 0;
}

std::map<std::string, int64_t> flatten_stats(const DeviceStats& s) {
  std::map<std::string, int64_t> out;
  out["num_alloc_retries"] = s.num_alloc_retries;
  out["num_ooms"] = s.num_ooms;
  out["num_sync_all_streams"] = s.num_sync_all_streams;
  out["num_device_alloc"] = s.num_device_alloc;
  out["num_device_free"] = s.num_device_free;
  out["max_split_size"] = s.max_split_size;
  add_array(out, "allocation", s.allocation);
  add_array(out, "segment", s.segment);
  add_array(out, "active", s.active);
  add_array(out, "inactive_split", s.inactive_split);
  add_array(out, "allocated_bytes", s.allocated_bytes);
  add_array(out, "reserved_bytes", s.reserved_bytes);
  add_array(out, "active_bytes", s.active_bytes);
  add_array(out, "inactive_split_bytes", s.inactive_split_bytes);
  add_array(out, "requested_bytes", s.requested_bytes);
  add_stat(out, "oversize_allocations", s.oversize_allocations);
  add_stat(out, "oversize_segments", s.oversize_segments);
  return out;
}

}  // namespace ctorch::api::memory
