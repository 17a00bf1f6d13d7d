// CachingAllocator: see Note [Caching allocator policy] in caching_allocator.h. The function
// names follow c10/cuda/CUDACachingAllocator.cpp's DeviceCachingAllocator so the two can be
// read side by side. OOM reports, cache control, statistics and snapshots: caching_allocator_stats.cpp.
#include "memory/caching_allocator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>

#include "ctorch/error.h"
#include "memory/backtrace.h"
#include "memory/expandable_segment.h"

namespace ctorch::inline api::memory {

namespace {

size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

size_t roundup_power2_next_division(size_t size, size_t divisions) {
  if (std::has_single_bit(size)) return size;
  const size_t floor = std::bit_floor(size);
  const size_t step = floor >> (std::bit_width(divisions) - 1);
  if (step == 0) return floor << 1;
  const size_t rounded = size & ~(step - 1);
  return rounded == size ? size : rounded + step;
}

}  // namespace

size_t CachingAllocator::round_size(size_t size, const AllocatorConfig& config) {
  if (size < kMinBlockSize) return kMinBlockSize;
  const size_t divisions = config.divisions_for(size);
  if (divisions > 1 && size > kMinBlockSize * divisions) return roundup_power2_next_division(size, divisions);
  return round_up(size, kMinBlockSize);
}

size_t CachingAllocator::allocation_size(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return round_up(size, kRoundLarge);
}

CachingAllocator::CachingAllocator(DeviceIndex device, RawBackend* backend, AllocatorConfig config)
    : device_(device),
      backend_(backend),
      vm_(dynamic_cast<VirtualMemoryBackend*>(backend)),
      config_(std::move(config)),
      expandable_(config_.expandable_segments && vm_ != nullptr) {
  small_blocks_.is_small = true;
  for (size_t d : config_.roundup_power2_divisions) has_divisions_ = has_divisions_ || d > 1;
  spare_blocks_.reserve(kMaxSpare);
  stats_.max_split_size = static_cast<int64_t>(config_.max_split_size);
}

CachingAllocator::~CachingAllocator() {
  try {
    std::lock_guard<std::mutex> lock(mu_);
    release_cached_blocks_locked();
  } catch (...) {
    // A failing event synchronization leaves blocks behind; nothing more can be done here.
  }
  for (auto& [dev, events] : event_pool_) {
    for (void* e : events) backend_->destroy_event(e);
  }
  for (Block* b : spare_blocks_) delete b;
}

// ---------------------------------------------------------------------------------------------
// Recycling of Block objects and container nodes (the cache-hit path then allocates nothing)

Block* CachingAllocator::new_block() {
  if (spare_blocks_.empty()) return new Block;
  Block* b = spare_blocks_.back();
  spare_blocks_.pop_back();
  b->reset();
  return b;
}

void CachingAllocator::delete_block(Block* b) noexcept {
  if (spare_blocks_.size() < kMaxSpare) {
    spare_blocks_.push_back(b);  // capacity reserved in the constructor: does not allocate
  } else {
    delete b;
  }
}

void CachingAllocator::pool_erase(BlockPool& pool, BlockSet::iterator it) noexcept {
  if (it == pool.blocks.end()) return;
  pool.blocks.erase(it);
}

// Note [Rekeying pooled blocks]
// Splitting a cached block and merging a freed block into a cached neighbour change a pooled
// block's size and address. On the cache-hit path the block usually keeps its rank among its
// neighbours (one free block per stream and pool), so its node stays where it is and the tree is
// not touched; otherwise the node is moved. Only the changed block is out of order in between,
// and no tree operation runs while it is.
void CachingAllocator::rekey(BlockPool& pool, BlockSet::iterator it) {
  const BlockComparator less;
  Block* b = *it;
  b->gc_count_base = pool.get_free_blocks_call_count;
  const auto next = std::next(it);
  const bool ordered = (it == pool.blocks.begin() || less(*std::prev(it), b)) &&
                       (next == pool.blocks.end() || less(b, *next));
  if (ordered) return;
  auto node = pool.blocks.extract(it);  // unlinking compares nothing
  pool.blocks.insert(std::move(node));
}

// ---------------------------------------------------------------------------------------------
// malloc

Block* CachingAllocator::malloc(size_t orig_size, Stream stream) {
  if (orig_size == 0) return nullptr;
  if (orig_size >= kOneExaByte) throw OutOfMemoryError("CUDA out of memory. Tried to allocate more than 1EB memory.");
  CTORCH_CHECK_VALUE(stream.device().is_cuda() && stream.device().index() == device_,
                     "[caching allocator] Expected a stream of cuda:", static_cast<int>(device_),
                     ", but got a stream of ", stream.device());
  FramesPtr context;
  if (capture_alloc_.load(std::memory_order_relaxed)) context = capture_frames(1);
  std::lock_guard<std::mutex> lock(mu_);
  const bool capturing = !captures_underway_.empty();
  if (!capturing) {
    if (!needs_events_deferred_until_no_capture_.empty()) insert_events_deferred_until_no_capture();
    if (!pending_events_.empty()) process_events();
  }
  AllocParams p{stream, 0, 0, nullptr, nullptr, std::nullopt, std::move(context)};
  p.size = has_divisions_ ? round_size(orig_size, config_)
                          : (orig_size < kMinBlockSize ? kMinBlockSize : round_up(orig_size, kMinBlockSize));
  p.pool = capturing ? capture_pool(stream, p.size) : nullptr;
  if (p.pool == nullptr) p.pool = p.size <= kSmallSize ? &small_blocks_ : &large_blocks_;
  p.alloc_size = allocation_size(p.size);

  bool found = get_free_block(p);
  if (!found) {
    if (set_fraction_ && config_.garbage_collection_threshold > 0.0) garbage_collect_cached_blocks();
    found = alloc_block(p, false) || (release_available_cached_blocks(p) && alloc_block(p, false));
    if (!found && !capturing) {
      release_cached_blocks_locked();
      found = alloc_block(p, true);
    }
  }
  if (!found) raise_oom(p, orig_size);
  const bool split = should_split(p.block, p.size);
  Block* block = alloc_found_block(p, orig_size, split);
  if (history_.block_frames) block->context = p.context;
  record_trace(cuda::TraceAction::kAlloc, block->ptr, orig_size, block->stream,
               history_.alloc_frames ? p.context : nullptr);
  return block;
}

bool CachingAllocator::get_free_block(AllocParams& p) {
  BlockPool& pool = *p.pool;
  if (set_fraction_ && config_.garbage_collection_threshold > 0.0) ++pool.get_free_blocks_call_count;
  const BlockKey key{p.stream.id(), p.size};
  auto it = pool.blocks.lower_bound(key);
  if (it == pool.blocks.end() || (*it)->stream != key.stream) return false;
  if ((*it)->segment) {
    // A free block followed by unmapped space counts as the size it can grow to, so a block that
    // fits without growing is preferred over the growable end of a segment.
    auto expandable_size = [](const Block* b) {
      return b->size + (b->next && !b->next->mapped ? b->next->size : 0);
    };
    auto next = std::next(it);
    while ((*it)->segment && next != pool.blocks.end() && (*next)->stream == key.stream &&
           expandable_size(*next) < expandable_size(*it)) {
      it = next++;
    }
  }
  // Oversize blocks serve only oversize requests, and only when not much larger.
  if (p.size < config_.max_split_size && (*it)->size >= config_.max_split_size) return false;
  if (p.size >= config_.max_split_size && (*it)->size >= p.size + config_.max_non_split_rounding) return false;
  p.block = *it;
  p.cached = it;  // alloc_found_block takes it out of the pool, or rekeys it when splitting
  return true;
}

bool CachingAllocator::alloc_block(AllocParams& p, bool is_retry) {
  if (is_retry) ++stats_.num_alloc_retries;
  if (expandable_) {
    bool no_space = false;
    fraction_refused_map_ = false;
    p.block = try_allocate_expandable_block(p, &no_space);
    if (p.block != nullptr) return true;
    if (!no_space) return false;
    // No address space left for a new expandable segment: fall back to a fixed segment.
  }
  const size_t size = p.alloc_size;
  if (set_fraction_ && total_reserved_ + size > allowed_memory_maximum_) return false;
  void* ptr = backend_->allocate(size);
  if (ptr == nullptr) return false;
  Block* b = new_block();
  b->device = device_;
  b->stream = p.stream.id();
  b->size = size;
  b->pool = p.pool;
  b->ptr = static_cast<char*>(ptr);
  total_reserved_ += size;
  if (p.pool->owner) ++p.pool->owner->segment_count;
  ++stats_.num_device_alloc;
  for_pool_stats(*p.pool, [&](size_t t) {
    inc(stats_.segment, t, 1);
    inc(stats_.reserved_bytes, t, size);
  });
  if (size >= config_.max_split_size) stats_.oversize_segments.increase(1);
  record_trace(cuda::TraceAction::kSegmentAlloc, ptr, size, b->stream, history_.alloc_frames ? p.context : nullptr);
  p.block = b;
  return true;
}

bool CachingAllocator::should_split(const Block* block, size_t size) const {
  const size_t remaining = block->size - size;
  if (block->pool->is_small || expandable_) return remaining >= kMinBlockSize;
  return size < config_.max_split_size && remaining > kSmallSize;
}

Block* CachingAllocator::alloc_found_block(AllocParams& p, size_t orig_size, bool split) {
  Block* block = p.block;
  BlockPool& pool = *p.pool;
  const bool already_split = block->is_split();
  if (split) {
    Block* remaining = block;
    block = new_block();
    block->device = device_;
    block->stream = remaining->stream;
    block->size = p.size;
    block->pool = &pool;
    block->ptr = remaining->ptr;
    block->segment = remaining->segment;
    block->prev = remaining->prev;
    if (block->prev) block->prev->next = block;
    block->next = remaining;
    remaining->prev = block;
    remaining->ptr += p.size;
    remaining->size -= p.size;
    if (p.cached) {
      rekey(pool, *p.cached);
    } else {
      insert_into_pool(remaining);
    }
    if (block->segment) {
      // Expandable segments are not counted as inactive splits (their free pages can be unmapped).
    } else if (already_split) {
      // An inactive split block shrinks by p.size bytes.
      for_pool_stats(pool, [&](size_t t) { dec(stats_.inactive_split_bytes, t, block->size); });
    } else {
      // A new inactive split block of remaining->size bytes appears.
      for_pool_stats(pool, [&](size_t t) {
        inc(stats_.inactive_split_bytes, t, remaining->size);
        inc(stats_.inactive_split, t, 1);
      });
    }
  } else if (p.cached) {
    pool_erase(pool, *p.cached);
  }
  if (!split && already_split && !block->segment) {
    // An inactive split block becomes active.
    for_pool_stats(pool, [&](size_t t) {
      dec(stats_.inactive_split_bytes, t, block->size);
      dec(stats_.inactive_split, t, 1);
    });
  }
  block->allocated = true;
  block->requested_size = orig_size;
  block->alloc_prev = nullptr;
  block->alloc_next = allocated_list_;
  if (allocated_list_) allocated_list_->alloc_prev = block;
  allocated_list_ = block;
  for_pool_stats(pool, [&](size_t t) {
    inc(stats_.allocation, t, 1);
    inc(stats_.allocated_bytes, t, block->size);
    inc(stats_.active, t, 1);
    inc(stats_.active_bytes, t, block->size);
    inc(stats_.requested_bytes, t, block->requested_size);
  });
  if (block->size >= config_.max_split_size) stats_.oversize_allocations.increase(1);
  return block;
}

// ---------------------------------------------------------------------------------------------
// Returning memory to the backend

void CachingAllocator::release_block(Block* block) {
  CTORCH_INTERNAL_ASSERT(block->segment == nullptr, "caching allocator: release_block of an expandable segment");
  record_trace(cuda::TraceAction::kSegmentFree, block->ptr, block->size, block->stream, nullptr);
  ++stats_.num_device_free;
  backend_->deallocate(block->ptr);
  total_reserved_ -= block->size;
  if (block->pool->owner) --block->pool->owner->segment_count;
  for_pool_stats(*block->pool, [&](size_t t) {
    dec(stats_.segment, t, 1);
    dec(stats_.reserved_bytes, t, block->size);
  });
  if (block->size >= config_.max_split_size) stats_.oversize_segments.decrease(1);
  pool_erase(*block->pool, block->pool->blocks.find(block));
  delete_block(block);
}

void CachingAllocator::release_blocks(BlockPool& pool) {
  std::vector<Block*> to_unmap;  // unmapping changes the pool: gather first
  for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
    Block* b = *it;
    ++it;
    if (b->segment) {
      to_unmap.push_back(b);
    } else if (!b->prev && !b->next) {
      release_block(b);
    }
  }
  for (Block* b : to_unmap) unmap_block(b);
  // Segments left without a mapped page (including ones whose first mapping failed) are released.
  for (auto it = pool.unmapped.begin(); it != pool.unmapped.end();) {
    Block* b = *it;
    ++it;
    if (!b->prev && !b->next) release_expandable_segment(b);
  }
}

