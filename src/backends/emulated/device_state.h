// DeviceState and Topology: the per-device state of the emulated runtime, shared by runtime.cpp
// virtual_memory.cpp and stream_ordered_memory.cpp (private to backends/emulated).
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/emulated/memory.h"
#include "backends/emulated/runtime.h"
#include "backends/emulated/stream_ordered_memory.h"
#include "backends/emulated/stream_worker.h"
#include "backends/emulated/virtual_memory.h"

namespace ctorch::backends::emulated {

// Slots of a device's stream table: 0 = legacy default stream, then the pools, then blocking.
constexpr int kPoolSlots = kPriorityLevels * kStreamsPerPool;
constexpr int kMaxBlockingStreams = 64;
constexpr int kSlots = 1 + kPoolSlots + kMaxBlockingStreams;
constexpr int kFirstBlockingSlot = 1 + kPoolSlots;

/// One emulated device: memory, peers, stream workers, sticky device error.
struct DeviceState {
  DeviceIndex index = 0;
  impl::DeviceProperties props;
  std::unique_ptr<Arena> arena;
  std::unique_ptr<VirtualSpace> vspace;  // reservations (impl::VirtualMemory); destroyed before arena
  std::unique_ptr<StreamOrderedPool> pool;  // impl::StreamOrderedMemory; destroyed before arena
  std::vector<char> peer;  // peer[j]: this device may access memory of device j
  WorkerOptions worker_options;

  std::mutex create_mu;  // guards creation of workers
  std::array<std::atomic<StreamWorker*>, kSlots> workers{};  // created lazily, owned
  std::array<std::atomic<uint32_t>, kPriorityLevels> next_pool{};
  std::atomic<int> blocking_count{0};
  std::mutex legacy_mu;  // orders enqueues on the default and the blocking streams

  std::mutex error_mu;
  std::string device_error;  // sticky device-level error (bad raw_free); guarded by error_mu

  ~DeviceState() {
    for (auto& w : workers) delete w.load();
  }
};

/// The configured devices (replaced as a whole by configure()).
struct Topology {
  cuda::EmulationConfig config;
  uint64_t generation = 0;
  std::vector<std::unique_ptr<DeviceState>> devices;
};

/// True when `p` lies in device memory of `dev`: its arena or one of its reservations.
inline bool device_contains(const DeviceState& dev, const void* p) noexcept {
  return dev.arena->contains(p) || dev.vspace->contains(p);
}

/// Checks [p, p + bytes) against the live allocations (arena) or mapped pages (reservations) of `dev`.
inline Lookup lookup_device_memory(const DeviceState& dev, const void* p, size_t bytes) {
  return dev.arena->contains(p) ? dev.arena->lookup(p, bytes) : dev.vspace->lookup(p, bytes);
}

}  // namespace ctorch::backends::emulated
