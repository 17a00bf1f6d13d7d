// The emulated CUDA runtime: N virtual GPUs in host memory, with real data and real asynchrony.
//
// Note [Emulated runtime]
// - Devices: configured by EmulationConfig (CTORCH_EMULATED_CUDA, ctorch::cuda::emulate(), or
//   configure()); reconfiguring is refused while allocations, events or stream work are alive.
// - Memory: Note [Emulated device memory] (memory.h) and, for the expandable segments of the
//   caching allocator, Note [Emulated virtual memory] (virtual_memory.h); for backend:cudaMallocAsync,
//   Note [Emulated stream-ordered memory] (stream_ordered_memory.h). Device pointers fault on the host; kernels
//   reach memory through translate(), which checks liveness, bounds and peer access.
// - Streams: stream 0 of each device is the legacy default stream; create_stream() hands out
//   pool streams round-robin (32 per priority level, 4 levels, PyTorch's StreamId encoding).
//   Every stream is served by its own worker thread (StreamWorker), started at the first task.
//   Pool streams are NON-BLOCKING (cudaStreamNonBlocking, as PyTorch creates them): the default
//   stream does not synchronize with them. Only blocking streams (create_blocking_stream(), the
//   emulated cudaStreamCreate) take part in the legacy rule: work on the default stream waits for
//   all earlier work on the device's blocking streams, and later work on those waits for it.
// - Errors: a task that throws makes its stream sticky (StreamWorker); query/synchronize of the
//   stream, synchronize_device, and query/synchronize of events recorded after the failure
//   rethrow it as ctorch::Error; waiting on such an event makes the waiting stream sticky too.
// - Copies from or to pageable host memory behave as cudaMemcpyAsync does: H2D stages the
//   source before returning (the caller may reuse its buffer at once), D2H returns only after the
//   copy has completed. Copies with pinned host memory (pinned_allocate) are fully asynchronous.
// - raw_free and pinned_free wait for queued work first (raw_free: the owning device's streams;
//   pinned_free: every device), as cudaFree/cudaFreeHost do, except when called from a stream
//   task, where waiting could deadlock. A peer device's task still using freed memory fails its
//   translate() (or, if it translated earlier, sees the poison pattern). Invalid frees cannot
//   throw: they become a sticky error of the device, reported by synchronize_device.
// - Copy and memset tasks check their device pointers twice: at enqueue (invalid argument, thrown
//   to the caller) and again when they run (illegal memory access, sticky on the stream).
// - Workers of instance() are stopped at process exit (atexit): the running task finishes, queued
//   tasks are dropped, and later tasks run inline. The instance itself is leaked on purpose so
//   that tensors destroyed during static destruction can still free their memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ctorch/emulation.h"
#include "runtime/device_runtime.h"
#include "runtime/task_hooks.h"

namespace ctorch::inline api::backends::emulated {

class StreamWorker;
struct Topology;
struct DeviceState;
struct EmulatedEvent;
class IpcEventMapping;
struct Record;
class PinnedRegistry;
struct CaptureRegistry;

/// Priority levels of the stream pools (0, -1, -2, -3) and streams per level.
inline constexpr int kPriorityLevels = 4;
inline constexpr int kStreamsPerPool = 32;
/// Maximum number of emulated devices.
inline constexpr int kMaxDevices = 64;

/// N emulated CUDA devices (see Note [Emulated runtime]). Every method is thread-safe.
class EmulatedRuntime final : public impl::DeviceRuntime,
                              public impl::PeerAccess,
                              public impl::NativeStreams,
                              public impl::VirtualMemory,
                              public impl::EventIpc,
                              public impl::StreamOrderedMemory,
                              public impl::DeviceTelemetry,
                              public impl::BlasHandles,
                              public impl::MemoryIpc,
                              public impl::StreamCapture {
 public:
  /// A runtime with no devices (configure() adds them).
  EmulatedRuntime();
  /// A runtime configured by `config`.
  explicit EmulatedRuntime(const ::ctorch::cuda::EmulationConfig& config);
  /// Waits for queued work, then releases workers, memory and events. Must not throw.
  ~EmulatedRuntime() override;
  EmulatedRuntime(const EmulatedRuntime&) = delete;
  EmulatedRuntime& operator=(const EmulatedRuntime&) = delete;

