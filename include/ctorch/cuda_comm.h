// ctorch::cuda::comm: copying tensors between devices as one step (torch.cuda.comm, which
// nn.DataParallel is built on): broadcast, scatter, gather, reduce_add and their coalesced forms.
// None of these record autograd history; nn::parallel's differentiable forms do.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ctorch/cuda.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/tensor.h"

namespace ctorch::cuda::comm {

/// Default byte size of one coalesced chunk (10 MiB, PyTorch's buffer_size).
inline constexpr size_t kDefaultBufferSize = 10485760;

/// One tensor per device: `tensor` itself on its own device, a copy (non_blocking) elsewhere.
std::vector<Tensor> broadcast(const Tensor& tensor, const std::vector<DeviceArg>& devices);
/// broadcast(tensor, out=out): copies `tensor` into every cuda tensor of `out`; returns `out`.
std::vector<Tensor> broadcast_out(const Tensor& tensor, const std::vector<Tensor>& out);
/// Broadcasts `tensors` (all on devices[0]) in dtype-grouped chunks of at most `buffer_size` bytes;
/// result[i] is the list for devices[i], result[0] the inputs themselves.
std::vector<std::vector<Tensor>> broadcast_coalesced(const std::vector<Tensor>& tensors,
                                                     const std::vector<DeviceArg>& devices,
                                                     size_t buffer_size = kDefaultBufferSize);
/// Sums same-shaped cuda tensors onto `destination` (the current device when omitted), which must
/// hold one of them; a single input is returned as is.
Tensor reduce_add(const std::vector<Tensor>& inputs, DeviceArg destination = {});
/// reduce_add over per-device lists of tensors, in dtype-grouped chunks; one result per position.
std::vector<Tensor> reduce_add_coalesced(const std::vector<std::vector<Tensor>>& inputs, DeviceArg destination = {},
                                         size_t buffer_size = kDefaultBufferSize);
/// Splits `tensor` along `dim` (chunk() pieces, or `chunk_sizes`) and copies piece i to devices[i]
/// (on streams[i] when given); a piece already on its device is a view. chunk() may give fewer pieces.
std::vector<Tensor> scatter(const Tensor& tensor, const std::vector<DeviceArg>& devices,
                            const std::optional<std::vector<int64_t>>& chunk_sizes = std::nullopt, int64_t dim = 0,
                            const std::vector<std::optional<Stream>>& streams = {});
/// scatter(tensor, out=out): copies the pieces sized by `out` along `dim` into `out`; returns `out`.
std::vector<Tensor> scatter_out(const Tensor& tensor, const std::vector<Tensor>& out, int64_t dim = 0,
                                const std::vector<std::optional<Stream>>& streams = {});
/// Concatenates cuda tensors along `dim` onto `destination` (a cuda device or the cpu; the
/// current cuda device when omitted).
Tensor gather(const std::vector<Tensor>& tensors, int64_t dim = 0, std::optional<Device> destination = std::nullopt);
/// gather with an index destination: cuda:`destination`, or the cpu for -1 (deprecated, warns).
Tensor gather(const std::vector<Tensor>& tensors, int64_t dim, int destination);
/// gather(tensors, dim, out=out): copies into `out`, whose shape must be the concatenation's.
Tensor gather_out(const std::vector<Tensor>& tensors, const Tensor& out, int64_t dim = 0);

}  // namespace ctorch::cuda::comm
