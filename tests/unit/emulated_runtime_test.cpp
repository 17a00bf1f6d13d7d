// The emulated CUDA runtime, part 1: configuration, properties, current device, device memory
// (capacity, patterns, faults, translate) and copies. Streams and events: emulated_streams_test.cpp.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "backends/emulated/memory.h"
#include "backends/emulated/runtime.h"
#include "ctorch/cuda.h"
#include "ctorch/emulation.h"
#include "ctorch/error.h"

using namespace ctorch;
using ctorch::backends::emulated::EmulatedRuntime;
using ctorch::backends::emulated::parse_config;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

cuda::EmulationConfig small(int devices = 2, size_t memory = 64 * kMiB) {
  cuda::EmulationConfig c;
  c.devices = devices;
  c.memory = memory;
  return c;
}

// Runs `f`, expects an exception of type E whose message contains `needle`.
template <class E, class F>
void expect_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an exception containing: " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type; message: " << e.what();
  }
}

bool all_bytes(const void* p, size_t n, unsigned char v) {
  auto* c = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) {
    if (c[i] != v) return false;
  }
  return true;
}

}  // namespace

// --- configuration -------------------------------------------------------------------------

TEST(EmulatedConfig, ParsesACount) {
  EXPECT_FALSE(parse_config("").has_value());
  EXPECT_FALSE(parse_config("0").has_value());
  EXPECT_FALSE(parse_config("  ").has_value());
  auto c = parse_config("2");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->devices, 2);
  EXPECT_EQ(c->memory, size_t{8} << 30);
  EXPECT_FALSE(c->peer_access.has_value());
  EXPECT_FALSE(c->reorder);
}

TEST(EmulatedConfig, ParsesASpec) {
  auto c = parse_config("devices=4, memory=512MiB,name=Test GPU,capability=9.0,sms=132,peer=0-1;1-0;2-3,"
                        "reorder=1,seed=7");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->devices, 4);
  EXPECT_EQ(c->memory, 512 * kMiB);
  EXPECT_EQ(c->name, "Test GPU");
  EXPECT_EQ(c->major, 9);
  EXPECT_EQ(c->minor, 0);
  EXPECT_EQ(c->multi_processor_count, 132);
  ASSERT_TRUE(c->peer_access.has_value());
  EXPECT_EQ(*c->peer_access, (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {2, 3}}));
  EXPECT_TRUE(c->reorder);
  EXPECT_EQ(c->seed, 7u);
  // Defaults for keys not given; devices defaults to 1.
  auto d = parse_config("memory=1GiB");
  EXPECT_EQ(d->devices, 1);
  EXPECT_EQ(d->memory, size_t{1} << 30);
  EXPECT_EQ(parse_config("devices=2,peer=none")->peer_access->size(), 0u);
  EXPECT_FALSE(parse_config("devices=2,peer=all")->peer_access.has_value());
}

TEST(EmulatedConfig, MemoryUnits) {
  EXPECT_EQ(parse_config("memory=1048576")->memory, kMiB);
  EXPECT_EQ(parse_config("memory=64KiB")->memory, 64u * 1024);
  EXPECT_EQ(parse_config("memory=64KB")->memory, 64000u);
  EXPECT_EQ(parse_config("memory=2g")->memory, size_t{2} << 30);
  EXPECT_EQ(parse_config("memory=1.5GiB")->memory, size_t{3} << 29);
  EXPECT_EQ(parse_config("memory=2MB")->memory, 2000000u);
  EXPECT_EQ(parse_config("memory=1TiB")->memory, size_t{1} << 40);
}

