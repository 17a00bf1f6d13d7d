// RandomOp and RandomArgs: what KernelTable::random is asked to sample (the transforms are in
// kernels/random_functors.h).
#pragma once

#include <cstdint>

#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {

/// Random ops of the CUDA generator (KernelTable::random).
enum class RandomOp : int8_t {
  Uniform,          // uniform_(a, b): [from, to)
  Normal,           // normal_(a, b): mean a, std b
  RandomFromTo,     // random_ with range and base: (x % range) + base
  RandomFull64,     // random_(INT64_MIN, None): every int64
  BernoulliScalar,  // bernoulli_(a): 1 where a uniform draw < p
  BernoulliTensor,  // bernoulli(p): data[1] holds p (float, or double for a double output)
  FusedDropout,     // native_dropout: data[0] output, data[1] mask (bool), data[2] input, all in one memory
                    // order; a = keep probability, base = vector width (Note [Fused dropout])
};

/// Arguments of a random op; which fields matter depends on the op (see RandomOp).
struct RandomArgs {
  double a = 0;
  double b = 1;
  uint64_t range = 0;
  int64_t base = 0;
};

/// The Philox key and first counter offset of one random kernel (PyTorch's PhiloxCudaState).
/// Eager kernels carry the values; kernels captured into a CUDA graph carry pointers to the
/// generator's per-graph seed and base offset, which each replay fills before it runs, plus the
/// kernel's offset within the graph (Note [CUDA Graph-safe RNG states]).
struct PhiloxArgs {
  uint64_t seed = 0;
  uint64_t offset = 0;
  const int64_t* seed_ptr = nullptr;    // captured: device memory (host alias on emulated devices)
  const int64_t* offset_ptr = nullptr;  // captured: the replay's base offset
  uint32_t offset_intragraph = 0;       // captured: this kernel's offset from the base
  bool captured = false;

  /// (seed, offset) when the kernel runs (PyTorch's at::cuda::philox::unpack).
  CTORCH_HD void unpack(uint64_t* s, uint64_t* o) const {
    if (captured) {
      *s = static_cast<uint64_t>(*seed_ptr);
      *o = static_cast<uint64_t>(*offset_ptr) + offset_intragraph;
    } else {
      *s = seed;
      *o = offset;
    }
  }
};

}  // namespace ctorch::api::kernels
