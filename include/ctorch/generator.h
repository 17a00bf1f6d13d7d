// Generator: a random number generator object (torch.Generator). CPU generators are mt19937,
// bit-exact with PyTorch's CPU generator for the same seed and call sequence; CUDA generators
// are Philox4x32-10 with PyTorch's (seed, offset) state (see ctorch/cuda_random.h).
#pragma once

#include <cstdint>
#include <memory>

#include "ctorch/device.h"

namespace ctorch::inline api {

class Tensor;
namespace impl {
class GeneratorImpl;
}

/// PyTorch's default_rng_seed_val: the seed of a freshly constructed Generator.
inline constexpr uint64_t kDefaultRngSeed = 67280421310721ULL;

/// A shared handle to one random generator. Copies share state, as in Python.
class Generator {
 public:
  /// A new generator for `device` seeded with kDefaultRngSeed (cuda: offset 0; an index-less
  /// cuda device means the current device).
  explicit Generator(Device device = Device(DeviceType::CPU));
  /// Wraps an existing impl.
  explicit Generator(std::shared_ptr<impl::GeneratorImpl> impl) : impl_(std::move(impl)) {}

  /// Reseeds; returns *this.
  Generator& manual_seed(uint64_t seed);
  /// The seed last set.
  uint64_t initial_seed() const;
  /// Reseeds from a non-deterministic source and returns the new seed.
  uint64_t seed();
  /// The full state as a uint8 cpu tensor (PyTorch's layout: 5056 bytes for cpu, 16 for cuda).
  Tensor get_state() const;
  /// Restores a state produced by get_state().
  Generator& set_state(const Tensor& state);
  /// The device this generator serves.
  Device device() const;
  /// The impl (library code).
  impl::GeneratorImpl* impl() const { return impl_.get(); }
  /// True when both handles share one generator.
  bool operator==(const Generator& o) const { return impl_ == o.impl_; }

 private:
  std::shared_ptr<impl::GeneratorImpl> impl_;
};

/// The default cpu generator (torch.default_generator), seeded non-deterministically at start.
Generator default_generator();

}  // namespace ctorch::api
