// libtorch's activation modules (torch/nn/modules/activation.h): `torch::nn::ELU model(ELUOptions()
// .alpha(2)); model(x)`. Each *Impl keeps its `options` and prints itself in libtorch's format
// (pretty_print; `std::cout << holder`). ReLU, LeakyReLU, GELU, Sigmoid, Tanh and Softmax extend
// the native modules of ctorch/nn_layers.h; the others are modules over ctorch::nn::functional.
#pragma once

#include <ostream>

// nn.h (ModuleHolder, TORCH_MODULE) first: it includes this header at its end.
#include "ctorch/libtorch/nn.h"
//
#include "ctorch/factories.h"
#include "ctorch/libtorch/functional_activation.h"
#include "ctorch/nn_layers.h"

#ifndef CTORCH_LIBTORCH_PRINTED_MODULE
/// Declares the holder `Name` of `NameImpl` (TORCH_MODULE) and prints it with NameImpl::pretty_print
/// (also defined by modules_loss.h / modules_activation.h, whichever comes first).
#define CTORCH_LIBTORCH_PRINTED_MODULE(Name)                                                \
  TORCH_MODULE(Name);                                                                       \
  inline std::ostream& operator<<(std::ostream& stream, const Name& holder) { /* NOLINT */ \
    holder->pretty_print(stream);                                                           \
    return stream;                                                                          \
  }
#endif

namespace torch::nn {

/// An activation module over a ctorch::nn::functional form (the name is Python's class name).
class ActivationModule : public ::ctorch::nn::UnaryModule {
 public:
  using UnaryModule::UnaryModule;
  /// libtorch's Cloneable::reset(): nothing to rebuild unless the module overrides it.
  virtual void reset() {}
};

/// libtorch's ELUImpl.
class ELUImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(ELUImpl)

