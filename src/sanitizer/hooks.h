// The stream sanitizer's hooks. The frontend (cuda/: streams, events, device synchronization)
// calls them behind one relaxed load of active(); the layers below it never include this header:
// while the sanitizer is on, it observes the op boundary (ops/op_observer.h) and the device
// allocators (memory/allocation_observer.h), which call these for it. Non-cuda tensors and
// streams are ignored.
//
// Note [Sanitizer hook placement]
// Kernels and copies report their tensors at the op boundary (the funnels of ops/launch.h and the
// cross-device copies of ops/copy.cpp): the access sets must be known before the launch, so that a
// race is reported before the racing kernel is queued and a failed check changes nothing (random
// ops take their Philox offset only after the check). Synchronization is reported where ctorch
// itself records, waits on and synchronizes streams and events (cuda/, and ops/copy.cpp through
// OpObserver::on_sync). The allocators' internal events are not reported: record_stream is
// modelled directly instead.
#pragma once

#include <atomic>
#include <cstddef>
#include <initializer_list>

#include "ctorch/device.h"
#include "ctorch/stream.h"
#include "ops/op_observer.h"

namespace ctorch::inline api {
class Tensor;
}  // namespace ctorch::api

namespace ctorch::inline api::sanitizer {

/// True while the sanitizer is on (one relaxed load).
inline std::atomic<bool> g_active{false};
/// True while the sanitizer is on.
inline bool active() noexcept { return g_active.load(std::memory_order_relaxed); }
/// Turns the sanitizer on or off: registers it with the op boundary and the allocators (or removes it).
void set_active(bool on);

/// One tensor a kernel touches (the op boundary's operand).
using Operand = ops::OpOperand;

/// A kernel named `op` is about to run on `stream` touching `operands`; throws
/// cuda::CUDASanitizerErrors (after printing the reports) and records nothing when it races.
void kernel(const char* op, Stream stream, std::initializer_list<Operand> operands);

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

/// CUDA graphs: kernels queued on a capturing stream are not checked when captured; their accesses
/// are kept per capture. graph_captured hands those of capture `capture_id` (the runtime's id) to
/// a graph and returns a token for them (0 when there are none); graph_replayed checks and records
/// them as kernels queued, in capture order, on the replay stream (throws as kernel() on a race);
/// graph_destroyed forgets them.
uint64_t graph_captured(uint64_t capture_id) noexcept;
/// See graph_captured.
void graph_replayed(uint64_t token, Stream stream);
/// See graph_captured.
void graph_destroyed(uint64_t token) noexcept;

}  // namespace ctorch::api::sanitizer
