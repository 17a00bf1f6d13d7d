// The gradient table: one entry per differentiable op, in the spirit of PyTorch's
// tools/autograd/derivatives.yaml. An entry is the whole gradient of its op: the node's name,
// which saved values its formula reads, the formula, and whether the op is a view. The recorder
// (recorder.cpp) and the node (formula_node.h) read entries; nothing else knows a formula.
//
// Note [Gradient table]
// - Ops record with a key (ops/grad_hook.h): a GradFn, refined by the UnaryOp, or by the
//   BinaryOp and which side a scalar operand is on. `derivative_of` maps a key to its entry.
// - `saves` lists, per forward input and for the result, which inputs' gradients read the value
//   (a bit per input): a value is saved only when one of those gradients is wanted, as PyTorch's
//   generated nodes do. An in-place op whose entry reads `self` gets a clone of the value it had
//   before the write (Note [Recording hook]).
// - Formulas compute with ordinary ops, so under create_graph they record in turn (second order).
// - tests/device/autograd_device_test.cpp enumerates the table: every entry needs a gradcheck
//   case on cpu and an emulated device, and gradgradcheck runs over all of them.
#pragma once

#include <cstdint>

#include "ctorch/autograd_node.h"
#include "ops/grad_hook.h"

namespace ctorch::autograd {

class FormulaNode;

/// What a formula reads while it runs: the op's parameters, saved values and input metadata.
class FormulaContext {
 public:
  explicit FormulaContext(FormulaNode& node) : node_(node) {}
  /// The op's parameters.
  const ops::GradArgs& args() const;
  /// Saved forward input `i` (0 is self).
  Tensor input(size_t i) const;
  /// Saved forward input 0.
  Tensor self() const { return input(0); }
  /// Saved forward input 1.
  Tensor other() const { return input(1); }
  /// The saved forward output.
  Tensor result() const;
  /// True when the gradient of forward input `i` is wanted.
  bool needs(size_t i) const;
  /// Sizes of forward input `i`.
  IntArrayRef sizes(size_t i) const;
  /// Number of forward inputs.
  size_t num_inputs() const;

 private:
  FormulaNode& node_;
};

/// A backward formula: the gradients of the forward inputs from the output's gradient `g`.
using Formula = variable_list (*)(const FormulaContext& c, const Tensor& g);
/// Picks the node name when it depends on the call ("SumBackward0" / "SumBackward1").
using NamePicker = const char* (*)(const ops::GradArgs& args, ArrayRef<const Tensor*> inputs);

/// Bit for the gradient of forward input `i` (in Saves masks).
constexpr uint8_t grad_of(int i) { return static_cast<uint8_t>(1u << i); }

/// Which gradients read each saved value (0: not saved).
struct Saves {
  uint8_t input[3] = {0, 0, 0};  ///< per forward input
  uint8_t result = 0;            ///< the forward output
};

/// The key an op records under (Note [Gradient table]).
struct DerivativeKey {
  ops::GradFn fn = ops::GradFn::Unary;
  int8_t op = -1;  ///< the UnaryOp or BinaryOp; -1 for other GradFns
  ops::ScalarOperand side = ops::ScalarOperand::None;
};

/// One differentiable op's gradient.
struct Derivative {
  DerivativeKey key;
  const char* op;               ///< the forward op ("mul", "sum", "rsub"), unique in the table
  const char* node;             ///< PyTorch's node name, unless `pick_node` picks it
  Saves saves;
  Formula formula;
  bool is_view = false;         ///< the output is a view of input 0
  NamePicker pick_node = nullptr;
};

/// The entry for a recorded call, or nullptr when the call is not differentiable in ctorch.
const Derivative* derivative_of(ops::GradFn fn, const ops::GradArgs& args);
/// Every entry of the table.
ArrayRef<Derivative> all_derivatives();

}  // namespace ctorch::autograd