TEST(EmulatedConfig, BadSpecsNameTheKeyOrValue) {
  expect_error<ValueError>([] { parse_config("devices=abc"); }, "'abc' for key 'devices'");
  expect_error<ValueError>([] { parse_config("devices=65"); }, "'65' for key 'devices'");
  expect_error<ValueError>([] { parse_config("99"); }, "'99' for key 'devices'");
  expect_error<ValueError>([] { parse_config("memory=8XB"); }, "'8XB' for key 'memory'");
  expect_error<ValueError>([] { parse_config("memory=0"); }, "'0' for key 'memory'");
  expect_error<ValueError>([] { parse_config("capability=9"); }, "'9' for key 'capability'");
  expect_error<ValueError>([] { parse_config("sms=-4"); }, "'-4' for key 'sms'");
  expect_error<ValueError>([] { parse_config("sms=0"); }, "sms (multi_processor_count) must be positive");
  expect_error<ValueError>([] { parse_config("devices=2,peer=0-2"); }, "'0-2' for key 'peer'");
  expect_error<ValueError>([] { parse_config("devices=2,peer=1-1"); }, "'1-1' for key 'peer'");
  expect_error<ValueError>([] { parse_config("devices=2,peer=0>1"); }, "'0>1' for key 'peer'");
  expect_error<ValueError>([] { parse_config("reorder=maybe"); }, "'maybe' for key 'reorder'");
  expect_error<ValueError>([] { parse_config("colour=red"); }, "unknown key 'colour'");
  expect_error<ValueError>([] { parse_config("devices=2,devices=3"); }, "key 'devices' is given twice");
  expect_error<ValueError>([] { parse_config("lots"); }, "expected key=value or a device count, got 'lots'");
  cuda::EmulationConfig bad = small();
  bad.devices = -1;
  expect_error<ValueError>([&] { EmulatedRuntime rt(bad); }, "devices must be in [0, 64]");
}

TEST(EmulatedConfig, ReconfigureIsRefusedWhileThingsAreAlive) {
  EmulatedRuntime rt(small(1));
  EXPECT_EQ(rt.device_count(), 1);
  void* a = rt.raw_allocate(0, 100);
  void* b = rt.raw_allocate(0, 100);
  void* c = rt.raw_allocate(0, 100);
  impl::EventHandle e = rt.create_event(0, {});
  expect_error<Error>([&] { rt.configure(small(3)); },
                      "cannot reconfigure emulated CUDA devices while 3 allocations / 1 event are alive");
  EXPECT_EQ(rt.device_count(), 1);
  rt.raw_free(0, a);
  rt.raw_free(0, b);
  rt.destroy_event(e);
  expect_error<Error>([&] { rt.configure(small(3)); }, "while 1 allocation is alive");
  rt.raw_free(0, c);
  std::atomic<bool> release{false};
  Stream s = rt.create_stream(0, 0);
  rt.enqueue(s, [&] { while (!release.load()) std::this_thread::yield(); }, "busy");
  expect_error<Error>([&] { rt.configure(small(3)); }, "while 1 stream with queued work is alive");
  release = true;
  rt.synchronize_device(0);
  rt.configure(small(3));
  EXPECT_EQ(rt.device_count(), 3);
  EXPECT_EQ(rt.config().devices, 3);
  // The old streams are gone with the old devices; the new ones start idle.
  EXPECT_TRUE(rt.query_stream(s));
}

TEST(EmulatedConfig, EmulateRegistersTheRuntime) {
  impl::DeviceRuntime* before = impl::runtime_for(DeviceType::CUDA);
  if (before != nullptr && before != &backends::emulated::instance()) {
    GTEST_SKIP() << "another CUDA runtime is registered";
  }
  const cuda::EmulationConfig saved = backends::emulated::instance().config();
  cuda::emulate(2);
  EXPECT_TRUE(cuda::is_emulated());
  EXPECT_EQ(cuda::device_count(), 2);
  EXPECT_EQ(impl::runtime_for(DeviceType::CUDA), &backends::emulated::instance());
  cuda::emulate(0);
  EXPECT_FALSE(cuda::is_emulated());
  EXPECT_EQ(impl::runtime_for(DeviceType::CUDA), nullptr);
  // Leave things as they were.
  backends::emulated::instance().configure(saved);
  impl::register_runtime(DeviceType::CUDA, before);
}

// runtime_from_environment() reads the variable once per process, so each case runs in a child
// process that inherits the variable (death-test machinery, exit code 0 = as expected).
TEST(EmulatedConfig, RuntimeFromEnvironment) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto run_with = [](const char* value, auto check) {
    setenv("CTORCH_EMULATED_CUDA", value, 1);
    EXPECT_EXIT(std::exit(check() ? 0 : 1), testing::ExitedWithCode(0), "") << "CTORCH_EMULATED_CUDA=" << value;
    unsetenv("CTORCH_EMULATED_CUDA");
  };
  using backends::emulated::instance;
  using backends::emulated::runtime_from_environment;
  run_with("devices=3,memory=1MiB", [] {
    impl::DeviceRuntime* r = runtime_from_environment();
    return r == &instance() && r->device_count() == 3 && r->properties(2).total_memory == kMiB &&
           runtime_from_environment() == r;
  });
  run_with("2", [] { return runtime_from_environment() != nullptr && instance().device_count() == 2; });
  run_with("0", [] { return runtime_from_environment() == nullptr; });
  run_with("", [] { return runtime_from_environment() == nullptr; });
  run_with("devices=0,memory=1GiB", [] { return runtime_from_environment() == nullptr; });
  run_with("devices=2,memroy=1GiB", [] {
    try {
      runtime_from_environment();
      return false;
    } catch (const ValueError& e) {
      return std::string(e.what()).find("unknown key 'memroy'") != std::string::npos;
    }
  });
}

