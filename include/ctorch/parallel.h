// Intra-op parallelism: the thread count shared by ctorch's CPU kernels and OpenBLAS.
#pragma once

namespace ctorch::inline api {

/// Threads used by CPU kernels and BLAS (torch.set_num_threads). Must be >= 1.
void set_num_threads(int n);
/// Current intra-op thread count (defaults to the number of cores).
int get_num_threads();

}  // namespace ctorch::api
