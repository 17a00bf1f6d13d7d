// CachingAllocator's out-of-memory report, cache control, memory fraction, statistics and
// snapshots (the allocation paths are in caching_allocator.cpp; Note [Caching allocator policy]
// in caching_allocator.h). Names follow c10/cuda/CUDACachingAllocator.cpp.
#include <algorithm>
#include <limits>

#include "ctorch/error.h"
#include "memory/backtrace.h"
#include "memory/caching_allocator.h"
#include "memory/expandable_segment.h"

namespace ctorch::inline api::memory {

void CachingAllocator::raise_oom(const AllocParams& p, size_t orig_size) {
  (void)orig_size;
  ++stats_.num_ooms;
  materialize_aggregate();
  size_t device_free = 0, device_total = 0;
  backend_->memory_info(&device_free, &device_total);
  record_trace(cuda::TraceAction::kOom, reinterpret_cast<const void*>(device_free), p.size, p.stream.id(),
               history_.alloc_frames ? p.context : nullptr);
  const auto agg = static_cast<size_t>(StatType::kAggregate);
  const auto allocated = static_cast<size_t>(stats_.allocated_bytes[agg].current);
  const auto reserved = static_cast<size_t>(stats_.reserved_bytes[agg].current);
  const auto active = static_cast<size_t>(stats_.active_bytes[agg].current);
  std::string msg = detail::str_cat(
      "CUDA out of memory. Tried to allocate ", format_size(p.alloc_size), ". GPU ", static_cast<int>(device_),
      " has a total capacity of ", format_size(device_total), " of which ", format_size(device_free), " is free. ",
      set_fraction_ ? format_size(allowed_memory_maximum_) + " allowed; " : std::string(),
      "Of the allocated memory ", format_size(allocated), " is allocated by PyTorch, and ",
      format_size(reserved - allocated), " is reserved by PyTorch but unallocated.",
      " If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
      "to avoid fragmentation.  See documentation for Memory Management  "
      "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)");
  // ctorch's addition: say whether the cache is fragmented.
  size_t largest = 0, largest_same_stream = 0;
  for (const BlockPool* pool : {&small_blocks_, &large_blocks_}) {
    for (const Block* b : pool->blocks) {
      largest = std::max(largest, b->size);
      if (b->stream == p.stream.id()) largest_same_stream = std::max(largest_same_stream, b->size);
    }
  }
  const size_t cached_free = reserved - active;  // free blocks left in split segments
  if (largest == 0) {
    msg += " [ctorch] No free cached block is left.";
  } else {
    msg += detail::str_cat(" [ctorch] Largest free cached block: ", format_size(largest), " (",
                           format_size(largest_same_stream), " on the requesting stream); ",
                           format_size(cached_free), " is cached in partly used segments.");
    if (cached_free >= p.size) {
      msg += detail::str_cat(" This OOM is caused by fragmentation: enough memory is cached, but no single free "
                             "block on this stream fits the rounded request of ", format_size(p.size), ".");
    }
  }
  const bool fraction_limited = expandable_ ? fraction_refused_map_
                                            : set_fraction_ && total_reserved_ + p.alloc_size > allowed_memory_maximum_;
  if (!fraction_limited && device_free >= p.alloc_size) {
    msg += detail::str_cat(" The device reports ", format_size(device_free), " free but could not provide ",
                           format_size(p.alloc_size), " in one piece: device memory is fragmented.");
  }
  throw OutOfMemoryError(msg);
}

// ---------------------------------------------------------------------------------------------
// Cache control, fraction, statistics

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  release_cached_blocks_locked();
}

void CachingAllocator::set_memory_fraction(double fraction) {
  CTORCH_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "Invalid fraction value: ", fraction,
                     ". Allowed range: 0~1");
  size_t free_bytes = 0, total_bytes = 0;
  backend_->memory_info(&free_bytes, &total_bytes);
  std::lock_guard<std::mutex> lock(mu_);
  device_total_ = total_bytes;
  allowed_memory_maximum_ = static_cast<size_t>(fraction * static_cast<double>(total_bytes));
  set_fraction_ = true;
}

double CachingAllocator::memory_fraction() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!set_fraction_ || device_total_ == 0) return 1.0;
  return static_cast<double>(allowed_memory_maximum_) / static_cast<double>(device_total_);
}

