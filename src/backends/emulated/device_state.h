// DeviceState, Topology and EmulatedEvent: the state of the emulated runtime, shared by
// runtime.cpp, virtual_memory.cpp, ipc_event.cpp and stream_ordered_memory.cpp (private to backends/emulated).
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/emulated/activity.h"
#include "backends/emulated/ipc_event.h"
#include "backends/emulated/ipc_memory.h"
#include "backends/emulated/memory.h"
#include "backends/emulated/runtime.h"
#include "backends/emulated/stream_ordered_memory.h"
#include "backends/emulated/stream_capture.h"
#include "backends/emulated/stream_worker.h"
#include "backends/emulated/virtual_memory.h"

namespace ctorch::inline api::backends::emulated {

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
  std::unique_ptr<IpcImports> imports = std::make_unique<IpcImports>();  // other processes' memory (impl::MemoryIpc)
  std::vector<char> peer;  // peer[j]: this device may access memory of device j
  WorkerOptions worker_options;  // .activity points at `activity`
  DeviceActivity activity;       // busy meters (Note [Emulated device activity])

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
  ::ctorch::cuda::EmulationConfig config;
  uint64_t generation = 0;
  std::vector<std::unique_ptr<DeviceState>> devices;
};

/// What one record_event captured: a position in one stream, stamped when the worker reaches it.
struct Record {
  StreamWorker* worker = nullptr;
  Ticket ticket = 0;
  // Written by the record task before its ticket completes; read after done(ticket).
  int64_t time_ns = 0;
  bool failed = false;  // the stream had a sticky error when the record task ran
  std::string error;
  // Recorded on a capturing stream (Note [Emulated stream capture]): the capture, the recording
  // stream and the sequence of its last captured task; ticket is 0 (nothing runs).
  std::shared_ptr<Capture> capture;
  Stream stream = Stream::default_stream(Device(DeviceType::CPU, 0));
  uint64_t capture_seq = 0;
};

/// One event. Interprocess events keep their records in `ipc` instead of `record`.
struct EmulatedEvent {
  DeviceIndex device;
  impl::EventFlags flags;
  std::mutex mu;
  std::shared_ptr<Record> record;        // latest record; guarded by mu
  std::shared_ptr<IpcEventMapping> ipc;  // Note [Emulated interprocess events]; set at creation
};

/// True when `p` lies in device memory of `dev`: its arena, one of its reservations, or an IPC import.
inline bool device_contains(const DeviceState& dev, const void* p) noexcept {
  return dev.arena->contains(p) || dev.vspace->contains(p) || dev.imports->contains(p);
}

/// Checks [p, p + bytes) against the live allocations (arena), mapped pages (reservations) or IPC
/// imports of `dev`.
inline Lookup lookup_device_memory(const DeviceState& dev, const void* p, size_t bytes) {
  if (dev.arena->contains(p)) return dev.arena->lookup(p, bytes);
  if (dev.imports->count() > 0 && dev.imports->contains(p)) return dev.imports->lookup(p, bytes);
  return dev.vspace->lookup(p, bytes);
}

}  // namespace ctorch::api::backends::emulated
