// Mt19937: the 32-bit Mersenne Twister exactly as PyTorch's CPU generator runs it
// (pytorch/pytorch:aten/src/ATen/core/MT19937RNGEngine.h): same seeding, same lazy twist
// (`left` counts down to the next regeneration), same (seed, left, seeded, next, state) data,
// so get_state/set_state bytes and every output match PyTorch for the same seed.
//
// Determinism contract: the output sequence depends only on the low 32 bits of the seed and
// on the number of outputs drawn since seeding. Not thread-safe; CPUGeneratorImpl locks.
#pragma once

#include <array>
#include <cstdint>

namespace ctorch::inline api::impl {

/// Number of 32-bit words in the state (N).
inline constexpr int kMt19937StateSize = 624;
/// Twist offset (M).
inline constexpr int kMt19937Shift = 397;

/// Everything Mt19937 holds, in PyTorch's mt19937_data_pod shape.
struct Mt19937Data {
  uint64_t seed = 0;
  int left = 1;
  bool seeded = false;
  uint32_t next = 0;
  std::array<uint32_t, kMt19937StateSize> state{};
};

/// The engine: 32-bit outputs, seeded from 64 bits of which the low 32 are used.
class Mt19937 {
 public:
  /// Seeds with `seed` (5489 is the reference default of the algorithm).
  explicit Mt19937(uint64_t seed = 5489) { init(seed); }

  /// The next 32-bit output.
  uint32_t operator()() {
    if (--data_.left == 0) next_state();
    uint32_t y = data_.state[data_.next++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
  }

  /// The full 64-bit seed last set.
  uint64_t seed() const { return data_.seed; }
  /// A copy of the raw data.
  const Mt19937Data& data() const { return data_; }
  /// Replaces the raw data (check is_valid() afterwards).
  void set_data(const Mt19937Data& data) { data_ = data; }
  /// True when the data can be stepped safely (PyTorch's checks: seeded, 0 < left <= N, next <= N).
  bool is_valid() const {
    return data_.seeded && data_.left > 0 && data_.left <= kMt19937StateSize &&
           data_.next <= static_cast<uint32_t>(kMt19937StateSize);
  }

 private:
  static constexpr uint32_t kMatrixA = 0x9908b0dfu;
  static constexpr uint32_t kUpperMask = 0x80000000u;
  static constexpr uint32_t kLowerMask = 0x7fffffffu;

  void init(uint64_t seed) {
    data_.seed = seed;
    data_.seeded = true;
    data_.state[0] = static_cast<uint32_t>(seed & 0xffffffffu);
    for (int j = 1; j < kMt19937StateSize; ++j) {
      const uint32_t prev = data_.state[j - 1];
      data_.state[j] = 1812433253u * (prev ^ (prev >> 30)) + static_cast<uint32_t>(j);
    }
    data_.left = 1;
    data_.next = 0;
  }

  static uint32_t twist(uint32_t u, uint32_t v) {
    const uint32_t mixed = (u & kUpperMask) | (v & kLowerMask);
    return (mixed >> 1) ^ ((v & 1u) ? kMatrixA : 0u);
  }

  void next_state() {
    constexpr int n = kMt19937StateSize;
    constexpr int m = kMt19937Shift;
    uint32_t* s = data_.state.data();
    data_.left = n;
    data_.next = 0;
    int k = 0;
    for (; k < n - m; ++k) s[k] = s[k + m] ^ twist(s[k], s[k + 1]);
    for (; k < n - 1; ++k) s[k] = s[k + m - n] ^ twist(s[k], s[k + 1]);
    s[n - 1] = s[m - 1] ^ twist(s[n - 1], s[0]);
  }

  Mt19937Data data_;
};

}  // namespace ctorch::api::impl
