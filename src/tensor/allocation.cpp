#include "tensor/allocation.h"

#include "ctorch/error.h"
#include "ctorch/tensor.h"
#include "memory/device_allocator.h"
#include "memory/pinned_allocator.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api {

size_t storage_nbytes(IntArrayRef sizes, size_t itemsize) {
  int64_t bytes = static_cast<int64_t>(itemsize);
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(bytes, s, &bytes);
  CTORCH_CHECK(!overflow, "Storage size calculation overflowed with sizes=", sizes);
  return static_cast<size_t>(bytes);
}

size_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize, int64_t offset) {
  bool overflow = false;
  int64_t extent = 0;  // the last element's index + 1; a tensor without elements needs none
  bool empty = false;
  for (int64_t s : sizes) empty |= s == 0;
  if (!empty) {
    overflow |= __builtin_add_overflow(offset, int64_t{1}, &extent);
    for (size_t i = 0; i < sizes.size(); ++i) {
      int64_t span = 0;
      overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &span);
      overflow |= __builtin_add_overflow(extent, span, &extent);
    }
  }
  int64_t bytes = 0;
  overflow |= __builtin_mul_overflow(extent, static_cast<int64_t>(itemsize), &bytes);
  CTORCH_CHECK(!overflow, "Storage size calculation overflowed with sizes=", sizes, " and strides=", strides);
  return static_cast<size_t>(bytes);
}

Storage allocate_storage(size_t nbytes, const TensorOptions& options) {
  CTORCH_CHECK_NOT_IMPLEMENTED(options.layout() == Layout::Strided, "ctorch implements strided tensors only, but got layout ",
                               options.layout(), " (expected Strided)");
  const Device device = options.device();
  if (device.is_cpu()) {
    if (options.pinned_memory()) {
      impl::DeviceRuntime* cuda = impl::runtime_for(DeviceType::CUDA);
      CTORCH_CHECK_DEVICE(cuda && cuda->device_count() > 0, "Cannot access accelerator device when none is available.");
      // Pinned storages come from the caching host allocator (src/memory/pinned_allocator.h).
      return Storage::make(memory::allocate_pinned(nbytes), nbytes, nullptr, /*pinned=*/true);
    }
    Allocator* a = cpu_allocator();
    return Storage::make(a->allocate(nbytes), nbytes, a);
  }
  CTORCH_CHECK(!options.pinned_memory(), "Only dense CPU tensors can be pinned");
  impl::DeviceRuntime& rt = impl::lazy_init(device.type());
  const Device target = impl::ensure_has_index(device);
  impl::check_device_index(target.type(), target.index());
  (void)rt;
  // Device storages come from the device's caching allocator, on the current stream.
  DataPtr data = memory::allocate_cuda(target.index(), nbytes, impl::current_stream(target));
  return Storage::make(std::move(data), nbytes, nullptr);
}

}  // namespace ctorch::api
