// A tiny allocator library for the CUDAPluggableAllocator tests: counts calls and forwards to
// backing functions the test installs (the emulated runtime's raw allocation), or malloc.
#include <cstddef>
#include <cstdlib>

namespace {
void* (*g_backing_alloc)(size_t, int) = nullptr;
void (*g_backing_free)(void*, int) = nullptr;
int g_allocs = 0;
int g_frees = 0;
size_t g_last_free_size = 0;
int g_last_device = -1;
}  // namespace

extern "C" {

void ctorch_test_set_backing(void* (*alloc)(size_t, int), void (*free)(void*, int)) {
  g_backing_alloc = alloc;
  g_backing_free = free;
}

void* ctorch_test_alloc(size_t size, int device, void* /*stream*/) {
  ++g_allocs;
  g_last_device = device;
  return g_backing_alloc ? g_backing_alloc(size, device) : std::malloc(size);
}

void ctorch_test_free(void* ptr, size_t size, int device, void* /*stream*/) {
  ++g_frees;
  g_last_free_size = size;
  g_last_device = device;
  if (g_backing_free) {
    g_backing_free(ptr, device);
  } else {
    std::free(ptr);
  }
}

int ctorch_test_allocs() { return g_allocs; }
int ctorch_test_frees() { return g_frees; }
size_t ctorch_test_last_free_size() { return g_last_free_size; }
int ctorch_test_last_device() { return g_last_device; }

}  // extern "C"
