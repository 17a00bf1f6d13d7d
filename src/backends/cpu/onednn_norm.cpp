// Batch normalization on the cpu through oneDNN's batch_normalization primitives over the plain
// [N, C, L, 1] layout (no reorders): forward training (writes the batch's mean and biased variance),
// forward inference (reads the running ones) and backward (diff of data, scale and shift). Scale and
// shift are oneDNN's separate [C] arguments; without a weight the primitive runs without them.
// Layer normalization the same way with the layer_normalization primitives over [M, N] rows (stats
// [M]). Primitives are built once per geometry and cached.
#include "backends/cpu/onednn_norm.h"

#include <dnnl.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "backends/cpu/openmp_threads.h"

namespace ctorch::inline api::backends::cpu {

namespace {

using dnnl::memory;
using dnnl::normalization_flags;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

using Key = std::tuple<int, int64_t, int64_t, int64_t, double, bool, bool, bool>;

memory::desc data_desc(const ops::BatchNormKernelArgs& a) {
  return memory::desc({a.n, a.c, a.l, 1}, memory::data_type::f32, memory::format_tag::nchw);
}

normalization_flags flags_of(const ops::BatchNormKernelArgs& a, bool global_stats) {
  auto f = normalization_flags::none;
  if (a.weight != nullptr) f = f | normalization_flags::use_scale | normalization_flags::use_shift;
  if (global_stats) f = f | normalization_flags::use_global_stats;
  return f;
}

dnnl::primitive prepare(const ops::BatchNormKernelArgs& a) {
  const memory::desc md = data_desc(a);
  const bool global_stats = a.pass == ops::BatchNormPass::ForwardInference ||
                            (a.pass == ops::BatchNormPass::Backward && !a.use_batch_stats);
  const normalization_flags flags = flags_of(a, global_stats);
  const auto fwd_kind = a.pass == ops::BatchNormPass::ForwardInference ? dnnl::prop_kind::forward_inference
                                                                       : dnnl::prop_kind::forward_training;
  const dnnl::batch_normalization_forward::primitive_desc fwd(
      dnnl::batch_normalization_forward::desc(fwd_kind, md, static_cast<float>(a.eps), flags), engine());
  if (a.pass != ops::BatchNormPass::Backward) return dnnl::batch_normalization_forward(fwd);
  const auto bwd_kind = a.weight != nullptr ? dnnl::prop_kind::backward : dnnl::prop_kind::backward_data;
  const dnnl::batch_normalization_backward::primitive_desc bwd(
      dnnl::batch_normalization_backward::desc(bwd_kind, md, md, static_cast<float>(a.eps), flags), engine(), fwd);
  return dnnl::batch_normalization_backward(bwd);
}

memory channels(const ops::BatchNormKernelArgs& a, const void* p) {
  return memory(memory::desc({a.c}, memory::data_type::f32, memory::format_tag::x), engine(), const_cast<void*>(p));
}

}  // namespace

bool onednn_batch_norm(const ops::BatchNormKernelArgs& a, Stream) {
  if (a.dtype != kFloat) return false;
  // ctorch's thread count while the primitive is planned (oneDNN partitions work when it builds one)
  // and run, whatever another library in the process set.
  const OpenMpThreadsGuard threads;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const dnnl::primitive>> cache;
  const Key key{static_cast<int>(a.pass), a.n, a.c, a.l, a.eps, a.use_batch_stats, a.weight != nullptr,
                a.bias != nullptr};
  std::shared_ptr<const dnnl::primitive> primitive;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = cache[key];
    if (!slot) {
      try {
        slot = std::make_shared<const dnnl::primitive>(prepare(a));
      } catch (const dnnl::error&) {  // no oneDNN implementation: the op layer's generic path
        cache.erase(key);
        return false;
      }
    }
    primitive = slot;
  }
  const memory::desc md = data_desc(a);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(md, engine(), const_cast<void*>(a.input))},
                                       {DNNL_ARG_MEAN, channels(a, a.mean)},
                                       {DNNL_ARG_VARIANCE, channels(a, a.var)}};
  // A weight without a bias shifts by zero (oneDNN takes scale and shift together, in both directions).
  std::unique_ptr<float[]> zeros;
  const void* shift = a.bias;
  if (a.weight != nullptr && shift == nullptr) {
    zeros = std::make_unique<float[]>(static_cast<size_t>(a.c));
    shift = zeros.get();
  }
  if (a.weight != nullptr) {
    args.emplace(DNNL_ARG_SCALE, channels(a, a.weight));
    args.emplace(DNNL_ARG_SHIFT, channels(a, shift));
  }
  if (a.pass == ops::BatchNormPass::Backward) {
    args.emplace(DNNL_ARG_DIFF_DST, memory(md, engine(), const_cast<void*>(a.grad_output)));
    args.emplace(DNNL_ARG_DIFF_SRC, memory(md, engine(), a.grad_input));
    if (a.weight != nullptr) {
      args.emplace(DNNL_ARG_DIFF_SCALE, channels(a, a.grad_weight));
      args.emplace(DNNL_ARG_DIFF_SHIFT, channels(a, a.grad_bias));
    }
  } else {
    args.emplace(DNNL_ARG_DST, memory(md, engine(), a.output));
  }
  dnnl::stream stream(engine());
  primitive->execute(stream, args);
  stream.wait();
  return true;
}