bool CachingAllocator::release_available_cached_blocks(const AllocParams& p) {
  // Expandable segments are never released whole here: the full flush unmaps their free pages.
  if (expandable_ || config_.max_split_size == std::numeric_limits<size_t>::max()) return false;
  BlockPool& pool = *p.pool;
  const BlockKey key{p.stream.id(), std::max(p.size, config_.max_split_size)};
  auto it = pool.blocks.lower_bound(key);
  if (it != pool.blocks.end() && (*it)->stream == key.stream) {
    release_block(*it);  // the smallest oversize block that is large enough (always a whole segment)
    return true;
  }
  // No single block is large enough: free oversize blocks of this stream, largest first.
  if (it == pool.blocks.begin()) return false;
  size_t released = 0;
  --it;
  while (released < key.size && (*it)->size >= config_.max_split_size && (*it)->stream == key.stream) {
    auto cur = it;
    const bool is_first = cur == pool.blocks.begin();
    if (!is_first) --it;
    released += (*cur)->size;
    release_block(*cur);
    if (is_first) break;
  }
  return released >= key.size;
}

void CachingAllocator::release_cached_blocks_locked() {
  synchronize_and_free_events();
  release_blocks(large_blocks_);
  release_blocks(small_blocks_);
  for (auto it = graph_pools_freeable_.begin(); it != graph_pools_freeable_.end();) {
    release_blocks(it->second->small_blocks);
    release_blocks(it->second->large_blocks);
    if (it->second->segment_count == 0) {
      graph_pools_.erase(it->first);
      it = graph_pools_freeable_.erase(it);
    } else {
      ++it;
    }
  }
}

