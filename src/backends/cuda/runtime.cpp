// The real CUDA runtime: impl::DeviceRuntime, impl::PeerAccess, impl::NativeStreams and
// impl::EventIpc over the CUDA runtime API, impl::VirtualMemory over the driver's (virtual_memory.h),
// impl::StreamOrderedMemory over the default memory pools (stream_ordered_memory.h), and
// impl::DnnLibrary over cuDNN (cudnn_conv.h).
//
// Policy summary (spec §1.6, §1.8, §4.1, §4.3; PyTorch's c10/cuda):
// - device_count(): cudaGetDeviceCount once per process; any error (no driver, no device, ...)
//   means 0, without exception or message. The factory serves DeviceType::CUDA only when it is > 0.
// - The current device is CUDA's own (cudaGetDevice/cudaSetDevice, thread-local in CUDA).
// - Streams: Note [CUDA stream ids]. Pools are created lazily, all of a device's levels at the
//   first pool request, never destroyed.
// - Events: created eagerly on their device with PyTorch's flags; an event remembers whether it
//   was recorded, so query/synchronize/wait of an unrecorded event are no-ops (CUDAEvent.h) and
//   elapsed_ms can give PyTorch's messages. Interprocess handles are cudaIpcGetEventHandle /
//   cudaIpcOpenEventHandle; an opened event counts as recorded (its exporter's records are unknown).
// - Memory: cudaMalloc/cudaFree (uncached; the caching allocator sits above), cudaHostAlloc for
//   pinned memory, cudaMemcpyAsync with cudaMemcpyDefault (UVA) or cudaMemcpyPeerAsync between
//   two devices, cudaMemsetAsync. Every call runs with the relevant device current.
// - Errors: CTORCH_CUDA_CHECK (check.h). Methods that must not throw swallow and clear errors.
//
// Note [CUDA stream ids]
// As c10's CUDAStream.cpp: id 0 is the device's legacy default stream (cudaStream_t nullptr).
// Pool stream i (0..31) of priority level p (0..levels-1; priority -p) has id
// (i << 5) | ((p + 1) << 1) | 1; pools are cudaStreamNonBlocking and handed out round-robin per
// level. An even non-zero id is an external stream: the cudaStream_t value itself.
#include "backends/cuda/runtime.h"
#include "backends/cuda/stream_ordered_memory.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "backends/cuda/check.h"
#include "backends/cuda/cudnn_conv.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/stream.h"
#include "backends/cuda/virtual_memory.h"
#include "ctorch/error.h"
#include "memory/allocator_config.h"
#include "ops/kernel_table.h"
#include "runtime/task_hooks.h"

