// torch.cuda streams over the runtime seam (torch/cuda/streams.py, c10/cuda/CUDAStream.cpp).
#include <iomanip>
#include <ostream>

#include "ctorch/cuda_event.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/error.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "runtime/sync_debug.h"
#include "sanitizer/hooks.h"
#include "trace/tracer.h"

namespace ctorch::cuda {
namespace {

impl::DeviceRuntime& runtime() { return impl::lazy_init(DeviceType::CUDA); }

impl::NativeStreams& native(impl::DeviceRuntime& r) {
  impl::NativeStreams* n = impl::native_streams(r);
  CTORCH_CHECK(n != nullptr, "the CUDA runtime in use has no native stream handles");
  return *n;
}

::ctorch::Stream checked_cuda(::ctorch::Stream s) {
  CTORCH_CHECK_VALUE(s.device().is_cuda() && s.device().has_index(), "Expected a cuda stream, but got a stream of ",
                     s.device());
  return s;
}

::ctorch::Stream pool_stream(DeviceArg device, int priority) {
  CTORCH_CHECK(priority <= 0, "Expected cuda stream priority to be less than or equal to 0, got ", priority);
  cuda::device block(device);  // as `with torch.cuda.device(device)`
  impl::DeviceRuntime& r = runtime();
  return r.create_stream(r.current_device(), priority);
}

// The device of a stream API call (-1 or nothing: the current device).
Device stream_api_device(DeviceArg device) {
  return Device(DeviceType::CUDA, static_cast<DeviceIndex>(device.index_or_current()));
}

}  // namespace

Stream::Stream(DeviceArg device, int priority) : stream_(pool_stream(device, priority)) {}

Stream::Stream(::ctorch::Stream s) : stream_(checked_cuda(s)) {}

std::pair<int, int> Stream::priority_range() { return native(runtime()).priority_range(); }

uintptr_t Stream::cuda_stream() const {
  return reinterpret_cast<uintptr_t>(native(runtime()).native_handle(stream_));
}

int Stream::priority() const { return native(runtime()).stream_priority(stream_); }

bool Stream::query() const {
  impl::DeviceGuard guard(stream_.device());
  const bool done = runtime().query_stream(stream_);
  if (done && sanitizer::active()) sanitizer::stream_synchronize(stream_);
  return done;
}

void Stream::synchronize() const {
  impl::warn_or_error_on_sync();
  impl::DeviceGuard guard(stream_.device());
  tracing::HostSpan span("Stream.synchronize");
  runtime().synchronize_stream(stream_);
  if (sanitizer::active()) sanitizer::stream_synchronize(stream_);
}

void Stream::wait_event(const Event& event) const { event.wait(*this); }

void Stream::wait_stream(const Stream& stream) const { wait_event(stream.record_event()); }

Event Stream::record_event() const { return record_event(Event()); }

Event Stream::record_event(const Event& event) const {
  event.record(*this);
  return event;
}

std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "<torch.cuda.Stream device=" << s.device() << " cuda_stream=0x" << std::hex << s.cuda_stream()
            << std::dec << ">";
}

namespace {

::ctorch::Stream external(uintptr_t ptr, DeviceArg device, int priority) {
  CTORCH_CHECK(priority == 0, "Priority was explicitly set for an external stream");
  cuda::device block(device);
  impl::DeviceRuntime& r = runtime();
  return native(r).external_stream(r.current_device(), reinterpret_cast<void*>(ptr));
}

}  // namespace

ExternalStream::ExternalStream(uintptr_t stream_ptr, DeviceArg device, int priority)
    : Stream(Raw{}, external(stream_ptr, device, priority)) {}

Stream get_stream_from_external(uintptr_t data_ptr, DeviceArg device) { return ExternalStream(data_ptr, device); }

Stream current_stream(DeviceArg device) { return Stream(impl::current_stream(stream_api_device(device))); }

Stream default_stream(DeviceArg device) {
  const Stream current = current_stream(device);  // validates the index, initializes CUDA
  return Stream(::ctorch::Stream::default_stream(current.device()));
}

void set_stream(std::optional<Stream> s) {
  if (!s) return;
  impl::DeviceRuntime& r = runtime();
  impl::check_device_index(DeviceType::CUDA, s->device().index());
  if (r.current_device() != s->device().index()) r.set_current_device(s->device().index());
  impl::set_current_stream(s->unwrap());
}

void detail::set_current_stream_only(const Stream& s) {
  impl::check_device_index(DeviceType::CUDA, s.device().index());
  impl::set_current_stream(s.unwrap());
}

StreamContext::StreamContext(std::optional<Stream> s) : stream_(s) {
  if (!stream_) return;
  src_prev_ = current_stream();
  if (src_prev_->device() != stream_->device()) dst_prev_ = current_stream(stream_->device_index());
  set_stream(stream_);
}

StreamContext::~StreamContext() {
  if (!stream_) return;
  try {
    if (dst_prev_) set_stream(dst_prev_);
    set_stream(src_prev_);
  } catch (...) {  // restoring streams of valid devices cannot fail; never throw from a destructor
  }
}

}  // namespace ctorch::cuda
