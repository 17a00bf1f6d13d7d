// The caching allocators of the CUDA devices (real or emulated): one CachingAllocator per device
// of the registered CUDA runtime, created lazily, over a RawBackend that forwards to that
// runtime's raw_allocate/raw_free and events (and, for expandable segments, its impl::VirtualMemory).
//
// Note [Device allocators and runtime replacement]
// Allocator objects are never destroyed: a DataPtr's context is its Block, and the deleter finds
// the allocator by the block's device. When the CUDA runtime is replaced or reconfigured
// (cuda::emulate runs the runtime reset hooks first), every allocator returns its cached segments
// and pooled events; an allocator with no live blocks also forgets its statistics and memory
// fraction and is rebound to the new runtime at its next use. PYTORCH_NO_CUDA_MEMORY_CACHING (any
// value) bypasses the cache: every storage is a raw allocation, as in PyTorch.
#pragma once

#include <cstddef>
#include <memory>

#include "ctorch/allocator.h"
#include "ctorch/stream.h"
#include "memory/caching_allocator.h"

namespace ctorch::inline api::impl {
class DeviceRuntime;
}  // namespace ctorch::api::impl

namespace ctorch::inline api::memory {

/// The caching allocator of cuda:`index` (index must be a valid device); creates it on first use.
CachingAllocator& cuda_caching_allocator(DeviceIndex index);
/// The allocator of cuda:`index` if it was created for the current runtime, else null.
CachingAllocator* existing_cuda_caching_allocator(DeviceIndex index) noexcept;
/// `nbytes` on cuda:`index` for use on stream `s` (an empty DataPtr for 0 bytes), from the back-end
/// in use (allocator_backend.h: a pluggable allocator, cudaMallocAsync, or the native one).
DataPtr allocate_cuda(DeviceIndex index, size_t nbytes, Stream s);
/// The native back-end's allocation (allocator_backend.h): a raw one under
/// PYTORCH_NO_CUDA_MEMORY_CACHING, else a block of cuda:`index`'s caching allocator.
DataPtr allocate_native(DeviceIndex index, size_t nbytes, Stream s);
/// The caching-allocator block behind `data`, or null when it did not come from allocate_cuda.
Block* block_of(const DataPtr& data) noexcept;
/// Tensor::record_stream: the block of `data` (native or cudaMallocAsync) will not be reused before
/// the work queued on `s` so far has finished; other memory is ignored.
void record_stream(const DataPtr& data, Stream s);
/// Returns cached memory and events of every device; idle allocators also reset (see Note).
void reset_cuda_caching_allocators() noexcept;
/// True once a caching allocator was created for any device (the native allocator has been used).
bool any_cuda_caching_allocator_created() noexcept;
/// A RawBackend over device `index` of `runtime` (not owned), with the VirtualMemoryBackend
/// capability when the runtime implements impl::VirtualMemory (for tests and benchmarks that build
/// their own CachingAllocator, e.g. with expandable segments).
std::unique_ptr<RawBackend> make_runtime_backend(impl::DeviceRuntime* runtime, DeviceIndex index);
/// CUDA graphs: cuda:`index`'s caching allocator serves streams `filter` accepts from private
/// pool `id` (Note [Private pools]). Throws NotImplementedError for a back-end other than the
/// native one; a no-op under PYTORCH_NO_CUDA_MEMORY_CACHING.
void begin_allocate_to_pool(DeviceIndex index, MempoolId id, StreamFilter filter);
/// Ends begin_allocate_to_pool.
void end_allocate_to_pool(DeviceIndex index, MempoolId id);
/// Drops one use of private pool `id` of cuda:`index`.
void release_pool(DeviceIndex index, MempoolId id);
/// True when PYTORCH_NO_CUDA_MEMORY_CACHING is set (raw allocations, no statistics).
bool cuda_caching_disabled() noexcept;

}  // namespace ctorch::api::memory
