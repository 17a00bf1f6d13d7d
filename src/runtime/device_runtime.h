// DeviceRuntime: the one seam where backends (cpu, emulated cuda, real cuda) differ on the host.
//
// Every method is pure and has a one-line contract. Optional features (IPC, peer access) are
// separate small interfaces a runtime also implements (found by dynamic_cast), never methods that
// throw "not supported". Kernel launch is not here: launchers are templates per backend.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ctorch/device.h"
#include "ctorch/stream.h"

namespace ctorch::inline api::impl {

/// Opaque event handle owned by a runtime.
using EventHandle = void*;

/// Event creation flags (as cudaEventCreateWithFlags).
struct EventFlags {
  bool enable_timing = false;
  bool blocking = false;
  bool interprocess = false;
};

/// Properties of one device (the fields torch.cuda.get_device_properties exposes).
struct DeviceProperties {
  std::string name;
  int major = 0;
  int minor = 0;
  size_t total_memory = 0;
  int multi_processor_count = 0;
  int max_threads_per_multi_processor = 0;
  int warp_size = 32;
  size_t l2_cache_size = 0;
  bool is_integrated = false;
  bool is_multi_gpu_board = false;
  std::string uuid;
  int pci_bus_id = 0;
  int pci_device_id = 0;
  int pci_domain_id = 0;
};

/// The host-side interface of one device type.
class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // identity
  /// The device type this runtime serves.
  virtual DeviceType type() const noexcept = 0;
  /// Number of usable devices; never throws, 0 when the backend cannot run.
  virtual int device_count() const noexcept = 0;
  /// Properties of `index`; throws for an invalid index.
  virtual DeviceProperties properties(DeviceIndex index) const = 0;

  // current device (thread-local)
  /// The calling thread's current device index.
  virtual DeviceIndex current_device() const = 0;
  /// Makes `index` current for the calling thread; throws for an invalid index.
  virtual void set_current_device(DeviceIndex index) = 0;

  // streams
  /// A stream from the device's pool (round-robin) with `priority` (lower is higher priority).
  virtual Stream create_stream(DeviceIndex index, int priority) = 0;
  /// True when all work queued on `s` has finished; rethrows a sticky error.
  virtual bool query_stream(Stream s) = 0;
  /// Blocks until all work queued on `s` has finished; rethrows a sticky error.
  virtual void synchronize_stream(Stream s) = 0;
  /// Blocks until all work on every stream of the device has finished.
  virtual void synchronize_device(DeviceIndex index) = 0;

  // events
  /// A new event on `index`.
  virtual EventHandle create_event(DeviceIndex index, EventFlags flags) = 0;
  /// Destroys an event; must not throw.
  virtual void destroy_event(EventHandle e) noexcept = 0;
  /// Captures the work queued on `s` so far.
  virtual void record_event(EventHandle e, Stream s) = 0;
  /// Makes future work on `s` wait for `e` (device-side; the host does not block).
  virtual void wait_event(Stream s, EventHandle e) = 0;
  /// True when the captured work has finished (or the event was never recorded).
  virtual bool query_event(EventHandle e) = 0;
  /// Blocks until the captured work has finished.
  virtual void synchronize_event(EventHandle e) = 0;
  /// Milliseconds between two completed timing events.
  virtual float elapsed_ms(EventHandle start, EventHandle end) = 0;

  // memory (uncached; caching is the allocator layer's job)
  /// `bytes` of device memory; throws OutOfMemoryError when the device has no room.
  virtual void* raw_allocate(DeviceIndex index, size_t bytes) = 0;
  /// Returns memory from raw_allocate; must not throw.
  virtual void raw_free(DeviceIndex index, void* ptr) noexcept = 0;
  /// Copies `bytes` on stream `s`; either side may be host memory (index -1).
  virtual void copy_async(void* dst, DeviceIndex dst_index, const void* src, DeviceIndex src_index,
                          size_t bytes, Stream s) = 0;
  /// Sets `bytes` bytes at `dst` to `value` on stream `s`.
  virtual void memset_async(void* dst, int value, size_t bytes, Stream s) = 0;
  /// `bytes` of page-locked host memory.
  virtual void* pinned_allocate(size_t bytes) = 0;
  /// Returns memory from pinned_allocate; must not throw.
  virtual void pinned_free(void* ptr) noexcept = 0;
  /// Free and total bytes of device `index` (cudaMemGetInfo).
  virtual void memory_info(DeviceIndex index, size_t* free_bytes, size_t* total_bytes) = 0;
};

