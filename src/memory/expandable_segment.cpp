// ExpandableSegment and the caching allocator's expandable-segment paths (find_expandable_block,
// map_block, try_allocate_expandable_block, unmap_block, release_expandable_segment; the names of
// c10/cuda/CUDACachingAllocator.cpp). Policy: Note [Expandable segments] in expandable_segment.h.
#include "memory/expandable_segment.h"

#include <algorithm>

#include "ctorch/error.h"

namespace ctorch::inline api::memory {

// ---------------------------------------------------------------------------------------------
// ExpandableSegment

std::unique_ptr<ExpandableSegment> ExpandableSegment::create(VirtualMemoryBackend* vm, size_t size, size_t page_size) {
  CTORCH_INTERNAL_ASSERT(vm != nullptr && page_size > 0, "expandable segment without a virtual-memory backend");
  const size_t pages = std::max<size_t>(1, (size + page_size - 1) / page_size);
  void* base = vm->reserve(pages * page_size, page_size);
  if (base == nullptr) return nullptr;
  return std::unique_ptr<ExpandableSegment>(new ExpandableSegment(vm, static_cast<char*>(base), pages, page_size));
}

ExpandableSegment::ExpandableSegment(VirtualMemoryBackend* vm, char* base, size_t pages, size_t page_size)
    : vm_(vm), base_(base), page_size_(page_size), pages_(pages, 0) {}

ExpandableSegment::~ExpandableSegment() {
  const size_t n = pages_.size();
  for (size_t i = 0; i < n;) {
    if (!pages_[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && pages_[j]) ++j;
    vm_->unmap(base_, i * page_size_, (j - i) * page_size_);
    i = j;
  }
  vm_->release(base_);
}

int ExpandableSegment::runs_delta(size_t begin, size_t end, int sign) const {
  // Mapping [begin, end) adds a run, minus one for each mapped neighbour it joins; unmapping is the reverse.
  const int left = begin > 0 && pages_[begin - 1] ? 1 : 0;
  const int right = end < pages_.size() && pages_[end] ? 1 : 0;
  return sign * (1 - left - right);
}

size_t ExpandableSegment::mapping_size(const char* ptr, size_t size) const {
  return (page_right(ptr + size) - page_left(ptr)) * page_size_;
}

SegmentRange ExpandableSegment::map(char* ptr, size_t size) {
  const size_t begin = page_left(ptr), end = page_right(ptr + size);
  CTORCH_INTERNAL_ASSERT(base_ + begin * page_size_ == ptr && begin < end && end <= pages_.size(),
                         "expandable segment: map of a range that is not page-aligned or outside the segment");
  for (size_t i = begin; i < end; ++i) {
    CTORCH_INTERNAL_ASSERT(!pages_[i], "expandable segment: page ", i, " is already mapped");
  }
  if (!vm_->map(base_, begin * page_size_, (end - begin) * page_size_)) return SegmentRange{ptr, 0, 0};
  const int delta = runs_delta(begin, end, +1);
  std::fill(pages_.begin() + static_cast<std::ptrdiff_t>(begin), pages_.begin() + static_cast<std::ptrdiff_t>(end), 1);
  return SegmentRange{ptr, (end - begin) * page_size_, delta};
}

SegmentRange ExpandableSegment::unmap(char* ptr, size_t size) {
  const size_t begin = page_right(ptr), end = page_left(ptr + size);
  if (begin >= end) return SegmentRange{ptr, 0, 0};
  for (size_t i = begin; i < end; ++i) {
    CTORCH_INTERNAL_ASSERT(pages_[i], "expandable segment: page ", i, " is not mapped");
  }
  const int delta = runs_delta(begin, end, -1);
  vm_->unmap(base_, begin * page_size_, (end - begin) * page_size_);
  std::fill(pages_.begin() + static_cast<std::ptrdiff_t>(begin), pages_.begin() + static_cast<std::ptrdiff_t>(end), 0);
  return SegmentRange{base_ + begin * page_size_, (end - begin) * page_size_, delta};
}

// ---------------------------------------------------------------------------------------------
// The allocator's side

void CachingAllocator::count_segment_runs(const BlockPool& pool, int delta) {
  const auto t = static_cast<size_t>(pool_type(pool));
  if (delta > 0) inc(stats_.segment, t, static_cast<size_t>(delta));
  if (delta < 0) dec(stats_.segment, t, static_cast<size_t>(-delta));
}

Block* CachingAllocator::find_expandable_block(StreamId stream, BlockPool& pool, size_t size, bool* no_space) {
  auto allocatable = [](const Block* b) {
    return b != nullptr && !b->allocated && b->event_count == 0 && b->stream_uses.empty();
  };
  auto has_room = [&](const Block* b) {
    size_t bytes = 0;
    while (bytes < size && allocatable(b)) {
      bytes += b->size;
      b = b->next;
    }
    return bytes >= size;
  };
  // The lowest unmapped range of this stream that fits, with the free block before it.
  Block key;
  key.stream = stream;
  for (auto it = pool.unmapped.lower_bound(&key); it != pool.unmapped.end() && (*it)->stream == stream; ++it) {
    Block* c = *it;
    if (allocatable(c->prev)) c = c->prev;
    if (has_room(c)) return c;
  }
  size_t device_free = 0, device_total = 0;
  backend_->memory_info(&device_free, &device_total);
  const size_t page = pool.is_small ? kSmallBuffer : kLargeBuffer;
  const size_t address_space = device_total / kAddressSpaceDenominator * kAddressSpaceNumerator;
  std::unique_ptr<ExpandableSegment> seg = ExpandableSegment::create(vm_, std::max(address_space, size), page);
  if (!seg) {
    *no_space = true;
    return nullptr;
  }
  expandable_segments_.reserve(expandable_segments_.size() + 1);
  Block* c = new_block();
  c->device = device_;
  c->stream = stream;
  c->size = seg->size();
  c->pool = &pool;
  c->ptr = seg->ptr();
  c->mapped = false;
  c->segment = seg.get();
  expandable_segments_.push_back(seg.release());
  pool.unmapped.insert(c);
  return c;
}

bool CachingAllocator::map_block(Block* to_map, size_t size, const FramesPtr& context) {
  CTORCH_INTERNAL_ASSERT(!to_map->mapped && size <= to_map->size, "caching allocator: map of a mapped block");
  ExpandableSegment& seg = *to_map->segment;
  BlockPool& pool = *to_map->pool;
  if (set_fraction_ && total_reserved_ + seg.mapping_size(to_map->ptr, size) > allowed_memory_maximum_) {
    fraction_refused_map_ = true;
    return false;
  }
  const SegmentRange r = seg.map(to_map->ptr, size);
  if (r.size == 0) return false;
  pool.unmapped.erase(to_map);
  to_map->mapped = true;
  if (r.size < to_map->size) {  // to_map -> rest (still unmapped) -> to_map->next
    Block* rest = new_block();
    rest->device = device_;
    rest->stream = to_map->stream;
    rest->size = to_map->size - r.size;
    rest->pool = &pool;
    rest->ptr = to_map->ptr + r.size;
    rest->mapped = false;
    rest->segment = to_map->segment;
    rest->prev = to_map;
    rest->next = to_map->next;
    if (rest->next) rest->next->prev = rest;
    to_map->next = rest;
    to_map->size = r.size;
    pool.unmapped.insert(rest);
  }
  try_merge_blocks(to_map, to_map->prev, pool);
  try_merge_blocks(to_map, to_map->next, pool);
  insert_into_pool(to_map);
  total_reserved_ += r.size;
  ++stats_.num_device_alloc;
  inc(stats_.reserved_bytes, static_cast<size_t>(pool_type(pool)), r.size);
  count_segment_runs(pool, r.runs_delta);
  record_trace(cuda::TraceAction::kSegmentMap, r.ptr, r.size, to_map->stream,
               history_.alloc_frames ? context : nullptr);
  return true;
}

Block* CachingAllocator::try_allocate_expandable_block(const AllocParams& p, bool* no_space) {
  BlockPool& pool = *p.pool;
  Block* c = find_expandable_block(p.stream.id(), pool, p.size, no_space);
  if (c == nullptr) return nullptr;
  // c starts a run of free and unmapped blocks with room for p.size: unmapped -> *, or free -> unmapped -> *.
  if (!c->mapped && !map_block(c, std::min(c->size, p.size), p.context)) return nullptr;
  while (c->size < p.size) {
    Block* next = c->next;  // unmapped: free mapped neighbours were merged
    CTORCH_INTERNAL_ASSERT(next != nullptr && !next->mapped, "caching allocator: expandable run without room");
    if (!map_block(next, std::min(p.size - c->size, next->size), p.context)) return nullptr;
    c = next;  // map_block merged c into next
  }
  pool_erase(pool, pool.blocks.find(c));
  return c;
}

void CachingAllocator::unmap_block(Block* block) {
  BlockPool& pool = *block->pool;
  const SegmentRange r = block->segment->unmap(block->ptr, block->size);
  if (r.size == 0) return;
  pool_erase(pool, pool.blocks.find(block));
  auto free_part = [&](char* ptr, size_t size) {
    Block* b = new_block();
    b->device = device_;
    b->stream = block->stream;
    b->size = size;
    b->pool = &pool;
    b->ptr = ptr;
    b->segment = block->segment;
    return b;
  };
  const auto before = static_cast<size_t>(r.ptr - block->ptr);
  if (before > 0) {  // prev -> before -> block
    Block* b = free_part(block->ptr, before);
    b->prev = block->prev;
    if (b->prev) b->prev->next = b;
    b->next = block;
    block->prev = b;
    insert_into_pool(b);
  }
  const size_t after = block->size - before - r.size;
  if (after > 0) {  // block -> after -> next
    Block* a = free_part(r.ptr + r.size, after);
    a->next = block->next;
    if (a->next) a->next->prev = a;
    a->prev = block;
    block->next = a;
    insert_into_pool(a);
  }
  block->ptr = r.ptr;
  block->size = r.size;
  block->mapped = false;
  try_merge_blocks(block, block->prev, pool);
  try_merge_blocks(block, block->next, pool);
  pool.unmapped.insert(block);
  total_reserved_ -= r.size;
  ++stats_.num_device_free;
  dec(stats_.reserved_bytes, static_cast<size_t>(pool_type(pool)), r.size);
  count_segment_runs(pool, r.runs_delta);
  record_trace(cuda::TraceAction::kSegmentUnmap, r.ptr, r.size, block->stream, nullptr);
}

void CachingAllocator::release_expandable_segment(Block* block) {
  ExpandableSegment* seg = block->segment;
  CTORCH_INTERNAL_ASSERT(!block->mapped && !block->prev && !block->next && block->size == seg->size(),
                         "caching allocator: releasing an expandable segment that is still mapped");
  auto it = std::find(expandable_segments_.begin(), expandable_segments_.end(), seg);
  CTORCH_INTERNAL_ASSERT(it != expandable_segments_.end(), "caching allocator: unknown expandable segment");
  expandable_segments_.erase(it);
  block->pool->unmapped.erase(block);
  delete seg;  // returns the reservation
  delete_block(block);
}

}  // namespace ctorch::api::memory
