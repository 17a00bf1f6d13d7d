#include "sanitizer/sync_state.h"

#include <algorithm>

namespace ctorch::inline api::sanitizer {

void SyncState::merge(Clock& into, const Clock& from) {
  for (const auto& [s, seq] : from) {
    SeqNum& mine = into[s];
    mine = std::max(mine, seq);
  }
}

SyncState::StreamClock& SyncState::stream(Stream s) {
  StreamClock& c = streams_[s];
  if (c.host_epoch != host_epoch_) {
    merge(c.clock, host_);
    c.host_epoch = host_epoch_;
  }
  return c;
}

SeqNum SyncState::launch(Stream s) {
  const SeqNum seq = ++next_seq_;
  stream(s).clock[s] = seq;
  return seq;
}

bool SyncState::ordered_before(Stream earlier, SeqNum seq, Stream s) {
  const Clock& c = stream(s).clock;
  const auto it = c.find(earlier);
  return it != c.end() && seq <= it->second;
}

void SyncState::record(const void* event, Stream s) { events_[event] = stream(s).clock; }

void SyncState::wait(Stream s, const void* event) {
  const auto it = events_.find(event);
  if (it != events_.end()) merge(stream(s).clock, it->second);
}

void SyncState::host_waits_event(const void* event) {
  const auto it = events_.find(event);
  if (it == events_.end()) return;
  merge(host_, it->second);
  ++host_epoch_;
}

void SyncState::host_waits_stream(Stream s) {
  merge(host_, stream(s).clock);
  ++host_epoch_;
}

void SyncState::host_waits_device(Device device) {
  for (auto& [s, c] : streams_) {
    if (s.device() == device) merge(host_, c.clock);
  }
  ++host_epoch_;
}

void SyncState::forget_event(const void* event) { events_.erase(event); }

SeqNum SyncState::host_knows(Stream s) const {
  const auto it = host_.find(s);
  return it == host_.end() ? 0 : it->second;
}

}  // namespace ctorch::api::sanitizer
