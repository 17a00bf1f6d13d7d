// CachingHostAllocator: see Note [Caching host allocator policy] in host_allocator.h.
#include "memory/host_allocator.h"

#include <algorithm>
#include <bit>
#include <chrono>

#include "ctorch/error.h"

namespace ctorch::inline api::memory {
namespace {

int64_t micros_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
}

size_t bucket(size_t rounded) { return static_cast<size_t>(std::countr_zero(rounded)); }

void add_stat(std::map<std::string, int64_t>& out, const std::string& name, const Stat& s) {
  out[name + ".current"] = s.current;
  out[name + ".peak"] = s.peak;
  out[name + ".allocated"] = s.allocated;
  out[name + ".freed"] = s.freed;
}

void add_duration(std::map<std::string, int64_t>& out, const std::string& name, const DurationStat& d) {
  out[name + ".total"] = d.total;
  out[name + ".max"] = d.max;
  out[name + ".min"] = d.min;
  out[name + ".count"] = d.count;
  out[name + ".avg"] = d.count ? d.total / d.count : 0;
}

}  // namespace

void DurationStat::add(int64_t us) {
  total += us;
  max = count == 0 ? us : std::max(max, us);
  min = count == 0 ? us : std::min(min, us);
  ++count;
}

std::map<std::string, int64_t> flatten_host_stats(const HostStats& s) {
  std::map<std::string, int64_t> out;
  add_stat(out, "allocations", s.allocations);
  add_stat(out, "allocated_bytes", s.allocated_bytes);
  add_stat(out, "active_requests", s.active_requests);
  add_stat(out, "active_bytes", s.active_bytes);
  out["num_host_alloc"] = s.num_host_alloc;
  out["num_host_free"] = s.num_host_free;
  add_duration(out, "host_alloc_time", s.host_alloc_time);
  add_duration(out, "host_free_time", s.host_free_time);
  return out;
}

size_t CachingHostAllocator::round_size(size_t size) { return size <= 1 ? 1 : std::bit_ceil(size); }

CachingHostAllocator::CachingHostAllocator(HostBackend* backend) : backend_(backend) {}

CachingHostAllocator::~CachingHostAllocator() {
  try {
    reset();
  } catch (...) {
    // Event synchronization failed; the cached memory stays mapped.
  }
}

HostBlock* CachingHostAllocator::allocate(size_t size) {
  if (size == 0) return nullptr;
  CTORCH_CHECK_VALUE(size <= (size_t{1} << 62), "[host allocator] cannot allocate ", size, " bytes of pinned memory");
  const size_t rounded = round_size(size);
  std::lock_guard<std::mutex> lock(mu_);
  process_events();
  auto& list = free_lists_[bucket(rounded)];
  HostBlock* block = nullptr;
  if (!list.empty()) {
    block = list.back();
    list.pop_back();
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    void* ptr = backend_->allocate(rounded);  // throws OutOfMemoryError: nothing changed
    stats_.host_alloc_time.add(micros_since(t0));
    ++stats_.num_host_alloc;
    block = new HostBlock;
    block->size = rounded;
    block->ptr = ptr;
    blocks_.insert(block);
    stats_.allocations.increase(1);
    stats_.allocated_bytes.increase(rounded);
  }
  block->allocated = true;
  stats_.active_requests.increase(1);
  stats_.active_bytes.increase(block->size);
  return block;
}

void CachingHostAllocator::free(HostBlock* block) {
  if (block == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  CTORCH_INTERNAL_ASSERT(block->allocated && blocks_.count(block), "host allocator: free of a block that is not live");
  block->allocated = false;
  std::vector<Stream> streams = std::move(block->streams);
  block->streams.clear();
  for (const Stream& s : streams) {
    const DeviceIndex dev = s.device().index();
    void* e = nullptr;
    try {
      e = take_event(dev);
      backend_->record_event(e, s);
      pending_.push_back({e, dev, block});
      ++block->event_count;
    } catch (...) {
      // A stream that cannot record (sticky error) runs no further copies.
      if (e) event_pool_[dev].push_back(e);
    }
  }
  if (block->event_count == 0) make_reusable(block);
}

bool CachingHostAllocator::record_event(HostBlock* block, Stream stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (block == nullptr || !blocks_.count(block) || !block->allocated) return false;
  if (std::find(block->streams.begin(), block->streams.end(), stream) == block->streams.end()) {
    block->streams.push_back(stream);
  }
  return true;
}

void CachingHostAllocator::make_reusable(HostBlock* block) {
  stats_.active_requests.decrease(1);
  stats_.active_bytes.decrease(block->size);
  free_lists_[bucket(block->size)].push_back(block);
}

void* CachingHostAllocator::take_event(DeviceIndex index) {
  auto& pool = event_pool_[index];
  if (!pool.empty()) {
    void* e = pool.back();
    pool.pop_back();
    return e;
  }
  return backend_->create_event(index);
}

void CachingHostAllocator::process_events() {
  while (!pending_.empty()) {
    Pending p = pending_.front();
    if (!backend_->query_event(p.event)) break;  // PyTorch stops at the first event not done
    pending_.pop_front();
    event_pool_[p.device].push_back(p.event);
    if (--p.block->event_count == 0) make_reusable(p.block);
  }
}

void CachingHostAllocator::release_free_blocks() {
  for (auto& list : free_lists_) {
    for (HostBlock* b : list) {
      const auto t0 = std::chrono::steady_clock::now();
      backend_->deallocate(b->ptr);
      stats_.host_free_time.add(micros_since(t0));
      ++stats_.num_host_free;
      stats_.allocations.decrease(1);
      stats_.allocated_bytes.decrease(b->size);
      blocks_.erase(b);
      delete b;
    }
    list.clear();
  }
}

void CachingHostAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  process_events();
  release_free_blocks();
}

HostStats CachingHostAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CachingHostAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Stat* s : {&stats_.allocations, &stats_.allocated_bytes, &stats_.active_requests, &stats_.active_bytes}) {
    s->reset_peak();
  }
}

void CachingHostAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Stat* s : {&stats_.allocations, &stats_.allocated_bytes, &stats_.active_requests, &stats_.active_bytes}) {
    s->reset_accumulated();
  }
  stats_.num_host_alloc = stats_.num_host_free = 0;
  stats_.host_alloc_time = stats_.host_free_time = DurationStat{};
}

bool CachingHostAllocator::reset() {
  std::lock_guard<std::mutex> lock(mu_);
  while (!pending_.empty()) {
    Pending p = pending_.front();
    pending_.pop_front();
    try {
      backend_->synchronize_event(p.event);
    } catch (...) {
      // The stream failed: its copies will not run, the block is free.
    }
    event_pool_[p.device].push_back(p.event);
    if (--p.block->event_count == 0) make_reusable(p.block);
  }
  release_free_blocks();
  for (auto& [dev, events] : event_pool_) {
    for (void* e : events) backend_->destroy_event(e);
  }
  event_pool_.clear();
  if (!blocks_.empty()) return false;
  stats_ = HostStats{};
  return true;
}

size_t CachingHostAllocator::cached_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& list : free_lists_) n += list.size();
  return n;
}

}  // namespace ctorch::api::memory
