// Note [Collective checks]: the user-facing argument checks of the collectives, written once
// (distributed_c10d.cpp) and called first by every backend's entry points, so the free functions
// and direct ProcessGroup calls raise the same error type and text whatever the backend (c10d's
// Utils.hpp texts: "invalid root rank: 2", "invalid tensor size at index 1 (...)"). Backends keep
// only what is theirs: the dtypes and devices they support.
#pragma once

#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::distributed::detail {

/// ValueError unless `t` is defined and contiguous.
void check_collective_tensor(const char* op, const Tensor& t);
/// ValueError unless 0 <= root < size ("invalid root rank: N").
void check_root_rank(const char* op, int root, int size);
/// One tensor per rank, each checked and with `t`'s shape (ValueError), dtype (TypeError) and device.
void check_tensor_list(const char* op, const std::vector<Tensor>& list, const Tensor& t, int size);

}  // namespace ctorch::distributed::detail
