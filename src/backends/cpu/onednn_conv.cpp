// 2-d convolution on the cpu through oneDNN, as PyTorch's cpu convolution uses it ("mkldnn"):
// the tensors stay plain NCHW / OIHW; oneDNN picks its blocked layouts (format `any`) and the
// arguments are reordered in and out around the primitive. Primitives and their reorder
// primitives are built once per geometry and cached. float32 only; other dtypes, and geometries whose right
// padding would be negative, return false and run the op layer's im2col + GEMM.
#include "backends/cpu/onednn_conv.h"

#include <dnnl.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "backends/cpu/openmp_threads.h"
#include <vector>

namespace ctorch::inline api::backends::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dims = memory::dims;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// One argument of a primitive: the caller's plain layout, the layout the primitive wants, and the
// reorder between them when they differ (into the primitive's layout for inputs, out of it for outputs).
struct Arg {
  int id;               // DNNL_ARG_*
  memory::desc plain;   // the tensor as ctorch holds it
  memory::desc wanted;  // the primitive's layout
  bool output;
  dnnl::reorder reorder;  // empty when plain == wanted
};

// A cached primitive with its arguments and their reorders (building a reorder costs about as much
// as running it at MNIST sizes, so they are built once per geometry too).
struct Prepared {
  dnnl::primitive primitive;
  std::vector<Arg> args;
};

// The argument, with its reorder built when the layouts differ.
Arg make_arg(int id, const memory::desc& plain, const memory::desc& wanted, bool output) {
  Arg a{id, plain, wanted, output, {}};
  if (plain != wanted) {
    a.reorder = output ? dnnl::reorder(dnnl::reorder::primitive_desc(engine(), wanted, engine(), plain))
                       : dnnl::reorder(dnnl::reorder::primitive_desc(engine(), plain, engine(), wanted));
  }
  return a;
}

using Key = std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, bool>;

Key key_of(const ops::ConvKernelArgs& a) {
  const ops::ConvParams& p = a.params;
  return {static_cast<int>(a.pass), a.n, a.c, a.h, a.w, a.oc, a.kh, a.kw, p.stride[0], p.stride[1], p.padding[0],
          p.padding[1], p.dilation[0], p.dilation[1], p.groups, a.oh, a.pass == ops::ConvPass::Forward
                                                                          ? a.bias != nullptr
                                                                          : a.grad_bias != nullptr};
}

memory::desc plain(const Dims& dims, Tag tag) { return memory::desc(dims, memory::data_type::f32, tag); }
memory::desc any(const Dims& dims) { return memory::desc(dims, memory::data_type::f32, Tag::any); }

Prepared prepare(const ops::ConvKernelArgs& a, int64_t pad_r0, int64_t pad_r1) {
  const ops::ConvParams& p = a.params;
  const int64_t g = p.groups;
  const Dims src{a.n, a.c, a.h, a.w}, dst{a.n, a.oc, a.oh, a.ow}, bias{a.oc};
  const Dims wei = g == 1 ? Dims{a.oc, a.c, a.kh, a.kw} : Dims{g, a.oc / g, a.c / g, a.kh, a.kw};
  const Tag wei_tag = g == 1 ? Tag::oihw : Tag::goihw;
  const Dims strides{p.stride[0], p.stride[1]}, dilates{p.dilation[0] - 1, p.dilation[1] - 1};
  const Dims pad_l{p.padding[0], p.padding[1]}, pad_r{pad_r0, pad_r1};
  const bool with_bias = a.pass == ops::ConvPass::Forward ? a.bias != nullptr : a.grad_bias != nullptr;
  const memory::desc bias_md = with_bias ? plain(bias, Tag::x) : memory::desc();
  const auto prop = a.pass == ops::ConvPass::Forward ? dnnl::prop_kind::forward_inference
                                                     : dnnl::prop_kind::forward_training;
  const dnnl::convolution_forward::desc fwd_desc(prop, dnnl::algorithm::convolution_direct, any(src), any(wei),
                                                 bias_md, any(dst), strides, dilates, pad_l, pad_r);
  const dnnl::convolution_forward::primitive_desc fwd(fwd_desc, engine());
  Prepared r;
  switch (a.pass) {
    case ops::ConvPass::Forward: {
      r.primitive = dnnl::convolution_forward(fwd);
      r.args = {make_arg(DNNL_ARG_SRC, plain(src, Tag::nchw), fwd.src_desc(), false),
                make_arg(DNNL_ARG_WEIGHTS, plain(wei, wei_tag), fwd.weights_desc(), false),
                make_arg(DNNL_ARG_DST, plain(dst, Tag::nchw), fwd.dst_desc(), true)};
      if (with_bias) r.args.push_back(make_arg(DNNL_ARG_BIAS, bias_md, fwd.bias_desc(), false));
      break;
    }
    case ops::ConvPass::BackwardData: {
      const dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, any(src), any(wei), any(dst),
                                                    strides, dilates, pad_l, pad_r);
      const dnnl::convolution_backward_data::primitive_desc pd(d, engine(), fwd);
      r.primitive = dnnl::convolution_backward_data(pd);
      r.args = {make_arg(DNNL_ARG_DIFF_DST, plain(dst, Tag::nchw), pd.diff_dst_desc(), false),
                make_arg(DNNL_ARG_WEIGHTS, plain(wei, wei_tag), pd.weights_desc(), false),
                make_arg(DNNL_ARG_DIFF_SRC, plain(src, Tag::nchw), pd.diff_src_desc(), true)};
      break;
    }
    case ops::ConvPass::BackwardWeights: {
      const auto d = with_bias ? dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, any(src),
                                                                          any(wei), bias_md, any(dst), strides, dilates,
                                                                          pad_l, pad_r)
                               : dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, any(src),
                                                                          any(wei), any(dst), strides, dilates, pad_l,
                                                                          pad_r);
      const dnnl::convolution_backward_weights::primitive_desc pd(d, engine(), fwd);
      r.primitive = dnnl::convolution_backward_weights(pd);
      r.args = {make_arg(DNNL_ARG_SRC, plain(src, Tag::nchw), pd.src_desc(), false),
                make_arg(DNNL_ARG_DIFF_DST, plain(dst, Tag::nchw), pd.diff_dst_desc(), false),
                make_arg(DNNL_ARG_DIFF_WEIGHTS, plain(wei, wei_tag), pd.diff_weights_desc(), true)};
      if (with_bias) r.args.push_back(make_arg(DNNL_ARG_DIFF_BIAS, bias_md, pd.diff_bias_desc(), true));
      break;
    }
  }
  return r;
}

