// ctorch::cuda — the torch.cuda module. Device queries work with or without a GPU.
#pragma once

namespace ctorch::cuda {

/// True when at least one CUDA device (real or emulated) can be used. Never throws.
bool is_available() noexcept;
/// Number of usable CUDA devices (real or emulated); 0 without any. Never throws.
int device_count() noexcept;

}  // namespace ctorch::cuda
