// torch.cuda.comm: broadcast, scatter, gather and reduce_add between devices, with PyTorch's
// checks and messages (torch/csrc/cuda/comm.cpp, torch/nn/parallel/comm.py). Copies go through
// copy_ (non_blocking), so emulated devices move real data and honour the peer-access matrix;
// every argument is checked and every output allocated before the first copy.
#include "ctorch/cuda_comm.h"

#include <map>
#include <numeric>
#include <sstream>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ctorch/warning.h"
#include "ops/elementwise.h"

namespace ctorch::cuda::comm {

namespace {

std::vector<int> device_indices(const std::vector<DeviceArg>& devices) {
  std::vector<int> out;
  out.reserve(devices.size());
  for (const DeviceArg& d : devices) {
    const int index = d.resolve();
    CTORCH_CHECK(index >= 0, "Expected non-negative device index, but got ", index);
    out.push_back(index);
  }
  return out;
}

Device cuda_device(int index) { return Device(DeviceType::CUDA, static_cast<DeviceIndex>(index)); }

std::string joined_sizes(IntArrayRef sizes) {
  std::ostringstream os;
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? "x" : "") << sizes[i];
  return os.str();
}

/// Tensors grouped by dtype in input order, each group cut into chunks of >= `limit` bytes
/// (torch/csrc/utils/tensor_flatten.cpp's take_tensors): positions into the input list.
std::vector<std::vector<size_t>> take_tensors(const std::vector<Tensor>& tensors, size_t limit) {
  std::vector<std::vector<size_t>> chunks;
  std::map<ScalarType, std::pair<std::vector<size_t>, size_t>> open;  // dtype -> (members, bytes)
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto& [members, bytes] = open[tensors[i].scalar_type()];
    members.push_back(i);
    bytes += tensors[i].nbytes();
    if (bytes >= limit) {
      chunks.push_back(std::move(members));
      members.clear();
      bytes = 0;
    }
  }
  for (auto& [dtype, group] : open) {
    if (!group.first.empty()) chunks.push_back(std::move(group.first));
  }
  return chunks;
}

/// The chunk's tensors as one flat tensor (their elements in order, on their device).
Tensor flatten_dense(const std::vector<Tensor>& tensors, const std::vector<size_t>& chunk) {
  std::vector<Tensor> flat;
  flat.reserve(chunk.size());
  for (size_t i : chunk) flat.push_back(tensors[i].reshape({-1}));
  return cat(flat, 0);
}

/// Views of `flat` shaped like the chunk's tensors, detached so each has its own identity.
void unflatten_dense(const Tensor& flat, const std::vector<Tensor>& like, const std::vector<size_t>& chunk,
                     std::vector<Tensor>& out) {
  int64_t offset = 0;
  for (size_t i : chunk) {
    const int64_t n = like[i].numel();
    out[i] = flat.narrow(0, offset, n).view(like[i].sizes()).detach();
    offset += n;
  }
}

void check_stream(const std::vector<std::optional<Stream>>& streams, size_t i, int device) {
  if (i >= streams.size() || !streams[i]) return;
  CTORCH_CHECK(streams[i]->device_index() == device, "Expected the device associated with the stream at index ", i,
               " (was ", streams[i]->device_index(), ") ", "to match the device supplied at that index ",
               "(expected ", device, ")");
}

/// Copies `src` into `dst` on streams[i] when given (the current stream of dst's device otherwise).
void copy_on(const std::vector<std::optional<Stream>>& streams, size_t i, const Tensor& dst, const Tensor& src) {
  const std::optional<Stream> s = i < streams.size() ? streams[i] : std::nullopt;
  StreamContext block(s);
  Tensor(dst).copy_(src, /*non_blocking=*/true);
}

}  // namespace

std::vector<Tensor> broadcast(const Tensor& tensor, const std::vector<DeviceArg>& devices) {
  CTORCH_CHECK(tensor.defined(), "broadcast: expected a defined tensor");
  const std::vector<int> indices = device_indices(devices);
  NoGradGuard no_grad;
  std::vector<Tensor> out;
  out.reserve(indices.size());
  for (int d : indices) out.push_back(d == tensor.get_device() ? tensor : empty(tensor.sizes(), tensor.options().device(cuda_device(d))));
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].is_same(tensor)) out[i].copy_(tensor, /*non_blocking=*/true);
  }
  return out;
}