// --- identity and current device -----------------------------------------------------------

TEST(EmulatedDevice, PropertiesLookLikeARealDevice) {
  cuda::EmulationConfig c;
  c.devices = 2;  // default memory: 8 GiB of virtual capacity
  EmulatedRuntime rt(c);
  impl::DeviceProperties p = rt.properties(0);
  EXPECT_NE(p.name.find("(emulated)"), std::string::npos);
  EXPECT_EQ(p.major, 8);
  EXPECT_EQ(p.minor, 0);
  EXPECT_EQ(p.total_memory, size_t{8} << 30);
  EXPECT_EQ(p.multi_processor_count, 108);
  EXPECT_EQ(p.max_threads_per_multi_processor, 2048);
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_GT(p.l2_cache_size, 0u);
  EXPECT_FALSE(p.is_integrated);
  EXPECT_EQ(p.uuid.rfind("GPU-", 0), 0u);
  EXPECT_EQ(p.uuid.size(), 40u);
  EXPECT_EQ(p.pci_bus_id, 1);
  EXPECT_EQ(rt.properties(1).pci_bus_id, 2);
  EXPECT_NE(rt.properties(1).uuid, p.uuid);
  EmulatedRuntime again(c);
  EXPECT_EQ(again.properties(0).uuid, p.uuid);  // stable
  EXPECT_EQ(rt.type(), DeviceType::CUDA);

  cuda::EmulationConfig named = small(1);
  named.name = "Test GPU";
  named.major = 9;
  named.multi_processor_count = 132;
  EmulatedRuntime rt2(named);
  EXPECT_EQ(rt2.properties(0).name, "Test GPU (emulated)");
  EXPECT_EQ(rt2.properties(0).major, 9);
  EXPECT_EQ(rt2.properties(0).multi_processor_count, 132);
  expect_error<DeviceError>([&] { rt2.properties(1); }, "CUDA error: invalid device ordinal");
}

TEST(EmulatedDevice, CurrentDeviceIsThreadLocalAndValidated) {
  EmulatedRuntime rt(small(2));
  EXPECT_EQ(rt.current_device(), 0);
  rt.set_current_device(1);
  EXPECT_EQ(rt.current_device(), 1);
  DeviceIndex seen = -1;
  std::thread([&] { seen = rt.current_device(); }).join();
  EXPECT_EQ(seen, 0);
  try {
    rt.set_current_device(2);
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?");
  }
  EXPECT_THROW(rt.set_current_device(-1), Error);
  EXPECT_EQ(rt.current_device(), 1);
  // Another runtime has its own current device.
  EmulatedRuntime other(small(2));
  EXPECT_EQ(other.current_device(), 0);
  EXPECT_EQ(rt.current_device(), 1);
  EmulatedRuntime none(small(0));
  EXPECT_EQ(none.device_count(), 0);
  EXPECT_THROW(none.current_device(), DeviceError);
}

// --- device memory -------------------------------------------------------------------------

TEST(EmulatedMemory, OutOfMemoryAtCapacityAndRecoveryAfterFree) {
  EmulatedRuntime rt(small(1, kMiB));
  void* a = rt.raw_allocate(0, 512 * 1024);
  ASSERT_NE(a, nullptr);
  size_t free_bytes = 0, total = 0;
  rt.memory_info(0, &free_bytes, &total);
  EXPECT_EQ(total, kMiB);
  EXPECT_EQ(free_bytes, kMiB / 2);
  try {
    rt.raw_allocate(0, 768 * 1024);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "CUDA out of memory (emulated device cuda:0): tried to allocate 768.00 KiB; capacity 1024.00 KiB, "
              "in use 512.00 KiB");
  }
  rt.raw_free(0, a);
  void* b = rt.raw_allocate(0, 768 * 1024);
  EXPECT_NE(b, nullptr);
  rt.raw_free(0, b);
  EXPECT_EQ(rt.raw_allocate(0, 0), nullptr);
  rt.raw_free(0, nullptr);
  expect_error<DeviceError>([&] { rt.raw_allocate(1, 16); }, "invalid device ordinal");
}