// The data pointer of argument `id` in `a`.
void* pointer_of(const ops::ConvKernelArgs& a, int id) {
  switch (id) {
    case DNNL_ARG_SRC: return const_cast<void*>(a.input);
    case DNNL_ARG_WEIGHTS: return const_cast<void*>(a.weight);
    case DNNL_ARG_BIAS: return const_cast<void*>(a.bias);
    case DNNL_ARG_DST: return a.output;
    case DNNL_ARG_DIFF_DST: return const_cast<void*>(a.grad_output);
    case DNNL_ARG_DIFF_SRC: return a.grad_input;
    case DNNL_ARG_DIFF_WEIGHTS: return a.grad_weight;
    case DNNL_ARG_DIFF_BIAS: return a.grad_bias;
    default: return nullptr;
  }
}

}  // namespace

bool onednn_conv2d(const ops::ConvKernelArgs& a, Stream) {
  if (a.dtype != kFloat) return false;
  // ctorch's thread count while the primitive is planned (oneDNN partitions work when it builds one)
  // and run, whatever another library in the process set.
  const OpenMpThreadsGuard threads;
  const ops::ConvParams& p = a.params;
  // oneDNN's right padding: what the output size implies beyond the left padding.
  const int64_t pad_r0 = (a.oh - 1) * p.stride[0] + (a.kh - 1) * p.dilation[0] + 1 - a.h - p.padding[0];
  const int64_t pad_r1 = (a.ow - 1) * p.stride[1] + (a.kw - 1) * p.dilation[1] + 1 - a.w - p.padding[1];
  if (pad_r0 < 0 || pad_r1 < 0) return false;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Prepared>> cache;
  std::shared_ptr<const Prepared> prepared;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = cache[key_of(a)];
    if (!slot) {
      try {
        slot = std::make_shared<const Prepared>(prepare(a, pad_r0, pad_r1));
      } catch (const dnnl::error&) {  // no oneDNN implementation for this geometry: im2col + GEMM
        cache.erase(key_of(a));
        return false;
      }
    }
    prepared = slot;
  }
  dnnl::stream stream(engine());
  std::unordered_map<int, memory> exec_args;
  std::vector<std::pair<memory, memory>> outputs;  // (the primitive's, the caller's) to reorder back
  std::vector<const Arg*> reordered_outputs;
  for (const Arg& arg : prepared->args) {
    memory user(arg.plain, engine(), pointer_of(a, arg.id));
    if (!arg.reorder) {
      exec_args.emplace(arg.id, user);
      continue;
    }
    memory inner(arg.wanted, engine());
    if (arg.output) {
      outputs.emplace_back(inner, user);
      reordered_outputs.push_back(&arg);
    } else {
      arg.reorder.execute(stream, user, inner);
    }
    exec_args.emplace(arg.id, inner);
  }
  prepared->primitive.execute(stream, exec_args);
  for (size_t i = 0; i < outputs.size(); ++i) {
    reordered_outputs[i]->reorder.execute(stream, outputs[i].first, outputs[i].second);
  }
  stream.wait();
  return true;
}

}  // namespace ctorch::api::backends::cpu