std::vector<Tensor> broadcast_out(const Tensor& tensor, const std::vector<Tensor>& out) {
  CTORCH_CHECK(tensor.defined(), "broadcast: expected a defined tensor");
  for (size_t i = 0; i < out.size(); ++i) {
    CTORCH_CHECK(out[i].defined() && out[i].is_cuda(), "Expected all output tensors to be CUDA tensors, but output tensor at index ",
                 i, " has device '", out[i].defined() ? out[i].device().str() : std::string("undefined"), "'");
    CTORCH_CHECK(out[i].sizes() == tensor.sizes(), "Expected all output tensors to have same shape as the source tensor ",
                 tensor.sizes(), ", but output tensor at index ", i, " has shape ", out[i].sizes());
  }
  NoGradGuard no_grad;
  for (const Tensor& o : out) Tensor(o).copy_(tensor, /*non_blocking=*/true);
  return out;
}

std::vector<std::vector<Tensor>> broadcast_coalesced(const std::vector<Tensor>& tensors,
                                                     const std::vector<DeviceArg>& devices, size_t buffer_size) {
  const std::vector<int> indices = device_indices(devices);
  CTORCH_CHECK(!indices.empty(), "broadcast_coalesced: expected at least one device");
  for (size_t i = 0; i < tensors.size(); ++i) {
    CTORCH_CHECK(tensors[i].defined() && tensors[i].get_device() == indices[0], "All tensors must be on devices[0]: ",
                 indices[0], " (tensor ", i, " is on ", tensors[i].defined() ? tensors[i].device().str() : "nothing", ")");
  }
  NoGradGuard no_grad;
  std::vector<std::vector<Tensor>> outputs(indices.size(), std::vector<Tensor>(tensors.size()));
  outputs[0] = tensors;
  const std::vector<DeviceArg> rest(devices.begin() + 1, devices.end());
  for (const std::vector<size_t>& chunk : take_tensors(tensors, buffer_size)) {
    const Tensor flat = flatten_dense(tensors, chunk);
    const std::vector<Tensor> copies = broadcast(flat, rest);
    for (size_t d = 1; d < indices.size(); ++d) unflatten_dense(copies[d - 1], tensors, chunk, outputs[d]);
  }
  return outputs;
}

Tensor reduce_add(const std::vector<Tensor>& inputs, DeviceArg destination) {
  CTORCH_CHECK_VALUE(!inputs.empty(), "reduce_add expects at least one input");
  const int dst = destination.resolve();
  std::optional<size_t> root;
  for (size_t i = 0; i < inputs.size(); ++i) {
    CTORCH_CHECK(inputs[i].defined() && !inputs[i].device().is_cpu(), "reduce_add expects all inputs to be on GPUs",
                 " (input ", i, " is on ", inputs[i].defined() ? inputs[i].device().str() : "nothing", ")");
    if (inputs[i].get_device() == dst) root = i;
    CTORCH_CHECK_VALUE(inputs[i].sizes() == inputs[0].sizes(), "input ", i, " has invalid size: got ",
                       joined_sizes(inputs[i].sizes()), ", but expected ", joined_sizes(inputs[0].sizes()));
  }
  if (!root) {
    std::ostringstream where;
    for (size_t i = 0; i < inputs.size(); ++i) where << (i ? ", " : "") << inputs[i].device().str();
    CTORCH_CHECK(false, "reduce_add expects destination to be on the same GPU with one of the tensors",
                 " (destination cuda:", dst, "; inputs on ", where.str(), ")");
  }
  if (inputs.size() == 1) return inputs[0];
  NoGradGuard no_grad;
  std::optional<Tensor> result;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i == *root) continue;
    Tensor moved = inputs[i].to(cuda_device(dst), /*non_blocking=*/true);
    if (!result) {
      result = inputs[*root] + moved;
    } else {
      result->add_(moved);
    }
  }
  return *result;
}

