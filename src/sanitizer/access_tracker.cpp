#include "sanitizer/access_tracker.h"

#include <algorithm>

namespace ctorch::inline api::sanitizer {
namespace {

bool overlaps(const Access& a, size_t begin, size_t end) { return a.begin < end && begin < a.end; }
bool inside(const Access& a, size_t begin, size_t end) { return begin <= a.begin && a.end <= end; }

}  // namespace

void AccessTracker::allocated(uintptr_t base, size_t bytes, Stream stream, memory::FramesPtr frames) {
  Allocation a;
  a.reported = true;
  a.stream = stream;
  a.stream_known = true;
  a.frames = std::move(frames);
  const size_t end = base + bytes;
  for (auto it = freed_.begin(); it != freed_.end();) {
    if (!overlaps(*it, base, end)) {
      ++it;
      continue;
    }
    Access inherited = *it;
    inherited.begin = std::max(it->begin, static_cast<size_t>(base)) - base;
    inherited.end = std::min(it->end, end) - base;
    (inherited.write ? a.writes : a.reads).push_back(inherited);
    it = inside(*it, base, end) ? freed_.erase(it) : it + 1;
  }
  allocations_[base] = std::move(a);  // replaces an allocation whose free was never reported
}

void AccessTracker::freed(uintptr_t base, bool reusable, SyncState& sync) {
  const auto it = allocations_.find(base);
  if (it == allocations_.end()) return;
  Allocation& a = it->second;
  if (reusable && a.stream_known) {
    auto keep = [&](const Access& x) {
      if (x.stream == a.stream) return false;  // stream order covers reuse on the allocation stream
      if (std::find(a.recorded_streams.begin(), a.recorded_streams.end(), x.stream) != a.recorded_streams.end()) {
        return false;  // record_stream: the allocator waits for it
      }
      return !sync.ordered_before(x.stream, x.seq, a.stream);
    };
    for (const auto* list : {&a.writes, &a.reads}) {
      for (const Access& x : *list) {
        if (!keep(x)) continue;
        Access f = x;
        if (f.freed_base == 0) {
          f.freed_base = base;
          f.freed_alloc_frames = a.frames;
        }
        f.begin += base;
        f.end += base;
        if (!a.reported) f.end = std::max(f.end, f.begin + 1);
        freed_.push_back(std::move(f));
        if (freed_.size() > kMaxFreedAccesses) freed_.pop_front();
      }
    }
  }
  allocations_.erase(it);
}

void AccessTracker::record_stream(uintptr_t base, Stream stream) {
  Allocation& a = allocations_[base];  // created when the allocation was never reported
  if (std::find(a.recorded_streams.begin(), a.recorded_streams.end(), stream) == a.recorded_streams.end()) {
    a.recorded_streams.push_back(stream);
  }
}

void AccessTracker::check(uintptr_t base, const Access& access, SyncState& sync, std::vector<Race>& races) {
  const auto it = allocations_.find(base);
  if (it == allocations_.end()) return;
  const Allocation& a = it->second;
  auto check_list = [&](const std::vector<Access>& list) {
    for (const Access& prev : list) {
      if (!overlaps(prev, access.begin, access.end)) continue;
      if (sync.ordered_before(prev.stream, prev.seq, access.stream)) continue;
      races.push_back(Race{base, access, prev, a.frames, a.reported});
    }
  };
  check_list(a.writes);
  if (access.write) check_list(a.reads);
}

void AccessTracker::commit(uintptr_t base, const Access& access) {
  Allocation& a = allocations_[base];  // created when the allocation was never reported
  if (!a.stream_known) {
    a.stream = access.stream;
    a.stream_known = true;
  }
  auto drop = [&](std::vector<Access>& list, bool same_stream_only) {
    std::erase_if(list, [&](const Access& x) {
      return inside(x, access.begin, access.end) && (!same_stream_only || x.stream == access.stream);
    });
  };
  if (access.write) {
    drop(a.reads, false);
    drop(a.writes, false);
    a.writes.push_back(access);
  } else {
    drop(a.reads, true);
    a.reads.push_back(access);
  }
}

}  // namespace ctorch::api::sanitizer