/// Optional interface of runtimes whose devices may access each other's memory.
class PeerAccess {
 public:
  virtual ~PeerAccess() = default;
  /// True when kernels on `device` may access memory of `peer` (false for device == peer, as CUDA).
  virtual bool can_access_peer(DeviceIndex device, DeviceIndex peer) const = 0;
};

/// PeerAccess::can_access_peer when `runtime` implements it, else false.
inline bool runtime_can_access_peer(DeviceRuntime& runtime, DeviceIndex device, DeviceIndex peer) {
  auto* p = dynamic_cast<PeerAccess*>(&runtime);
  return p != nullptr && p->can_access_peer(device, peer);
}

/// Optional interface of runtimes whose streams have native handles and priorities (cudaStream_t;
/// the emulated runtime hands out opaque handles of the same shape).
class NativeStreams {
 public:
  virtual ~NativeStreams() = default;
  /// The native handle of `s` (its cudaStream_t); null for the legacy default stream.
  virtual void* native_handle(Stream s) = 0;
  /// The stream of device `index` whose native handle is `handle` (not owned; an external stream).
  virtual Stream external_stream(DeviceIndex index, void* handle) = 0;
  /// Priority of `s` (lower is higher priority; 0 for the default stream).
  virtual int stream_priority(Stream s) = 0;
  /// (least, greatest) pool priority, as c10's CUDAStream::priority_range(), e.g. (0, -3).
  virtual std::pair<int, int> priority_range() = 0;
};

/// The NativeStreams interface of `runtime`, or null when it has none.
inline NativeStreams* native_streams(DeviceRuntime& runtime) { return dynamic_cast<NativeStreams*>(&runtime); }

/// Optional interface of runtimes that manage device virtual memory (the driver's
/// cuMemAddressReserve / cuMemCreate + cuMemMap / cuMemUnmap + cuMemRelease / cuMemAddressFree),
/// used by the caching allocator's expandable segments. A reservation is mapped page by page.
class VirtualMemory {
 public:
  virtual ~VirtualMemory() = default;
  /// Reserves `bytes` (a multiple of `page_size`) of address space on `index`, nothing mapped;
  /// null when no address space is left. `page_size` must be a multiple of 2 MiB.
  virtual void* reserve_address_range(DeviceIndex index, size_t bytes, size_t page_size) = 0;
  /// Backs the whole pages [base + offset, base + offset + bytes) with new device memory; false
  /// (nothing mapped) when the device is out of memory. Other errors throw.
  virtual bool map_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) = 0;
  /// Waits for the device's queued work, then unmaps and frees mapped whole pages; must not throw.
  virtual void unmap_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) noexcept = 0;
  /// Returns a reservation (pages still mapped are unmapped first); must not throw.
  virtual void release_address_range(DeviceIndex index, void* base) noexcept = 0;
};

/// The VirtualMemory interface of `runtime`, or null when it has none.
inline VirtualMemory* virtual_memory(DeviceRuntime& runtime) { return dynamic_cast<VirtualMemory*>(&runtime); }

/// Bytes of an interprocess event handle (sizeof(cudaIpcEventHandle_t)).
inline constexpr size_t kIpcEventHandleSize = 64;
/// The bytes of an interprocess event handle, opaque outside the runtime that made them.
using IpcEventBytes = std::array<char, kIpcEventHandleSize>;