namespace {

using LayerKey = std::tuple<bool, int64_t, int64_t, double, bool>;

dnnl::primitive prepare_layer(const ops::LayerNormKernelArgs& a) {
  const memory::desc md({a.m, a.n}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc stats({a.m}, memory::data_type::f32, memory::format_tag::a);
  auto flags = normalization_flags::none;
  if (a.weight != nullptr) flags = flags | normalization_flags::use_scale | normalization_flags::use_shift;
  const auto eps = static_cast<float>(a.eps);
  const dnnl::layer_normalization_forward::primitive_desc fwd(
      dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_training, md, stats, eps, flags), engine());
  if (!a.backward) return dnnl::layer_normalization_forward(fwd);
  const auto kind = a.weight != nullptr ? dnnl::prop_kind::backward : dnnl::prop_kind::backward_data;
  const dnnl::layer_normalization_backward::primitive_desc bwd(
      dnnl::layer_normalization_backward::desc(kind, md, md, stats, eps, flags), engine(), fwd);
  return dnnl::layer_normalization_backward(bwd);
}

memory row_memory(const ops::LayerNormKernelArgs& a, int64_t size, const void* p) {
  return memory(memory::desc({size}, memory::data_type::f32, memory::format_tag::a), engine(), const_cast<void*>(p));
}

}  // namespace

bool onednn_layer_norm(const ops::LayerNormKernelArgs& a, Stream) {
  if (a.dtype != kFloat || a.m == 0 || a.n == 0) return false;
  const OpenMpThreadsGuard threads;
  static std::mutex mutex;
  static std::map<LayerKey, std::shared_ptr<const dnnl::primitive>> cache;
  const LayerKey key{a.backward, a.m, a.n, a.eps, a.weight != nullptr};
  std::shared_ptr<const dnnl::primitive> primitive;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = cache[key];
    if (!slot) {
      try {
        slot = std::make_shared<const dnnl::primitive>(prepare_layer(a));
      } catch (const dnnl::error&) {  // no oneDNN implementation: the op layer's generic path
        cache.erase(key);
        return false;
      }
    }
    primitive = slot;
  }
  const memory::desc md({a.m, a.n}, memory::data_type::f32, memory::format_tag::ab);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(md, engine(), const_cast<void*>(a.input))},
                                       {DNNL_ARG_MEAN, row_memory(a, a.m, a.mean)},
                                       {DNNL_ARG_VARIANCE, row_memory(a, a.m, a.var)}};
  std::unique_ptr<float[]> zeros;  // a weight without a bias shifts by zero
  const void* shift = a.bias;
  if (a.weight != nullptr && shift == nullptr) {
    zeros = std::make_unique<float[]>(static_cast<size_t>(a.n));
    shift = zeros.get();
  }
  if (a.weight != nullptr) {
    args.emplace(DNNL_ARG_SCALE, row_memory(a, a.n, a.weight));
    args.emplace(DNNL_ARG_SHIFT, row_memory(a, a.n, shift));
  }
  if (a.backward) {
    args.emplace(DNNL_ARG_DIFF_DST, memory(md, engine(), const_cast<void*>(a.grad_output)));
    args.emplace(DNNL_ARG_DIFF_SRC, memory(md, engine(), a.grad_input));
    if (a.weight != nullptr) {
      args.emplace(DNNL_ARG_DIFF_SCALE, row_memory(a, a.n, a.grad_weight));
      args.emplace(DNNL_ARG_DIFF_SHIFT, row_memory(a, a.n, a.grad_bias));
    }
  } else {
    args.emplace(DNNL_ARG_DST, memory(md, engine(), a.output));
  }
  dnnl::stream stream(engine());
  primitive->execute(stream, args);
  stream.wait();
  return true;
}

}  // namespace ctorch::api::backends::cpu
