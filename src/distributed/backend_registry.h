// Note [Backend registry]: process-group backends built only in some configurations (NCCL, with
// the real CUDA backend) register a factory at load time; init_process_group("nccl") uses it or
// raises PyTorch's "Distributed package doesn't have NCCL built in".
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "ctorch/distributed.h"

namespace ctorch::distributed {

/// Creates a group of `world_size` ranks meeting in `store` under `group_name`.
using GroupFactory = std::shared_ptr<ProcessGroup> (*)(std::shared_ptr<Store> store, int rank, int world_size,
                                                       std::chrono::milliseconds timeout,
                                                       const std::string& group_name);
/// Registers the NCCL backend's factory (called once, at load time).
void register_nccl_backend(GroupFactory factory) noexcept;

}  // namespace ctorch::distributed