/// Optional interface of runtimes whose events can be shared between processes
/// (cudaIpcGetEventHandle / cudaIpcOpenEventHandle). Only events created with
/// EventFlags::interprocess (and timing disabled) have handles.
class EventIpc {
 public:
  virtual ~EventIpc() = default;
  /// The handle of `e`; throws ValueError when `e` was not created with interprocess.
  virtual IpcEventBytes ipc_event_handle(EventHandle e) = 0;
  /// A new event of device `index` naming the event behind `handle` (destroy it with
  /// destroy_event); throws for an invalid index or a handle that names no live event.
  virtual EventHandle open_ipc_event(DeviceIndex index, const IpcEventBytes& handle) = 0;
};

/// The EventIpc interface of `runtime`, or null when it has none.
inline EventIpc* event_ipc(DeviceRuntime& runtime) { return dynamic_cast<EventIpc*>(&runtime); }

/// One reading of a device's activity and sensors, in NVML's units (docs/telemetry.md).
struct TelemetrySample {
  unsigned utilization = 0;   // % of the last sample period in which one or more kernels ran
  unsigned memory_usage = 0;  // % of the last sample period in which device memory was read or written
  unsigned temperature = 0;   // GPU die temperature, degrees C
  unsigned power_draw = 0;    // milliwatts
  unsigned power_limit = 0;   // milliwatts (the power cap)
  unsigned clock_rate = 0;    // SM clock, MHz
};

/// A process holding memory on a device.
struct DeviceProcess {
  int64_t pid = 0;
  uint64_t used_bytes = 0;
};

/// Optional interface of runtimes that report device telemetry themselves (the emulated runtime's
/// model). Runtimes without it (real CUDA) are read through NVML by the frontend.
class DeviceTelemetry {
 public:
  virtual ~DeviceTelemetry() = default;
  /// A reading of device `index`; throws for an invalid index.
  virtual TelemetrySample telemetry(DeviceIndex index) = 0;
  /// The processes holding memory on device `index` (those the runtime can see).
  virtual std::vector<DeviceProcess> device_processes(DeviceIndex index) = 0;
  /// The driver version line nvidia-smi prints ("ctorch 0.1.0 (emulated)").
  virtual std::string driver_version() = 0;
};

/// The DeviceTelemetry interface of `runtime`, or null when it has none.
inline DeviceTelemetry* device_telemetry(DeviceRuntime& runtime) { return dynamic_cast<DeviceTelemetry*>(&runtime); }

/// Optional interface of runtimes with BLAS library handles (torch.cuda.current_blas_handle).
class BlasHandles {
 public:
  virtual ~BlasHandles() = default;
  /// The calling thread's BLAS handle for device `index`, bound to stream `s` (the cublasHandle_t
  /// the backend's matmul uses; an opaque stable token on emulated devices). Never null.
  virtual void* blas_handle(DeviceIndex index, Stream s) = 0;
};

/// The BlasHandles interface of `runtime`, or null when it has none.
inline BlasHandles* blas_handles(DeviceRuntime& runtime) { return dynamic_cast<BlasHandles*>(&runtime); }

/// Optional interface of runtimes whose kernels use a deep-learning library (real CUDA: cuDNN for
/// conv2d), for torch.backends.cudnn.is_available() and version().
class DnnLibrary {
 public:
  virtual ~DnnLibrary() = default;
  /// The library's version (cudnnGetVersion(), e.g. 91900), loading it if needed; -1 when it cannot
  /// be loaded. Must not throw.
  virtual int64_t dnn_library_version() noexcept = 0;
};

/// The DnnLibrary interface of `runtime`, or null when it has none.
inline DnnLibrary* dnn_library(DeviceRuntime& runtime) { return dynamic_cast<DnnLibrary*>(&runtime); }

/// Bytes of an interprocess memory handle (sizeof(cudaIpcMemHandle_t)).
inline constexpr size_t kIpcMemHandleSize = 64;
/// The bytes of an interprocess memory handle, opaque outside the runtime that made them.
using IpcMemBytes = std::array<char, kIpcMemHandleSize>;

