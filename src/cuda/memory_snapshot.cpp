// torch.cuda memory snapshots and history over the device caching allocators, and their JSON form.
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <string_view>

#include "ctorch/cuda.h"
#include "ctorch/cuda_memory_snapshot.h"
#include "ctorch/error.h"
#include "memory/backtrace.h"
#include "memory/device_allocator.h"
#include "memory/malloc_async_allocator.h"
#include "memory/pluggable_allocator.h"
#include "runtime/current.h"

namespace ctorch::cuda {

const char* block_state_name(BlockState s) noexcept {
  switch (s) {
    case BlockState::kActiveAllocated: return "active_allocated";
    case BlockState::kActivePendingFree: return "active_pending_free";
    case BlockState::kInactive: return "inactive";
  }
  return "inactive";
}

const char* trace_action_name(TraceAction a) noexcept {
  switch (a) {
    case TraceAction::kAlloc: return "alloc";
    case TraceAction::kFreeRequested: return "free_requested";
    case TraceAction::kFreeCompleted: return "free_completed";
    case TraceAction::kSegmentAlloc: return "segment_alloc";
    case TraceAction::kSegmentFree: return "segment_free";
    case TraceAction::kSegmentMap: return "segment_map";
    case TraceAction::kSegmentUnmap: return "segment_unmap";
    case TraceAction::kOom: return "oom";
    case TraceAction::kSnapshot: return "snapshot";
  }
  return "alloc";
}

namespace {

// The allocators of the current runtime's devices (creating them: a snapshot initializes CUDA).
std::vector<::ctorch::memory::CachingAllocator*> allocators(const char* what) {
  ::ctorch::memory::check_native_allocator(what);
  if (::ctorch::memory::malloc_async_backend() != nullptr) {
    CTORCH_CHECK(std::string_view(what) != "snapshot", "Calling snapshot with backend:cudaMallocAsync is not "
                 "meaningful. (For backend:native, snapshot returns a detailed summary of all blocks tracked by the "
                 "allocator, but the cudaMallocAsync backend does not track individual blocks.)");
    CTORCH_CHECK(false, "cudaMallocAsync does not yet support ", what,
                 ". If you need it, please file an issue describing your use case.");
  }
  std::vector<::ctorch::memory::CachingAllocator*> out;
  const int count = impl::lazy_init(DeviceType::CUDA).device_count();
  for (int i = 0; i < count; ++i) out.push_back(&::ctorch::memory::cuda_caching_allocator(static_cast<DeviceIndex>(i)));
  return out;
}

}  // namespace

std::vector<SegmentInfo> memory_snapshot() { return memory::snapshot().segments; }

}  // namespace ctorch::cuda