namespace ctorch::inline api::backends::cuda {
namespace {

using impl::EventHandle;

/// Streams per priority level and device (c10's kStreamsPerPool).
constexpr int kStreamsPerPool = 32;
/// Priority levels at most (c10's max_compile_time_stream_priorities).
constexpr int kMaxPriorityLevels = 4;
/// Devices ctorch tracks (impl::kMaxDevices).
constexpr int kMaxDevices = 64;

struct CountResult {
  int count = 0;
  std::string error;
};

using ::ctorch::memory::format_size;  // PyTorch's format_size, shared with the caching allocator

const CountResult& count_result() noexcept {
  static const CountResult result = [] {
    CountResult r;
    int n = 0;
    const cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      r.error = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
      return r;
    }
    r.count = std::clamp(n, 0, kMaxDevices);
    return r;
  }();
  return result;
}

// Per-device state; lazily filled, never freed.
struct DeviceState {
  std::once_flag pools_once;
  int levels = 1;  // written once under pools_once
  cudaStream_t streams[kMaxPriorityLevels][kStreamsPerPool] = {};
  std::atomic<uint32_t> next[kMaxPriorityLevels] = {};
  std::once_flag properties_once;
  impl::DeviceProperties properties;  // written once under properties_once
  std::atomic<int> sm_count{0};
  std::atomic<int> max_threads_per_sm{0};
};

DeviceState& state(DeviceIndex index) {
  static DeviceState* states = new DeviceState[kMaxDevices];  // leaked: used during static destruction
  return states[index];
}

std::string invalid_ordinal_message() {
  return "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?\n"
         "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
         "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1";
}

void check_index(DeviceIndex index) {
  CTORCH_CHECK_DEVICE(index >= 0 && index < device_count(), invalid_ordinal_message());
}

void check_stream(Stream s) {
  CTORCH_CHECK(s.device().is_cuda(), "expected a cuda stream, but got a stream of ", s.device());
  const int count = device_count();
  CTORCH_CHECK_INDEX(s.device().index() >= 0 && s.device().index() < count, "Device index value ",
                     static_cast<int>(s.device().index()), " is out of index range [0, ", count, ")");
}

void create_pools(DeviceState& d, DeviceIndex index) {
  std::call_once(d.pools_once, [&] {
    ScopedDevice guard(index);
    int least = 0, greatest = 0;
    CTORCH_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    d.levels = std::clamp(least - greatest + 1, 1, kMaxPriorityLevels);
    for (int p = 0; p < d.levels; ++p) {
      for (int i = 0; i < kStreamsPerPool; ++i) {
        CTORCH_CUDA_CHECK(cudaStreamCreateWithPriority(&d.streams[p][i], cudaStreamNonBlocking, -p));
      }
    }
  });
}

std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

struct CudaEvent {
  cudaEvent_t event = nullptr;
  DeviceIndex device = 0;
  impl::EventFlags flags;
  std::atomic<bool> recorded{false};
};

CudaEvent* as_event(EventHandle e) {
  CTORCH_CHECK(e != nullptr, "CUDA event handle is null");
  return static_cast<CudaEvent*>(e);
}

// The base and size of the allocation containing `ptr` (the driver's cuMemGetAddressRange, resolved
// through the runtime so that libctorch does not link libcuda).
cudaError_t cuda_mem_get_address_range(void** base, size_t* size, const void* ptr) {
  static PFN_cuMemGetAddressRange_v3020 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &p, 3020, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return PFN_cuMemGetAddressRange_v3020{nullptr};
    }
    return reinterpret_cast<PFN_cuMemGetAddressRange_v3020>(p);
  }();
  if (!fn) return cudaErrorNotSupported;
  CUdeviceptr b = 0;
  const CUresult r = fn(&b, size, reinterpret_cast<CUdeviceptr>(ptr));
  if (r != CUDA_SUCCESS) return cudaErrorInvalidValue;
  *base = reinterpret_cast<void*>(b);
  return cudaSuccess;
}