void CachingAllocator::garbage_collect_cached_blocks() {
  const auto threshold =
      static_cast<size_t>(config_.garbage_collection_threshold * static_cast<double>(allowed_memory_maximum_));
  if (total_reserved_ <= threshold) return;
  const size_t target = total_reserved_ - threshold;
  auto age = [this](const Block* b) { return large_blocks_.get_free_blocks_call_count - b->gc_count_base; };
  uint64_t total_age = 0;
  int freeable = 0;
  for (const Block* b : large_blocks_.blocks) {
    if (!b->is_split() && !b->segment) {
      total_age += age(b);
      ++freeable;
    }
  }
  if (freeable == 0) return;
  size_t reclaimed = 0;
  bool freed = true;
  while (reclaimed < target && freed && freeable > 0) {
    const double age_threshold = static_cast<double>(total_age) / freeable;
    freed = false;
    for (auto it = large_blocks_.blocks.begin(); it != large_blocks_.blocks.end();) {
      Block* b = *it;
      ++it;
      if (!b->is_split() && !b->segment && static_cast<double>(age(b)) >= age_threshold) {
        freed = true;
        reclaimed += b->size;
        total_age -= age(b);
        --freeable;
        release_block(b);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// free

void* CachingAllocator::raw_alloc(size_t size, Stream stream) {
  Block* b = malloc(size, stream);
  if (b == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  try {
    raw_allocated_.emplace(b->ptr, b);
  } catch (...) {
    free_locked(b, nullptr);
    throw;
  }
  return b->ptr;
}

Block* CachingAllocator::find_allocated_locked(const void* ptr) const {
  auto it = raw_allocated_.find(ptr);
  if (it != raw_allocated_.end()) return it->second;
  for (Block* b = allocated_list_; b != nullptr; b = b->alloc_next) {
    if (b->ptr == ptr) return b;
  }
  return nullptr;
}

Block* CachingAllocator::find_allocated(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mu_);
  return find_allocated_locked(ptr);
}

bool CachingAllocator::free_ptr(const void* ptr) {
  FramesPtr frames;
  if (capture_free_.load(std::memory_order_relaxed)) frames = capture_frames(1);
  std::lock_guard<std::mutex> lock(mu_);
  Block* b = find_allocated_locked(ptr);
  if (b == nullptr) return false;
  free_locked(b, frames);
  return true;
}

void CachingAllocator::free(Block* block) {
  FramesPtr frames;
  if (capture_free_.load(std::memory_order_relaxed)) frames = capture_frames(1);
  std::lock_guard<std::mutex> lock(mu_);
  free_locked(block, frames);
}

void CachingAllocator::free_locked(Block* block, const FramesPtr& frames) {
  CTORCH_INTERNAL_ASSERT(block->allocated, "caching allocator: free of a block that is not allocated");
  record_trace(cuda::TraceAction::kFreeRequested, block->ptr, block->requested_size, block->stream, frames);
  block->allocated = false;
  if (block->alloc_prev) {
    block->alloc_prev->alloc_next = block->alloc_next;
  } else {
    allocated_list_ = block->alloc_next;
  }
  if (block->alloc_next) block->alloc_next->alloc_prev = block->alloc_prev;
  block->alloc_prev = block->alloc_next = nullptr;
  if (!raw_allocated_.empty()) raw_allocated_.erase(block->ptr);
  for_pool_stats(*block->pool, [&](size_t t) {
    dec(stats_.allocation, t, 1);
    dec(stats_.allocated_bytes, t, block->size);
  });
  if (block->size >= config_.max_split_size) stats_.oversize_allocations.decrease(1);
  if (!block->stream_uses.empty()) {
    if (captures_underway_.empty()) {
      insert_events(block);
    } else {
      // No event may be recorded outside the capture now: the block waits (active) until no capture is underway.
      needs_events_deferred_until_no_capture_.push_back(block);
    }
  } else {
    free_block(block);
  }
}

void CachingAllocator::insert_into_pool(Block* block) {
  block->gc_count_base = block->pool->get_free_blocks_call_count;
  const bool inserted = block->pool->blocks.insert(block).second;
  CTORCH_INTERNAL_ASSERT(inserted, "caching allocator: block already cached");
}

void CachingAllocator::free_block(Block* block) {
  record_trace(cuda::TraceAction::kFreeCompleted, block->ptr, block->requested_size, block->stream,
               history_.free_frames ? block->context : nullptr);
  block->context.reset();
  const size_t original_size = block->size;
  const size_t requested = block->requested_size;
  BlockPool& pool = *block->pool;
  int64_t net_blocks = 0, net_bytes = 0;
  const auto absorbed = [&](size_t subsumed) {
    if (subsumed == 0) return;
    net_blocks -= 1;
    net_bytes -= static_cast<int64_t>(subsumed);
  };
  // Next to a cached block, the freed block merges into it and that block keeps its pool node
  // (Note [Rekeying pooled blocks]); otherwise the freed block absorbs nothing and is inserted.
  Block* keep = can_merge(block, block->next) ? block->next : can_merge(block, block->prev) ? block->prev : nullptr;
  if (keep == nullptr) {
    block->requested_size = 0;
    insert_into_pool(block);
  } else {
    absorbed(try_merge_blocks(block, keep == block->next ? block->prev : block->next, pool));
    const auto it = pool.blocks.find(keep);  // while the pool is still ordered
    absorbed(keep->size);
    if (keep == block->next) {
      keep->ptr = block->ptr;
      keep->prev = block->prev;
      if (keep->prev) keep->prev->next = keep;
    } else {
      keep->next = block->next;
      if (keep->next) keep->next->prev = keep;
    }
    keep->size += block->size;
    delete_block(block);
    block = keep;
    rekey(pool, it);
  }
  if (block->is_split()) {
    net_blocks += 1;
    net_bytes += static_cast<int64_t>(block->size);
  }
  if (block->segment) net_blocks = net_bytes = 0;  // expandable segments: no inactive splits
  for_pool_stats(pool, [&](size_t t) {
    if (net_blocks > 0) inc(stats_.inactive_split, t, static_cast<size_t>(net_blocks));
    if (net_blocks < 0) dec(stats_.inactive_split, t, static_cast<size_t>(-net_blocks));
    if (net_bytes > 0) inc(stats_.inactive_split_bytes, t, static_cast<size_t>(net_bytes));
    if (net_bytes < 0) dec(stats_.inactive_split_bytes, t, static_cast<size_t>(-net_bytes));
    dec(stats_.active, t, 1);
    dec(stats_.active_bytes, t, original_size);
    dec(stats_.requested_bytes, t, requested);
  });
}

bool CachingAllocator::can_merge(const Block* dst, const Block* src) {
  return src && !src->allocated && src->event_count == 0 && src->stream_uses.empty() && src->mapped == dst->mapped;
}

size_t CachingAllocator::try_merge_blocks(Block* dst, Block* src, BlockPool& pool) {
  if (!can_merge(dst, src)) return 0;
  if (dst->prev == src) {  // [src dst]
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {  // [dst src]
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  const size_t subsumed = src->size;
  dst->size += subsumed;
  if (src->mapped) {
    pool_erase(pool, pool.blocks.find(src));
  } else {
    pool.unmapped.erase(src);
  }
  delete_block(src);
  return subsumed;
}

// ---------------------------------------------------------------------------------------------
// record_stream and event-deferred frees

void CachingAllocator::record_stream(Block* block, Stream stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stream.device().index() == device_ && stream.id() == block->stream) return;
  if (std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) == block->stream_uses.end()) {
    block->stream_uses.push_back(stream);
  }
}

void* CachingAllocator::take_event(DeviceIndex index) {
  auto& pool = event_pool_[index];
  if (!pool.empty()) {
    void* e = pool.back();
    pool.pop_back();
    return e;
  }
  return backend_->create_event(index);
}

void CachingAllocator::return_event(DeviceIndex index, void* event) noexcept {
  try {
    event_pool_[index].push_back(event);
  } catch (...) {
    backend_->destroy_event(event);
  }
}

void CachingAllocator::insert_events(Block* block) {
  std::vector<Stream> streams = std::move(block->stream_uses);
  block->stream_uses.clear();
  for (const Stream& s : streams) {
    const DeviceIndex dev = s.device().index();
    void* e = nullptr;
    try {
      e = take_event(dev);
      backend_->record_event(e, s);
      pending_events_[{dev, s.id()}].push_back({e, dev, block});
      ++block->event_count;
    } catch (...) {
      // A stream that cannot record (sticky error) runs no further work: no need to wait for it.
      if (e) return_event(dev, e);
    }
  }
  if (block->event_count == 0) free_block(block);
}

void CachingAllocator::insert_events_deferred_until_no_capture() {
  std::vector<Block*> blocks;
  blocks.swap(needs_events_deferred_until_no_capture_);
  for (Block* b : blocks) insert_events(b);
}

BlockPool* CachingAllocator::capture_pool(Stream stream, size_t rounded_size) {
  for (auto& [id, filter] : captures_underway_) {
    if (filter(stream)) {
      PrivatePool& pp = *graph_pools_.at(id);
      return rounded_size <= kSmallSize ? &pp.small_blocks : &pp.large_blocks;
    }
  }
  return nullptr;
}

void CachingAllocator::begin_allocate_to_pool(MempoolId id, StreamFilter filter) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [underway, f] : captures_underway_) {
    CTORCH_CHECK(underway != id, "beginAllocateToPool: already recording to mempool_id");
  }
  captures_underway_.reserve(captures_underway_.size() + 1);
  auto it = graph_pools_.find(id);
  if (it == graph_pools_.end()) {
    graph_pools_.emplace(id, std::make_unique<PrivatePool>());
  } else if (it->second->use_count++ == 0) {
    graph_pools_freeable_.erase(id);  // a released pool is in use again
  }
  captures_underway_.emplace_back(id, std::move(filter));
}

void CachingAllocator::end_allocate_to_pool(MempoolId id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = captures_underway_.begin(); it != captures_underway_.end(); ++it) {
    if (it->first == id) {
      captures_underway_.erase(it);
      return;
    }
  }
  CTORCH_CHECK(false, "endAllocatePool: not currently recording to mempool_id");
}

void CachingAllocator::release_pool(MempoolId id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = graph_pools_.find(id);
  CTORCH_CHECK(it != graph_pools_.end(), "Called releasePool with a mempool_id that has no private pool");
  PrivatePool* pp = it->second.get();
  CTORCH_INTERNAL_ASSERT(pp->use_count > 0, "releasePool: use_count is already 0");
  if (--pp->use_count == 0) graph_pools_freeable_.emplace(id, pp);
}

int CachingAllocator::private_pool_use_count(MempoolId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = graph_pools_.find(id);
  return it == graph_pools_.end() ? -1 : it->second->use_count;
}

void CachingAllocator::process_events() {
  for (auto it = pending_events_.begin(); it != pending_events_.end();) {
    auto& queue = it->second;
    while (!queue.empty()) {
      PendingEvent& pe = queue.front();
      if (!backend_->query_event(pe.event)) break;  // FIFO per stream: later ones are not done either
      return_event(pe.device, pe.event);
      Block* b = pe.block;
      queue.pop_front();
      if (--b->event_count == 0) free_block(b);
    }
    it = queue.empty() ? pending_events_.erase(it) : std::next(it);
  }
}

void CachingAllocator::synchronize_and_free_events() {
  ++stats_.num_sync_all_streams;
  for (auto& [key, queue] : pending_events_) {
    while (!queue.empty()) {
      PendingEvent pe = queue.front();
      queue.pop_front();
      try {
        backend_->synchronize_event(pe.event);
      } catch (...) {
        // The stream failed (sticky error): its work will not run, the block is free.
      }
      return_event(pe.device, pe.event);
      if (--pe.block->event_count == 0) free_block(pe.block);
    }
  }
  pending_events_.clear();
}

}  // namespace ctorch::api::memory
