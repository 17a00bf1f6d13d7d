// Emulated stream-ordered memory: StreamOrderedPool and EmulatedRuntime's impl::StreamOrderedMemory.
// Policy: Note [Emulated stream-ordered memory] in stream_ordered_memory.h.
#include "backends/emulated/stream_ordered_memory.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "backends/emulated/device_state.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::emulated {
// ---------------------------------------------------------------------------------------------
// StreamOrderedPool

StreamOrderedPool::~StreamOrderedPool() {
  for (const auto& [addr, block] : blocks_) arena_->deallocate(reinterpret_cast<void*>(addr));
}

bool StreamOrderedPool::reusable_locked(const Block& b, const StreamWorker* stream) const {
  return b.state == State::kFree && (b.mark.worker == stream || b.mark.worker->done(b.mark.ticket));
}

void StreamOrderedPool::take_locked(Blocks::iterator it) {
  free_.erase({it->second.size, it->first});
  it->second.state = State::kLive;
  used_ += it->second.size;
  used_high_ = std::max(used_high_, used_);
}

StreamOrderedPool::Grant StreamOrderedPool::allocate(size_t bytes, const StreamWorker* stream) {
  CTORCH_CHECK_VALUE(bytes > 0 && bytes <= SIZE_MAX - kDeviceAlignment, "[allocate_async] Expected a size in [1, ",
                     SIZE_MAX - kDeviceAlignment, "] bytes, but got ", bytes);
  const size_t size = (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
  const size_t limit = size > SIZE_MAX / 2 ? SIZE_MAX : 2 * size;
  std::lock_guard<std::mutex> lock(mu_);
  // 1. The best-fitting cached block this stream may use now.
  for (auto it = free_.lower_bound({size, 0}); it != free_.end() && it->first <= limit; ++it) {
    auto b = blocks_.find(it->second);
    if (reusable_locked(b->second, stream)) {
      take_locked(b);
      return {reinterpret_cast<void*>(b->first), false, {}};
    }
  }
  // 2. A new block from the device; on failure, first return what may go back, then retry.
  for (int attempt = 0; attempt < 2; ++attempt) {
    void* p = nullptr;
    try {
      p = arena_->allocate(size);
    } catch (const OutOfMemoryError&) {
      if (attempt == 0) trim_locked(0);
      continue;
    }
    try {
      blocks_.emplace(reinterpret_cast<uintptr_t>(p), Block{size, State::kLive, {}});
    } catch (...) {
      arena_->deallocate(p);
      throw;
    }
    reserved_ += size;
    reserved_high_ = std::max(reserved_high_, reserved_);
    used_ += size;
    used_high_ = std::max(used_high_, used_);
    return {p, false, {}};
  }
  // 3. A block whose free is still pending elsewhere: the allocating stream waits for that free.
  if (auto it = free_.lower_bound({size, 0}); it != free_.end()) {
    auto b = blocks_.find(it->second);
    const FreeMark mark = b->second.mark;
    take_locked(b);
    return {reinterpret_cast<void*>(b->first), mark.worker != stream, mark};
  }
  return {};
}

void StreamOrderedPool::undo_allocate(void* ptr, FreeMark mark) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || it->second.state != State::kLive) return;
  used_ -= it->second.size;
  it->second.state = State::kFreeing;  // stays unusable if it cannot be cached again
  try {
    free_.emplace(it->second.size, it->first);
  } catch (...) {
    return;
  }
  it->second.state = State::kFree;
  it->second.mark = mark;
}

bool StreamOrderedPool::begin_free(const void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || it->second.state != State::kLive) return false;
  it->second.state = State::kFreeing;
  used_ -= it->second.size;
  return true;
}

void StreamOrderedPool::end_free(const void* ptr, FreeMark mark) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || it->second.state != State::kFreeing) return;
  try {
    free_.emplace(it->second.size, it->first);
  } catch (...) {
    return;  // stays unusable (kFreeing) until the pool is destroyed: its free task may not have run
  }
  it->second.state = State::kFree;
  it->second.mark = mark;
}

