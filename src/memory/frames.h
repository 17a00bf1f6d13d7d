// Captured C++ stack frames, as the allocator history and the stream sanitizer keep them (a small
// header of its own, so that observers can hold frames without including the allocator).
#pragma once

#include <memory>
#include <vector>

namespace ctorch::inline api::memory {

/// Return addresses captured by backtrace(3), symbolized only when a snapshot is taken.
using RawFrames = std::vector<void*>;
/// Shared, immutable frames (a block and its trace entries share one capture).
using FramesPtr = std::shared_ptr<const RawFrames>;

}  // namespace ctorch::api::memory
