// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
// counter-based generator behind curand's curandStatePhilox4_32_10_t and PyTorch's CUDA
// generator. Header-only and CTORCH_HD so host, emulated and real CUDA code share one copy.
//
// Determinism contract: philox4x32_10(counter, key) is a pure function. Philox4x32 is the
// curand-style stream over it: key = seed, counter = (offset / 4, subsequence), and outputs are
// the four words of each block in order, so (seed, subsequence, offset) fixes every value.
#pragma once

#include <cstdint>

#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {

/// Four 32-bit words: a Philox counter or output block.
struct PhiloxBlock {
  uint32_t x = 0, y = 0, z = 0, w = 0;
};

/// Two 32-bit words: a Philox key.
struct PhiloxKey {
  uint32_t x = 0, y = 0;
};

namespace detail {

inline constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
inline constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;  // golden ratio
inline constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;  // sqrt(3) - 1

/// One Philox round: two 32x32->64 multiplies, then the S-box permutation with the key.
CTORCH_HD inline PhiloxBlock philox_round(PhiloxBlock c, PhiloxKey k) {
  const uint64_t p0 = static_cast<uint64_t>(kPhiloxM0) * c.x;
  const uint64_t p1 = static_cast<uint64_t>(kPhiloxM1) * c.z;
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  return PhiloxBlock{hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0};
}

}  // namespace detail

/// The Philox4x32 block function with `rounds` rounds (10 for Philox4x32-10).
CTORCH_HD inline PhiloxBlock philox4x32(PhiloxBlock counter, PhiloxKey key, int rounds = 10) {
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      key.x += detail::kPhiloxW0;
      key.y += detail::kPhiloxW1;
    }
    counter = detail::philox_round(counter, key);
  }
  return counter;
}

/// A curand-compatible Philox4x32-10 stream (curand_init(seed, subsequence, offset) semantics).
class Philox4x32 {
 public:
  /// Stream `subsequence` of `seed`, skipped ahead by `offset` 32-bit outputs.
  CTORCH_HD Philox4x32(uint64_t seed, uint64_t subsequence = 0, uint64_t offset = 0) {
    key_ = PhiloxKey{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    increment_high(subsequence);
    state_ = static_cast<uint32_t>(offset & 3u);
    increment(offset / 4);
    output_ = philox4x32(counter_, key_);
  }

  /// The next 32-bit output (curand()).
  CTORCH_HD uint32_t next() {
    uint32_t ret = state_ == 0 ? output_.x : state_ == 1 ? output_.y : state_ == 2 ? output_.z : output_.w;
    if (++state_ == 4) {
      increment(1);
      output_ = philox4x32(counter_, key_);
      state_ = 0;
    }
    return ret;
  }

  /// The next four outputs as one block (curand4()).
  CTORCH_HD PhiloxBlock next4() {
    const PhiloxBlock cur = output_;
    increment(1);
    output_ = philox4x32(counter_, key_);
    switch (state_) {
      case 0: return cur;
      case 1: return PhiloxBlock{cur.y, cur.z, cur.w, output_.x};
      case 2: return PhiloxBlock{cur.z, cur.w, output_.x, output_.y};
      default: return PhiloxBlock{cur.w, output_.x, output_.y, output_.z};
    }
  }

  /// The current counter (for tests).
  CTORCH_HD PhiloxBlock counter() const { return counter_; }

 private:
  // Adds n to the 128-bit counter's low 64 bits, carrying into the high words.
  CTORCH_HD void increment(uint64_t n) {
    const uint32_t nlo = static_cast<uint32_t>(n);
    uint32_t nhi = static_cast<uint32_t>(n >> 32);
    counter_.x += nlo;
    if (counter_.x < nlo) ++nhi;
    counter_.y += nhi;
    if (nhi <= counter_.y) return;
    if (++counter_.z) return;
    ++counter_.w;
  }

  // Adds n to the counter's high 64 bits (the subsequence).
  CTORCH_HD void increment_high(uint64_t n) {
    const uint32_t nlo = static_cast<uint32_t>(n);
    uint32_t nhi = static_cast<uint32_t>(n >> 32);
    counter_.z += nlo;
    if (counter_.z < nlo) ++nhi;
    counter_.w += nhi;
  }

  PhiloxBlock counter_{};
  PhiloxKey key_{};
  PhiloxBlock output_{};
  uint32_t state_ = 0;
};

}  // namespace ctorch::api::kernels
