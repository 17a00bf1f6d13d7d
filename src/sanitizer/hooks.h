// The stream sanitizer's hooks: ctorch's op, stream, event and allocator code calls these, each
// behind one relaxed load of active(), so they cost nothing while the sanitizer is off.
// Non-cuda tensors and streams are ignored.
//
// Note [Sanitizer hook placement]
// Kernels and copies report their tensors where the op layer launches them (ops/, tensor/,
// random/): the access sets must be known before the launch, so that a race is reported before
// the racing kernel is queued and a failed check changes nothing. Synchronization is reported
// where ctorch itself records, waits on and synchronizes streams and events (cuda/, ops/copy.cpp).
// The allocators' internal events are not reported: record_stream is modelled directly instead.
#pragma once

#include <atomic>
#include <cstddef>
#include <initializer_list>

#include "ctorch/device.h"
#include "ctorch/stream.h"

namespace ctorch {
class Tensor;
}

namespace ctorch::sanitizer {

/// True while the sanitizer is on (one relaxed load).
inline std::atomic<bool> g_active{false};
/// True while the sanitizer is on.
inline bool active() noexcept { return g_active.load(std::memory_order_relaxed); }

/// One tensor a kernel touches: `name` is its argument ("self", "other", "out"); `write` when
/// the kernel writes it; `output` when it is the op's result.
struct Operand {
  const Tensor& tensor;
  const char* name;
  bool write = false;
  bool output = false;
};

/// A kernel named `op` is about to run on `stream` touching `operands`; throws
/// cuda::CUDASanitizerErrors (after printing the reports) and records nothing when it races.
void kernel(const char* op, Stream stream, std::initializer_list<Operand> operands);
/// As kernel(), on the current stream of the first cuda operand's device.
void kernel(const char* op, std::initializer_list<Operand> operands);

/// Event `event` (a runtime handle) now captures the work queued on `stream`.
void event_record(const void* event, Stream stream) noexcept;
/// Work queued on `stream` from now on waits for `event`.
void event_wait(const void* event, Stream stream) noexcept;
/// The host knows the work captured by `event` has finished (synchronize, or a query that returned true).
void event_synchronize(const void* event) noexcept;
/// `event` is destroyed; its handle may be reused.
void event_destroy(const void* event) noexcept;
/// The host knows the work queued on `stream` so far has finished.
void stream_synchronize(Stream stream) noexcept;
/// The host knows the work queued on every stream of `device` has finished.
void device_synchronize(Device device) noexcept;

/// The allocator handed out `bytes` at `ptr` for use on `stream`.
void memory_allocated(const void* ptr, size_t bytes, Stream stream) noexcept;
/// The allocation at `ptr` was freed; with `reusable`, the caching allocator may hand its memory
/// out again on its allocation stream without synchronizing (raw frees synchronize).
void memory_freed(const void* ptr, bool reusable) noexcept;
/// record_stream(`stream`) on the allocation at `ptr`: the allocator will not reuse it before
/// the work queued on `stream` so far has finished.
void record_stream(const void* ptr, Stream stream) noexcept;

}  // namespace ctorch::sanitizer