class CudaRuntime final : public impl::DeviceRuntime,
                          public impl::PeerAccess,
                          public impl::NativeStreams,
                          public impl::EventIpc,
                          public impl::BlasHandles,
                          public impl::DnnLibrary,
                          public impl::MemoryIpc,
                          public CudaVirtualMemory,
                          public CudaStreamOrderedMemory,
                          public impl::StreamCapture {
 public:
  // identity
  DeviceType type() const noexcept override { return DeviceType::CUDA; }
  int device_count() const noexcept override { return cuda::device_count(); }

  impl::DeviceProperties properties(DeviceIndex index) const override {
    check_index(index);
    DeviceState& d = state(index);
    std::call_once(d.properties_once, [&] {
      cudaDeviceProp p{};
      CTORCH_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
      impl::DeviceProperties& out = d.properties;
      out.name = p.name;
      out.major = p.major;
      out.minor = p.minor;
      out.total_memory = p.totalGlobalMem;
      out.multi_processor_count = p.multiProcessorCount;
      out.max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
      out.warp_size = p.warpSize;
      out.l2_cache_size = static_cast<size_t>(p.l2CacheSize);
      out.is_integrated = p.integrated != 0;
      out.is_multi_gpu_board = p.isMultiGpuBoard != 0;
      out.uuid = format_uuid(p.uuid);
      out.pci_bus_id = p.pciBusID;
      out.pci_device_id = p.pciDeviceID;
      out.pci_domain_id = p.pciDomainID;
    });
    return d.properties;
  }

  // current device
  DeviceIndex current_device() const override {
    int d = 0;
    CTORCH_CUDA_CHECK(cudaGetDevice(&d));
    return static_cast<DeviceIndex>(d);
  }

  void set_current_device(DeviceIndex index) override {
    check_index(index);
    int d = -1;
    CTORCH_CUDA_CHECK(cudaGetDevice(&d));
    if (d != index) CTORCH_CUDA_CHECK(cudaSetDevice(index));
  }

  // streams
  Stream create_stream(DeviceIndex index, int priority) override {
    const int count = device_count();
    CTORCH_CHECK_INDEX(index >= 0 && index < count, "Device index value ", static_cast<int>(index),
                       " is out of index range [0, ", count, ")");
    DeviceState& d = state(index);
    create_pools(d, index);
    const int p = std::clamp(-priority, 0, d.levels - 1);
    const uint32_t i = d.next[p].fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool;
    const StreamId id = (static_cast<StreamId>(i) << 5) | (static_cast<StreamId>(p + 1) << 1) | 1;
    return Stream(Device(DeviceType::CUDA, index), id);
  }

  bool query_stream(Stream s) override {
    check_stream(s);
    ScopedDevice guard(s.device().index());
    const cudaError_t err = cudaStreamQuery(native_stream(s));
    if (err == cudaSuccess) return true;
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    CTORCH_CUDA_CHECK(err);
    return false;
  }

  void synchronize_stream(Stream s) override {
    check_stream(s);
    ScopedDevice guard(s.device().index());
    CTORCH_CUDA_CHECK(cudaStreamSynchronize(native_stream(s)));
  }

  void synchronize_device(DeviceIndex index) override {
    check_index(index);
    ScopedDevice guard(index);
    CTORCH_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // events
  EventHandle create_event(DeviceIndex index, impl::EventFlags flags) override {
    check_index(index);
    auto e = std::make_unique<CudaEvent>();
    e->device = index;
    e->flags = flags;
    const unsigned int native_flags = (flags.blocking ? cudaEventBlockingSync : 0u) |
                                      (flags.enable_timing ? 0u : cudaEventDisableTiming) |
                                      (flags.interprocess ? cudaEventInterprocess : 0u);
    ScopedDevice guard(index);
    CTORCH_CUDA_CHECK(cudaEventCreateWithFlags(&e->event, native_flags));
    return e.release();
  }

  void destroy_event(EventHandle handle) noexcept override {
    auto* e = static_cast<CudaEvent*>(handle);
    if (!e) return;
    try {
      ScopedDevice guard(e->device);
      if (cudaEventDestroy(e->event) != cudaSuccess) (void)cudaGetLastError();
    } catch (...) {  // must not throw; a lost device cannot destroy its events anyway
    }
    delete e;
  }

  void record_event(EventHandle handle, Stream s) override {
    CudaEvent* e = as_event(handle);
    check_stream(s);
    CTORCH_CHECK(e->device == s.device().index(), "Event device ", static_cast<int>(e->device),
                 " does not match recording stream's device ", static_cast<int>(s.device().index()), ".");
    ScopedDevice guard(e->device);
    CTORCH_CUDA_CHECK(cudaEventRecord(e->event, native_stream(s)));
    e->recorded.store(true, std::memory_order_release);
  }

  void wait_event(Stream s, EventHandle handle) override {
    CudaEvent* e = as_event(handle);
    check_stream(s);
    if (!e->recorded.load(std::memory_order_acquire)) return;
    ScopedDevice guard(s.device().index());
    CTORCH_CUDA_CHECK(cudaStreamWaitEvent(native_stream(s), e->event, 0));
  }

  bool query_event(EventHandle handle) override {
    CudaEvent* e = as_event(handle);
    if (!e->recorded.load(std::memory_order_acquire)) return true;
    ScopedDevice guard(e->device);
    const cudaError_t err = cudaEventQuery(e->event);
    if (err == cudaSuccess) return true;
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    CTORCH_CUDA_CHECK(err);
    return false;
  }

  void synchronize_event(EventHandle handle) override {
    CudaEvent* e = as_event(handle);
    if (!e->recorded.load(std::memory_order_acquire)) return;
    ScopedDevice guard(e->device);
    CTORCH_CUDA_CHECK(cudaEventSynchronize(e->event));
  }

  float elapsed_ms(EventHandle start, EventHandle end) override {
    CudaEvent* a = as_event(start);
    CudaEvent* b = as_event(end);
    CTORCH_CHECK_VALUE(a->flags.enable_timing && b->flags.enable_timing,
                       "Both events must be created with argument 'enable_timing=True'.");
    CTORCH_CHECK_VALUE(a->recorded.load(std::memory_order_acquire) && b->recorded.load(std::memory_order_acquire),
                       "Both events must be recorded before calculating elapsed time.");
    CTORCH_CHECK(query_event(start) && query_event(end),
                 "Both events must be completed before calculating elapsed time.");
    ScopedDevice guard(a->device);
    float ms = 0;
    CTORCH_CUDA_CHECK(cudaEventElapsedTime(&ms, a->event, b->event));
    return ms;
  }

  // interprocess events
  impl::IpcEventBytes ipc_event_handle(EventHandle handle) override {
    static_assert(sizeof(cudaIpcEventHandle_t) == impl::kIpcEventHandleSize);
    CudaEvent* e = as_event(handle);
    CTORCH_CHECK_VALUE(e->flags.interprocess, "cudaIpcGetEventHandle needs an event created with interprocess=true "
                       "(cudaEventInterprocess), but this one has interprocess=false");
    ScopedDevice guard(e->device);
    cudaIpcEventHandle_t h{};
    CTORCH_CUDA_CHECK(cudaIpcGetEventHandle(&h, e->event));
    impl::IpcEventBytes bytes;
    std::memcpy(bytes.data(), &h, sizeof h);
    return bytes;
  }

  EventHandle open_ipc_event(DeviceIndex index, const impl::IpcEventBytes& bytes) override {
    check_index(index);
    cudaIpcEventHandle_t h{};
    std::memcpy(&h, bytes.data(), sizeof h);
    auto e = std::make_unique<CudaEvent>();
    e->device = index;
    e->flags = impl::EventFlags{false, false, true};
    e->recorded.store(true, std::memory_order_relaxed);
    ScopedDevice guard(index);
    CTORCH_CUDA_CHECK(cudaIpcOpenEventHandle(&e->event, h));
    return e.release();
  }

  // BLAS handles
  void* blas_handle(DeviceIndex index, Stream s) override {
    check_index(index);
    return cuda::blas_handle(s);
  }

  // cuDNN (cudnn_conv.cpp)
  int64_t dnn_library_version() noexcept override { return cudnn_version(); }

  // interprocess memory
  std::pair<impl::IpcMemBytes, size_t> ipc_mem_handle(DeviceIndex index, const void* ptr) override {
    static_assert(sizeof(cudaIpcMemHandle_t) == impl::kIpcMemHandleSize);
    check_index(index);
    ScopedDevice guard(index);
    void* base = nullptr;
    size_t size = 0;
    CTORCH_CUDA_CHECK(cuda_mem_get_address_range(&base, &size, ptr));
    cudaIpcMemHandle_t h{};
    CTORCH_CUDA_CHECK(cudaIpcGetMemHandle(&h, base));
    impl::IpcMemBytes bytes;
    std::memcpy(bytes.data(), &h, sizeof h);
    return {bytes, static_cast<size_t>(static_cast<const char*>(ptr) - static_cast<const char*>(base))};
  }

  void* open_ipc_mem_handle(DeviceIndex index, const impl::IpcMemBytes& bytes) override {
    check_index(index);
    cudaIpcMemHandle_t h{};
    std::memcpy(&h, bytes.data(), sizeof h);
    ScopedDevice guard(index);
    void* p = nullptr;
    CTORCH_CUDA_CHECK(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
    return p;
  }

  void close_ipc_mem_handle(DeviceIndex index, void* base) noexcept override {
    ScopedDevice guard(index);
    (void)cudaIpcCloseMemHandle(base);
  }

  // memory
  void* raw_allocate(DeviceIndex index, size_t bytes) override {
    check_index(index);
    if (bytes == 0) return nullptr;
    ScopedDevice guard(index);
    void* p = nullptr;
    // As c10's CUDAStreamCaptureModeGuard: cudaMalloc under relaxed mode, so that a graph's private
    // pool can grow while a global-mode capture runs.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    const bool exchanged = cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (exchanged) (void)cudaThreadExchangeStreamCaptureMode(&mode);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) (void)cudaGetLastError();
      throw OutOfMemoryError(detail::str_cat("CUDA out of memory. Tried to allocate ", format_size(bytes), ". GPU ",
                                             static_cast<int>(index), " has a total capacity of ",
                                             format_size(total_bytes), " of which ", format_size(free_bytes),
                                             " is free."));
    }
    CTORCH_CUDA_CHECK(err);
    return p;
  }

  void raw_free(DeviceIndex index, void* ptr) noexcept override {
    if (!ptr) return;
    try {
      ScopedDevice guard(index);
      if (cudaFree(ptr) != cudaSuccess) (void)cudaGetLastError();
    } catch (...) {  // must not throw (e.g. the device is lost or CUDA is unloading at exit)
    }
  }

  void copy_async(void* dst, DeviceIndex dst_index, const void* src, DeviceIndex src_index, size_t bytes,
                  Stream s) override {
    if (bytes == 0) return;
    check_stream(s);
    ScopedDevice guard(s.device().index());
    const cudaStream_t stream = native_stream(s);
    impl::TimedDeviceTask timed(*this, s, impl::TaskKind::Copy, "copy_async");
    if (dst_index >= 0 && src_index >= 0 && dst_index != src_index) {
      CTORCH_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_index, src, src_index, bytes, stream));
    } else {
      CTORCH_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
    }
  }

  void memset_async(void* dst, int value, size_t bytes, Stream s) override {
    if (bytes == 0) return;
    check_stream(s);
    ScopedDevice guard(s.device().index());
    impl::TimedDeviceTask timed(*this, s, impl::TaskKind::Memset, "memset_async");
    CTORCH_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, native_stream(s)));
  }

  void* pinned_allocate(size_t bytes) override {
    if (bytes == 0) return nullptr;
    void* p = nullptr;
    CTORCH_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
    return p;
  }

  void pinned_free(void* ptr) noexcept override {
    if (ptr && cudaFreeHost(ptr) != cudaSuccess) (void)cudaGetLastError();
  }

  void memory_info(DeviceIndex index, size_t* free_bytes, size_t* total_bytes) override {
    check_index(index);
    ScopedDevice guard(index);
    CTORCH_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
  }

  // impl::StreamCapture (cudaStreamBeginCapture and friends; compiled, never run here)
  void begin_capture(Stream s, impl::CaptureMode mode) override {
    check_stream(s);
    ScopedDevice guard(s.device().index());
    const cudaStreamCaptureMode m = mode == impl::CaptureMode::Global        ? cudaStreamCaptureModeGlobal
                                    : mode == impl::CaptureMode::ThreadLocal ? cudaStreamCaptureModeThreadLocal
                                                                             : cudaStreamCaptureModeRelaxed;
    CTORCH_CUDA_CHECK(cudaStreamBeginCapture(native_stream(s), m));
  }

  impl::GraphHandle end_capture(Stream s) override {
    check_stream(s);
    ScopedDevice guard(s.device().index());
    cudaGraph_t graph = nullptr;
    CTORCH_CUDA_CHECK(cudaStreamEndCapture(native_stream(s), &graph));
    return static_cast<void*>(graph);
  }

  impl::CaptureStatus capture_status(Stream s, uint64_t* id) override {
    if (id) *id = 0;
    check_stream(s);
    ScopedDevice guard(s.device().index());
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long capture_id = 0;
    CTORCH_CUDA_CHECK(cudaStreamGetCaptureInfo(native_stream(s), &status, &capture_id));
    if (id) *id = capture_id;
    switch (status) {
      case cudaStreamCaptureStatusActive: return impl::CaptureStatus::Active;
      case cudaStreamCaptureStatusInvalidated: return impl::CaptureStatus::Invalidated;
      default: return impl::CaptureStatus::None;
    }
  }

  size_t graph_node_count(impl::GraphHandle g) override {
    size_t n = 0;
    CTORCH_CUDA_CHECK(cudaGraphGetNodes(static_cast<cudaGraph_t>(g), nullptr, &n));
    return n;
  }

  impl::GraphExecHandle instantiate_graph(impl::GraphHandle g) override {
    cudaGraphExec_t exec = nullptr;
    CTORCH_CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec, static_cast<cudaGraph_t>(g),
                                                    cudaGraphInstantiateFlagAutoFreeOnLaunch));
    return static_cast<void*>(exec);
  }

  void launch_graph(impl::GraphExecHandle exec, Stream s) override {
    check_stream(s);
    ScopedDevice guard(s.device().index());
    CTORCH_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec), native_stream(s)));
  }

  void destroy_graph(impl::GraphHandle g) noexcept override {
    if (g && cudaGraphDestroy(static_cast<cudaGraph_t>(g)) != cudaSuccess) (void)cudaGetLastError();
  }

  void destroy_graph_exec(impl::GraphExecHandle exec) noexcept override {
    if (exec && cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec)) != cudaSuccess) (void)cudaGetLastError();
  }

  void debug_dump_graph(impl::GraphHandle g, const std::string& path) override {
    CTORCH_CUDA_CHECK(cudaGraphDebugDotPrint(static_cast<cudaGraph_t>(g), path.c_str(), cudaGraphDebugDotFlagsVerbose));
  }

  // impl::NativeStreams
  void* native_handle(Stream s) override { return static_cast<void*>(native_stream(s)); }

  Stream external_stream(DeviceIndex index, void* handle) override {
    check_stream(Stream(Device(DeviceType::CUDA, index), 0));
    const auto id = static_cast<StreamId>(reinterpret_cast<intptr_t>(handle));
    CTORCH_CHECK_VALUE(handle != nullptr && (id & 1) == 0, "expected a non-null, aligned cudaStream_t, but got ",
                       handle);
    return Stream(Device(DeviceType::CUDA, index), id);
  }

  int stream_priority(Stream s) override {
    check_stream(s);
    if (s.id() == 0) return 0;
    if (s.id() & 1) return -(static_cast<int>((s.id() >> 1) & 0xf) - 1);
    ScopedDevice guard(s.device().index());
    int priority = 0;
    CTORCH_CUDA_CHECK(cudaStreamGetPriority(native_stream(s), &priority));
    return priority;
  }

  std::pair<int, int> priority_range() override {
    int least = 0, greatest = 0;
    CTORCH_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    return {least, std::max(-kMaxPriorityLevels + 1, greatest)};
  }

  // impl::PeerAccess
  bool can_access_peer(DeviceIndex device, DeviceIndex peer) const override {
    const int count = device_count();
    CTORCH_CHECK_DEVICE(device >= 0 && device < count, "Invalid device id");
    CTORCH_CHECK_DEVICE(peer >= 0 && peer < count, "Invalid peer device id");
    if (device == peer) return false;
    int can = 0;
    CTORCH_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
    return can != 0;
  }
};

