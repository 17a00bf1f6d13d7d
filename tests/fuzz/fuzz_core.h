// The API fuzzer's engine: random operands (dtype, shape, layout), one case = one call of the
// public API built on cpu, run on cpu and on emulated cuda devices, and checked (tests/fuzz/README.md).
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"

namespace ctorch::fuzz {

using Rng = std::mt19937_64;
using Shape = std::vector<int64_t>;

/// A check of the fuzzer failed: the case found a bug (or the fuzzer has one).
struct Finding : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- random choices -----------------------------------------------------------------------------

/// Uniform integer in [lo, hi].
int64_t rand_int(Rng& rng, int64_t lo, int64_t hi);
/// True with probability p.
bool chance(Rng& rng, double p);
/// One element of `v`.
template <class T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[static_cast<size_t>(rand_int(rng, 0, static_cast<int64_t>(v.size()) - 1))];
}
/// Any of the 10 dtypes (float32 and int64 more often).
ScalarType random_dtype(Rng& rng);
/// A bool, integer or floating Scalar; `special` adds 0, -1, extremes, NaN and infinities.
Scalar random_scalar(Rng& rng, bool special = true);
/// A shape of 0..max_dim dims (sizes mostly 1..5, sometimes 0 or a long dim), numel <= max_numel.
Shape random_shape(Rng& rng, int max_dim = 4, int64_t max_numel = 2048);
/// A shape that broadcasts with `s` (dims dropped or set to 1 on either side).
Shape broadcast_partner(Rng& rng, const Shape& s);
/// A dim for a tensor of `ndim` dims: usually valid (either sign), sometimes out of range.
int64_t random_dim(Rng& rng, int64_t ndim, double bad = 0.05);
/// "[2, 3]".
std::string shape_str(IntArrayRef s);
/// "2", "2.5", "True", "nan".
std::string scalar_str(const Scalar& s);

/// Kinds of random values: anything (NaN, infinities, -0, 1e30, integer extremes), finite values
/// of moderate size, or small integers (exact in every dtype, so sums do not depend on order).
enum class Values { Any, Finite, SmallInts };

// ---- a case ---------------------------------------------------------------------------------------

/// How an op treats operands on different devices (PyTorch 1.13's rules).
enum class MixedRule {
  Strict,     // every tensor on one device, else "Expected all tensors to be on the same device"
  CpuScalar,  // TensorIterator: 0-dim cpu inputs may join cuda operands
  Any,        // copies: the source may be anywhere
};

/// What a call produced: tensors (checked for device, shape, dtype, strides, values) and host values.
class Results {
 public:
  struct Entry {
    Tensor tensor;
    bool host = false;  // a host value (bool, Scalar, size) wrapped in a cpu tensor
  };
  /// A tensor result.
  void add(const Tensor& t) { entries_.push_back({t, false}); }
  /// Several tensor results.
  void add(const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) add(t);
  }
  /// A host value.
  void host(const Scalar& v);
  /// A tensor result that must be a view sharing storage with `of`.
  void view(const Tensor& t, const Tensor& of);
  const std::vector<Entry>& entries() const { return entries_; }
  void clear() { entries_.clear(); }

 private:
  std::vector<Entry> entries_;
};

/// The call of a case on materialized operands. `target` is the case's device (cpu in the
/// reference run); ops that create tensors or move them use it.
using CaseFn = std::function<void(Results&, std::vector<Tensor>&, Device target)>;

/// One fuzz case: operands (views of bases built on cpu) and the call.
class Case {
 public:
  explicit Case(Rng& rng) : rng_(rng) {}