std::vector<Tensor> reduce_add_coalesced(const std::vector<std::vector<Tensor>>& inputs, DeviceArg destination,
                                         size_t buffer_size) {
  CTORCH_CHECK_VALUE(!inputs.empty(), "reduce_add_coalesced expects at least one list of inputs");
  size_t count = inputs[0].size();  // zip(*inputs): the shortest list
  for (const auto& list : inputs) count = std::min(count, list.size());
  std::vector<std::vector<Tensor>> lists;
  for (const auto& list : inputs) lists.emplace_back(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(count));
  const std::vector<std::vector<size_t>> chunks = take_tensors(lists[0], buffer_size);
  // Check everything reduce_add would, before the first copy.
  for (size_t pos = 0; pos < count; ++pos) {
    for (size_t g = 0; g < lists.size(); ++g) {
      CTORCH_CHECK(lists[g][pos].defined() && !lists[g][pos].device().is_cpu(), "reduce_add expects all inputs to be on GPUs",
                   " (tensor ", pos, " of input ", g, " is on ",
                   lists[g][pos].defined() ? lists[g][pos].device().str() : "nothing", ")");
      CTORCH_CHECK_VALUE(lists[g][pos].scalar_type() == lists[0][pos].scalar_type() &&
                             lists[g][pos].sizes() == lists[0][pos].sizes(),
                         "reduce_add_coalesced: tensor ", pos, " of input ", g, " has dtype ", lists[g][pos].scalar_type(),
                         " and size ", joined_sizes(lists[g][pos].sizes()), ", but input 0 has ",
                         lists[0][pos].scalar_type(), " and ", joined_sizes(lists[0][pos].sizes()));
    }
  }
  std::vector<Tensor> output(count);
  NoGradGuard no_grad;
  for (const std::vector<size_t>& chunk : chunks) {
    std::vector<Tensor> flats;
    for (const auto& list : lists) flats.push_back(flatten_dense(list, chunk));
    unflatten_dense(reduce_add(flats, destination), lists[0], chunk, output);
  }
  return output;
}

std::vector<Tensor> scatter(const Tensor& tensor, const std::vector<DeviceArg>& devices,
                            const std::optional<std::vector<int64_t>>& chunk_sizes, int64_t dim,
                            const std::vector<std::optional<Stream>>& streams) {
  CTORCH_CHECK(tensor.defined(), "scatter: expected a defined tensor");
  const std::vector<int> indices = device_indices(devices);
  CTORCH_CHECK(!indices.empty(), "Expected at least one device to scatter to");
  if (chunk_sizes) {
    CTORCH_CHECK(chunk_sizes->size() == indices.size(), "Expected devices and chunk_sizes to be of same length, but got ",
                 "len(devices) = ", indices.size(), " and len(chunk_sizes) = ", chunk_sizes->size());
  }
  dim = ops::wrap_dim(dim, tensor.dim());
  NoGradGuard no_grad;
  std::vector<Tensor> chunks = chunk_sizes ? tensor.split(IntArrayRef(*chunk_sizes), dim)
                                           : tensor.chunk(static_cast<int64_t>(indices.size()), dim);
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (indices[i] != tensor.get_device()) check_stream(streams, i, indices[i]);
  }
  std::vector<Tensor> out(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) {
    out[i] = indices[i] == tensor.get_device() ? chunks[i] : empty(chunks[i].sizes(), chunks[i].options().device(cuda_device(indices[i])));
  }
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (!out[i].is_same(chunks[i])) copy_on(streams, i, out[i], chunks[i]);
  }
  return out;
}

