// torch.nn.utils.rnn (torch/nn/utils/rnn.py and ATen's PackedSequence.cpp, PyTorch 1.13): packing and
// padding are composed of differentiable ops (narrow, cat, stack, index_select), so gradients flow.
#include "ctorch/nn_rnn_utils.h"

#include <algorithm>
#include <numeric>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"

namespace ctorch::nn::utils::rnn {

namespace {

std::vector<int64_t> int64_values(const Tensor& t) { return t.to(kCPU).to(ScalarType::Int64).contiguous().to_vector<int64_t>(); }

Tensor int64_tensor(const std::vector<int64_t>& v) {
  return from_blob(const_cast<int64_t*>(v.data()), {static_cast<int64_t>(v.size())},
                   TensorOptions().dtype(ScalarType::Int64))
      .clone();
}

/// `rows` padded with `value` up to `count` rows along dim 0.
Tensor pad_rows(const Tensor& rows, int64_t count, double value) {
  if (rows.size(0) == count) return rows;
  std::vector<int64_t> sizes = rows.sizes().vec();
  sizes[0] = count - rows.size(0);
  return cat({rows, full(sizes, value, rows.options())});
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return Tensor();
  const std::vector<int64_t> perm = int64_values(permutation);
  std::vector<int64_t> out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return int64_tensor(out).to(permutation.device());
}

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices, Tensor unsorted_indices)
    : data_(std::move(data)), batch_sizes_(std::move(batch_sizes)), sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  if (!unsorted_indices_.defined()) unsorted_indices_ = invert_permutation(sorted_indices_);
}

PackedSequence PackedSequence::to(const TensorOptions& options) const {
  Tensor data = data_.to(options);
  if (data.is_same(data_)) return *this;
  // The indices follow data's device and keep their dtype; batch_sizes stays on the cpu.
  auto move = [&](const Tensor& t) { return t.defined() ? t.to(data.device()) : t; };
  return PackedSequence(data, batch_sizes_, move(sorted_indices_), move(unsorted_indices_));
}

PackedSequence PackedSequence::cuda() const { return to(TensorOptions(DeviceType::CUDA)); }

PackedSequence PackedSequence::cpu() const { return to(TensorOptions(DeviceType::CPU)); }

PackedSequence PackedSequence::pin_memory() const {
  auto pin = [](const Tensor& t) { return t.defined() ? t.pin_memory() : t; };
  return PackedSequence(data_.pin_memory(), batch_sizes_, pin(sorted_indices_), pin(unsorted_indices_));
}

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first, bool enforce_sorted) {
  std::vector<int64_t> lens = int64_values(lengths);
  Tensor sorted_indices;
  if (!enforce_sorted) {
    std::vector<int64_t> order(lens.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lens[a] > lens[b]; });
    std::vector<int64_t> sorted(lens.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = lens[static_cast<size_t>(order[i])];
    lens = sorted;
    sorted_indices = int64_tensor(order).to(input.device());
    input = input.index_select(batch_first ? 0 : 1, sorted_indices);
  }
  // ATen's _pack_padded_sequence.
  if (batch_first) input = input.transpose(0, 1);
  CTORCH_CHECK(input.numel() > 0, "Cannot pack empty tensors.");
  const int64_t batch_size = input.size(1);
  CTORCH_CHECK(static_cast<int64_t>(lens.size()) == batch_size, "Expected `len(lengths)` to be equal to batch_size, but got ",
               lens.size(), " (batch_size=", batch_size, ")");
  CTORCH_CHECK(lens.back() > 0,
               "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  for (size_t i = 1; i < lens.size(); ++i) {
    CTORCH_CHECK(lens[i] <= lens[i - 1],
                 "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                 "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if "
                 "you do not need ONNX exportability.");
  }
  CTORCH_CHECK(lens.front() <= input.size(0), "Expected the longest length (", lens.front(),
               ") to be at most the padded length (", input.size(0), ")");
  std::vector<Tensor> steps;
  std::vector<int64_t> batch_sizes;
  for (int64_t t = 0; t < lens.front(); ++t) {
    const auto running = static_cast<int64_t>(std::count_if(lens.begin(), lens.end(), [&](int64_t l) { return l > t; }));
    steps.push_back(input.select(0, t).narrow(0, 0, running));
    batch_sizes.push_back(running);
  }
  return PackedSequence(cat(steps), int64_tensor(batch_sizes), sorted_indices, Tensor());
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first, double padding_value,
                                               std::optional<int64_t> total_length) {
  const std::vector<int64_t> batch_sizes = int64_values(sequence.batch_sizes());
  auto max_length = static_cast<int64_t>(batch_sizes.size());
  if (total_length) {
    CTORCH_CHECK_VALUE(*total_length >= max_length,
                       "Expected total_length to be at least the length of the longest sequence in input, but got "
                       "total_length=",
                       *total_length, " and max sequence length being ", max_length);
    max_length = *total_length;
  }
  const Tensor& data = sequence.data();
  const int64_t batch = batch_sizes.empty() ? 0 : batch_sizes.front();
  std::vector<Tensor> steps;
  std::vector<int64_t> lengths(static_cast<size_t>(batch), 0);
  int64_t offset = 0;
  for (int64_t t = 0; t < max_length; ++t) {
    const int64_t bs = t < static_cast<int64_t>(batch_sizes.size()) ? batch_sizes[t] : 0;
    if (bs > 0) {
      steps.push_back(pad_rows(data.narrow(0, offset, bs), batch, padding_value));
      for (int64_t b = 0; b < bs; ++b) ++lengths[b];
    } else {
      std::vector<int64_t> sizes = data.sizes().vec();
      sizes[0] = batch;
      steps.push_back(full(sizes, padding_value, data.options()));
    }
    offset += bs;
  }
  Tensor padded = stack(steps);
  if (batch_first) padded = padded.transpose(0, 1);
  Tensor lens = int64_tensor(lengths);
  if (sequence.unsorted_indices().defined()) {
    padded = padded.index_select(batch_first ? 0 : 1, sequence.unsorted_indices());
    lens = lens.index_select(0, sequence.unsorted_indices().to(kCPU));
  }
  return {padded, lens};
}

Tensor pad_sequence(ArrayRef<Tensor> sequences, bool batch_first, double padding_value) {
  CTORCH_CHECK(!sequences.empty(), "received an empty list of sequences");
  int64_t max_len = 0;
  for (const Tensor& s : sequences) max_len = std::max(max_len, s.size(0));
  std::vector<Tensor> padded;
  padded.reserve(sequences.size());
  for (const Tensor& s : sequences) padded.push_back(pad_rows(s, max_len, padding_value));
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(ArrayRef<Tensor> sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  lengths.reserve(sequences.size());
  for (const Tensor& s : sequences) lengths.push_back(s.size(0));
  return pack_padded_sequence(pad_sequence(sequences), int64_tensor(lengths), false, enforce_sorted);
}

}  // namespace ctorch::nn::utils::rnn
