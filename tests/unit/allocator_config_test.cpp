// PYTORCH_CUDA_ALLOC_CONF parsing: values, defaults and PyTorch's error texts.
#include <gtest/gtest.h>

#include <string>

#include "ctorch/error.h"
#include "memory/allocator_config.h"

namespace ctorch::inline api::memory {
namespace {

constexpr size_t kMiB = 1024 * 1024;

std::string parse_error(const std::string& s) {
  try {
    parse_allocator_config(s);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an error for '" << s << "'";
  return "";
}

TEST(AllocatorConfig, Defaults) {
  const AllocatorConfig c = parse_allocator_config("");
  EXPECT_EQ(c.max_split_size, std::numeric_limits<size_t>::max());
  EXPECT_EQ(c.max_non_split_rounding, 20 * kMiB);
  EXPECT_EQ(c.garbage_collection_threshold, 0.0);
  EXPECT_FALSE(c.expandable_segments);
  EXPECT_EQ(c.backend, "native");
  for (size_t d : c.roundup_power2_divisions) EXPECT_EQ(d, 0u);
}

TEST(AllocatorConfig, ParsesEveryOption) {
  const AllocatorConfig c = parse_allocator_config(
      "max_split_size_mb:128, garbage_collection_threshold:0.6,expandable_segments:True,backend:native,"
      "max_non_split_rounding_mb:64,release_lock_on_cudamalloc:True,pinned_use_cuda_host_register:True,"
      "pinned_num_register_threads:8,pinned_use_background_threads:True");
  EXPECT_EQ(c.max_split_size, 128 * kMiB);
  EXPECT_EQ(c.max_non_split_rounding, 64 * kMiB);
  EXPECT_DOUBLE_EQ(c.garbage_collection_threshold, 0.6);
  EXPECT_TRUE(c.expandable_segments);
  EXPECT_TRUE(c.release_lock_on_cudamalloc);
  EXPECT_TRUE(c.pinned_use_cuda_host_register);
  EXPECT_EQ(c.pinned_num_register_threads, 8u);
  EXPECT_TRUE(c.pinned_use_background_threads);
  EXPECT_EQ(parse_allocator_config("backend:cudaMallocAsync").backend, "cudaMallocAsync");
}

TEST(AllocatorConfig, RoundupPower2DivisionsIntervals) {
  // A single value fills every interval.
  AllocatorConfig c = parse_allocator_config("roundup_power2_divisions:4");
  for (size_t d : c.roundup_power2_divisions) EXPECT_EQ(d, 4u);
  // Key K sets the interval [K MB, 2K MB); the first key also fills smaller ones; '>' the rest.
  c = parse_allocator_config("roundup_power2_divisions:[256:1,512:2,1024:4,>:8]");
  EXPECT_EQ(c.divisions_for(1 * kMiB), 1u);
  EXPECT_EQ(c.divisions_for(300 * kMiB), 1u);
  EXPECT_EQ(c.divisions_for(600 * kMiB), 2u);
  EXPECT_EQ(c.divisions_for(1024 * kMiB), 8u);  // '>' fills from the last key's interval on
  EXPECT_EQ(c.divisions_for(size_t{40} << 30), 8u);
  c = parse_allocator_config("roundup_power2_divisions:[64:8,256:4]");
  EXPECT_EQ(c.divisions_for(512), 8u);
  EXPECT_EQ(c.divisions_for(100 * kMiB), 8u);  // [64, 128) MiB
  EXPECT_EQ(c.divisions_for(150 * kMiB), 0u);
  EXPECT_EQ(c.divisions_for(256 * kMiB), 4u);
  EXPECT_EQ(c.divisions_for(512 * kMiB), 0u);
}

TEST(AllocatorConfig, ErrorsAreThoseOfPyTorch) {
  EXPECT_NE(parse_error("max_split_size_mb:19").find("CachingAllocator option max_split_size_mb too small, must be >= 20"),
            std::string::npos);
  EXPECT_NE(parse_error("bogus:1").find("Unrecognized CachingAllocator option: bogus"), std::string::npos);
  EXPECT_NE(parse_error("max_split_size_mb").find("Error parsing CachingAllocator::AllocatorConfig settings, expected :"),
            std::string::npos);
  EXPECT_NE(parse_error("max_split_size_mb:40 garbage_collection_threshold:0.5")
                .find("Error parsing CachingAllocator::AllocatorConfig settings"),
            std::string::npos);
  EXPECT_NE(parse_error("garbage_collection_threshold:1.0").find("garbage_collect_threshold is invalid, set it in (0.0, 1.0)"),
            std::string::npos);
  EXPECT_NE(parse_error("garbage_collection_threshold:0").find("garbage_collect_threshold is invalid"),
            std::string::npos);
  EXPECT_NE(parse_error("roundup_power2_divisions:3").find("For roundups, the divisons has to be power of 2"),
            std::string::npos);
  EXPECT_NE(parse_error("roundup_power2_divisions:[256:3]")
                .find("For roundups, the divisons has to be power of 2 or 0 to disable roundup"),
            std::string::npos);
  EXPECT_NE(parse_error("roundup_power2_divisions:[300:4]").find("For roundups, the intervals have to be power of 2"),
            std::string::npos);
  EXPECT_NE(parse_error("expandable_segments:true").find("Expected a single True/False argument for expandable_segments"),
            std::string::npos);
  EXPECT_NE(parse_error("backend:cudaMalloc").find("Unknown allocator backend, options are native and cudaMallocAsync"),
            std::string::npos);
  EXPECT_NE(parse_error("pinned_num_register_threads:256").find("less than or equal to 128"), std::string::npos);
  EXPECT_NE(parse_error("max_split_size_mb:abc").find("expected a non-negative integer for max_split_size_mb"),
            std::string::npos);
  EXPECT_NE(parse_error("max_split_size_mb:").find("Error, expecting max_split_size_mb value"), std::string::npos);
}

TEST(AllocatorConfig, FormatSize) {
  EXPECT_EQ(format_size(0), "0 bytes");
  EXPECT_EQ(format_size(1024), "1024 bytes");
  EXPECT_EQ(format_size(1536), "1.50 KiB");
  EXPECT_EQ(format_size(kMiB), "1024.00 KiB");
  EXPECT_EQ(format_size(2 * kMiB), "2.00 MiB");
  EXPECT_EQ(format_size(size_t{1} << 30), "1024.00 MiB");
  EXPECT_EQ(format_size(size_t{2} << 30), "2.00 GiB");
}

}  // namespace
}  // namespace ctorch::api::memory
