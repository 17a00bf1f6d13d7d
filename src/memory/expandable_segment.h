// ExpandableSegment: one reserved device address range that the caching allocator maps page by
// page (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True).
//
// Note [Expandable segments] (c10/cuda/CUDACachingAllocator.cpp, Note [Expandable Segments])
// - Instead of one raw allocation per segment, the allocator reserves per (stream, pool) one
//   address range of 1 1/8 times the device's memory (kAddressSpaceNumerator/Denominator) and
//   maps memory into it in pages: kSmallBuffer (2 MiB) for the small pool, kLargeBuffer (20 MiB)
//   for the large pool. The free block at the end of the mapped part grows by mapping more pages,
//   so differently sized requests tile one growing range instead of leaving slivers at the ends
//   of fixed segments.
// - Blocks of a segment cover it without gaps; each is mapped (ordinary free or allocated block)
//   or unmapped (Block::mapped false, kept in BlockPool::unmapped). Unmapped blocks are always
//   whole pages, so every page is either under mapped blocks or under one unmapped block.
// - A request that no free block fits maps pages at the lowest address that fits it: the start
//   of an unmapped range, together with the free block just before it if there is one
//   (find_expandable_block). Failing that, a new segment is reserved.
// - Any block of an expandable segment is split when >= 512 bytes remain (both pools), and
//   blocks merge only with neighbours of the same mapped state.
// - empty_cache (and the retry before an OOM) unmaps every whole free page; a segment whose
//   pages are all unmapped is released.
// - Statistics: reserved_bytes counts mapped bytes. inactive_split* exclude expandable segments
//   (fully free pages can always be unmapped), as PyTorch. `segment` counts contiguous mapped
//   ranges, which are also what memory_snapshot() reports as segments (one entry per range, with
//   is_expandable). ctorch differs here from PyTorch, whose `segment` does not count them.
//   num_device_alloc / num_device_free count map and unmap calls.
// - A memory fraction is checked against the page-rounded bytes about to be mapped.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "memory/caching_allocator.h"

namespace ctorch::inline api::memory {

/// Reserved address space per segment = device memory * kAddressSpaceNumerator / kAddressSpaceDenominator.
inline constexpr size_t kAddressSpaceNumerator = 9;
/// See kAddressSpaceNumerator (1 1/8 times the device's memory, as PyTorch).
inline constexpr size_t kAddressSpaceDenominator = 8;

/// A range of an expandable segment, with the change in its number of contiguous mapped runs.
struct SegmentRange {
  char* ptr = nullptr;
  size_t size = 0;     // 0: nothing was (un)mapped
  int runs_delta = 0;  // change in the number of contiguous mapped ranges
};

/// One reserved address range mapped in whole pages (see Note [Expandable segments]).
class ExpandableSegment {
 public:
  /// Reserves `size` bytes (rounded up to pages) through `vm`; null when no address space is left.
  static std::unique_ptr<ExpandableSegment> create(VirtualMemoryBackend* vm, size_t size, size_t page_size);
  /// Unmaps every mapped page and releases the reservation.
  ~ExpandableSegment();
  ExpandableSegment(const ExpandableSegment&) = delete;
  ExpandableSegment& operator=(const ExpandableSegment&) = delete;

  /// Maps the pages covering [ptr, ptr + size) (`ptr` page-aligned, all unmapped); size 0 when
  /// the device is out of memory.
  SegmentRange map(char* ptr, size_t size);
  /// Unmaps the whole pages inside [ptr, ptr + size) (all mapped); size 0 when there are none.
  SegmentRange unmap(char* ptr, size_t size);
  /// Bytes [page-aligned] needed to map the pages covering [ptr, ptr + size).
  size_t mapping_size(const char* ptr, size_t size) const;

  /// Start of the reserved range.
  char* ptr() const { return base_; }
  /// Reserved bytes (a multiple of page_size()).
  size_t size() const { return pages_.size() * page_size_; }
  /// Mapping granularity.
  size_t page_size() const { return page_size_; }

 private:
  ExpandableSegment(VirtualMemoryBackend* vm, char* base, size_t pages, size_t page_size);
  size_t page_left(const char* p) const { return static_cast<size_t>(p - base_) / page_size_; }
  size_t page_right(const char* p) const { return (static_cast<size_t>(p - base_) + page_size_ - 1) / page_size_; }
  int runs_delta(size_t begin, size_t end, int sign) const;

  VirtualMemoryBackend* const vm_;
  char* const base_;
  const size_t page_size_;
  std::vector<char> pages_;  // 1 = mapped
};

}  // namespace ctorch::api::memory
