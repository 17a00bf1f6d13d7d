// Random tensors and the global seed functions (torch.manual_seed, torch.rand, ...).
#pragma once

#include <optional>

#include "ctorch/generator.h"
#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// Seeds the default cpu generator and every CUDA device's default generator (the CUDA part is
/// queued until CUDA is initialized, as torch.manual_seed). Returns the cpu generator.
Generator manual_seed(uint64_t seed);
/// Reseeds the cpu generator non-deterministically, seeds every CUDA generator with the same
/// value (queued) and returns it (torch.seed).
uint64_t seed();
/// The seed of the default cpu generator (torch.initial_seed).
uint64_t initial_seed();
/// State of the default cpu generator as a 5056-byte uint8 tensor.
Tensor get_rng_state();
/// Restores the default cpu generator's state.
void set_rng_state(const Tensor& state);

/// Uniform [0, 1).
Tensor rand(IntArrayRef size, TensorOptions options = {}, std::optional<Generator> generator = std::nullopt);
/// Standard normal.
Tensor randn(IntArrayRef size, TensorOptions options = {}, std::optional<Generator> generator = std::nullopt);
/// Integers in [low, high); int64 unless options say otherwise.
Tensor randint(int64_t low, int64_t high, IntArrayRef size, TensorOptions options = {},
               std::optional<Generator> generator = std::nullopt);
/// Integers in [0, high).
Tensor randint(int64_t high, IntArrayRef size, TensorOptions options = {},
               std::optional<Generator> generator = std::nullopt);
/// A random permutation of 0..n-1 (int64 unless options say otherwise).
Tensor randperm(int64_t n, TensorOptions options = {}, std::optional<Generator> generator = std::nullopt);
/// Normal with scalar mean and std, of `size`.
Tensor normal(double mean, double std, IntArrayRef size, TensorOptions options = {},
              std::optional<Generator> generator = std::nullopt);
/// Normal with elementwise mean and std tensors.
Tensor normal(const Tensor& mean, const Tensor& std, std::optional<Generator> generator = std::nullopt);
/// Normal with tensor mean and scalar std.
Tensor normal(const Tensor& mean, double std = 1, std::optional<Generator> generator = std::nullopt);
/// Normal with scalar mean and tensor std.
Tensor normal(double mean, const Tensor& std, std::optional<Generator> generator = std::nullopt);
/// 1 where a uniform draw is below p (elementwise probabilities).
Tensor bernoulli(const Tensor& p, std::optional<Generator> generator = std::nullopt);
/// 1 with probability p, shaped like `input`.
Tensor bernoulli(const Tensor& input, double p, std::optional<Generator> generator = std::nullopt);
/// rand with input's sizes, dtype and device.
Tensor rand_like(const Tensor& input, TensorOptions options = {});
/// randn with input's sizes, dtype and device.
Tensor randn_like(const Tensor& input, TensorOptions options = {});

}  // namespace ctorch::api
