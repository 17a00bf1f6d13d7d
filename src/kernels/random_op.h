// RandomOp and RandomArgs: what KernelTable::random is asked to sample (the transforms are in
// kernels/random_functors.h).
#pragma once

#include <cstdint>

namespace ctorch::kernels {

/// Random ops of the CUDA generator (KernelTable::random).
enum class RandomOp : int8_t {
  Uniform,          // uniform_(a, b): [from, to)
  Normal,           // normal_(a, b): mean a, std b
  RandomFromTo,     // random_ with range and base: (x % range) + base
  RandomFull64,     // random_(INT64_MIN, None): every int64
  BernoulliScalar,  // bernoulli_(a): 1 where a uniform draw < p
  BernoulliTensor,  // bernoulli(p): data[1] holds p (float, or double for a double output)
};

/// Arguments of a random op; which fields matter depends on the op (see RandomOp).
struct RandomArgs {
  double a = 0;
  double b = 1;
  uint64_t range = 0;
  int64_t base = 0;
};

}  // namespace ctorch::kernels