 public:
  explicit ELUImpl(const ELUOptions& options_ = {}) : ActivationModule("ELU"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::elu(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::ELU(alpha=" << options.alpha();
    if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
    stream << ")";
  }
  ELUOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(ELU)

/// libtorch's SELUImpl.
class SELUImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(SELUImpl)

 public:
  explicit SELUImpl(const SELUOptions& options_ = {}) : ActivationModule("SELU"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::selu(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::SELU(";
    if (options.inplace()) stream << std::boolalpha << "inplace=" << options.inplace();
    stream << ")";
  }
  SELUOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(SELU)

/// libtorch's HardshrinkImpl.
class HardshrinkImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(HardshrinkImpl)

 public:
  explicit HardshrinkImpl(const HardshrinkOptions& options_ = {}) : ActivationModule("Hardshrink"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::hardshrink(input, options); }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::Hardshrink(" << options.lambda() << ")"; }
  HardshrinkOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(Hardshrink)

/// libtorch's HardtanhImpl: max_val must exceed min_val (checked again by reset()).
class HardtanhImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(HardtanhImpl)

 public:
  explicit HardtanhImpl(const HardtanhOptions& options_ = {}) : ActivationModule("Hardtanh"), options(options_) {
    reset();
  }
  Tensor forward(const Tensor& input) override { return functional::hardtanh(input, options); }
  void reset() override {
    TORCH_CHECK(options.max_val() > options.min_val(), "max_val must be greater than min_val");
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val();
    if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
    stream << ")";
  }
  HardtanhOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(Hardtanh)

/// libtorch's LeakyReLUImpl: ctorch's LeakyReLU with its options.
class LeakyReLUImpl : public ::ctorch::nn::LeakyReLU {
  CTORCH_MODULE_REPLICABLE(LeakyReLUImpl)

 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options_ = {})
      : ::ctorch::nn::LeakyReLU(options_.negative_slope(), options_.inplace()), options(options_) {}
  void reset() {}
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::LeakyReLU(negative_slope=" << options.negative_slope();
    if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
    stream << ")";
  }
  LeakyReLUOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(LeakyReLU)

/// libtorch's LogSigmoidImpl.
class LogSigmoidImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(LogSigmoidImpl)

 public:
  LogSigmoidImpl() : ActivationModule("LogSigmoid") {}
  Tensor forward(const Tensor& input) override { return functional::logsigmoid(input); }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::LogSigmoid()"; }
};
CTORCH_LIBTORCH_PRINTED_MODULE(LogSigmoid)

/// libtorch's SoftmaxImpl: ctorch's Softmax with its options.
class SoftmaxImpl : public ::ctorch::nn::Softmax {
  CTORCH_MODULE_REPLICABLE(SoftmaxImpl)

 public:
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options_) : ::ctorch::nn::Softmax(options_.dim()), options(options_) {}
  void reset() {}
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::Softmax(dim=" << options.dim() << ")"; }
  SoftmaxOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(Softmax)

/// libtorch's SoftminImpl.
class SoftminImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(SoftminImpl)

 public:
  explicit SoftminImpl(int64_t dim) : SoftminImpl(SoftminOptions(dim)) {}
  explicit SoftminImpl(const SoftminOptions& options_) : ActivationModule("Softmin"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::softmin(input, options.dim()); }
  std::string extra_repr() const override { return "dim=" + std::to_string(options.dim()); }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::Softmin(dim=" << options.dim() << ")"; }
  SoftminOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(Softmin)

/// libtorch's LogSoftmaxImpl.
class LogSoftmaxImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(LogSoftmaxImpl)

 public:
  explicit LogSoftmaxImpl(int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions(dim)) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options_) : ActivationModule("LogSoftmax"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::log_softmax(input, options.dim()); }
  std::string extra_repr() const override { return "dim=" + std::to_string(options.dim()); }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::LogSoftmax(dim=" << options.dim() << ")"; }
  LogSoftmaxOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(LogSoftmax)

/// libtorch's Softmax2dImpl: softmax over the channels of [N, C, H, W] or [C, H, W].
class Softmax2dImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(Softmax2dImpl)

 public:
  Softmax2dImpl() : ActivationModule("Softmax2d") {}
  Tensor forward(const Tensor& input) override {
    TORCH_CHECK(input.dim() == 4 || input.dim() == 3, "Softmax2d requires a 3D or 4D tensor as input");
    return input.softmax(-3);
  }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::Softmax2d()"; }
};
CTORCH_LIBTORCH_PRINTED_MODULE(Softmax2d)

/// libtorch's PReLUImpl: a learnable slope per channel (num_parameters of them), initialized to `init`.
class PReLUImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(PReLUImpl)
  void rebind() override { weight = registered_parameter("weight"); }

 public:
  explicit PReLUImpl(const PReLUOptions& options_ = {}) : ActivationModule("PReLU"), options(options_) { reset(); }
  Tensor forward(const Tensor& input) override { return functional::prelu(input, weight); }
  /// (Re)creates the weight from the options.
  void reset() override {
    clear_registrations();
    weight = register_parameter("weight", ::ctorch::full({options.num_parameters()}, options.init()));
  }
  std::string extra_repr() const override { return "num_parameters=" + std::to_string(options.num_parameters()); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
  }
  PReLUOptions options;
  Tensor weight;
};
CTORCH_LIBTORCH_PRINTED_MODULE(PReLU)

/// libtorch's ReLUImpl: ctorch's ReLU with an inplace option.
class ReLUImpl : public ::ctorch::nn::ReLU {
  CTORCH_MODULE_REPLICABLE(ReLUImpl)

 public:
  explicit ReLUImpl(const ReLUOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::relu(input, options); }
  void reset() {}
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::ReLU(";
    if (options.inplace()) stream << std::boolalpha << "inplace=" << options.inplace();
    stream << ")";
  }
  ReLUOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(ReLU)

/// libtorch's ReLU6Impl.
class ReLU6Impl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(ReLU6Impl)

