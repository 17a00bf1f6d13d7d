// The op boundary: every kernel an op launches, and every copy it makes through a runtime, passes
// through one funnel per op family (ops/launch.h), where registered observers see the call before
// and after the launch. Observers sit above this layer (the stream sanitizer, the tracer, later
// autograd): they register here, and nothing below them includes them.
//
// Note [Op observers]
// - Costs one relaxed atomic load per launch while no observer is registered (observed()).
// - before() runs on the calling thread after the op's checks and output allocation, right
//   before the launch; it may throw to refuse the call (the sanitizer reports a race): then
//   nothing is launched, and observers that had already seen before() get after(launched=false).
// - after() runs when the launch returned (launched=true) or threw (false); it never throws.
// - Observers are called in registration order (after() in reverse); at most kMaxOpObservers.
//   They are never destroyed: a call that began before remove_op_observer() still ends on it.
// - The operands are valid only during the call.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "ctorch/stream.h"

namespace ctorch::inline api {
class Tensor;
}  // namespace ctorch::api

namespace ctorch::inline api::ops {

/// The op families that pass through the boundary, one funnel each (launch.h).
enum class OpFamily : uint8_t {
  Unary,     ///< KernelTable::unary
  Binary,    ///< KernelTable::binary
  Where,     ///< KernelTable::where
  Copy,      ///< KernelTable::cast_copy (a copy on one device)
  Fill,      ///< KernelTable::fill
  Reduce,    ///< KernelTable::reduce
  Softmax,   ///< KernelTable::softmax
  Gemm,      ///< KernelTable::gemm (one call may launch one gemm per batch block)
  Random,    ///< KernelTable::random on devices; cpu sampling runs on the host (launch.h run_on_host_observed)
  Transfer,  ///< a copy between devices through the runtime (copy_async), no kernel table
  View,      ///< a view of a tensor (no launch: stream is the cpu default stream, no operands)
  Index,     ///< KernelTable::index_gather / index_scatter; nonzero's host loop on cpu (run_on_host_observed)
  Jit,       ///< KernelTable::jit (a jiterator kernel, named after its entry function)
  Fft,       ///< KernelTable::fft (one batched transform)
};

/// The family's label in traces ("unary", "copy_", "gemm", ...).
const char* op_family_name(OpFamily family) noexcept;

/// One tensor a call touches: `name` is its argument ("self", "other", "out"; null for an
/// unnamed result); `write` when the call writes it; `output` when it is the op's result.
struct OpOperand {
  const Tensor& tensor;
  const char* name;
  bool write = false;
  bool output = false;
};

/// One observed call.
struct OpCall {
  OpFamily family;
  const char* name;                          ///< PyTorch's op name ("add", "copy_", "sum", "mm", "view")
  Stream stream;                             ///< where the work is queued (the cpu default stream for cpu)
  std::initializer_list<OpOperand> operands;  ///< the tensors read and written
  const char* site = nullptr;                ///< Transfer between host and device: "memcpy_and_sync" or "memcpy_async"
};

/// What ops' own cross-device copies do to order streams (ops/copy.cpp), for observers that model
/// synchronization (the sanitizer).
enum class SyncKind : uint8_t {
  EventRecord,        ///< `event` now captures the work queued on `stream`
  EventWait,          ///< work queued on `stream` from now on waits for `event`
  EventDestroy,       ///< `event` is destroyed (its handle may be reused); `stream` is unused
  StreamSynchronize,  ///< the host knows the work queued on `stream` so far has finished
};

/// Watches calls at the op boundary (Note [Op observers]).
class OpObserver {
 public:
  virtual ~OpObserver() = default;
  /// Right before the launch; may throw to refuse it. The result is passed to after().
  virtual uint64_t before(const OpCall& call) = 0;
  /// After the launch (`launched` false when it threw or a later observer refused it).
  virtual void after(const OpCall& call, uint64_t token, bool launched) noexcept = 0;
  /// A synchronization made by an op between streams or with the host.
  virtual void on_sync(SyncKind kind, const void* event, Stream stream) noexcept = 0;
};

/// The most observers registered at a time.
inline constexpr int kMaxOpObservers = 4;

/// Registers `observer` (idempotent; throws when kMaxOpObservers are registered); it must never be destroyed.
void add_op_observer(OpObserver* observer);
/// Stops calling `observer` for calls that begin from now on.
void remove_op_observer(OpObserver* observer) noexcept;

/// Number of registered observers (read relaxed by observed()).
inline std::atomic<int> g_num_op_observers{0};

/// True while any observer is registered (one relaxed load).
inline bool observed() noexcept { return g_num_op_observers.load(std::memory_order_relaxed) != 0; }

/// One call bracketed by the observers' before() and after() (RAII; used by the funnels).
class ObservedCall {
 public:
  /// Calls before() on every observer; when one throws, ends the ones already begun and rethrows.
  explicit ObservedCall(const OpCall& call);
  /// Calls after() on every observer that saw before().
  ~ObservedCall();
  /// Marks the launch as done (after() then reports launched=true).
  void launched() noexcept { launched_ = true; }
  ObservedCall(const ObservedCall&) = delete;
  ObservedCall& operator=(const ObservedCall&) = delete;

 private:
  const OpCall call_;  // a copy: the operands stay the caller's
  OpObserver* observers_[kMaxOpObservers] = {};
  uint64_t tokens_[kMaxOpObservers] = {};
  int count_ = 0;
  bool launched_ = false;
};

/// Tells the observers about a synchronization an op made (call only when observed()).
void notify_sync(SyncKind kind, const void* event, Stream stream) noexcept;

}  // namespace ctorch::api::ops