  // --- impl::DeviceRuntime ---
  DeviceType type() const noexcept override { return DeviceType::CUDA; }
  int device_count() const noexcept override;
  impl::DeviceProperties properties(DeviceIndex index) const override;
  DeviceIndex current_device() const override;
  void set_current_device(DeviceIndex index) override;
  Stream create_stream(DeviceIndex index, int priority) override;
  bool query_stream(Stream s) override;
  void synchronize_stream(Stream s) override;
  void synchronize_device(DeviceIndex index) override;
  impl::EventHandle create_event(DeviceIndex index, impl::EventFlags flags) override;
  void destroy_event(impl::EventHandle e) noexcept override;
  void record_event(impl::EventHandle e, Stream s) override;
  void wait_event(Stream s, impl::EventHandle e) override;
  bool query_event(impl::EventHandle e) override;
  void synchronize_event(impl::EventHandle e) override;
  float elapsed_ms(impl::EventHandle start, impl::EventHandle end) override;
  void* raw_allocate(DeviceIndex index, size_t bytes) override;
  void raw_free(DeviceIndex index, void* ptr) noexcept override;
  void copy_async(void* dst, DeviceIndex dst_index, const void* src, DeviceIndex src_index,
                  size_t bytes, Stream s) override;
  void memset_async(void* dst, int value, size_t bytes, Stream s) override;
  void* pinned_allocate(size_t bytes) override;
  void pinned_free(void* ptr) noexcept override;
  void memory_info(DeviceIndex index, size_t* free_bytes, size_t* total_bytes) override;