std::atomic<CudaRuntime*> g_active{nullptr};

impl::DeviceRuntime* create_runtime() {
  if (device_count() <= 0) {
    // Recorded as the reason there is no cuda runtime (impl::runtime_selection_error), in
    // PyTorch's words for a CUDA build on a machine without a driver or without a device.
    const std::string error = device_count_error();
    if (error.find("cudaErrorNoDevice") != std::string::npos || error.empty()) {
      throw DeviceError("No CUDA GPUs are available");
    }
    throw DeviceError(
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
        "from http://www.nvidia.com/Download/index.aspx (" + error + ")");
  }
  static CudaRuntime* runtime = new CudaRuntime();  // leaked: tensors may be freed during static destruction
  ops::register_kernels(runtime, &kernels());
  impl::set_tasks_timed_by_events(runtime, true);  // the tracer times its kernels by events (trace/op_timing.h)
  g_active.store(runtime, std::memory_order_release);
  return runtime;
}

// Consulted after the emulated backend's factory (lower numbers first), see Note [Runtime selection].
const bool g_registered = (impl::register_runtime_factory(DeviceType::CUDA, /*priority=*/100, &create_runtime), true);

}  // namespace

int device_count() noexcept { return count_result().count; }

std::string device_count_error() { return count_result().error; }