TEST(EmulatedMemory, BestFitAlignmentAndCoalescing) {
  EmulatedRuntime rt(small(1, kMiB));
  const size_t q = 256 * 1024;
  void* p[4];
  for (auto& x : p) {
    x = rt.raw_allocate(0, q - 100);  // rounded to 512: the four fill the device exactly
    EXPECT_EQ(reinterpret_cast<uintptr_t>(x) % 512, 0u);
  }
  EXPECT_THROW(rt.raw_allocate(0, 1), OutOfMemoryError);
  rt.raw_free(0, p[0]);
  rt.raw_free(0, p[2]);
  // 512 KiB are free but not in one piece.
  expect_error<OutOfMemoryError>([&] { rt.raw_allocate(0, 2 * q); }, "largest free block 256.00 KiB (fragmented)");
  rt.raw_free(0, p[1]);  // coalesces p[0], p[1], p[2]
  void* big = rt.raw_allocate(0, 3 * q);
  EXPECT_EQ(big, p[0]);
  // Best fit: a small request takes the smallest block that fits, not the first.
  rt.raw_free(0, big);
  void* left = rt.raw_allocate(0, 2 * q);  // [0, 2q) used, [2q, 3q) free
  rt.raw_free(0, p[3]);                    // [2q, 4q) free
  void* x = rt.raw_allocate(0, 512);
  EXPECT_EQ(x, static_cast<char*>(p[0]) + 2 * q);
  rt.raw_free(0, x);
  rt.raw_free(0, left);
  EXPECT_EQ(rt.live_allocations(0), 0u);
}

TEST(EmulatedMemory, HostDereferenceOfADevicePointerFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto deref = [] {
    EmulatedRuntime rt(small(1, kMiB));
    auto* p = static_cast<volatile int*>(rt.raw_allocate(0, 64));
    std::printf("%d\n", *p);  // PROT_NONE: faults
  };
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizer catches the SEGV, reports it and exits with an error code.
  EXPECT_EXIT(deref(), [](int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }, "SEGV");
#else
  EXPECT_EXIT(deref(), testing::KilledBySignal(SIGSEGV), "");
#endif
}

TEST(EmulatedMemory, FreshMemoryIsNotZeroAndFreedMemoryIsPoisoned) {
  EmulatedRuntime rt(small(1));
  void* p = rt.raw_allocate(0, 4000);
  auto* alias = static_cast<unsigned char*>(rt.translate(p, 4000, 0));
  EXPECT_TRUE(all_bytes(alias, 4000, backends::emulated::kFreshByte));
  std::memset(alias, 1, 4000);
  rt.raw_free(0, p);
  EXPECT_THROW(rt.translate(p, 1, 0), Error);
  EXPECT_TRUE(all_bytes(alias, 4000, backends::emulated::kPoisonByte));  // the alias stays mapped
  // Reallocation gets the fresh pattern again.
  void* q = rt.raw_allocate(0, 4000);
  EXPECT_EQ(q, p);
  EXPECT_TRUE(all_bytes(rt.translate(q, 4000, 0), 4000, backends::emulated::kFreshByte));
  rt.raw_free(0, q);
}

TEST(EmulatedMemory, FreedPagesAreReleasedBeyondTheQuarantine) {
  EmulatedRuntime rt(small(1, 1024 * kMiB));
  const size_t base = rt.committed_bytes(0);
  void* big = rt.raw_allocate(0, 128 * kMiB);  // larger than the quarantine: released at once
  EXPECT_GE(rt.committed_bytes(0), base + 128 * kMiB);
  rt.raw_free(0, big);
  EXPECT_LT(rt.committed_bytes(0), base + kMiB);
  // Many small frees: at most kQuarantineBytes (plus a little) stay committed.
  std::vector<void*> blocks;
  for (int i = 0; i < 24; ++i) blocks.push_back(rt.raw_allocate(0, 4 * kMiB));
  EXPECT_GE(rt.committed_bytes(0), base + 96 * kMiB);
  for (void* b : blocks) rt.raw_free(0, b);
  EXPECT_LE(rt.committed_bytes(0), base + backends::emulated::kQuarantineBytes + 4 * kMiB);
  EXPECT_GE(rt.committed_bytes(0), base + 32 * kMiB);  // the recent ones stay poisoned
}

