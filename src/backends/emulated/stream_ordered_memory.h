// The stream-ordered memory pool of an emulated device: the emulated side of
// impl::StreamOrderedMemory (cudaMallocAsync / cudaFreeAsync on the device's default pool), which
// the allocator backend `backend:cudaMallocAsync` uses.
//
// Note [Emulated stream-ordered memory]
// - One pool per device. Its memory is whole raw allocations of the device's Arena (rounded to
//   kDeviceAlignment), so it is charged to the device's capacity: OOM, mem_get_info and the other
//   users of the device see it. A block is never split; a request takes the best-fitting cached
//   block of at least its size and at most twice it, else a new block from the Arena.
// - used = bytes of blocks handed out and not yet passed to free_async (it drops at the
//   free_async call); reserved = bytes of every block the pool holds, cached ones included.
//   used_high / reserved_high follow them until reset_pool_peaks.
// - free_async(ptr, S) queues a marker task on S and remembers (S's worker, its ticket). The free
//   writes nothing, as on a GPU: poisoning it there would race (on the host) with a stream that
//   still reads the block without record_stream, a bug PyTorch's rules leave to the user. Blocks
//   going back to the device are poisoned by the Arena. The block is reusable at once by later allocate_async calls
//   on S (stream order: their work runs after the free), and by other streams only after the
//   free task has run (cudaMemPoolReuseAllowOpportunistic). Event dependencies between streams are
//   not followed (cudaMemPoolReuseFollowEventDependencies is not modelled).
// - When the Arena has no room: cached blocks whose free has run go back to the Arena and the
//   allocation is retried; then a cached block whose free is still pending on another stream is
//   handed out, and the allocating stream is made to wait for that free
//   (cudaMemPoolReuseAllowInternalDependencies); else allocate_async returns null (OOM).
// - Only blocks whose free has run go back to the device: trim_pool_to(n) releases them (largest
//   first) until at most n bytes stay reserved, and synchronize_device does the same down to the
//   release threshold (default 0, as the driver's default pool; PyTorch sets UINT64_MAX).
// - translate() sees pool blocks as live Arena allocations, cached or not: as with the caching
//   allocator's segments, a use after free_async of a block still in the pool is not caught.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "backends/emulated/memory.h"
#include "backends/emulated/stream_worker.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::backends::emulated {

/// Where a free was queued: the stream's worker and the ticket of its free task.
struct FreeMark {
  const StreamWorker* worker = nullptr;
  Ticket ticket = 0;
};

/// The default memory pool of one emulated device (see Note [Emulated stream-ordered memory]).
/// Thread-safe.
class StreamOrderedPool {
 public:
  /// A pool whose blocks come from `arena` (not owned; it outlives the pool).
  StreamOrderedPool(DeviceIndex index, Arena* arena) : index_(index), arena_(arena) {}
  /// Returns every block to the arena.
  ~StreamOrderedPool();
  StreamOrderedPool(const StreamOrderedPool&) = delete;
  StreamOrderedPool& operator=(const StreamOrderedPool&) = delete;

  /// A block handed out for an allocation, and the free the allocating stream must wait for first.
  struct Grant {
    void* ptr = nullptr;        // null: out of memory
    bool must_wait = false;     // a pending free on another stream (internal dependency)
    FreeMark wait_for;          // valid when must_wait
  };
  /// `bytes` (> 0) for use on the stream served by `stream`; ptr null when nothing fits.
  Grant allocate(size_t bytes, const StreamWorker* stream);
  /// Undoes an allocate() that had to wait for `mark` (queueing the wait failed); must not throw.
  void undo_allocate(void* ptr, FreeMark mark) noexcept;
  /// Starts freeing a handed-out block: false (nothing done) when `ptr` is not one. On success the
  /// block is unusable until end_free() or abort_free().
  bool begin_free(const void* ptr);
  /// Finishes a free queued at `mark`.
  void end_free(const void* ptr, FreeMark mark) noexcept;
  /// Undoes begin_free() (queueing the free failed).
  void abort_free(const void* ptr) noexcept;

  /// Usage attributes.
  impl::PoolAttributes attributes() const;
  /// used_high = used, reserved_high = reserved.
  void reset_peaks();
  /// Releases cached blocks whose free has run until at most `bytes` stay reserved.
  void trim_to(size_t bytes) noexcept;
  /// Sets the release threshold used by release_to_threshold().
  void set_release_threshold(uint64_t bytes);
  /// trim_to(release threshold): called when the device is synchronized.
  void release_to_threshold() noexcept;
  /// Blocks the pool holds that are not handed out (cached, or with a free in flight).
  size_t cached_count() const;

 private:
  enum class State : char { kLive, kFreeing, kFree };
  struct Block {
    size_t size = 0;
    State state = State::kLive;
    FreeMark mark;  // valid in kFree
  };
  using Blocks = std::map<uintptr_t, Block>;

  bool reusable_locked(const Block& b, const StreamWorker* stream) const;
  void take_locked(Blocks::iterator it);
  void trim_locked(uint64_t bytes) noexcept;

  const DeviceIndex index_;
  Arena* const arena_;
  mutable std::mutex mu_;
  // Guarded by mu_:
  Blocks blocks_;                                 // every block the pool holds, by address
  std::set<std::pair<size_t, uintptr_t>> free_;   // (size, address) of blocks in kFree
  uint64_t used_ = 0, used_high_ = 0, reserved_ = 0, reserved_high_ = 0;
  uint64_t release_threshold_ = 0;
};

}  // namespace ctorch::api::backends::emulated