namespace ctorch::cuda::memory {

void record_memory_history(std::optional<std::string> enabled, std::optional<std::string> context,
                           const std::string& stacks, size_t max_entries, bool clear_history) {
  CTORCH_CHECK_VALUE(!enabled || *enabled == "state" || *enabled == "all",
                     "record_memory_history: enabled must be None, 'state' or 'all', got '", enabled.value_or(""), "'");
  CTORCH_CHECK_VALUE(!context || *context == "state" || *context == "alloc" || *context == "all",
                     "record_memory_history: context must be None, 'state', 'alloc' or 'all', got '",
                     context.value_or(""), "'");
  CTORCH_CHECK_VALUE(stacks == "python" || stacks == "all", "record_memory_history: stacks must be 'python' or 'all', got '",
                     stacks, "'");
  ::ctorch::memory::HistoryOptions o;
  if (enabled) {
    o.trace = *enabled == "all";
    o.block_frames = context.has_value();
    o.alloc_frames = o.trace && context && (*context == "alloc" || *context == "all");
    o.free_frames = o.trace && context && *context == "all";
    o.max_entries = max_entries;
  }
  for (auto* a : allocators("recordHistory")) a->record_history(o, clear_history);
}

MemorySnapshot snapshot() {
  MemorySnapshot out;
  ::ctorch::memory::FrameSymbolizer symbolize;
  for (auto* a : allocators("snapshot")) {
    a->note_snapshot();
    std::vector<SegmentInfo> segs = a->snapshot();
    out.segments.insert(out.segments.end(), std::make_move_iterator(segs.begin()), std::make_move_iterator(segs.end()));
    std::vector<TraceEntry> trace;
    for (const ::ctorch::memory::RawTraceEntry& r : a->trace()) {
      TraceEntry te;
      te.action = r.action;
      te.addr = r.addr;
      te.size = r.size;
      te.stream = r.stream;
      te.time_us = r.time_us;
      te.frames = symbolize(r.frames);
      trace.push_back(std::move(te));
    }
    out.device_traces.push_back(std::move(trace));
  }
  return out;
}

namespace {

void json_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void json_key(std::string& out, const char* key) {
  json_string(out, key);
  out += ':';
}

void json_uint(std::string& out, uint64_t v) { out += std::to_string(v); }

void json_frames(std::string& out, const std::vector<Frame>& frames) {
  out += '[';
  for (size_t i = 0; i < frames.size(); ++i) {
    if (i) out += ',';
    out += '{';
    json_key(out, "filename");
    json_string(out, frames[i].filename);
    out += ',';
    json_key(out, "line");
    out += std::to_string(frames[i].line);
    out += ',';
    json_key(out, "name");
    json_string(out, frames[i].name);
    out += '}';
  }
  out += ']';
}

void json_settings(std::string& out) {
  const ::ctorch::memory::AllocatorConfig& c = ::ctorch::memory::device_allocator_config();
  out += '{';
  json_key(out, "PYTORCH_CUDA_ALLOC_CONF");
  json_string(out, c.settings);
  out += ',';
  json_key(out, "max_split_size");
  out += std::to_string(static_cast<int64_t>(c.max_split_size));
  out += ',';
  json_key(out, "garbage_collection_threshold");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", c.garbage_collection_threshold);
  out += buf;
  out += ',';
  json_key(out, "expandable_segments");
  out += c.expandable_segments ? "true" : "false";
  out += ',';
  json_key(out, "pinned_num_register_threads");
  json_uint(out, c.pinned_num_register_threads);
  out += ',';
  json_key(out, "release_lock_on_cudamalloc");
  out += c.release_lock_on_cudamalloc ? "true" : "false";
  out += ',';
  json_key(out, "pinned_use_cuda_host_register");
  out += c.pinned_use_cuda_host_register ? "true" : "false";
  out += ',';
  json_key(out, "roundup_power2_divisions");
  out += '{';
  for (size_t i = 0; i < c.roundup_power2_divisions.size(); ++i) {
    if (i) out += ',';
    json_string(out, std::to_string(uint64_t{1} << i));
    out += ':';
    json_uint(out, c.roundup_power2_divisions[i]);
  }
  out += "}}";
}

}  // namespace

std::string snapshot_json(const MemorySnapshot& s) {
  std::string out = "{";
  json_key(out, "segments");
  out += '[';
  for (size_t i = 0; i < s.segments.size(); ++i) {
    const SegmentInfo& seg = s.segments[i];
    if (i) out += ',';
    out += '{';
    json_key(out, "device");
    out += std::to_string(static_cast<int>(seg.device));
    for (const auto& [k, v] : {std::pair<const char*, uint64_t>{"address", seg.address},
                              {"total_size", seg.total_size},
                              {"allocated_size", seg.allocated_size},
                              {"active_size", seg.active_size},
                              {"requested_size", seg.requested_size}}) {
      out += ',';
      json_key(out, k);
      json_uint(out, v);
    }
    out += ',';
    json_key(out, "stream");
    out += std::to_string(seg.stream);
    out += ',';
    json_key(out, "segment_type");
    json_string(out, seg.is_large ? "large" : "small");
    out += ',';
    json_key(out, "segment_pool_id");
    out += "[0,0],";
    json_key(out, "is_expandable");
    out += seg.is_expandable ? "true," : "false,";
    json_key(out, "frames");
    json_frames(out, seg.blocks.empty() ? std::vector<Frame>{} : seg.blocks.front().frames);
    out += ',';
    json_key(out, "blocks");
    out += '[';
    for (size_t j = 0; j < seg.blocks.size(); ++j) {
      const BlockInfo& b = seg.blocks[j];
      if (j) out += ',';
      out += '{';
      json_key(out, "address");
      json_uint(out, b.address);
      out += ',';
      json_key(out, "size");
      json_uint(out, b.size);
      out += ',';
      json_key(out, "requested_size");
      json_uint(out, b.requested_size);
      out += ',';
      json_key(out, "state");
      json_string(out, block_state_name(b.state));
      out += ',';
      json_key(out, "frames");
      json_frames(out, b.frames);
      out += '}';
    }
    out += "]}";
  }
  out += "],";
  json_key(out, "device_traces");
  out += '[';
  for (size_t d = 0; d < s.device_traces.size(); ++d) {
    if (d) out += ',';
    out += '[';
    for (size_t i = 0; i < s.device_traces[d].size(); ++i) {
      const TraceEntry& te = s.device_traces[d][i];
      if (i) out += ',';
      out += '{';
      json_key(out, "action");
      json_string(out, trace_action_name(te.action));
      out += ',';
      json_key(out, te.action == TraceAction::kOom ? "device_free" : "addr");
      json_uint(out, te.addr);
      out += ',';
      json_key(out, "size");
      json_uint(out, te.size);
      out += ',';
      json_key(out, "stream");
      out += std::to_string(te.stream);
      out += ',';
      json_key(out, "time_us");
      out += std::to_string(te.time_us);
      out += ',';
      json_key(out, "frames");
      json_frames(out, te.frames);
      out += '}';
    }
    out += ']';
  }
  out += "],";
  json_key(out, "allocator_settings");
  json_settings(out);
  out += '}';
  return out;
}

void dump_snapshot(const std::string& path) {
  const std::string json = snapshot_json(snapshot());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  CTORCH_CHECK(f.good(), "dump_snapshot: cannot open '", path, "' for writing");
  f << json;
  f.close();
  CTORCH_CHECK(!f.fail(), "dump_snapshot: writing '", path, "' failed");
}

}  // namespace ctorch::cuda::memory