TEST(EmulatedMemory, TranslateChecksBoundsLivenessAndDevices) {
  cuda::EmulationConfig c = small(3);
  c.peer_access = std::vector<std::pair<int, int>>{{0, 1}};  // cuda:0 may access cuda:1, nothing else
  EmulatedRuntime rt(c);
  EXPECT_TRUE(rt.can_access_peer(0, 1));
  EXPECT_FALSE(rt.can_access_peer(1, 0));
  EXPECT_FALSE(rt.can_access_peer(0, 0));
  auto* p = static_cast<char*>(rt.raw_allocate(0, 1000));
  auto* q = static_cast<char*>(rt.raw_allocate(1, 1000));
  DeviceIndex d = -1;
  EXPECT_TRUE(rt.owns(q + 10, &d));
  EXPECT_EQ(d, 1);
  int host = 0;
  EXPECT_FALSE(rt.owns(&host, &d));

  auto* a = static_cast<char*>(rt.translate(p, 1000, 0));
  EXPECT_EQ(static_cast<char*>(rt.translate(p + 100, 900, 0)), a + 100);  // interior range
  EXPECT_NE(rt.translate(p + 1000, 0, 0), nullptr);                    // empty range at the end
  expect_error<Error>([&] { rt.translate(p + 1, 1000, 0); },
                      "CUDA error: an illegal memory access was encountered (emulated cuda:0 accessed 0x");
  expect_error<Error>([&] { rt.translate(p, 1001, 0); }, "runs 1 bytes past the end of the 1000-byte allocation");
  expect_error<Error>([&] { rt.translate(p + 1010, 1, 0); }, "no live allocation of cuda:0 contains it");
  expect_error<Error>([&] { rt.translate(&host, 4, 0); }, "it is not emulated device memory");
  // Peer matrix: 0 -> 1 allowed, 1 -> 0 and 2 -> 1 not.
  EXPECT_NE(rt.translate(q, 1000, 0), nullptr);
  expect_error<Error>([&] { rt.translate(p, 4, 1); }, "cuda:1 has no peer access to cuda:0");
  expect_error<Error>([&] { rt.translate(q, 4, 2); }, "cuda:2 has no peer access to cuda:1");
  expect_error<DeviceError>([&] { rt.translate(p, 4, 3); }, "invalid device ordinal");
  rt.raw_free(0, p);
  expect_error<Error>([&] { rt.translate(p, 4, 0); }, "which is not a live allocation of an accessible device");
  rt.raw_free(1, q);
}

TEST(EmulatedMemory, BadFreesAreReportedAtSynchronize) {
  EmulatedRuntime rt(small(2));
  void* p = rt.raw_allocate(0, 100);
  rt.raw_free(1, p);  // wrong device: ignored, reported
  expect_error<Error>([&] { rt.synchronize_device(1); }, "invalid device pointer: 0x");
  rt.synchronize_device(0);
  rt.raw_free(0, p);
  rt.raw_free(0, p);  // double free
  expect_error<Error>([&] { rt.synchronize_device(0); }, "double free?");
}

TEST(EmulatedMemory, PinnedMemoryIsTracked) {
  EmulatedRuntime rt(small(1));
  auto* p = static_cast<char*>(rt.pinned_allocate(10000));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  p[9999] = 1;
  EXPECT_TRUE(rt.is_pinned_pointer(p));
  EXPECT_TRUE(rt.is_pinned_pointer(p + 5000));
  std::vector<char> heap(16);
  EXPECT_FALSE(rt.is_pinned_pointer(heap.data()));
  rt.pinned_free(p);
  EXPECT_FALSE(rt.is_pinned_pointer(p));
  EXPECT_EQ(rt.pinned_allocate(0), nullptr);
  rt.pinned_free(heap.data());  // not pinned: ignored
}

// --- copies --------------------------------------------------------------------------------

TEST(EmulatedCopy, HostToDeviceToHostAndDeviceToDevice) {
  EmulatedRuntime rt(small(2));
  Stream s0 = rt.create_stream(0, 0);
  Stream s1 = rt.create_stream(1, 0);
  const size_t n = 1 << 16;
  std::vector<int> src(n), back(n, 0);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<int>(i * 7);
  void* a = rt.raw_allocate(0, n * sizeof(int));
  void* b = rt.raw_allocate(0, n * sizeof(int));
  void* c = rt.raw_allocate(1, n * sizeof(int));
  rt.copy_async(a, 0, src.data(), -1, n * sizeof(int), s0);
  src.assign(n, -1);  // pageable H2D: the source was staged, the buffer may be reused at once
  rt.copy_async(b, 0, a, 0, n * sizeof(int), s0);
  rt.copy_async(c, 1, b, 0, n * sizeof(int), s0);  // cuda:0 writes its peer's memory
  rt.synchronize_stream(s0);
  rt.copy_async(back.data(), -1, c, 1, n * sizeof(int), s1);  // pageable D2H: complete on return
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], static_cast<int>(i * 7)) << i;
  // Executed on cuda:1, reading cuda:0.
  std::vector<int> back2(n, 0);
  rt.copy_async(c, 1, a, 0, 16, s1);
  rt.copy_async(back2.data(), -1, c, 1, 16, s1);
  EXPECT_EQ(back2[3], 21);
  rt.raw_free(0, a);
  rt.raw_free(0, b);
  rt.raw_free(1, c);
}