  // --- emulated-only API ---
  /// Replaces the devices; throws ValueError for a bad config and Error while allocations,
  /// events or stream work are alive. Streams and sticky errors of the old devices are gone.
  void configure(const ::ctorch::cuda::EmulationConfig& config);
  /// The current configuration.
  ::ctorch::cuda::EmulationConfig config() const;
  /// Runs `task` on stream `s`'s worker after the work queued before it. An exception thrown by
  /// the task becomes the stream's sticky error, reported with `site` (e.g. "add at
  /// ops/binary_ops.cpp:42"; copied, so any string will do).
  void enqueue(Stream s, std::function<void()> task, const char* site);
  /// The read-write alias of [device_ptr, device_ptr + bytes) after checking that the range lies
  /// inside ONE live allocation of a device that `executing_device` may access (itself or a
  /// peer); throws Error "CUDA error: an illegal memory access was encountered (...)" otherwise.
  void* translate(const void* device_ptr, size_t bytes, DeviceIndex executing_device) const;
  /// True when `ptr` lies in the memory range of an emulated device; stores its index.
  bool owns(const void* ptr, DeviceIndex* device) const noexcept;
  /// True when `ptr` lies in memory from pinned_allocate (tensor.is_pinned()).
  bool is_pinned_pointer(const void* ptr) const noexcept;
  // --- impl::PeerAccess ---
  /// True when `device` may access memory of `peer` (cudaDeviceCanAccessPeer; false for itself).
  bool can_access_peer(DeviceIndex device, DeviceIndex peer) const override;
  /// A new BLOCKING stream (cudaStreamCreate; id even, as an external stream's), which takes part
  /// in the legacy default-stream synchronization. At most 64 per device.
  Stream create_blocking_stream(DeviceIndex index);
  // --- impl::NativeStreams ---
  /// An opaque handle naming `s` (null for the default stream); valid until configure().
  void* native_handle(Stream s) override;
  /// The stream whose native_handle() is `handle` on device `index`.
  Stream external_stream(DeviceIndex index, void* handle) override;
  /// Priority of a stream (0 for default and blocking streams, -pri_idx for pool streams).
  int stream_priority(Stream s) override;
  /// (0, -(kPriorityLevels - 1)).
  std::pair<int, int> priority_range() override { return {0, -(kPriorityLevels - 1)}; }
  // --- impl::VirtualMemory (virtual_memory.cpp; Note [Emulated virtual memory]) ---
  /// Reserves device addresses of `index` (PROT_NONE host ranges); null when the host has none left.
  void* reserve_address_range(DeviceIndex index, size_t bytes, size_t page_size) override;
  /// Maps pages charged to the device's capacity; false when they do not fit.
  bool map_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) override;
  /// Waits for the device's work (except from a stream task), then unmaps; a bad range is a sticky device error.
  void unmap_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) noexcept override;
  /// Waits for the device's work (except from a stream task), then frees the reservation.
  void release_address_range(DeviceIndex index, void* base) noexcept override;
  // --- impl::EventIpc (ipc_event.cpp; Note [Emulated interprocess events]) ---
  /// The handle of an interprocess event: its shared-memory object's name, nonce and device.
  impl::IpcEventBytes ipc_event_handle(impl::EventHandle e) override;
  /// Maps the shared object `handle` names as a new event of `index` (which must be its device).
  impl::EventHandle open_ipc_event(DeviceIndex index, const impl::IpcEventBytes& handle) override;
  // --- impl::StreamOrderedMemory (stream_ordered_memory.cpp; Note [Emulated stream-ordered memory]) ---
  /// A block of the device's pool for stream `s` (of the same device); null when it does not fit.
  void* allocate_async(DeviceIndex index, size_t bytes, Stream s) override;
  /// Queues the free on `s`; throws for a pointer the pool did not hand out.
  void free_async(DeviceIndex index, void* ptr, Stream s) override;
  /// The pool's used and reserved bytes and their peaks.
  impl::PoolAttributes pool_attributes(DeviceIndex index) override;
  /// Resets the pool's peaks to the current values.
  void reset_pool_peaks(DeviceIndex index) override;
  /// Returns cached blocks whose free has run to the device until at most `bytes` stay reserved.
  void trim_pool_to(DeviceIndex index, size_t bytes) override;
  /// The pool keeps up to `bytes` when the device is synchronized (default 0).
  void set_pool_release_threshold(DeviceIndex index, uint64_t bytes) override;
  // --- impl::DeviceTelemetry (telemetry.cpp; Note [Emulated telemetry model]) ---
  /// Utilization and memory usage from the device's busy meters; temperature and power modelled from them.
  impl::TelemetrySample telemetry(DeviceIndex index) override;
  /// This process, with the bytes it holds on the device, when it holds any.
  std::vector<impl::DeviceProcess> device_processes(DeviceIndex index) override;
  /// "ctorch <version> (emulated)".
  std::string driver_version() override;
  // --- impl::BlasHandles (telemetry.cpp) ---
  /// A stable non-null token per (device, calling thread).
  void* blas_handle(DeviceIndex index, Stream s) override;
  // --- impl::MemoryIpc (ipc_memory.cpp; Note [Emulated interprocess memory]) ---
  /// The handle of the raw allocation containing `ptr`, and ptr's offset in it.
  std::pair<impl::IpcMemBytes, size_t> ipc_mem_handle(DeviceIndex index, const void* ptr) override;
  /// Maps another process's allocation as device memory of `index`.
  void* open_ipc_mem_handle(DeviceIndex index, const impl::IpcMemBytes& handle) override;
  /// Unmaps an opened allocation once the device's queued work has run.
  void close_ipc_mem_handle(DeviceIndex index, void* base) noexcept override;
  // --- impl::StreamCapture (stream_capture.cpp; Note [Emulated stream capture]) ---
  /// Starts capturing pool or blocking stream `s`.
  void begin_capture(Stream s, impl::CaptureMode mode) override;
  /// Ends the capture `s` began; its task list becomes the graph.
  impl::GraphHandle end_capture(Stream s) override;
  /// Status of `s` (and its capture's id).
  impl::CaptureStatus capture_status(Stream s, uint64_t* id = nullptr) override;
  /// Captured tasks of `g`.
  size_t graph_node_count(impl::GraphHandle g) override;
  /// An executable graph sharing g's task list.
  impl::GraphExecHandle instantiate_graph(impl::GraphHandle g) override;
  /// Queues one task on `s` that runs the graph's tasks in order.
  void launch_graph(impl::GraphExecHandle exec, Stream s) override;
  /// Frees a graph.
  void destroy_graph(impl::GraphHandle g) noexcept override;
  /// Frees an executable graph (queued replays keep its tasks alive).
  void destroy_graph_exec(impl::GraphExecHandle exec) noexcept override;
  /// Writes one line per captured task (its site) to `path`.
  void debug_dump_graph(impl::GraphHandle g, const std::string& path) override;
  /// Physical bytes backing device `index` (fresh, live, and quarantined freed memory).
  size_t committed_bytes(DeviceIndex index) const;
  /// Live raw allocations on device `index`.
  size_t live_allocations(DeviceIndex index) const;

 private:
  Topology& topology() const;
  DeviceState& device(DeviceIndex index, bool stream_api = false) const;
  StreamWorker& worker(Stream s) const;
  EmulatedEvent* event(impl::EventHandle e) const;
  // Every task queued on an emulated stream passes here (and through impl::observe_task).
  uint64_t enqueue_internal(Stream s, std::function<void()> task, std::string site, bool always_run,
                            impl::TaskKind kind);
  // record_event / wait_event of interprocess events (ipc_event.cpp).
  void ipc_record(const std::shared_ptr<IpcEventMapping>& m, Stream s);
  void ipc_wait(Stream s, const std::shared_ptr<IpcEventMapping>& m);
  // Stream capture (stream_capture.cpp): appends `task` to the capture of `s` and returns true
  // when `s` captures; refuses legacy-stream work while a blocking stream captures.
  bool capture_task(Stream s, bool legacy, std::function<void()>& task, const std::string& site);
  // Throws (and invalidates) when a potentially unsafe call `what` on `s` (null: none) is refused.
  // `device` >= 0: a device-wide synchronization, refused while any stream of the device captures.
  void check_capture_safe(const Stream* s, const char* what, DeviceIndex device = -1);
  // record_event on a capturing stream; false when `s` does not capture.
  bool capture_record(EmulatedEvent* ev, Stream s);
  // wait_event on an event recorded in a capture: joins `s` to it; false when not such an event.
  bool capture_wait(Stream s, const std::shared_ptr<Record>& rec);
  void drain_device(DeviceState& dev) const noexcept;
  void drain_all() const noexcept;
  void shutdown_workers() noexcept;
  void* endpoint(const void* p, DeviceIndex index, size_t bytes, DeviceIndex exec, const char* fn,
                 const char* what) const;
  friend void shutdown_instance_at_exit() noexcept;

  std::atomic<Topology*> topology_;
  mutable std::mutex config_mu_;  // serializes configure(); guards retired_
  std::vector<std::unique_ptr<Topology>> retired_;  // old topologies (small; resources released)
  std::unique_ptr<PinnedRegistry> pinned_;
  mutable std::mutex events_mu_;
  std::unordered_set<EmulatedEvent*> events_;  // live events; guarded by events_mu_
  std::unique_ptr<CaptureRegistry> captures_;
  std::atomic<int> capture_count_{0};  // active captures (checked before taking captures_->mu)
};

/// The process-wide emulated runtime (leaked on purpose; see Note [Emulated runtime]).
EmulatedRuntime& instance();
/// Parses CTORCH_EMULATED_CUDA once and configures instance() with it; returns it, or null
/// when the variable is unset, empty, "0", or asks for 0 devices. Throws ValueError for a bad spec.
impl::DeviceRuntime* runtime_from_environment();
/// Parses a CTORCH_EMULATED_CUDA value; nullopt for "" and "0". Throws ValueError naming the
/// bad key or value.
std::optional<::ctorch::cuda::EmulationConfig> parse_config(std::string_view spec);
/// Checks a configuration; throws ValueError naming the bad field.
void validate_config(const ::ctorch::cuda::EmulationConfig& config);
/// Properties of emulated device `index` under `config`.
impl::DeviceProperties make_properties(const ::ctorch::cuda::EmulationConfig& config, DeviceIndex index);

}  // namespace ctorch::api::backends::emulated