void StreamOrderedPool::abort_free(const void* ptr) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || it->second.state != State::kFreeing) return;
  it->second.state = State::kLive;
  used_ += it->second.size;
}

impl::PoolAttributes StreamOrderedPool::attributes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {used_, used_high_, reserved_, reserved_high_};
}

void StreamOrderedPool::reset_peaks() {
  std::lock_guard<std::mutex> lock(mu_);
  used_high_ = used_;
  reserved_high_ = reserved_;
}

void StreamOrderedPool::trim_locked(uint64_t bytes) noexcept {
  // Largest first; only blocks whose free task has run (no queued work may touch them).
  for (auto it = free_.end(); it != free_.begin() && reserved_ > bytes;) {
    --it;
    auto b = blocks_.find(it->second);
    if (!b->second.mark.worker->done(b->second.mark.ticket)) continue;
    it = free_.erase(it);
    reserved_ -= b->second.size;
    arena_->deallocate(reinterpret_cast<void*>(b->first));
    blocks_.erase(b);
  }
}

void StreamOrderedPool::trim_to(size_t bytes) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  trim_locked(bytes);
}

void StreamOrderedPool::set_release_threshold(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  release_threshold_ = bytes;
}

void StreamOrderedPool::release_to_threshold() noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  trim_locked(release_threshold_);
}

size_t StreamOrderedPool::cached_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [addr, block] : blocks_) n += block.state != State::kLive;
  return n;
}

// ---------------------------------------------------------------------------------------------
// EmulatedRuntime: impl::StreamOrderedMemory

namespace {

void check_stream_device(const char* fn, DeviceIndex index, Stream s) {
  CTORCH_CHECK_VALUE(s.device().is_cuda() && s.device().index() == index, "[", fn, "] Expected a stream of cuda:",
                     static_cast<int>(index), ", but got ", s);
}

}  // namespace

void* EmulatedRuntime::allocate_async(DeviceIndex index, size_t bytes, Stream s) {
  DeviceState& dev = device(index);
  check_stream_device("allocate_async", index, s);
  StreamWorker& w = worker(s);
  const StreamOrderedPool::Grant g = dev.pool->allocate(bytes, &w);
  if (g.ptr != nullptr && g.must_wait) {
    const StreamWorker* freer = g.wait_for.worker;
    const Ticket t = g.wait_for.ticket;
    try {
      enqueue_internal(
          s, [freer, t] { freer->wait(t); }, "allocate_async: wait for a pending free on " + freer->label(), false,
          impl::TaskKind::WaitEvent);
    } catch (...) {
      dev.pool->undo_allocate(g.ptr, g.wait_for);
      throw;
    }
  }
  return g.ptr;
}

void EmulatedRuntime::free_async(DeviceIndex index, void* ptr, Stream s) {
  DeviceState& dev = device(index);
  check_stream_device("free_async", index, s);
  StreamWorker& w = worker(s);
  CTORCH_CHECK(dev.pool->begin_free(ptr), "CUDA error: invalid argument (emulated free_async on cuda:",
               static_cast<int>(index), ": ", hex(ptr), " is not an allocation of the device's memory pool; double free?)");
  Ticket t = 0;
  try {
    // A marker only: the free writes nothing (as on a GPU), so a stream still reading the block
    // without record_stream sees its old data rather than a host data race with a poison fill.
    t = enqueue_internal(s, [] {}, "free_async", /*always_run=*/true, impl::TaskKind::RecordEvent);
  } catch (...) {
    dev.pool->abort_free(ptr);
    throw;
  }
  dev.pool->end_free(ptr, FreeMark{&w, t});
}

impl::PoolAttributes EmulatedRuntime::pool_attributes(DeviceIndex index) { return device(index).pool->attributes(); }

void EmulatedRuntime::reset_pool_peaks(DeviceIndex index) { device(index).pool->reset_peaks(); }

void EmulatedRuntime::trim_pool_to(DeviceIndex index, size_t bytes) { device(index).pool->trim_to(bytes); }

void EmulatedRuntime::set_pool_release_threshold(DeviceIndex index, uint64_t bytes) {
  device(index).pool->set_release_threshold(bytes);
}

}  // namespace ctorch::api::backends::emulated
