// ctorch::cuda random-number functions (torch.cuda.random): per-device default generators,
// Philox4x32-10 with PyTorch's (seed, offset) state, identical on emulated and real devices.
//
// Seeding calls made before CUDA is initialized are queued and run at initialization, as
// torch.cuda's _lazy_call: only the latest manual_seed and the latest manual_seed_all are kept;
// seed, seed_all and set_rng_state calls are all kept, in order. Determinism: for the same seed,
// offset and device properties (multiprocessor count, threads per multiprocessor) a random op
// gives the same bits on every ctorch CUDA backend; see Note [CUDA RNG determinism contract]
// in src/kernels/random_functors.h.
#pragma once

#include <cstdint>
#include <vector>

#include "ctorch/cuda.h"
#include "ctorch/generator.h"
#include "ctorch/tensor.h"

namespace ctorch::cuda {

/// Seeds the current device's default generator (queued until CUDA is initialized).
void manual_seed(uint64_t seed);
/// Seeds every device's default generator (queued until CUDA is initialized).
void manual_seed_all(uint64_t seed);
/// Reseeds the current device's default generator non-deterministically (queued).
void seed();
/// Reseeds device 0 non-deterministically and gives every other device the same seed (queued).
void seed_all();
/// The seed of the current device's default generator (initializes CUDA).
uint64_t initial_seed();
/// The state of `device`'s default generator as a 16-byte uint8 cpu tensor: the seed (uint64,
/// little-endian) then the Philox offset (int64). Initializes CUDA.
Tensor get_rng_state(DeviceArg device = {});
/// Restores a state from get_rng_state (16 bytes, or 8: seed only, offset 0). Queued until CUDA
/// is initialized; the size and offset are checked at once ("RNG state is wrong size", "offset
/// must be a multiple of 4").
void set_rng_state(const Tensor& new_state, DeviceArg device = {});
/// get_rng_state of every device, in device order.
std::vector<Tensor> get_rng_state_all();
/// set_rng_state(new_states[i], i) for each i.
void set_rng_state_all(const std::vector<Tensor>& new_states);
/// torch.cuda.default_generators[device]: the default generator of cuda:`device` (initializes
/// CUDA; IndexError outside [0, device_count)).
Generator default_generator(int device);

}  // namespace ctorch::cuda
