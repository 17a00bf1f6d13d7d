// Linear, Sequential, Dropout, Flatten.
#include <cmath>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_functional.h"
#include "ctorch/nn_layers.h"

namespace ctorch::nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool with_bias)
    : UnaryModule("Linear"), in_features(in_features), out_features(out_features) {
  CTORCH_CHECK(in_features >= 0 && out_features >= 0, "Linear: in_features and out_features must be non-negative, got ",
               in_features, " and ", out_features);
  weight = register_parameter("weight", empty({out_features, in_features}));
  if (with_bias) bias = register_parameter("bias", empty({out_features}));
  reset_parameters();
}

void Linear::reset_parameters() {
  // PyTorch: kaiming_uniform_(weight, a=sqrt(5)), then bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)),
  // with the bounds computed in double exactly as torch.nn.init does.
  NoGradGuard no_grad;
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1 + a * a));
  if (in_features > 0) {
    const double bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(in_features)));
    weight.uniform_(-bound, bound);
  }
  if (bias.defined()) {
    const double bound = in_features > 0 ? 1 / std::sqrt(static_cast<double>(in_features)) : 0;
    bias.uniform_(-bound, bound);
  }
}

Tensor Linear::forward(const Tensor& input) { return functional::linear(input, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + (bias.defined() ? "True" : "False");
}

Sequential::Sequential() : UnaryModule("Sequential") {}

Sequential::Sequential(std::initializer_list<std::shared_ptr<UnaryModule>> layers) : Sequential() {
  for (const auto& layer : layers) push_back(layer);
}

void Sequential::push_back(std::shared_ptr<UnaryModule> layer) {
  register_module(std::to_string(layers_.size()), layer);
  layers_.push_back(std::move(layer));
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& layer : layers_) x = layer->forward(x);
  return x;
}

std::shared_ptr<UnaryModule> Sequential::ptr(int64_t index) const {
  const auto n = static_cast<int64_t>(layers_.size());
  CTORCH_CHECK_INDEX(index >= -n && index < n, "index ", index, " is out of range");
  return layers_[static_cast<size_t>(index < 0 ? index + n : index)];
}

UnaryModule& Sequential::operator[](int64_t index) const { return *ptr(index); }

std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

Dropout::Dropout(double p) : UnaryModule("Dropout"), p(p) {
  CTORCH_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

Tensor Dropout::forward(const Tensor& input) { return functional::dropout(input, p, is_training()); }

std::string Dropout::extra_repr() const {
  std::ostringstream os;
  os << "p=" << p << ", inplace=False";
  return os.str();
}

}  // namespace ctorch::nn
