// The caching allocator's memory history (record_trace, record_history, note_snapshot, trace):
// c10's alloc_buffer, a ring buffer of max_entries events. Policy: caching_allocator.h.
#include "memory/caching_allocator.h"

#include <chrono>

namespace ctorch::inline api::memory {

// ---------------------------------------------------------------------------------------------
// Memory history (c10's record_trace; a ring buffer of max_entries)

void CachingAllocator::append_trace(cuda::TraceAction action, const void* addr, size_t size, StreamId stream,
                                    FramesPtr frames) {
  RawTraceEntry te;
  te.action = action;
  te.addr = reinterpret_cast<uintptr_t>(addr);
  te.size = size;
  te.stream = stream;
  te.time_us = std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  te.frames = std::move(frames);
  if (history_.max_entries == 0) return;
  if (trace_.size() < history_.max_entries) {
    trace_.push_back(std::move(te));
  } else {
    trace_[trace_next_++] = std::move(te);
    if (trace_next_ == history_.max_entries) trace_next_ = 0;
  }
}

void CachingAllocator::record_history(const HistoryOptions& options, bool clear) {
  std::lock_guard<std::mutex> lock(mu_);
  if (clear || (options.trace && options.max_entries != history_.max_entries)) {
    // A new capacity restarts the ring; stopping keeps what was recorded for a later snapshot.
    trace_.clear();
    trace_next_ = 0;
  }
  const size_t capacity = options.trace ? options.max_entries : history_.max_entries;
  history_ = options;
  history_.max_entries = capacity;
  capture_alloc_.store(options.block_frames || options.alloc_frames, std::memory_order_relaxed);
  capture_free_.store(options.free_frames, std::memory_order_relaxed);
  if (!options.block_frames) {
    for (Block* b = allocated_list_; b != nullptr; b = b->alloc_next) b->context.reset();
  }
}

void CachingAllocator::note_snapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  record_trace(cuda::TraceAction::kSnapshot, nullptr, 0, 0, nullptr);
}

std::vector<RawTraceEntry> CachingAllocator::trace() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RawTraceEntry> out;
  out.reserve(trace_.size());
  for (size_t i = trace_next_; i < trace_.size(); ++i) out.push_back(trace_[i]);
  for (size_t i = 0; i < trace_next_; ++i) out.push_back(trace_[i]);
  return out;
}

}  // namespace ctorch::api::memory
