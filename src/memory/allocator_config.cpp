#include "memory/allocator_config.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <vector>

#include "ctorch/error.h"

namespace ctorch::inline api::memory {
namespace {

constexpr size_t kMB = size_t{1} << 20;
constexpr size_t kMinSplitSizeMb = 20;  // kLargeBuffer / kMB

std::vector<std::string> lex(const std::string& env) {
  std::vector<std::string> out;
  std::string buf;
  for (char c : env) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!buf.empty()) out.push_back(std::move(buf));
      buf.clear();
      out.emplace_back(1, c);
    } else if (c != ' ') {
      buf.push_back(c);
    }
  }
  if (!buf.empty()) out.push_back(std::move(buf));
  return out;
}

void consume(const std::vector<std::string>& tok, size_t i, char c) {
  CTORCH_CHECK(i < tok.size() && tok[i] == std::string(1, c),
               "Error parsing CachingAllocator::AllocatorConfig settings, expected ", c);
}

// std::stoul/stod with ctorch errors instead of std::invalid_argument.
size_t to_size(const std::string& text, const char* option) {
  size_t used = 0;
  unsigned long long v = 0;
  bool ok = !text.empty() && text[0] != '-';
  if (ok) {
    try {
      v = std::stoull(text, &used);
    } catch (...) {
      ok = false;
    }
  }
  CTORCH_CHECK(ok && used == text.size(), "Error parsing CachingAllocator::AllocatorConfig settings: expected a "
               "non-negative integer for ", option, ", but got '", text, "'");
  return static_cast<size_t>(v);
}

double to_double(const std::string& text, const char* option) {
  size_t used = 0;
  double v = 0;
  bool ok = true;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    ok = false;
  }
  CTORCH_CHECK(ok && used == text.size(), "Error parsing CachingAllocator::AllocatorConfig settings: expected a "
               "number for ", option, ", but got '", text, "'");
  return v;
}

bool is_pow2(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

size_t parse_mb_at_least_20(const std::vector<std::string>& tok, size_t i, const char* option, size_t* out) {
  consume(tok, ++i, ':');
  CTORCH_CHECK(++i < tok.size(), "Error, expecting ", option, " value");
  size_t v = to_size(tok[i], option);
  CTORCH_CHECK(v >= kMinSplitSizeMb, "CachingAllocator option ", option, " too small, must be >= ", kMinSplitSizeMb);
  v = std::min(v, std::numeric_limits<size_t>::max() / kMB);
  *out = v * kMB;
  return i;
}

size_t parse_roundup(const std::vector<std::string>& tok, size_t i, AllocatorConfig& c) {
  consume(tok, ++i, ':');
  CTORCH_CHECK(++i < tok.size(), "Error, expecting roundup_power2_divisions value");
  auto& div = c.roundup_power2_divisions;
  if (tok[i] != "[") {
    const size_t v = to_size(tok[i], "roundup_power2_divisions");
    CTORCH_CHECK(is_pow2(v), "For roundups, the divisons has to be power of 2 ");
    div.fill(v);
    return i;
  }
  bool first = true;
  size_t last_index = 0;
  while (++i < tok.size() && tok[i] != "]") {
    const std::string key = tok[i];
    consume(tok, ++i, ':');
    CTORCH_CHECK(++i < tok.size(), "Error parsing roundup_power2_divisions value");
    const size_t v = to_size(tok[i], "roundup_power2_divisions");
    CTORCH_CHECK(v == 0 || is_pow2(v), "For roundups, the divisons has to be power of 2 or 0 to disable roundup ");
    if (key == ">") {
      std::fill(div.begin() + static_cast<std::ptrdiff_t>(last_index), div.end(), v);
    } else {
      const size_t mb = to_size(key, "roundup_power2_divisions");
      CTORCH_CHECK(is_pow2(mb), "For roundups, the intervals have to be power of 2 ");
      size_t index = static_cast<size_t>(std::bit_width(mb) - 1);
      index = std::min(index, div.size() - 1);
      if (first) {
        std::fill(div.begin(), div.begin() + static_cast<std::ptrdiff_t>(index), v);
        first = false;
      }
      div[index] = v;
      last_index = index;
    }
    CTORCH_CHECK(i + 1 < tok.size(), "Error parsing CachingAllocator::AllocatorConfig settings, expected ]");
    if (tok[i + 1] != "]") consume(tok, ++i, ',');
  }
  CTORCH_CHECK(i < tok.size(), "Error parsing CachingAllocator::AllocatorConfig settings, expected ]");
  return i;
}

size_t parse_bool(const std::vector<std::string>& tok, size_t i, const char* option, bool* out) {
  consume(tok, ++i, ':');
  ++i;
  CTORCH_CHECK(i < tok.size() && (tok[i] == "True" || tok[i] == "False"),
               "Expected a single True/False argument for ", option);
  *out = tok[i] == "True";
  return i;
}

}  // namespace