/// Optional interface of runtimes whose device memory can be shared between processes
/// (cudaIpcGetMemHandle / cudaIpcOpenMemHandle / cudaIpcCloseMemHandle).
class MemoryIpc {
 public:
  virtual ~MemoryIpc() = default;
  /// The handle of the raw allocation containing `ptr` (device `index`) and ptr's offset in it;
  /// throws ValueError when `ptr` is not inside a live allocation of that device.
  virtual std::pair<IpcMemBytes, size_t> ipc_mem_handle(DeviceIndex index, const void* ptr) = 0;
  /// Maps the allocation `handle` names into device `index` of this process; returns its base.
  /// Throws for a malformed handle, one from this process, or one naming no live allocation.
  virtual void* open_ipc_mem_handle(DeviceIndex index, const IpcMemBytes& handle) = 0;
  /// Unmaps a base returned by open_ipc_mem_handle (after the device's queued work); must not throw.
  virtual void close_ipc_mem_handle(DeviceIndex index, void* base) noexcept = 0;
};

/// The MemoryIpc interface of `runtime`, or null when it has none.
inline MemoryIpc* memory_ipc(DeviceRuntime& runtime) { return dynamic_cast<MemoryIpc*>(&runtime); }

/// Usage attributes of a device's stream-ordered memory pool, in bytes (cudaMemPoolAttr*).
struct PoolAttributes {
  uint64_t used_current = 0;      // handed out and not yet freed (UsedMemCurrent)
  uint64_t used_high = 0;         // peak of used_current since the last reset (UsedMemHigh)
  uint64_t reserved_current = 0;  // device memory the pool holds (ReservedMemCurrent)
  uint64_t reserved_high = 0;     // peak of reserved_current since the last reset (ReservedMemHigh)
};

/// Optional interface of runtimes with a stream-ordered allocator: each device's default memory
/// pool (cudaMallocAsync / cudaFreeAsync / cudaMemPoolGetAttribute / cudaMemPoolTrimTo), used by the
/// allocator backend `backend:cudaMallocAsync`.
class StreamOrderedMemory {
 public:
  virtual ~StreamOrderedMemory() = default;
  /// `bytes` (> 0) from the default pool of `index`, usable by work queued on `s` from now on
  /// (cudaMallocAsync); null when the device is out of memory. Other errors throw.
  virtual void* allocate_async(DeviceIndex index, size_t bytes, Stream s) = 0;
  /// Returns `ptr` (from allocate_async on `index`) to the pool once the work queued on `s` so
  /// far has run (cudaFreeAsync); throws, changing nothing, for a pointer the pool did not hand out.
  virtual void free_async(DeviceIndex index, void* ptr, Stream s) = 0;
  /// The pool's usage attributes.
  virtual PoolAttributes pool_attributes(DeviceIndex index) = 0;
  /// Sets used_high and reserved_high to their current values.
  virtual void reset_pool_peaks(DeviceIndex index) = 0;
  /// Releases unused pool memory to the device until at most `bytes` stay reserved (cudaMemPoolTrimTo).
  virtual void trim_pool_to(DeviceIndex index, size_t bytes) = 0;
  /// Unused memory above `bytes` goes back to the device at synchronization (cudaMemPoolAttrReleaseThreshold).
  virtual void set_pool_release_threshold(DeviceIndex index, uint64_t bytes) = 0;
};

/// The StreamOrderedMemory interface of `runtime`, or null when it has none.
inline StreamOrderedMemory* stream_ordered_memory(DeviceRuntime& runtime) {
  return dynamic_cast<StreamOrderedMemory*>(&runtime);
}

/// Stream capture modes (cudaStreamCaptureMode): which threads may not make potentially unsafe calls
/// (synchronizing APIs, event queries, legacy-stream work) while the capture runs.
enum class CaptureMode : uint8_t {
  Global,       ///< no thread may while this capture runs (cudaStreamCaptureModeGlobal)
  ThreadLocal,  ///< the capturing thread may not (cudaStreamCaptureModeThreadLocal)
  Relaxed,      ///< nobody is restricted (cudaStreamCaptureModeRelaxed)
};

