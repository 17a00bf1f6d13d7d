// CUDAPluggableAllocator + change_current_allocator with a tiny library built by the tests
// (tests/pluggable/). Installing an allocator is permanent and only allowed before the caching
// allocator is used, so the positive path runs in a fresh child process (a gtest death test).
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ctorch/cuda_memory.h"
#include "ctorch/cuda_memory_snapshot.h"
#include "ctorch/cuda_pluggable_allocator.h"
#include "ctorch/emulation.h"
#include "ctorch/torch.h"
#include "runtime/device_runtime.h"
#include "test_util.h"

namespace ctorch {
namespace {

const char* const kSo = CTORCH_TEST_PLUGGABLE_SO;

using ::ctorch::testing::error_of;

TEST(PluggableAllocator, BadLibraryOrSymbolIsAnError) {
  EXPECT_NE(error_of<Error>([] { cuda::memory::CUDAPluggableAllocator("/nonexistent/liballoc.so", "a", "f"); })
                .find("cannot load '/nonexistent/liballoc.so'"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { cuda::memory::CUDAPluggableAllocator(kSo, "no_such_alloc", "ctorch_test_free"); })
                .find("has no symbol 'no_such_alloc'"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { cuda::memory::CUDAPluggableAllocator(kSo, "ctorch_test_alloc", "nope"); })
                .find("has no symbol 'nope'"),
            std::string::npos);
  cuda::memory::CUDAPluggableAllocator ok(kSo, "ctorch_test_alloc", "ctorch_test_free");
  EXPECT_NE(ok.alloc_fn(), nullptr);
  EXPECT_NE(ok.free_fn(), nullptr);
}

TEST(PluggableAllocator, RefusedOnceTheCachingAllocatorWasUsed) {
  if (!cuda::is_emulated() || cuda::device_count() == 0) cuda::emulate(1);
  void* p = cuda::caching_allocator_alloc(512, 0);  // the native allocator is now in use
  cuda::caching_allocator_delete(p);
  cuda::memory::CUDAPluggableAllocator a(kSo, "ctorch_test_alloc", "ctorch_test_free");
  EXPECT_EQ(error_of<Error>([&] { cuda::memory::change_current_allocator(a); }),
            "Can't swap an already initialized allocator");
  EXPECT_EQ(cuda::get_allocator_backend(), "native");
}

void* backing_alloc(size_t size, int device) {
  return impl::require_runtime(DeviceType::CUDA).raw_allocate(static_cast<DeviceIndex>(device), size);
}
void backing_free(void* ptr, int device) {
  impl::require_runtime(DeviceType::CUDA).raw_free(static_cast<DeviceIndex>(device), ptr);
}

#define CHILD_CHECK(cond, code)                                         \
  do {                                                                  \
    if (!(cond)) {                                                      \
      std::fprintf(stderr, "child check failed: %s\n", #cond);          \
      return code;                                                      \
    }                                                                   \
  } while (0)

// Runs in a fresh process; returns 0 when everything held, else the number of the failed check.
int pluggable_in_fresh_process() {
  try {
    cuda::emulate(1);
    void* lib = ::dlopen(kSo, RTLD_NOW);
    CHILD_CHECK(lib != nullptr, 1);
    auto set_backing = reinterpret_cast<void (*)(void* (*)(size_t, int), void (*)(void*, int))>(
        ::dlsym(lib, "ctorch_test_set_backing"));
    auto allocs = reinterpret_cast<int (*)()>(::dlsym(lib, "ctorch_test_allocs"));
    auto frees = reinterpret_cast<int (*)()>(::dlsym(lib, "ctorch_test_frees"));
    auto last_free_size = reinterpret_cast<size_t (*)()>(::dlsym(lib, "ctorch_test_last_free_size"));
    CHILD_CHECK(set_backing && allocs && frees && last_free_size, 2);
    set_backing(&backing_alloc, &backing_free);

    cuda::memory::CUDAPluggableAllocator a(kSo, "ctorch_test_alloc", "ctorch_test_free");
    cuda::memory::change_current_allocator(a);
    CHILD_CHECK(cuda::get_allocator_backend() == "pluggable", 3);
    {
      Tensor t = ones({1000}, TensorOptions().device(Device(DeviceType::CUDA, 0)));
      CHILD_CHECK(allocs() >= 1, 4);
      CHILD_CHECK(t.sum().item<float>() == 1000.0f, 5);  // the memory really works
    }
    CHILD_CHECK(allocs() >= 2 && frees() == allocs(), 6);
    void* p = cuda::caching_allocator_alloc(100, 0);
    CHILD_CHECK(p != nullptr, 7);
    cuda::caching_allocator_delete(p);
    CHILD_CHECK(last_free_size() == 100, 8);
    int x = 0;
    CHILD_CHECK(error_of<Error>([&] { cuda::caching_allocator_delete(&x); }) ==
                    "Trying to free a pointer not allocated here",
                9);
    CHILD_CHECK(error_of<Error>([] { cuda::memory_stats(0); }) ==
                    "CUDAPluggableAllocator does not yet support getDeviceStats. If you need it, please file an "
                    "issue describing your use case.",
                10);
    CHILD_CHECK(error_of<Error>([] { cuda::memory::snapshot(); }).find("does not yet support snapshot") !=
                    std::string::npos,
                11);
    CHILD_CHECK(error_of<Error>([&] { cuda::memory::change_current_allocator(a); }) ==
                    "Can't swap an already initialized allocator",
                12);
    cuda::empty_cache();  // no reset function: nothing to do
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child threw: %s\n", e.what());
    return 100;
  }
  return 0;
}

TEST(PluggableAllocator, ServesEveryDeviceAllocationInAFreshProcess) {
  if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(pluggable_in_fresh_process()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ctorch
