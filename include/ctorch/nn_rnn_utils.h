// torch.nn.utils.rnn: PackedSequence and pack_padded_sequence, pad_packed_sequence, pad_sequence,
// pack_sequence (PyTorch 1.13's semantics and messages; built from differentiable ops).
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::nn::utils::rnn {

/// The inverse of a permutation (1-d int64): out[perm[i]] = i.
Tensor invert_permutation(const Tensor& permutation);

/// A batch of sequences of different lengths packed time step by time step (torch.nn.utils.rnn.PackedSequence):
/// data holds, for each step t, the batch_sizes[t] sequences still running (longest first).
class PackedSequence {
 public:
  /// `unsorted_indices` defaults to the inverse of `sorted_indices` (both undefined when the batch was sorted).
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {}, Tensor unsorted_indices = {});

  /// The packed steps, [sum(batch_sizes), *].
  const Tensor& data() const { return data_; }
  /// How many sequences each step holds (int64, on the cpu).
  const Tensor& batch_sizes() const { return batch_sizes_; }
  /// Where each packed sequence came from in the original batch (undefined when it was sorted).
  const Tensor& sorted_indices() const { return sorted_indices_; }
  /// The inverse of sorted_indices.
  const Tensor& unsorted_indices() const { return unsorted_indices_; }

  /// data (and the indices) converted as `options` says; *this when data already is.
  PackedSequence to(const TensorOptions& options) const;
  /// to(cuda).
  PackedSequence cuda() const;
  /// to(cpu).
  PackedSequence cpu() const;
  /// data in pinned memory.
  PackedSequence pin_memory() const;
  /// True when data is on a cuda device.
  bool is_cuda() const { return data_.is_cuda(); }
  /// True when data is in pinned memory.
  bool is_pinned() const { return data_.is_pinned(); }

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

/// Packs a padded batch ([T, B, *], or [B, T, *] with batch_first) of sequences of `lengths`;
/// with enforce_sorted the lengths must be decreasing, else the batch is sorted first.
PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false, bool enforce_sorted = true);
/// The inverse of pack_padded_sequence: (padded batch, lengths), padded to `total_length` steps when given.
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);
/// Stacks sequences of different lengths ([L_i, *]) into [max L, B, *] (or [B, max L, *]), padded with `padding_value`.
Tensor pad_sequence(ArrayRef<Tensor> sequences, bool batch_first = false, double padding_value = 0);
/// pack_padded_sequence of pad_sequence(sequences).
PackedSequence pack_sequence(ArrayRef<Tensor> sequences, bool enforce_sorted = true);

}  // namespace ctorch::nn::utils::rnn
