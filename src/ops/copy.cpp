// Copies across devices, with PyTorch's rules (aten/src/ATen/native/cuda/Copy.cu, spec §2.2):
// - cpu <-> cuda runs on the current stream of the cuda side. It is asynchronous only with
//   non_blocking=true, pinned host memory and no staging buffer; otherwise the call returns
//   after the stream has finished the copy (memcpy_and_sync).
// - dtype conversion and non-contiguous layouts are handled by staging through a contiguous
//   buffer on one side and running the same-device copy kernel there.
// - Copies with non_blocking=false are reported by the sync debug mode (runtime/sync_debug.h)
//   before they start, as PyTorch's memcpy_and_sync.
// - cuda:a -> cuda:b runs on a's current stream, ordered with both devices' current streams
//   by a two-way event barrier; the host does not wait.
// Each copy through the runtime is one OpFamily::Transfer call at the op boundary, and its events
// and host waits are reported to the observers (ops/op_observer.h).
#include "ops/copy.h"

#include <optional>

#include "ctorch/factories.h"
#include "memory/pinned_allocator.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "ops/launch.h"
#include "runtime/sync_debug.h"

namespace ctorch::inline api::ops {

namespace {

// RAII event on a device (destroyed even when a copy throws).
class ScopedEvent {
 public:
  ScopedEvent(impl::DeviceRuntime& rt, DeviceIndex index) : rt_(rt), e_(rt.create_event(index, {})) {}
  ~ScopedEvent() {
    if (observed()) notify_sync(SyncKind::EventDestroy, e_, Stream::default_stream(Device(DeviceType::CPU, 0)));
    rt_.destroy_event(e_);
  }
  impl::EventHandle get() const { return e_; }

 private:
  impl::DeviceRuntime& rt_;
  impl::EventHandle e_;
};

void host_device_copy(Tensor& dst, const Tensor& src, bool non_blocking) {
  const bool to_device = dst.is_cuda();
  const Device device = to_device ? dst.device() : src.device();
  impl::DeviceRuntime& rt = impl::lazy_init(DeviceType::CUDA);
  // Stage the source: the right dtype, contiguous, and the destination's full shape.
  Tensor source = src;
  if (source.sizes() != dst.sizes()) source = source.expand(dst.sizes());
  bool staged = false;
  if (source.dtype() != dst.dtype() || !source.is_contiguous()) {
    // Convert on the side that holds the source (cpu for H2D, the device for D2H).
    source = source.to(dst.dtype()).contiguous();
    if (!source.is_contiguous() || source.sizes() != dst.sizes()) source = source.clone();
    staged = true;
  }
  Tensor target = dst;
  if (!dst.is_contiguous()) {
    target = empty(dst.sizes(), dst.options());
    staged = true;
  }
  const size_t bytes = static_cast<size_t>(target.nbytes());
  const Stream stream = impl::current_stream(device);
  const bool host_pinned = to_device ? source.is_pinned() : target.is_pinned();
  const bool blocking = !non_blocking || !host_pinned || staged;
  if (impl::StreamCapture* sc = impl::stream_capture(rt); sc && sc->capture_status(stream) != impl::CaptureStatus::None) {
    CTORCH_CHECK(host_pinned, "Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU tensor "
                 "is pinned. Please use tensor.pin_memory() or allocate the tensor with pin_memory=True.");
  }
  // As memcpy_and_sync, only non_blocking=false is reported, before any work (an error leaves dst as it was).
  if (!non_blocking) impl::warn_or_error_on_sync();
  impl::DeviceGuard guard(device);
  // Observed until the end: the host span of memcpy_and_sync covers the staging copy back too.
  const OpCall transfer{OpFamily::Transfer, "copy_", stream, {{target, "self", true, true}, {source, "src"}},
                        blocking ? "memcpy_and_sync" : "memcpy_async"};
  std::optional<ObservedCall> observed_call;
  if (observed()) observed_call.emplace(transfer);
  rt.copy_async(target.data_ptr(), to_device ? device.index() : -1, source.data_ptr(),
                to_device ? -1 : device.index(), bytes, stream);
  if (observed_call) observed_call->launched();
  if (blocking) {
    rt.synchronize_stream(stream);
    if (observed()) notify_sync(SyncKind::StreamSynchronize, nullptr, stream);
  } else {
    // Asynchronous: the pinned block must not be reused before the copy has run
    // (HostAllocator::record_event in Copy.cu).
    const Tensor& host = to_device ? source : target;
    memory::record_pinned_use(host.impl()->storage()->data_ptr(), stream);
  }
  if (!target.is_same(dst)) dst.copy_(target);
}

void device_device_copy(Tensor& dst, const Tensor& src) {
  impl::DeviceRuntime& rt = impl::lazy_init(DeviceType::CUDA);
  Tensor source = src;
  if (source.sizes() != dst.sizes()) source = source.expand(dst.sizes());
  if (source.dtype() != dst.dtype() || !source.is_contiguous()) source = source.to(dst.dtype()).contiguous();
  Tensor target = dst.is_contiguous() ? dst : empty(dst.sizes(), dst.options());
  const Device src_device = source.device(), dst_device = dst.device();
  const Stream src_stream = impl::current_stream(src_device);
  const Stream dst_stream = impl::current_stream(dst_device);
  {
    // dst's stream -> copy stream: the copy waits for earlier work on the destination.
    ScopedEvent ready(rt, dst_device.index());
    rt.record_event(ready.get(), dst_stream);
    rt.wait_event(src_stream, ready.get());
    if (observed()) {
      notify_sync(SyncKind::EventRecord, ready.get(), dst_stream);
      notify_sync(SyncKind::EventWait, ready.get(), src_stream);
    }
    const OpCall transfer{OpFamily::Transfer, "copy_", src_stream, {{target, "self", true, true}, {source, "src"}}};
    std::optional<ObservedCall> observed_call;
    if (observed()) observed_call.emplace(transfer);
    impl::DeviceGuard guard(src_device);
    rt.copy_async(target.data_ptr(), dst_device.index(), source.data_ptr(), src_device.index(),
                  static_cast<size_t>(target.nbytes()), src_stream);
    if (observed_call) observed_call->launched();
    // copy stream -> dst's stream: later work on the destination waits for the copy.
    ScopedEvent done(rt, src_device.index());
    rt.record_event(done.get(), src_stream);
    rt.wait_event(dst_stream, done.get());
    if (observed()) {
      notify_sync(SyncKind::EventRecord, done.get(), src_stream);
      notify_sync(SyncKind::EventWait, done.get(), dst_stream);
    }
  }
  if (!target.is_same(dst)) dst.copy_(target);
}

}  // namespace

void copy_between_devices(Tensor& dst, const Tensor& src, bool non_blocking) {
  CTORCH_CHECK(dst.device() != src.device(), "copy_between_devices: same device ", dst.device());
  if (dst.is_cuda() && src.is_cuda()) {
    device_device_copy(dst, src);
  } else {
    host_device_copy(dst, src, non_blocking);
  }
}

}  // namespace ctorch::api::ops
