// AccessTracker: for every device allocation, the accesses that a later kernel must be ordered
// after (the last writes and the reads since), and the accesses of freed allocations whose memory
// the caching allocator may hand out again. Checks a kernel's accesses against SyncState.
//
// Note [Access ranges]
// Accesses are tracked per allocation (a storage's data pointer, so views share it) with the
// byte range the view spans; two accesses conflict only when their ranges overlap, so kernels on
// disjoint halves of one buffer on two streams are not a race. A write supersedes the earlier
// accesses inside its range (they are checked first); a read supersedes earlier reads of the same
// stream inside its range. Anything a superseded access is ordered before, the newer one is too:
// the clocks are transitive.
//
// Note [Freed-block reuse]
// The caching allocator reuses a freed block for new tensors on the block's allocation stream
// without any synchronization: stream order covers work on that stream, record_stream() makes it
// wait for other streams. An access on another stream that neither record_stream() nor a wait
// covers is kept, at its address, after the free; the next allocation there inherits it, so the
// new tensor's first unordered access is reported as a race with the freed tensor's access.
// PyTorch's sanitizer forgets accesses at the free and misses this.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "memory/frames.h"
#include "sanitizer/sync_state.h"

namespace ctorch::inline api::sanitizer {

/// One access of one kernel to one allocation.
struct Access {
  bool write = false;
  SeqNum seq = 0;
  Stream stream{Device(DeviceType::CUDA, 0), 0};
  size_t begin = 0, end = 0;             // byte range, relative to the allocation (absolute when freed)
  const char* op = "";                   // the kernel ("add", "copy_")
  std::array<const char*, 4> names{};    // the arguments naming this allocation
  uint8_t num_names = 0;
  bool output = false;                   // the op's result
  memory::FramesPtr frames;              // where it was launched
  uintptr_t freed_base = 0;              // non-zero: an access to a freed allocation at this address
  memory::FramesPtr freed_alloc_frames;  // where that freed allocation was made
};

/// A kernel's access that is not ordered after an earlier conflicting one.
struct Race {
  uintptr_t base = 0;              // the allocation
  Access current, previous;
  memory::FramesPtr alloc_frames;  // where the allocation was made (null when not recorded)
  bool alloc_known = false;        // the allocation was reported (the sanitizer was on)
};

/// Per-allocation access history (see the Notes above).
class AccessTracker {
 public:
  /// A new allocation of `bytes` at `base`, used on `stream`; it inherits accesses left in that memory.
  void allocated(uintptr_t base, size_t bytes, Stream stream, memory::FramesPtr frames);
  /// The allocation at `base` is freed; with `reusable`, its block may be reused on its allocation stream.
  void freed(uintptr_t base, bool reusable, SyncState& sync);
  /// record_stream(`stream`) on the allocation at `base`.
  void record_stream(uintptr_t base, Stream stream);
  /// Appends to `races` the earlier accesses of allocation `base` that `access` conflicts with.
  void check(uintptr_t base, const Access& access, SyncState& sync, std::vector<Race>& races);
  /// Adds `access` (already checked) to the history of `base`.
  void commit(uintptr_t base, const Access& access);
  /// Number of allocations tracked, and of accesses kept for freed memory.
  size_t num_allocations() const { return allocations_.size(); }
  size_t num_freed_accesses() const { return freed_.size(); }

  /// At most this many accesses of freed allocations are kept (the oldest go first).
  static constexpr size_t kMaxFreedAccesses = 4096;

 private:
  struct Allocation {
    bool reported = false;  // the allocation was reported (false: the sanitizer was enabled later)
    Stream stream{Device(DeviceType::CUDA, 0), 0};
    bool stream_known = false;
    memory::FramesPtr frames;
    std::vector<Access> writes, reads;
    std::vector<Stream> recorded_streams;
  };
  std::map<uintptr_t, Allocation> allocations_;
  std::deque<Access> freed_;  // absolute ranges
};

}  // namespace ctorch::api::sanitizer
