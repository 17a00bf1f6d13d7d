// A kernel table whose kernels are timed by events while the tracer records (Note [Event-timed
// device tasks] in event_timed_task.h): the real CUDA backend serves its table through this, so
// its kernels appear on their streams' rows of the trace as the emulated runtime's tasks do.
// Names follow the emulated launchers: the op's name for unary and binary ops, else the family.
#pragma once

#include <tuple>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/kernel_table.h"
#include "runtime/device_runtime.h"
#include "trace/event_timed_task.h"
#include "trace/tracer.h"

namespace ctorch::tracing {
namespace detail {

template <class Fn>
struct TimedKernel;

template <class... A>
struct TimedKernel<void (*)(A...)> {
  /// Calls `Table().*Entry` bracketed by an EventTimedTask on its stream (the last argument).
  template <const ops::KernelTable& (*Table)(), auto Entry, const char* Family>
  static void call(A... a) {
    if (!tracing()) return (Table().*Entry)(a...);
    const Stream stream = std::get<sizeof...(A) - 1>(std::tie(a...));
    const char* name = Family;
    if constexpr (requires { ops::op_name(std::get<0>(std::tie(a...))); }) name = ops::op_name(std::get<0>(std::tie(a...)));
    EventTimedTask task(impl::require_runtime(stream.device().type()), stream, TaskKind::Kernel, name);
    (Table().*Entry)(a...);
  }
};

inline constexpr char kCopy[] = "copy_", kFill[] = "fill_", kWhere[] = "where", kGemm[] = "gemm",
                      kReduce[] = "reduce", kSoftmax[] = "softmax", kRandom[] = "random", kUnary[] = "unary",
                      kBinary[] = "binary";

template <const ops::KernelTable& (*Table)(), auto Entry, const char* Family>
constexpr auto timed = &TimedKernel<std::remove_cvref_t<decltype(ops::KernelTable{}.*Entry)>>::template call<Table, Entry, Family>;

}  // namespace detail

/// `Table()`'s kernels, each timed by events while the tracer records.
template <const ops::KernelTable& (*Table)()>
const ops::KernelTable& event_timed_kernels() {
  using ops::KernelTable;
  using namespace detail;
  static const KernelTable table{
      .unary = timed<Table, &KernelTable::unary, kUnary>,
      .binary = timed<Table, &KernelTable::binary, kBinary>,
      .cast_copy = timed<Table, &KernelTable::cast_copy, kCopy>,
      .fill = timed<Table, &KernelTable::fill, kFill>,
      .where = timed<Table, &KernelTable::where, kWhere>,
      .gemm = timed<Table, &KernelTable::gemm, kGemm>,
      .reduce = timed<Table, &KernelTable::reduce, kReduce>,
      .softmax = timed<Table, &KernelTable::softmax, kSoftmax>,
      .random = timed<Table, &KernelTable::random, kRandom>,
  };
  return table;
}

}  // namespace ctorch::tracing