size_t AllocatorConfig::divisions_for(size_t size) const {
  if (size == 0) return roundup_power2_divisions[0];
  int index = static_cast<int>(std::bit_width(size)) - 1 - 20;
  index = std::clamp(index, 0, static_cast<int>(kRoundUpPowerOfTwoIntervals) - 1);
  return roundup_power2_divisions[static_cast<size_t>(index)];
}

AllocatorConfig parse_allocator_config(const std::string& settings) {
  AllocatorConfig c;
  c.settings = settings;
  const std::vector<std::string> tok = lex(settings);
  for (size_t i = 0; i < tok.size(); ++i) {
    const std::string& key = tok[i];
    if (key == "max_split_size_mb") {
      i = parse_mb_at_least_20(tok, i, "max_split_size_mb", &c.max_split_size);
      c.used_native_specific_option = true;
    } else if (key == "max_non_split_rounding_mb") {
      i = parse_mb_at_least_20(tok, i, "max_non_split_rounding_mb", &c.max_non_split_rounding);
      c.used_native_specific_option = true;
    } else if (key == "garbage_collection_threshold") {
      consume(tok, ++i, ':');
      CTORCH_CHECK(++i < tok.size(), "Error, expecting garbage_collection_threshold value");
      const double v = to_double(tok[i], "garbage_collection_threshold");
      CTORCH_CHECK(v > 0 && v < 1.0, "garbage_collect_threshold is invalid, set it in (0.0, 1.0)");
      c.garbage_collection_threshold = v;
      c.used_native_specific_option = true;
    } else if (key == "roundup_power2_divisions") {
      i = parse_roundup(tok, i, c);
      c.used_native_specific_option = true;
    } else if (key == "backend") {
      consume(tok, ++i, ':');
      CTORCH_CHECK(++i < tok.size(), "Error parsing allocator backend value");
      CTORCH_CHECK(tok[i] == "native" || tok[i] == "cudaMallocAsync",
                   "Unknown allocator backend, options are native and cudaMallocAsync");
      c.backend = tok[i];
    } else if (key == "expandable_segments") {
      i = parse_bool(tok, i, "expandable_segments", &c.expandable_segments);
      c.used_native_specific_option = true;
    } else if (key == "release_lock_on_cudamalloc") {
      i = parse_bool(tok, i, "release_lock_on_cudamalloc", &c.release_lock_on_cudamalloc);
      c.used_native_specific_option = true;
    } else if (key == "pinned_use_cuda_host_register") {
      i = parse_bool(tok, i, "pinned_use_cuda_host_register", &c.pinned_use_cuda_host_register);
      c.used_native_specific_option = true;
    } else if (key == "pinned_num_register_threads") {
      consume(tok, ++i, ':');
      CTORCH_CHECK(++i < tok.size(), "Error, expecting pinned_num_register_threads value");
      const size_t v = to_size(tok[i], "pinned_num_register_threads");
      CTORCH_CHECK(is_pow2(v), "Number of register threads has to be power of 2 ");
      CTORCH_CHECK(v <= 128, "Number of register threads should be less than or equal to 128");
      c.pinned_num_register_threads = v;
      c.used_native_specific_option = true;
    } else if (key == "pinned_use_background_threads") {
      i = parse_bool(tok, i, "pinned_use_background_threads", &c.pinned_use_background_threads);
      c.used_native_specific_option = true;
    } else {
      CTORCH_CHECK(false, "Unrecognized CachingAllocator option: ", key);
    }
    if (i + 1 < tok.size()) consume(tok, ++i, ',');
  }
  return c;
}

const AllocatorConfig& device_allocator_config() {
  static std::once_flag once;
  static std::optional<AllocatorConfig> config;
  static std::string error;
  std::call_once(once, [] {
    const char* env = std::getenv("CTORCH_CUDA_ALLOC_CONF");
    const char* name = "CTORCH_CUDA_ALLOC_CONF";
    if (env == nullptr) {
      env = std::getenv("PYTORCH_CUDA_ALLOC_CONF");
      name = "PYTORCH_CUDA_ALLOC_CONF";
    }
    try {
      config = env ? parse_allocator_config(env) : AllocatorConfig{};
    } catch (const std::exception& e) {
      error = std::string(name) + "='" + env + "': " + e.what();
    }
  });
  CTORCH_CHECK(config.has_value(), error);
  return *config;
}

std::string format_size(uint64_t bytes) {
  char buf[64];
  if (bytes <= 1024) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 " bytes", bytes);
  } else if (bytes <= 1048576) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(bytes) / 1024.0);
  } else if (bytes <= 1073741824) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / 1048576.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / 1073741824.0);
  }
  return buf;
}

}  // namespace ctorch::api::memory
