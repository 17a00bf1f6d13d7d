// memory_summary's table (src/memory/memory_summary.h) against strings rendered by PyTorch's own
// formatting code (torch/cuda/memory.py memory_summary, re-run in Python on the same statistics).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ctorch/error.h"
#include "memory/allocator_stats.h"
#include "memory/memory_summary.h"

namespace ctorch::inline api::memory {
namespace {

// Every key memory_stats() has, all zero.
std::map<std::string, int64_t> zero_stats() { return flatten_stats(DeviceStats{}); }

// The layout of spec section 3.13: 2 MiB allocated in the large pool, everything else 0.
const char* const kSpecExample = R"(|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 0                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |   2048 KiB |      0 B   |      0 B   |      0 B   |
|       from large pool |   2048 KiB |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 KiB |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Active memory         |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Requested memory      |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| GPU reserved memory   |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Non-releasable memory |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Allocations           |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Active allocs         |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| GPU reserved segments |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Non-releasable allocs |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize allocations  |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize GPU segments |       0    |       0    |       0    |       0    |
|===========================================================================|
)";

// 5 GiB reserved (pool rows reuse the "all" row's MiB), over a million allocations (K), device 1.
const char* const kUnits = R"(|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 1                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 3            |        cudaMalloc retries: 12        |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Active memory         |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Requested memory      |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| GPU reserved memory   |   5120 MiB |      0 B   |      0 B   |      0 B   |
|       from large pool |   5117 MiB |      0 B   |      0 B   |      0 B   |
|       from small pool |      3 MiB |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Non-releasable memory |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Allocations           |       0    |       0    |    1234 K  |       0    |
|       from large pool |       0    |       0    |       0 K  |       0    |
|       from small pool |       0    |       0    |    1234 K  |       0    |
|---------------------------------------------------------------------------|
| Active allocs         |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| GPU reserved segments |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Non-releasable allocs |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize allocations  |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize GPU segments |       0    |     800 K  |       0    |       0    |
|===========================================================================|
)";

// kSpecExample, abbreviated.
const char* const kSpecAbbreviated = R"(|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 0                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |   2048 KiB |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Active memory         |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Requested memory      |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| GPU reserved memory   |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Non-releasable memory |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Allocations           |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Active allocs         |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| GPU reserved segments |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Non-releasable allocs |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize allocations  |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize GPU segments |       0    |       0    |       0    |       0    |
|===========================================================================|
)";

TEST(MemorySummary, MatchesPyTorchOnTheSpecExample) {
  auto s = zero_stats();
  s["max_split_size"] = 0;
  s["allocated_bytes.all.current"] = 2 << 20;
  s["allocated_bytes.large_pool.current"] = 2 << 20;
  EXPECT_EQ(format_memory_summary(s, 0, false), kSpecExample);
  EXPECT_EQ(format_memory_summary(s, 0, true), kSpecAbbreviated);
}

TEST(MemorySummary, UnitsComeFromTheAllRow) {
  auto s = zero_stats();
  s["reserved_bytes.all.current"] = int64_t{5} << 30;
  s["reserved_bytes.large_pool.current"] = (int64_t{5} << 30) - (3 << 20);
  s["reserved_bytes.small_pool.current"] = 3 << 20;
  s["allocation.all.allocated"] = 1234567;
  s["allocation.small_pool.allocated"] = 1234000;
  s["allocation.large_pool.allocated"] = 567;
  s["num_ooms"] = 3;
  s["num_alloc_retries"] = 12;
  s["oversize_segments.peak"] = 800000;
  EXPECT_EQ(format_memory_summary(s, 1, false), kUnits);
}

TEST(MemorySummary, EveryLineIs77CharactersWide) {
  auto s = zero_stats();
  s["active_bytes.all.peak"] = int64_t{3} << 50;  // PiB
  const std::string out = format_memory_summary(s, 7, false);
  ASSERT_EQ(out.back(), '\n');
  size_t start = 0, lines = 0;
  while (start < out.size()) {
    const size_t end = out.find('\n', start);
    EXPECT_EQ(end - start, 77u) << out.substr(start, end - start);
    EXPECT_EQ(out[start], '|');
    EXPECT_EQ(out[end - 1], '|');
    start = end + 1;
    ++lines;
  }
  EXPECT_EQ(lines, 47u);
  EXPECT_NE(out.find("|   3072 TiB |"), std::string::npos) << out;
}

TEST(MemorySummary, MissingKeyIsAnError) {
  auto s = zero_stats();
  s.erase("segment.small_pool.freed");
  EXPECT_THROW(format_memory_summary(s, 0, false), ValueError);
  EXPECT_NO_THROW(format_memory_summary(zero_stats(), 0, true));
}

}  // namespace
}  // namespace ctorch::api::memory