void CachingAllocator::materialize_aggregate() const {
  const auto all = static_cast<size_t>(StatType::kAggregate), small = static_cast<size_t>(StatType::kSmallPool),
             large = static_cast<size_t>(StatType::kLargePool);
  for (StatArray* a : {&stats_.allocation, &stats_.segment, &stats_.active, &stats_.inactive_split,
                       &stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes,
                       &stats_.inactive_split_bytes, &stats_.requested_bytes}) {
    Stat& agg = (*a)[all];
    agg.current = (*a)[small].current + (*a)[large].current;
    agg.allocated = (*a)[small].allocated + (*a)[large].allocated;
    agg.freed = (*a)[small].freed + (*a)[large].freed;
  }
}

DeviceStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  materialize_aggregate();
  return stats_;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mu_);
  materialize_aggregate();
  stats_.reset_peak();
}

void CachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.reset_accumulated();
  materialize_aggregate();
}

bool CachingAllocator::idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocated_list_ == nullptr && pending_events_.empty() && needs_events_deferred_until_no_capture_.empty();
}

bool CachingAllocator::reset() {
  std::lock_guard<std::mutex> lock(mu_);
  release_cached_blocks_locked();
  for (auto& [dev, events] : event_pool_) {
    for (void* e : events) backend_->destroy_event(e);
  }
  event_pool_.clear();
  if (allocated_list_ != nullptr || !pending_events_.empty() || !needs_events_deferred_until_no_capture_.empty()) {
    return false;
  }
  stats_ = DeviceStats{};
  stats_.max_split_size = static_cast<int64_t>(config_.max_split_size);
  set_fraction_ = false;
  allowed_memory_maximum_ = device_total_ = 0;
  small_blocks_.get_free_blocks_call_count = large_blocks_.get_free_blocks_call_count = 0;
  trace_.clear();  // addresses of the previous devices; the history options stay as set
  trace_next_ = 0;
  return true;
}

std::vector<SegmentInfo> CachingAllocator::snapshot() const {
  FrameSymbolizer symbolize;
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const Block*> heads;
  // A segment, or (expandable segments) a contiguous mapped range, starts at a mapped block
  // without a mapped predecessor.
  auto consider = [&](const Block* b) {
    if (b->mapped && (b->prev == nullptr || !b->prev->mapped)) heads.push_back(b);
  };
  for (const Block* b : small_blocks_.blocks) consider(b);
  for (const Block* b : large_blocks_.blocks) consider(b);
  for (const auto& [id, pp] : graph_pools_) {
    for (const Block* b : pp->small_blocks.blocks) consider(b);
    for (const Block* b : pp->large_blocks.blocks) consider(b);
  }
  for (const Block* b = allocated_list_; b != nullptr; b = b->alloc_next) consider(b);
  for (const auto& [key, queue] : pending_events_) {
    for (const PendingEvent& pe : queue) consider(pe.block);
  }
  std::sort(heads.begin(), heads.end(), [](const Block* a, const Block* b) { return a->ptr < b->ptr; });
  heads.erase(std::unique(heads.begin(), heads.end()), heads.end());  // a block may wait for several events
  std::vector<SegmentInfo> out;
  out.reserve(heads.size());
  for (const Block* head : heads) {
    SegmentInfo seg;
    seg.device = device_;
    seg.address = reinterpret_cast<uintptr_t>(head->ptr);
    seg.stream = head->stream;
    seg.is_large = !head->pool->is_small;
    seg.is_expandable = head->segment != nullptr;
    for (const Block* b = head; b != nullptr && b->mapped; b = b->next) {
      BlockInfo info;
      info.address = reinterpret_cast<uintptr_t>(b->ptr);
      info.size = b->size;
      info.requested_size = b->requested_size;
      info.frames = symbolize(b->context);
      const bool active = b->allocated || b->event_count > 0;
      info.state = b->allocated ? BlockState::kActiveAllocated
                   : active     ? BlockState::kActivePendingFree
                                : BlockState::kInactive;
      seg.total_size += b->size;
      if (b->allocated) seg.allocated_size += b->size;
      if (active) {
        seg.active_size += b->size;
        seg.requested_size += b->requested_size;
      }
      seg.blocks.push_back(info);
    }
    out.push_back(std::move(seg));
  }
  return out;
}

}  // namespace ctorch::api::memory
