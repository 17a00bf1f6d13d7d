// Cheap C++ stack captures for the allocation history: raw return addresses now (backtrace(3)),
// names only when a snapshot asks for them (backtrace_symbols + demangling).
#pragma once

#include <unordered_map>
#include <vector>

#include "ctorch/cuda_memory_snapshot.h"
#include "memory/frames.h"

namespace ctorch::inline api::memory {

/// The calling thread's return addresses, without the innermost `skip` frames (at most
/// `max_frames`, itself at most 32).
FramesPtr capture_frames(int skip, int max_frames = 32);

/// Symbolizes frames, remembering each address's Frame in `cache` across calls.
class FrameSymbolizer {
 public:
  /// The Frames of `frames` (empty for null).
  std::vector<cuda::Frame> operator()(const FramesPtr& frames);

 private:
  std::unordered_map<void*, cuda::Frame> cache_;
};

}  // namespace ctorch::api::memory