/// Capture status of a stream (cudaStreamCaptureStatus).
enum class CaptureStatus : uint8_t { None, Active, Invalidated };

/// CUDA's name of `status` ("cudaStreamCaptureStatusActive", ...), as c10 prints it.
inline const char* capture_status_name(CaptureStatus status) noexcept {
  switch (status) {
    case CaptureStatus::None: return "cudaStreamCaptureStatusNone";
    case CaptureStatus::Active: return "cudaStreamCaptureStatusActive";
    case CaptureStatus::Invalidated: return "cudaStreamCaptureStatusInvalidated";
  }
  return "cudaStreamCaptureStatusUnknown";
}

/// Opaque captured graph (cudaGraph_t) and instantiated graph (cudaGraphExec_t) of a runtime.
using GraphHandle = void*;
using GraphExecHandle = void*;

/// Optional interface of runtimes whose streams can be captured into graphs and replayed
/// (cudaStreamBeginCapture / cudaStreamEndCapture / cudaGraphInstantiate / cudaGraphLaunch).
/// While a stream captures, work queued on it is recorded, not run; a stream that waits on an
/// event recorded by a capturing stream joins that capture.
class StreamCapture {
 public:
  virtual ~StreamCapture() = default;
  /// Starts capturing `s` (not a legacy default stream) in `mode`; throws when it already captures.
  virtual void begin_capture(Stream s, CaptureMode mode) = 0;
  /// Ends the capture that `s` began and returns its graph; throws CUDA's error (and ends the
  /// capture) when the capture was invalidated, or when `s` does not capture.
  virtual GraphHandle end_capture(Stream s) = 0;
  /// The capture status of `s`; `id` (when given) receives the capture's id (unique per process, > 0) or 0.
  virtual CaptureStatus capture_status(Stream s, uint64_t* id = nullptr) = 0;
  /// Number of nodes (captured tasks) of `g`.
  virtual size_t graph_node_count(GraphHandle g) = 0;
  /// An executable graph of `g` (cudaGraphInstantiateFlagAutoFreeOnLaunch).
  virtual GraphExecHandle instantiate_graph(GraphHandle g) = 0;
  /// Queues the whole graph on `s` (any stream of the graph's device, also the default stream).
  virtual void launch_graph(GraphExecHandle exec, Stream s) = 0;
  /// Destroys a graph from end_capture; must not throw.
  virtual void destroy_graph(GraphHandle g) noexcept = 0;
  /// Destroys an executable graph (after the replays queued so far); must not throw.
  virtual void destroy_graph_exec(GraphExecHandle exec) noexcept = 0;
  /// Writes a description of `g` to `path` (cudaGraphDebugDotPrint).
  virtual void debug_dump_graph(GraphHandle g, const std::string& path) = 0;
};

/// The StreamCapture interface of `runtime`, or null when it has none.
inline StreamCapture* stream_capture(DeviceRuntime& runtime) { return dynamic_cast<StreamCapture*>(&runtime); }

/// The runtime registered for `type`, or null when none is (cuda not built or not enabled).
DeviceRuntime* runtime_for(DeviceType type) noexcept;
/// A backend's lazy constructor: returns its runtime when it can serve, else null.
using RuntimeFactory = DeviceRuntime* (*)();
/// Adds a factory consulted (lowest `priority` first) the first time `type`'s runtime is needed
/// and none was registered. Backends call this at load time.
void register_runtime_factory(DeviceType type, int priority, RuntimeFactory factory) noexcept;
/// Registers (or with null, removes) the runtime for its type. Used by backends and tests.
void register_runtime(DeviceType type, DeviceRuntime* runtime) noexcept;
/// Why no runtime of `type` could be created (empty when none failed).
std::string runtime_selection_error(DeviceType type);
/// The runtime for `type`; throws DeviceError naming the reason when there is none.
DeviceRuntime& require_runtime(DeviceType type);

}  // namespace ctorch::api::impl
