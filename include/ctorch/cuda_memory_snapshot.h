// Memory snapshots and allocation history of the CUDA caching allocator (torch.cuda.memory
// _record_memory_history / _snapshot / _dump_snapshot / memory_snapshot). Same fields and names
// as PyTorch's dict; frames are C++ frames of the allocating thread (backtrace(3)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ctorch/stream.h"

namespace ctorch::cuda {

/// State of a block: allocated, freed but waiting for other streams' events, or free (cached).
enum class BlockState { kActiveAllocated, kActivePendingFree, kInactive };
/// PyTorch's name of a state: "active_allocated", "active_pending_free" or "inactive".
const char* block_state_name(BlockState s) noexcept;

/// One stack frame (filename = the binary, line 0 when unknown; name = demangled function).
struct Frame {
  std::string filename;
  int line = 0;
  std::string name;
};

/// One block of a segment.
struct BlockInfo {
  uintptr_t address = 0;
  size_t size = 0;
  size_t requested_size = 0;
  BlockState state = BlockState::kInactive;
  std::vector<Frame> frames;  // where it was allocated (history with context enabled)
};

/// One segment (a raw device allocation, or one contiguous mapped range of an expandable segment)
/// with its blocks in address order.
struct SegmentInfo {
  DeviceIndex device = 0;
  uintptr_t address = 0;
  size_t total_size = 0;
  size_t allocated_size = 0;
  size_t active_size = 0;
  size_t requested_size = 0;
  StreamId stream = 0;
  bool is_large = false;  // segment_type "large" or "small"
  bool is_expandable = false;
  std::vector<BlockInfo> blocks;
};

/// What an allocator did (TraceEntry::Action).
enum class TraceAction {
  kAlloc,
  kFreeRequested,
  kFreeCompleted,
  kSegmentAlloc,
  kSegmentFree,
  kSegmentMap,    // pages mapped into an expandable segment
  kSegmentUnmap,  // pages of an expandable segment unmapped
  kOom,
  kSnapshot
};
/// PyTorch's name of an action ("alloc", "free_requested", ..., "segment_map", "oom", "snapshot").
const char* trace_action_name(TraceAction a) noexcept;

/// One recorded allocator event.
struct TraceEntry {
  TraceAction action = TraceAction::kAlloc;
  uintptr_t addr = 0;      // block or segment address; for kOom, the device's free bytes (device_free)
  size_t size = 0;         // requested size (alloc/free), segment size (segment_*), rounded request (oom)
  StreamId stream = 0;
  int64_t time_us = 0;     // microseconds since the epoch
  std::vector<Frame> frames;
};

/// Everything _snapshot() returns.
struct MemorySnapshot {
  std::vector<SegmentInfo> segments;               // devices in index order, each by address
  std::vector<std::vector<TraceEntry>> device_traces;  // one list per device, oldest first
};

/// Segments of every device's caching allocator (torch.cuda.memory_snapshot()).
std::vector<SegmentInfo> memory_snapshot();

}  // namespace ctorch::cuda

namespace ctorch::cuda::memory {

/// Starts or stops recording (torch.cuda.memory._record_memory_history): `enabled` nullopt stops,
/// "state" keeps frames of live blocks only, "all" also keeps a trace of every event (a ring
/// buffer of `max_entries`). `context`: nullopt (no frames), "state", "alloc" (+ alloc events) or
/// "all" (+ free events). `stacks` "python" or "all" (both mean C++ frames here). Applies to all devices.
void record_memory_history(std::optional<std::string> enabled = "all", std::optional<std::string> context = "all",
                           const std::string& stacks = "all",
                           size_t max_entries = std::numeric_limits<size_t>::max(), bool clear_history = false);
/// Segments and the traces of every device (torch.cuda.memory._snapshot()); adds a "snapshot" event.
MemorySnapshot snapshot();
/// `s` as JSON shaped like PyTorch's pickled dict: {"segments": [...], "device_traces": [[...]],
/// "allocator_settings": {...}}.
std::string snapshot_json(const MemorySnapshot& s);
/// Writes snapshot_json(snapshot()) to `path` (torch.cuda.memory._dump_snapshot, JSON instead of pickle).
void dump_snapshot(const std::string& path);

}  // namespace ctorch::cuda::memory
