#include "tensor/allocation.h"

#include "ctorch/error.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch {
namespace {

// Until the device caching allocator exists, device storages come straight from the runtime.
struct DeviceBlock {
  impl::DeviceRuntime* runtime;
  DeviceIndex index;
  void* ptr;
};

void free_device_block(void* ctx) {
  auto* b = static_cast<DeviceBlock*>(ctx);
  if (b->ptr) b->runtime->raw_free(b->index, b->ptr);
  delete b;
}

struct PinnedBlock {
  impl::DeviceRuntime* runtime;
  void* ptr;
};

void free_pinned_block(void* ctx) {
  auto* b = static_cast<PinnedBlock*>(ctx);
  if (b->ptr) b->runtime->pinned_free(b->ptr);
  delete b;
}

}  // namespace

Storage allocate_storage(size_t nbytes, const TensorOptions& options) {
  const Device device = options.device();
  if (device.is_cpu()) {
    if (options.pinned_memory()) {
      impl::DeviceRuntime* cuda = impl::runtime_for(DeviceType::CUDA);
      CTORCH_CHECK_DEVICE(cuda && cuda->device_count() > 0, "Cannot access accelerator device when none is available.");
      impl::DeviceRuntime& rt = impl::lazy_init(DeviceType::CUDA);
      void* p = nbytes ? rt.pinned_allocate(nbytes) : nullptr;
      DataPtr data(p, new PinnedBlock{&rt, p}, &free_pinned_block, Device(DeviceType::CPU));
      return Storage::make(std::move(data), nbytes, nullptr, /*pinned=*/true);
    }
    Allocator* a = cpu_allocator();
    return Storage::make(a->allocate(nbytes), nbytes, a);
  }
  CTORCH_CHECK(!options.pinned_memory(), "Only dense CPU tensors can be pinned");
  impl::DeviceRuntime& rt = impl::lazy_init(device.type());
  const Device target = impl::ensure_has_index(device);
  impl::check_device_index(target.type(), target.index());
  void* p = nbytes ? rt.raw_allocate(target.index(), nbytes) : nullptr;
  DataPtr data(p, new DeviceBlock{&rt, target.index(), p}, &free_device_block, target);
  return Storage::make(std::move(data), nbytes, nullptr);
}

}  // namespace ctorch