TEST(EmulatedCopy, PinnedCopiesAreAsynchronous) {
  EmulatedRuntime rt(small(1));
  Stream s = rt.create_stream(0, 0);
  auto* host = static_cast<int*>(rt.pinned_allocate(4096));
  auto* out = static_cast<int*>(rt.pinned_allocate(4096));
  for (int i = 0; i < 1024; ++i) host[i] = i;
  void* d = rt.raw_allocate(0, 4096);
  std::atomic<bool> release{false};
  rt.enqueue(s, [&] { while (!release.load()) std::this_thread::yield(); }, "gate");
  rt.copy_async(d, 0, host, -1, 4096, s);
  rt.copy_async(out, -1, d, 0, 4096, s);
  EXPECT_FALSE(rt.query_stream(s));  // nothing blocked the host
  release = true;
  rt.synchronize_stream(s);
  EXPECT_EQ(out[1000], 1000);
  rt.raw_free(0, d);
  rt.pinned_free(host);
  rt.pinned_free(out);
}

TEST(EmulatedCopy, BadPointersAreRejectedAtEnqueue) {
  cuda::EmulationConfig c = small(2);
  c.peer_access = std::vector<std::pair<int, int>>{};
  EmulatedRuntime rt(c);
  Stream s0 = rt.create_stream(0, 0);
  Stream s1 = rt.create_stream(1, 0);
  auto* a = static_cast<char*>(rt.raw_allocate(0, 256));
  auto* b = static_cast<char*>(rt.raw_allocate(1, 256));
  std::vector<char> host(512);
  expect_error<Error>([&] { rt.copy_async(b, 1, a, 0, 256, s0); }, "cuda:0 has no peer access to cuda:1");
  expect_error<Error>([&] { rt.copy_async(b, 1, a, 0, 256, s1); }, "cuda:1 has no peer access to cuda:0");
  expect_error<Error>([&] { rt.copy_async(host.data(), -1, a, -1, 16, s0); },
                      "CUDA error: invalid argument (emulated copy_async: src 0x");
  expect_error<Error>([&] { rt.copy_async(a, 0, host.data(), -1, 512, s0); }, "runs 256 bytes past the end");
  expect_error<Error>([&] { rt.copy_async(host.data(), 0, a, 0, 16, s0); }, "is not memory of cuda:0");
  expect_error<Error>([&] { rt.copy_async(b, 0, a, 0, 16, s0); }, "is not memory of cuda:0 but of cuda:1");
  expect_error<Error>([&] { rt.memset_async(host.data(), 0, 16, s0); }, "is not emulated device memory");
  expect_error<Error>([&] { rt.memset_async(b, 0, 16, s0); }, "no peer access");
  expect_error<Error>([&] { rt.copy_async(a, 0, host.data(), -1, 16, Stream(Device(DeviceType::CUDA, 5), 0)); },
                      "Device index value 5 is out of index range [0, 2)");
  EXPECT_TRUE(rt.query_stream(s0));  // nothing was enqueued
  rt.raw_free(0, a);
  rt.raw_free(1, b);
}

TEST(EmulatedCopy, Memset) {
  EmulatedRuntime rt(small(2));
  Stream s = rt.create_stream(1, 0);  // cuda:1 sets cuda:0's memory through peer access
  auto* a = static_cast<unsigned char*>(rt.raw_allocate(0, 1000));
  rt.memset_async(a, 0, 1000, s);
  rt.memset_async(a + 10, 0x7F, 20, s);
  std::vector<unsigned char> out(1000);
  rt.copy_async(out.data(), -1, a, 0, 1000, s);
  EXPECT_EQ(out[9], 0);
  EXPECT_EQ(out[10], 0x7F);
  EXPECT_EQ(out[29], 0x7F);
  EXPECT_EQ(out[30], 0);
  rt.raw_free(0, a);
}
