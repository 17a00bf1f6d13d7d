// The process's pinned host memory cache: one CachingHostAllocator over the registered CUDA
// runtime's pinned_allocate/pinned_free and events. pin_memory() and pinned factories allocate
// here; non-blocking host<->device copies report their stream (record_pinned_use). When the CUDA
// runtime is replaced (cuda::emulate), the reset hook returns the cache and clears its statistics.
#pragma once

#include <cstddef>

#include "ctorch/allocator.h"
#include "ctorch/stream.h"
#include "memory/host_allocator.h"

namespace ctorch::inline api::memory {

/// The pinned host cache (initializes CUDA on first use).
CachingHostAllocator& host_caching_allocator();
/// The pinned host cache if it was created, else null.
CachingHostAllocator* existing_host_caching_allocator() noexcept;
/// `nbytes` of pinned host memory as a cpu DataPtr (empty for 0 bytes).
DataPtr allocate_pinned(size_t nbytes);
/// Records that a copy queued on `s` uses the pinned memory behind `data` (no-op for other memory).
void record_pinned_use(const DataPtr& data, Stream s);

}  // namespace ctorch::api::memory