impl::DeviceRuntime* active_runtime() noexcept { return g_active.load(std::memory_order_acquire); }

cudaStream_t native_stream(Stream s) {
  const StreamId id = s.id();
  if (id == 0) return nullptr;
  if ((id & 1) == 0) return reinterpret_cast<cudaStream_t>(static_cast<intptr_t>(id));
  const DeviceIndex index = s.device().index();
  check_stream(s);
  DeviceState& d = state(index);
  create_pools(d, index);
  const int level = static_cast<int>((id >> 1) & 0xf) - 1;
  const int64_t i = id >> 5;
  CTORCH_CHECK(level >= 0 && level < d.levels && i < kStreamsPerPool, "invalid CUDA stream id ", id, " on cuda:",
               static_cast<int>(index));
  return d.streams[level][i];
}

kernels::DeviceLimits device_limits(DeviceIndex index) {
  check_index(index);
  DeviceState& d = state(index);
  kernels::DeviceLimits limits{d.sm_count.load(std::memory_order_relaxed),
                               d.max_threads_per_sm.load(std::memory_order_relaxed)};
  if (limits.sm_count == 0 || limits.max_threads_per_sm == 0) {
    CTORCH_CUDA_CHECK(cudaDeviceGetAttribute(&limits.sm_count, cudaDevAttrMultiProcessorCount, index));
    CTORCH_CUDA_CHECK(
        cudaDeviceGetAttribute(&limits.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, index));
    d.sm_count.store(limits.sm_count, std::memory_order_relaxed);
    d.max_threads_per_sm.store(limits.max_threads_per_sm, std::memory_order_relaxed);
  }
  return limits;
}

ScopedDevice::ScopedDevice(DeviceIndex index) {
  if (index < 0) return;
  int current = -1;
  CTORCH_CUDA_CHECK(cudaGetDevice(&current));
  if (current != index) {
    CTORCH_CUDA_CHECK(cudaSetDevice(index));
    previous_ = current;
  }
}

ScopedDevice::~ScopedDevice() {
  if (previous_ >= 0 && cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace ctorch::api::backends::cuda