std::vector<Tensor> scatter_out(const Tensor& tensor, const std::vector<Tensor>& out, int64_t dim,
                                const std::vector<std::optional<Stream>>& streams) {
  CTORCH_CHECK(tensor.defined(), "scatter: expected a defined tensor");
  CTORCH_CHECK(!out.empty(), "Expected at least one output tensor to scatter to");
  dim = ops::wrap_dim(dim, tensor.dim());
  int64_t total = 0;
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < out.size(); ++i) {
    CTORCH_CHECK(out[i].defined() && out[i].is_cuda(), "Expected all output tensors to be CUDA tensors, but output tensor at index ",
                 i, " has device '", out[i].defined() ? out[i].device().str() : std::string("undefined"), "'");
    std::vector<int64_t> shape(out[i].sizes().begin(), out[i].sizes().end());
    const bool same_ndim = static_cast<int64_t>(shape.size()) == tensor.dim();
    if (same_ndim) {
      total += shape[dim];
      sizes.push_back(shape[dim]);
      shape[dim] = tensor.size(dim);
    }
    CTORCH_CHECK(same_ndim && IntArrayRef(shape) == tensor.sizes(), "Output tensor at index ", i, " has incorrect shape: ",
                 out[i].sizes(), ". Expected same shape except for scatter dim ", dim, " as the source tensor: ",
                 tensor.sizes());
    check_stream(streams, i, static_cast<int>(out[i].get_device()));
  }
  CTORCH_CHECK(total == tensor.size(dim), "Total size for output tensors along scatter dim ", dim,
               " does not match the source tensor size at dim ", dim, ". Expected ", tensor.size(dim),
               ", but got total size ", total);
  NoGradGuard no_grad;
  const std::vector<Tensor> chunks = tensor.split(IntArrayRef(sizes), dim);
  for (size_t i = 0; i < chunks.size(); ++i) copy_on(streams, i, out[i], chunks[i]);
  return out;
}

namespace {

/// The shape of the concatenation along `dim`, after PyTorch's input checks.
std::vector<int64_t> gathered_shape(const std::vector<Tensor>& tensors, int64_t& dim) {
  CTORCH_CHECK(!tensors.empty(), "Expected at least one tensor to gather from");
  CTORCH_CHECK(tensors[0].defined(), "gather: tensor at index 0 is undefined");
  dim = ops::wrap_dim(dim, tensors[0].dim());
  std::vector<int64_t> expected(tensors[0].sizes().begin(), tensors[0].sizes().end());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    CTORCH_CHECK(t.defined() && t.is_cuda(), "Expected all input tensors to be CUDA tensors, but tensor at index ", i,
                 " has device '", t.defined() ? t.device().str() : std::string("undefined"), "'");
    CTORCH_CHECK(t.dim() == static_cast<int64_t>(expected.size()),
                 "Expected all input tensors to have the same number of dimensions, but ", "tensor at index ", i,
                 "has ", t.dim(), " dimensions, (expected ", expected.size(), ")");
    expected[dim] = t.size(dim);
    CTORCH_CHECK(IntArrayRef(expected) == t.sizes(), "Input tensor at index ", i, " has invalid shape ", t.sizes(),
                 ", but expected ", IntArrayRef(expected));
    total += t.size(dim);
  }
  expected[dim] = total;
  return expected;
}

Tensor gather_into(const std::vector<Tensor>& tensors, Tensor out, int64_t dim) {
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    out.narrow(dim, offset, t.size(dim)).copy_(t, /*non_blocking=*/out.is_cuda());
    offset += t.size(dim);
  }
  return out;
}

}  // namespace

Tensor gather(const std::vector<Tensor>& tensors, int64_t dim, std::optional<Device> destination) {
  const std::vector<int64_t> shape = gathered_shape(tensors, dim);
  Device device = cuda_device(current_device());
  if (destination) {
    CTORCH_CHECK(destination->is_cpu() || destination->is_cuda(), "gather: expected a cuda or cpu destination, but got ",
                 destination->str());
    device = destination->is_cpu() ? *destination : cuda_device(DeviceArg(*destination).resolve());
  }
  return gather_into(tensors, empty(shape, tensors[0].options().device(device)), dim);
}

Tensor gather(const std::vector<Tensor>& tensors, int64_t dim, int destination) {
  if (destination == -1) {
    warn("Using -1 to represent CPU tensor is deprecated. Please use a device object or string instead, e.g., \"cpu\".");
    return gather(tensors, dim, Device(DeviceType::CPU));
  }
  CTORCH_CHECK(destination >= 0, "Expected non-negative device index, but got ", destination);
  return gather(tensors, dim, cuda_device(destination));
}

Tensor gather_out(const std::vector<Tensor>& tensors, const Tensor& out, int64_t dim) {
  const std::vector<int64_t> shape = gathered_shape(tensors, dim);
  CTORCH_CHECK(out.defined() && out.sizes() == IntArrayRef(shape), "Expected out tensor to have shape ",
               IntArrayRef(shape), ", but got ", out.defined() ? out.sizes() : IntArrayRef());
  return gather_into(tensors, out, dim);
}

}  // namespace ctorch::cuda::comm