  /// A new operand of `shape` and `dtype` with random values and a random layout (contiguous,
  /// permuted, strided, expanded, overlapping, offset); returns its index.
  int operand(const Shape& shape, ScalarType dtype, bool overlap_ok = true, Values style = Values::Any);
  /// An operand with exactly these values and a contiguous layout.
  int operand_from(const Tensor& cpu_value, const std::string& desc);
  /// An operand that is `view` of operand `of`'s base (aliasing it).
  int alias(int of, std::function<Tensor(const Tensor&)> view, const std::string& desc);
  /// Marks operand `i` as written by the op (its base may change; it must be a dense or
  /// non-overlapping view, else results are order dependent and only errors are compared).
  void output(int i);
  /// Description of operand `i` ("f32[2, 3] transposed").
  const std::string& desc(int i) const { return operands_[static_cast<size_t>(i)].desc; }
  /// Shape of operand `i`.
  const Shape& shape(int i) const { return operands_[static_cast<size_t>(i)].shape; }
  ScalarType dtype(int i) const { return operands_[static_cast<size_t>(i)].dtype; }
  int count() const { return static_cast<int>(operands_.size()); }

  /// The call, as text (for reports), and the function that makes it.
  std::string call;
  CaseFn fn;
  MixedRule mixed = MixedRule::Strict;
  /// Results go to `target` (to(), factories) instead of the operands' device.
  bool results_on_target = false;
  /// Results are on this operand's device (-1: the first cuda operand's, or an output's).
  int results_on_operand = -1;
  /// False when values legitimately differ between runs (order-dependent writes).
  bool compare_values = true;
  /// False when running on contiguous copies of the operands may legitimately differ.
  bool metamorphic = true;
  /// The op may write into an output with internal overlap (fill_-like ops: PyTorch skips the check).
  bool overlap_allowed = false;
  /// False when the reference run may return its operand itself (to() on the same device) while
  /// the device run makes a copy: their strides legitimately differ.
  bool compare_strides = true;
  /// Relative tolerance multiplier for floating results (long reductions, matmul).
  double tol_scale = 1.0;
  /// The cpu error is specific to the cpu kernel (PyTorch's "..._cpu" not implemented).
  bool cpu_only_error_ok = false;

  // For the engine.
  struct Base {
    Tensor cpu;  // contiguous, offset 0
  };
  struct Operand {
    int base;
    std::function<Tensor(const Tensor&)> view;
    std::string desc;
    Shape shape;
    ScalarType dtype;
    bool output = false;
    bool overlapping = false;  // some element is reachable twice (expanded / overlapping strides)
  };
  const std::vector<Base>& bases() const { return bases_; }
  const std::vector<Operand>& operands() const { return operands_; }
  bool has_alias() const { return has_alias_; }

 private:
  Rng& rng_;
  std::vector<Base> bases_;
  std::vector<Operand> operands_;
  bool has_alias_ = false;
};

/// Random values of `dtype` in `style`.
Tensor random_values(Rng& rng, const Shape& shape, ScalarType dtype, Values style);

// ---- the op table ---------------------------------------------------------------------------------

/// An op family: `gen` fills a case (operands, call, rules) from the random stream.
struct OpEntry {
  const char* name;
  int weight;
  void (*gen)(Rng&, Case&);
};
void add_elementwise_ops(std::vector<OpEntry>& ops);
void add_reduction_ops(std::vector<OpEntry>& ops);
void add_shape_ops(std::vector<OpEntry>& ops);
void add_factory_ops(std::vector<OpEntry>& ops);
/// Device(int), Device(const char*) with null, malformed and random strings: one case.
std::string run_device_case(Rng& rng);

// ---- running ---------------------------------------------------------------------------------------

/// The seed of case `index` of a run seeded with `seed` (each case replays alone).
uint64_t case_seed(uint64_t seed, uint64_t index);

struct CaseReport {
  std::string op;
  std::string call;     // the call and the device mode
  std::string finding;  // empty: the case passed
  bool errored = false; // the reference call threw a ctorch error
};

/// Runs case `index` of the run seeded with `seed` (only builds and describes it when `describe_only`).
CaseReport run_case(uint64_t seed, uint64_t index, const std::vector<OpEntry>& ops, bool describe_only = false);

/// The documented message rule: non-empty and naming something concrete (tests/fuzz/README.md).
bool message_is_concrete(const std::string& msg);

}  // namespace ctorch::fuzz
