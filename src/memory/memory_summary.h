// memory_summary: PyTorch's text table of the allocator statistics (torch/cuda/memory.py).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ctorch::inline api::memory {

/// The table torch.cuda.memory_summary prints for flattened stats `stats` of device `device`
/// (every line "|" + 75 characters + "|", ending with "|\n"); pool rows are left out when
/// `abbreviated`. Throws KeyError-like ValueError when a key is missing.
std::string format_memory_summary(const std::map<std::string, int64_t>& stats, int device, bool abbreviated);

}  // namespace ctorch::api::memory
