// Linear, Sequential, Dropout, Flatten.
#include <cmath>
#include <sstream>

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

Tensor GELU::forward(const Tensor& input) { return functional::gelu(input, approximate); }

Tensor LeakyReLU::forward(const Tensor& input) {
  const Tensor out = functional::leaky_relu(input, negative_slope);
  return inplace ? Tensor(input).copy_(out) : out;
}

std::string LeakyReLU::extra_repr() const {
  std::ostringstream os;
  os << "negative_slope=" << negative_slope << (inplace ? ", inplace=True" : "");
  return os.str();
}

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

Dropout::Dropout(double p, const char* name) : UnaryModule(name), p(p) {
  CTORCH_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

Tensor Dropout::forward(const Tensor& input) { return functional::dropout(input, p, is_training()); }

std::string Dropout::extra_repr() const {
  std::ostringstream os;
  os << "p=" << p << ", inplace=False";
  return os.str();
}

Tensor Dropout2d::forward(const Tensor& input) { return functional::dropout2d(input, p, is_training()); }

}  // namespace ctorch::nn

namespace ctorch::nn {

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx_arg)
    : UnaryModule("Embedding"), num_embeddings(num_embeddings), embedding_dim(embedding_dim) {
  if (padding_idx_arg) {
    int64_t p = *padding_idx_arg;
    CTORCH_CHECK(p < num_embeddings && p >= -num_embeddings, "Padding_idx must be within num_embeddings");
    padding_idx = p < 0 ? p + num_embeddings : p;
  }
  NoGradGuard no_grad;
  weight = register_parameter("weight", empty({num_embeddings, embedding_dim}).normal_());
  if (padding_idx) weight.select(0, *padding_idx).fill_(0);
}

Tensor Embedding::forward(const Tensor& input) { return functional::embedding(input, weight, padding_idx); }

std::string Embedding::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (padding_idx) s += ", padding_idx=" + std::to_string(*padding_idx);
  return s;
}

LayerNorm::LayerNorm(std::vector<int64_t> shape, double eps, bool elementwise_affine)
    : UnaryModule("LayerNorm"), normalized_shape(std::move(shape)), eps(eps) {
  if (elementwise_affine) {
    weight = register_parameter("weight", ones(normalized_shape));
    bias = register_parameter("bias", zeros(normalized_shape));
  }
}

Tensor LayerNorm::forward(const Tensor& input) {
  return functional::layer_norm(input, normalized_shape, weight, bias, eps);
}

std::string LayerNorm::extra_repr() const {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < normalized_shape.size(); ++i) os << (i ? ", " : "") << normalized_shape[i];
  os << (normalized_shape.size() == 1 ? ",)" : ")") << ", eps=" << eps
     << ", elementwise_affine=" << (weight.defined() ? "True" : "False");
  return os.str();
}

void ModuleList::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

Module& ModuleList::operator[](int64_t index) const { return *modules_[checked_index(index)]; }

}  // namespace ctorch::nn

namespace ctorch::nn {

BatchNorm::BatchNorm(int dims, int64_t num_features, double eps, double momentum, bool affine, bool track)
    : UnaryModule(dims == 1 ? "BatchNorm1d" : "BatchNorm2d"),
      num_features(num_features),
      eps(eps),
      momentum(momentum),
      dims_(dims) {
  if (affine) {
    weight = register_parameter("weight", ones({num_features}));
    bias = register_parameter("bias", zeros({num_features}));
  }
  if (track) {
    running_mean = register_buffer("running_mean", zeros({num_features}));
    running_var = register_buffer("running_var", ones({num_features}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, TensorOptions().dtype(kLong)));
  }
}

Tensor BatchNorm::forward(const Tensor& input) {
  const bool ok = dims_ == 1 ? (input.dim() == 2 || input.dim() == 3) : input.dim() == 4;
  CTORCH_CHECK_VALUE(ok, "expected ", dims_ == 1 ? "2D or 3D" : "4D", " input (got ", input.dim(), "D input)");
  Tensor out = functional::batch_norm(input, running_mean, running_var, weight, bias,
                                      is_training() || !running_mean.defined(), momentum, eps);
  if (is_training() && num_batches_tracked.defined()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
  }
  return out;
}

std::string BatchNorm::extra_repr() const {
  std::ostringstream os;
  os << num_features << ", eps=" << eps << ", momentum=" << momentum << ", affine=" << (weight.defined() ? "True" : "False")
     << ", track_running_stats=" << (running_mean.defined() ? "True" : "False");
  return os.str();
}

}  // namespace ctorch::nn

// ---- rebind: a replica's members follow its replaced tensors and children ------------------------

namespace ctorch::nn {

void Linear::rebind() {
  weight = registered_parameter("weight");
  bias = registered_parameter("bias");
}

void Sequential::rebind() {
  layers_.clear();
  for (const auto& [name, child] : named_children()) layers_.push_back(std::dynamic_pointer_cast<UnaryModule>(child));
}

void ModuleList::rebind() {
  modules_.clear();
  for (const auto& [name, child] : named_children()) modules_.push_back(child);
}

void Embedding::rebind() { weight = registered_parameter("weight"); }

void LayerNorm::rebind() {
  weight = registered_parameter("weight");
  bias = registered_parameter("bias");
}

void BatchNorm::rebind() {
  weight = registered_parameter("weight");
  bias = registered_parameter("bias");
  running_mean = registered_buffer("running_mean");
  running_var = registered_buffer("running_var");
  num_batches_tracked = registered_buffer("num_batches_tracked");
}

}  // namespace ctorch::nn