 public:
  explicit ReLU6Impl(const ReLU6Options& options_ = {}) : ActivationModule("ReLU6"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::relu6(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::ReLU6(";
    if (options.inplace()) stream << std::boolalpha << "inplace=" << options.inplace();
    stream << ")";
  }
  ReLU6Options options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(ReLU6)

/// libtorch's RReLUImpl: random slopes in training mode, their mean in eval mode.
class RReLUImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(RReLUImpl)

 public:
  explicit RReLUImpl(const RReLUOptions& options_ = {}) : ActivationModule("RReLU"), options(options_) {}
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::rrelu(input, options.lower(), options.upper(), is_training(), options.inplace());
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper();
    if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
    stream << ")";
  }
  RReLUOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(RReLU)

/// libtorch's CELUImpl.
class CELUImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(CELUImpl)

 public:
  explicit CELUImpl(const CELUOptions& options_ = {}) : ActivationModule("CELU"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::celu(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::CELU(alpha=" << options.alpha();
    if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
    stream << ")";
  }
  CELUOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(CELU)

/// libtorch's GLUImpl.
class GLUImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(GLUImpl)

 public:
  explicit GLUImpl(const GLUOptions& options_ = {}) : ActivationModule("GLU"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::glu(input, options); }
  std::string extra_repr() const override { return "dim=" + std::to_string(options.dim()); }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::GLU(dim=" << options.dim() << ")"; }
  GLUOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(GLU)

/// libtorch's GELUImpl: ctorch's GELU with its options.
class GELUImpl : public ::ctorch::nn::GELU {
  CTORCH_MODULE_REPLICABLE(GELUImpl)

 public:
  explicit GELUImpl(GELUOptions options_ = {}) : ::ctorch::nn::GELU(options_.approximate()), options(options_) {}
  void reset() {}
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::GELU()"; }
  GELUOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(GELU)

/// Activations without options: libtorch's SiLU, Mish, Softsign, Tanhshrink (and Sigmoid, Tanh
/// over ctorch's modules).
#define CTORCH_LIBTORCH_PLAIN_ACTIVATION(Name, expression)                                   \
  class Name##Impl : public ActivationModule {                                                 \
    CTORCH_MODULE_REPLICABLE(Name##Impl)                                                     \
                                                                                             \
   public:                                                                                   \
    Name##Impl() : ActivationModule(#Name) {}                                                  \
    Tensor forward(const Tensor& input) override { return expression; }                      \
    void pretty_print(std::ostream& stream) const { stream << "torch::nn::" #Name "()"; }   \
  };                                                                                         \
  CTORCH_LIBTORCH_PRINTED_MODULE(Name)
/// libtorch's SiLUImpl.
CTORCH_LIBTORCH_PLAIN_ACTIVATION(SiLU, functional::silu(input))
/// libtorch's MishImpl.
CTORCH_LIBTORCH_PLAIN_ACTIVATION(Mish, functional::mish(input))
/// libtorch's SoftsignImpl.
CTORCH_LIBTORCH_PLAIN_ACTIVATION(Softsign, functional::softsign(input))
/// libtorch's TanhshrinkImpl.
CTORCH_LIBTORCH_PLAIN_ACTIVATION(Tanhshrink, functional::tanhshrink(input))
#undef CTORCH_LIBTORCH_PLAIN_ACTIVATION

/// libtorch's SigmoidImpl: ctorch's Sigmoid.
class SigmoidImpl : public ::ctorch::nn::Sigmoid {
  CTORCH_MODULE_REPLICABLE(SigmoidImpl)

 public:
  void reset() {}
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::Sigmoid()"; }
};
CTORCH_LIBTORCH_PRINTED_MODULE(Sigmoid)

/// libtorch's TanhImpl: ctorch's Tanh.
class TanhImpl : public ::ctorch::nn::Tanh {
  CTORCH_MODULE_REPLICABLE(TanhImpl)

 public:
  void reset() {}
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::Tanh()"; }
};
CTORCH_LIBTORCH_PRINTED_MODULE(Tanh)

/// libtorch's SoftplusImpl.
class SoftplusImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(SoftplusImpl)

 public:
  explicit SoftplusImpl(const SoftplusOptions& options_ = {}) : ActivationModule("Softplus"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::softplus(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
  }
  SoftplusOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(Softplus)

/// libtorch's SoftshrinkImpl.
class SoftshrinkImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(SoftshrinkImpl)

 public:
  explicit SoftshrinkImpl(const SoftshrinkOptions& options_ = {}) : ActivationModule("Softshrink"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::softshrink(input, options); }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::Softshrink(" << options.lambda() << ")"; }
  SoftshrinkOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(Softshrink)

/// libtorch's ThresholdImpl.
class ThresholdImpl : public ActivationModule {
  CTORCH_MODULE_REPLICABLE(ThresholdImpl)

 public:
  ThresholdImpl(double threshold, double value) : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  explicit ThresholdImpl(const ThresholdOptions& options_) : ActivationModule("Threshold"), options(options_) {}
  Tensor forward(const Tensor& input) override { return functional::threshold(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::Threshold(threshold=" << options.threshold() << ", value=" << options.value();
    if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
    stream << ")";
  }
  ThresholdOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(Threshold)

}  // namespace torch::nn
