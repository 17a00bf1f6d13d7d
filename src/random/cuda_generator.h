// CUDAGeneratorImpl, PyTorch's CUDA generator (pytorch/pytorch:aten/src/ATen/cuda/CUDAGeneratorImpl.cpp):
// a seed and a Philox offset per thread. Each random kernel takes (seed, offset) once through
// philox_cuda_state(increment), which reserves `increment` (rounded up to a multiple of 4)
// 32-bit outputs of every thread's Philox stream; see Note [CUDA RNG determinism contract] in
// kernels/random_functors.h. The same generator serves emulated and real CUDA devices.
//
// Locking: as GeneratorImpl, every method below that says "caller holds mutex()" does not lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ctorch/tensor.h"
#include "kernels/random_op.h"
#include "random/cpu_generator.h"

namespace ctorch::inline api::impl {

/// A seed and offset (the state bytes' content).
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

/// PyTorch's CUDA generator. State bytes: 16, the seed (uint64 LE) then the offset (int64 LE).
class CUDAGeneratorImpl final : public GeneratorImpl {
 public:
  /// Size of get_state(): seed and offset.
  static constexpr size_t kStateSize = 16;

  /// A generator for cuda:`device` seeded with `seed`, offset 0.
  explicit CUDAGeneratorImpl(DeviceIndex device, uint64_t seed = kDefaultRngSeed) : device_(device), seed_(seed) {}

  Device device() const override { return Device(DeviceType::CUDA, device_); }
  /// Sets the seed and resets the offset to 0; refused during capture. Caller holds mutex().
  void set_current_seed(uint64_t seed) override;
  /// The seed; refused during capture (as PyTorch, conservatively). Caller holds mutex().
  uint64_t current_seed() const override;
  /// Reseeds with 53 non-deterministic bits (c10's getNonDeterministicRandom(true)).
  uint64_t seed() override;
  std::vector<uint8_t> get_state() const override;
  /// Accepts 8 bytes (seed; offset 0) or 16 (seed, offset); validates before changing anything.
  void set_state(const uint8_t* data, size_t size) override;
  std::shared_ptr<GeneratorImpl> clone() const override;

  /// The offset the next kernel starts at (always a multiple of 4). Caller holds mutex().
  uint64_t philox_offset_per_thread() const { return offset_; }
  /// Sets the offset; throws "offset must be a multiple of 4" otherwise. Caller holds mutex().
  void set_philox_offset_per_thread(uint64_t offset);
  /// Returns (seed, offset) for one kernel and advances the offset by `increment` rounded up to
  /// a multiple of 4. While the current stream captures: pointers to the graph seed and base
  /// offset plus the kernel's intragraph offset, which advances instead. Caller holds mutex().
  kernels::PhiloxArgs philox_cuda_state(uint64_t increment);

  // CUDA graphs (PyTorch's CUDAGeneratorState; Note [CUDA Graph-safe RNG states]). Caller holds mutex().
  /// Adds `graph` to the graphs that replay this generator's state (allocates the device seed and
  /// offset at the first); refused during capture.
  void register_graph(const void* graph);
  /// Removes `graph`; the device seed and offset are freed with the last one.
  void unregister_graph(const void* graph) noexcept;
  /// Before a capture: kernels captured from now on read the seed and base offset from device memory.
  void capture_prologue();
  /// After a capture: the whole graph's offset increment.
  uint64_t capture_epilogue();
  /// Before a replay: fills the device seed and base offset (on the current stream) and advances
  /// the offset by the graph's increment.
  void replay_prologue(uint64_t wholegraph_increment);

 private:
  DeviceIndex device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
  // Graph state.
  bool capturing_ = false;
  uint64_t offset_intragraph_ = 0;
  std::vector<const void*> registered_graphs_;
  Tensor seed_extragraph_;    // int64[1] on the device
  Tensor offset_extragraph_;  // int64[1] on the device
};

/// A new generator for `device` (torch.Generator(device='cuda:N')): seed 67280421310721, offset
/// 0. An index-less device means the current device; throws "The device_index is invalid."
std::shared_ptr<CUDAGeneratorImpl> make_cuda_generator(Device device);

/// The default generator of cuda:`index` (-1: the current device), created on first use and
/// seeded non-deterministically. Initializes CUDA (running queued seed calls) before creating it.
/// Throws IndexError for an index outside [0, device_count).
const std::shared_ptr<CUDAGeneratorImpl>& default_cuda_generator(DeviceIndex index = -1);

/// The CUDA impl behind `gen`, or the default generator of `device` when `gen` is empty.
/// Throws ctorch::Error when `gen` serves the cpu.
CUDAGeneratorImpl& cuda_generator_or_default(const std::optional<Generator>& gen, Device device);

/// Queues torch.cuda.manual_seed_all(seed) until CUDA is initialized (runs it at once when it
/// is); only the latest queued call is kept.
void queue_cuda_manual_seed_all(uint64_t seed);

}  // namespace ctorch::api::impl
