// The funnels of the op boundary: ops launch every kernel through these, one per op family
// (Note [Op observers] in op_observer.h). Each looks up the device's KernelTable, queues the
// kernel on the current stream of the device, and lets the observers see the call.
#pragma once

#include <initializer_list>
#include <utility>

#include "ctorch/tensor.h"
#include "ops/elementwise.h"
#include "ops/kernel_table.h"
#include "ops/op_observer.h"

namespace ctorch::inline api::ops {

/// The stream ops on `device` are enqueued on: the calling thread's current stream there.
Stream stream_for(Device device);

/// The operands of a call at a funnel, built only while observers are registered (the unobserved
/// path writes nothing): CTORCH_OPERANDS({out, nullptr, true, true}, {in, "self"}).
#define CTORCH_OPERANDS(...) \
  [&](auto&& see) { see(std::initializer_list<::ctorch::ops::OpOperand>{__VA_ARGS__}); }

/// The name a call reports: a literal, or the name of a unary or binary op.
inline const char* call_name(const char* name) noexcept { return name; }
/// The name of a unary op.
inline const char* call_name(kernels::UnaryOp op) noexcept { return op_name(op); }
/// The name of a binary op.
inline const char* call_name(kernels::BinaryOp op) noexcept { return op_name(op); }

/// launch_observed's path while observers are registered.
// The closures come by value, so that ops build them only on this path.
template <class Name, class Operands, class Launch>
[[gnu::noinline]] void launch_seen(OpFamily family, Name name, Stream stream, Operands operands,
                                   const KernelTable& table, Launch launch) {
  operands([&](std::initializer_list<OpOperand> list) {
    const OpCall info{family, call_name(name), stream, list};
    ObservedCall call(info);
    launch(table, stream);
    call.launched();
  });
}

/// Runs `launch(kernels_for(device), stream)` as one call of `family` named `name`, seen by the
/// observers with `operands` (CTORCH_OPERANDS). Inlined into each op: unobserved, it costs one
/// relaxed load.
template <class Name, class Operands, class Launch>
[[gnu::always_inline]] inline void launch_observed(OpFamily family, Name name, Device device, Operands&& operands,
                                                   Launch&& launch) {
  const KernelTable& table = kernels_for(device);
  const Stream stream = stream_for(device);
  if (!observed()) [[likely]] {
    launch(table, stream);
    return;
  }
  launch_seen(family, name, stream, operands, table, launch);
}

// The family funnels. Each is inlined into its op; `operands` is a CTORCH_OPERANDS list.

/// data[0] = op(data[1]) on `device` (KernelTable::unary).
template <class Operands>
[[gnu::always_inline]] inline void launch_unary(kernels::UnaryOp op, ScalarType dtype,
                                                const kernels::ElementwisePlan& plan, char* const* data,
                                                const OpArgs& args, Device device, Operands&& operands) {
  launch_observed(OpFamily::Unary, op, device, operands, [&](const KernelTable& table, Stream stream) {
    table.unary(op, dtype, plan, data, args, stream);
  });
}

/// data[0] = op(data[1], data[2]) (or with the scalar operand on `side`) on `device` (KernelTable::binary).
template <class Operands>
[[gnu::always_inline]] inline void launch_binary(kernels::BinaryOp op, ScalarType dtype, ScalarOperand side,
                                                 const kernels::ElementwisePlan& plan, char* const* data,
                                                 const OpArgs& args, Device device, Operands&& operands) {
  launch_observed(OpFamily::Binary, op, device, operands, [&](const KernelTable& table, Stream stream) {
    table.binary(op, dtype, side, plan, data, args, stream);
  });
}

/// data[0] = data[1] ? data[2] : data[3] on `device` (KernelTable::where).
template <class Operands>
[[gnu::always_inline]] inline void launch_where(ScalarType dtype, const kernels::ElementwisePlan& plan,
                                                char* const* data, Device device, Operands&& operands) {
  launch_observed(OpFamily::Where, "where", device, operands,
                  [&](const KernelTable& table, Stream stream) { table.where(dtype, plan, data, stream); });
}

/// data[0] (dst) = data[1] (src) converted, on `device` (KernelTable::cast_copy), named "copy_".
template <class Operands>
[[gnu::always_inline]] inline void launch_copy(ScalarType dst, ScalarType src, const kernels::ElementwisePlan& plan,
                                               char* const* data, Device device, Operands&& operands) {
  launch_observed(OpFamily::Copy, "copy_", device, operands,
                  [&](const KernelTable& table, Stream stream) { table.cast_copy(dst, src, plan, data, stream); });
}

/// data[0] = value on `device` (KernelTable::fill), named "fill_".
template <class Operands>
[[gnu::always_inline]] inline void launch_fill(ScalarType dtype, const kernels::ElementwisePlan& plan,
                                               char* const* data, const Scalar& value, Device device,
                                               Operands&& operands) {
  launch_observed(OpFamily::Fill, "fill_", device, operands,
                  [&](const KernelTable& table, Stream stream) { table.fill(dtype, plan, data, value, stream); });
}

/// A reduction named `name` ("sum", "argmax", ...) on `device` (KernelTable::reduce).
template <class Operands>
[[gnu::always_inline]] inline void launch_reduce(const char* name, kernels::ReduceOp op, ScalarType in,
                                                 ScalarType out, const kernels::ReducePlan& plan, char* const* data,
                                                 const kernels::ReduceArgs& args, Device device,
                                                 Operands&& operands) {
  launch_observed(OpFamily::Reduce, name, device, operands, [&](const KernelTable& table, Stream stream) {
    table.reduce(op, in, out, plan, data, args, stream);
  });
}

/// softmax or log_softmax named `name` on `device` (KernelTable::softmax).
template <class Operands>
[[gnu::always_inline]] inline void launch_softmax(const char* name, ScalarType dtype, bool log,
                                                  const kernels::SoftmaxPlan& plan, char* const* data, Device device,
                                                  Operands&& operands) {
  launch_observed(OpFamily::Softmax, name, device, operands,
                  [&](const KernelTable& table, Stream stream) { table.softmax(dtype, log, plan, data, stream); });
}

/// The gemm kernel of a backend (KernelTable::gemm's type).
using GemmKernel = decltype(KernelTable::gemm);

/// One matmul named `name` on `device`: `batches(gemm, stream)` calls the backend's gemm once per
/// batch block; the observers see the whole as one call.
template <class Operands, class Batches>
[[gnu::always_inline]] inline void launch_gemm(const char* name, Device device, Operands&& operands, Batches&& batches) {
  launch_observed(OpFamily::Gemm, name, device, operands,
                  [&](const KernelTable& table, Stream stream) { batches(table.gemm, stream); });
}

/// Samples of `op` named `name` into data[0] on `device` (KernelTable::random). `philox()` returns
/// the {seed, offset} pair and is called only once the observers let the launch happen, so a refused
/// call leaves the generator as it was.
template <class Operands, class Philox>
[[gnu::always_inline]] inline void launch_random(const char* name, kernels::RandomOp op, ScalarType dtype, const kernels::ElementwisePlan& plan,
                   char* const* data, const kernels::RandomArgs& args, int sm_count, int max_threads_per_sm,
                   Device device, Operands&& operands, Philox&& philox) {
  launch_observed(OpFamily::Random, name, device, operands, [&](const KernelTable& table, Stream stream) {
    table.random(op, dtype, plan, data, philox(), args, sm_count, max_threads_per_sm, stream);
  });
}

/// data[1] = data[0] at the plan's index offsets, named `name` ("index", "gather", ...), on `device`
/// (KernelTable::index_gather).
template <class Operands>
[[gnu::always_inline]] inline void launch_index_gather(const char* name, ScalarType dtype,
                                                       const kernels::IndexPlan& plan, char* const* data,
                                                       Device device, Operands&& operands) {
  launch_observed(OpFamily::Index, name, device, operands,
                  [&](const KernelTable& table, Stream stream) { table.index_gather(dtype, plan, data, stream); });
}

/// data[0] at the plan's index offsets = (or += alpha *) data[1], named `name` ("index_put_",
/// "scatter_add_", ...), on `device` (KernelTable::index_scatter).
template <class Operands>
[[gnu::always_inline]] inline void launch_index_scatter(const char* name, ScalarType dtype, bool accumulate,
                                                        const Scalar& alpha, const kernels::IndexPlan& plan,
                                                        char* const* data, Device device, Operands&& operands) {
  launch_observed(OpFamily::Index, name, device, operands, [&](const KernelTable& table, Stream stream) {
    table.index_scatter(dtype, accumulate, alpha, plan, data, stream);
  });
}

/// The jiterator kernel `kernel` named `name` over plan on `device` (KernelTable::jit).
template <class Operands>
[[gnu::always_inline]] inline void launch_jit(const char* name, const JitKernel& kernel, const kernels::JitPlan& plan,
                                              char* const* data, const JitValue* extra, int nextra, Device device,
                                              Operands&& operands) {
  launch_observed(OpFamily::Jit, name, device, operands, [&](const KernelTable& table, Stream stream) {
    table.jit(kernel, plan, data, extra, nextra, stream);
  });
}

/// The batched transform `plan` from `in` into `out` (both contiguous) on `device` (KernelTable::fft),
/// named after the user's op ("fft_c2c", "fft_r2c", "fft_c2r" as ATen's kernels).
template <class Operands>
[[gnu::always_inline]] inline void launch_fft(const char* name, const kernels::FftPlan& plan, const void* in, void* out,
                                              Device device, Operands&& operands) {
  launch_observed(OpFamily::Fft, name, device, operands,
                  [&](const KernelTable& table, Stream stream) { table.fft(plan, in, out, stream); });
}

/// Runs `run()` on the calling thread as one cpu call of `family` named `name`, seen by the observers:
/// the funnel of ops whose cpu path is a host loop outside the kernel table (cpu random sampling).
template <class Operands, class Run>
void run_on_host_observed(OpFamily family, const char* name, Operands&& operands, Run&& run) {
  if (!observed()) [[likely]] {
    run();
    return;
  }
  operands([&](std::initializer_list<OpOperand> list) {
    const OpCall info{family, name, Stream::default_stream(Device(DeviceType::CPU, 0)), list};
    ObservedCall call(info);
    run();
    call.launched();
  });
}

/// Lets the observers see that `view` was made from `self` by `name` (no launch).
void observe_view(const char* name, const Tensor& self, const Tensor& view);

}  // namespace ctorch::api::ops
