// Random ops on CUDA tensors (emulated or real): argument checks, one philox_cuda_state call on
// the generator, then one KernelTable::random launch on the tensor's current stream.
#pragma once

#include <cstdint>
#include <optional>

#include "ctorch/generator.h"
#include "ctorch/tensor.h"

namespace ctorch::inline api::impl {

/// self.uniform_(from, to) for a CUDA tensor.
void cuda_uniform_(Tensor& self, double from, double to, const std::optional<Generator>& gen);
/// self.normal_(mean, std) for a CUDA tensor.
void cuda_normal_(Tensor& self, double mean, double std, const std::optional<Generator>& gen);
/// self.random_(from, to) for a CUDA tensor.
void cuda_random_(Tensor& self, int64_t from, std::optional<int64_t> to, const std::optional<Generator>& gen);
/// self.bernoulli_(p) for a CUDA tensor.
void cuda_bernoulli_(Tensor& self, double p, const std::optional<Generator>& gen);
/// torch.bernoulli(p) for a CUDA tensor of probabilities.
Tensor cuda_bernoulli(const Tensor& p, const std::optional<Generator>& gen);

}  // namespace ctorch::api::impl
