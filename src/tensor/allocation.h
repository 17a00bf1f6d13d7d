// Storage allocation for a device: the one place that picks the allocator for TensorOptions.
#pragma once

#include "ctorch/storage.h"
#include "ctorch/tensor_options.h"

namespace ctorch {

/// A storage of `nbytes` on options.device() (pinned host memory when options.pinned_memory()).
Storage allocate_storage(size_t nbytes, const TensorOptions& options);

}  // namespace ctorch
