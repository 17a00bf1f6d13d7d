// GeneratorImpl (the per-device generator interface behind ctorch::Generator) and
// CPUGeneratorImpl, PyTorch's CPU generator: an mt19937 engine plus the cached second
// Box-Muller sample of the scalar normal path (pytorch/pytorch:aten/src/ATen/CPUGeneratorImpl.cpp).
//
// Locking rule: every sampling call, reseed and state change holds mutex() for its whole
// duration (PyTorch's Note [Acquire lock when using random generators]). Methods below marked
// "caller holds mutex()" do not lock themselves; the Generator handle and the samplers in
// distributions.h do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ctorch/device.h"
#include "ctorch/generator.h"
#include "random/mt19937.h"

namespace ctorch::inline api::impl {

/// One device's random generator. Subclasses: CPUGeneratorImpl (mt19937); a CUDA Philox one later.
class GeneratorImpl {
 public:
  virtual ~GeneratorImpl() = default;
  GeneratorImpl() = default;
  GeneratorImpl(const GeneratorImpl&) = delete;
  GeneratorImpl& operator=(const GeneratorImpl&) = delete;

  /// The device served. Never throws.
  virtual Device device() const = 0;
  /// Reseeds and drops any cached sample. Caller holds mutex().
  virtual void set_current_seed(uint64_t seed) = 0;
  /// The seed last set (all 64 bits). Caller holds mutex().
  virtual uint64_t current_seed() const = 0;
  /// Reseeds from a non-deterministic source and returns the seed. Caller holds mutex().
  virtual uint64_t seed() = 0;
  /// The full state in PyTorch's byte layout. Caller holds mutex().
  virtual std::vector<uint8_t> get_state() const = 0;
  /// Restores get_state() bytes; on any error throws and changes nothing. Caller holds mutex().
  virtual void set_state(const uint8_t* data, size_t size) = 0;
  /// A new, independent generator with a copy of this state. Caller holds mutex().
  virtual std::shared_ptr<GeneratorImpl> clone() const = 0;

  /// The lock guarding this generator's state.
  std::mutex& mutex() const { return mutex_; }

 private:
  mutable std::mutex mutex_;
};

/// PyTorch's CPU generator. State bytes: 5056, laid out as CPUGeneratorImplState (spec §5.4).
class CPUGeneratorImpl final : public GeneratorImpl {
 public:
  /// sizeof(CPUGeneratorImplState) on x86-64: the size of get_state().
  static constexpr size_t kStateSize = 5056;

  /// A generator seeded with `seed` (a new torch.Generator() uses kDefaultRngSeed).
  explicit CPUGeneratorImpl(uint64_t seed = kDefaultRngSeed) : engine_(seed) {}

  Device device() const override { return Device(DeviceType::CPU); }
  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override { return engine_.seed(); }
  uint64_t seed() override;
  std::vector<uint8_t> get_state() const override;
  void set_state(const uint8_t* data, size_t size) override;
  std::shared_ptr<GeneratorImpl> clone() const override;

  /// One 32-bit engine output. Caller holds mutex().
  uint32_t random() { return engine_(); }
  /// Two outputs joined as (first << 32) | second. Caller holds mutex().
  uint64_t random64() {
    const uint64_t hi = engine_();
    const uint64_t lo = engine_();
    return (hi << 32) | lo;
  }
  /// The cached float normal sample, if any. Caller holds mutex().
  std::optional<float> next_float_normal_sample() const { return next_float_normal_sample_; }
  /// Sets or clears the cached float normal sample. Caller holds mutex().
  void set_next_float_normal_sample(std::optional<float> v) { next_float_normal_sample_ = v; }
  /// The cached double normal sample (second Box-Muller value), if any. Caller holds mutex().
  std::optional<double> next_double_normal_sample() const { return next_double_normal_sample_; }
  /// Sets or clears the cached double normal sample. Caller holds mutex().
  void set_next_double_normal_sample(std::optional<double> v) { next_double_normal_sample_ = v; }
  /// The engine (read-only). Caller holds mutex().
  const Mt19937& engine() const { return engine_; }

 private:
  Mt19937 engine_;
  std::optional<float> next_float_normal_sample_;
  std::optional<double> next_double_normal_sample_;
};

/// c10's getNonDeterministicRandom: 8 bytes of /dev/urandom for cpu (std::random_device as a
/// fallback); for cuda ((rd() << 32) + rd()) masked to 53 bits.
uint64_t get_non_deterministic_random(bool is_cuda = false);

/// The default cpu generator's impl (created on first use, seeded non-deterministically).
CPUGeneratorImpl& default_cpu_generator_impl();

/// The CPU impl behind `gen`, or the default cpu generator when `gen` is empty.
/// Throws ctorch::Error when `gen` serves another device.
CPUGeneratorImpl& cpu_generator_or_default(const std::optional<Generator>& gen);

}  // namespace ctorch::api::impl
