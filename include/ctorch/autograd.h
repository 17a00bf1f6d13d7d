// torch.autograd: backward, grad, anomaly detection and gradcheck. Tensors record history through
// the ops they pass when they require grad (Tensor::requires_grad_, grad, grad_fn, backward).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ctorch/autograd_node.h"
#include "ctorch/grad_mode.h"
#include "ctorch/tensor.h"

namespace ctorch::autograd {

/// Accumulates the gradients of `tensors` into the leaves' .grad (torch.autograd.backward).
/// `grad_tensors` may be empty or hold undefined entries for one-element outputs.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

/// The gradients of `outputs` with respect to `inputs`, without touching .grad (torch.autograd.grad).
/// An input that `outputs` do not depend on raises, unless allow_unused (then it is undefined).
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false);

/// Runs `fn` on the calling thread once the backward running on it has finished, after every
/// gradient was accumulated (Variable._execution_engine.queue_callback); Error outside a backward.
void queue_callback(std::function<void()> fn);

/// Anomaly detection (torch.autograd.set_detect_anomaly): backward names the forward op of a NaN.
struct AnomalyMode {
  /// True when anomaly detection is on (process-wide, as PyTorch's).
  static bool is_enabled() noexcept;
  /// Turns anomaly detection on or off; check_nan: backward raises when a node returns NaN.
  static void set_enabled(bool enabled, bool check_nan = true) noexcept;
  /// True when anomaly detection checks gradients for NaN.
  static bool should_check_nan() noexcept;
};

/// Turns anomaly detection on for a scope (torch.autograd.detect_anomaly(check_nan)).
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_;
  bool previous_check_nan_;
};

/// Options of gradcheck (torch.autograd.gradcheck's keyword arguments).
struct GradcheckOptions {
  double eps = 1e-6;   ///< finite-difference step
  double atol = 1e-5;  ///< absolute tolerance
  double rtol = 1e-3;  ///< relative tolerance
  bool raise_exception = true;  ///< throw on mismatch (else return false)
};

/// Compares the analytical gradients of `fn` at `inputs` with central finite differences
/// (torch.autograd.gradcheck). Inputs should be float64 tensors that require grad.
bool gradcheck(const std::function<variable_list(const variable_list&)>& fn, const variable_list& inputs,
               const GradcheckOptions& options = {});

/// gradcheck of the gradients of `fn` (torch.autograd.gradgradcheck): the first derivatives,
/// computed with create_graph for random grad_outputs that require grad, against central differences.
bool gradgradcheck(const std::function<variable_list(const variable_list&)>& fn, const variable_list& inputs,
                   const GradcheckOptions& options = {});

}  // namespace ctorch::autograd
