// nn layers: Linear, Sequential, ModuleList, activations, Dropout, Flatten, Identity (torch.nn).
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>

#include "ctorch/nn_module.h"

namespace ctorch::nn {

/// A module with a one-tensor forward (what Sequential chains).
class UnaryModule : public Module {
 public:
  using Module::Module;
  /// The layer's computation.
  virtual Tensor forward(const Tensor& input) = 0;
  /// Same as forward(input).
  Tensor operator()(const Tensor& input) { return forward(input); }
};

/// y = x W^T + b (torch.nn.Linear), initialized as PyTorch's (kaiming_uniform_ with a=sqrt(5)).
class Linear : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Linear)
  void rebind() override;

 public:
  /// A layer from `in_features` to `out_features` on the cpu (move it with to()).
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  /// Re-draws weight and bias from the current generator.
  void reset_parameters();

  Tensor weight;  ///< [out_features, in_features]
  Tensor bias;    ///< [out_features], undefined without bias
  int64_t in_features, out_features;
};

/// Runs its children in order (torch.nn.Sequential); net[0] is the first layer.
class Sequential : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Sequential)
  void rebind() override;

 public:
  Sequential();
  /// The given layers, named "0", "1", ...
  Sequential(std::initializer_list<std::shared_ptr<UnaryModule>> layers);
  /// Appends a layer named by its position.
  void push_back(std::shared_ptr<UnaryModule> layer);
  Tensor forward(const Tensor& input) override;
  /// Layer `index` (negative counts from the end); IndexError when out of range.
  UnaryModule& operator[](int64_t index) const;
  /// Layer `index` as a shared pointer.
  std::shared_ptr<UnaryModule> ptr(int64_t index) const;
  /// Layer `index` as its own type (TypeError when it is another layer): `net.at<Linear>(0).weight`.
  template <class M>
  M& at(int64_t index) const {
    auto* layer = dynamic_cast<M*>(&(*this)[index]);
    CTORCH_CHECK_TYPE(layer != nullptr, "Sequential: layer ", index, " is a ", (*this)[index].name(),
                      ", not the requested type");
    return *layer;
  }
  /// Number of layers.
  size_t size() const { return layers_.size(); }

 private:
  std::vector<std::shared_ptr<UnaryModule>> layers_;
};

/// max(x, 0) (torch.nn.ReLU).
class ReLU : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(ReLU)
 public:
  ReLU() : UnaryModule("ReLU") {}
  Tensor forward(const Tensor& input) override { return input.relu(); }
};

/// x where x > 0, else negative_slope * x (torch.nn.LeakyReLU).
class LeakyReLU : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(LeakyReLU)
 public:
  explicit LeakyReLU(double negative_slope = 0.01, bool inplace = false)
      : UnaryModule("LeakyReLU"), negative_slope(negative_slope), inplace(inplace) {}
  /// The activation (written into `input` when inplace).
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double negative_slope;
  bool inplace;
};

/// x * Phi(x) (torch.nn.GELU; approximate "none" or "tanh").
class GELU : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(GELU)
 public:
  explicit GELU(std::string approximate = "none") : UnaryModule("GELU"), approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return "approximate='" + approximate + "'"; }
  std::string approximate;
};

/// 1 / (1 + exp(-x)) (torch.nn.Sigmoid).
class Sigmoid : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Sigmoid)
 public:
  Sigmoid() : UnaryModule("Sigmoid") {}
  Tensor forward(const Tensor& input) override { return input.sigmoid(); }
};

/// tanh(x) (torch.nn.Tanh).
class Tanh : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Tanh)
 public:
  Tanh() : UnaryModule("Tanh") {}
  Tensor forward(const Tensor& input) override { return input.tanh(); }
};

/// softmax along `dim` (torch.nn.Softmax).
class Softmax : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Softmax)
 public:
  explicit Softmax(int64_t dim) : UnaryModule("Softmax"), dim(dim) {}
  Tensor forward(const Tensor& input) override { return input.softmax(dim); }
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  int64_t dim;
};

/// Returns its input (torch.nn.Identity).
class Identity : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Identity)
 public:
  Identity() : UnaryModule("Identity") {}
  Tensor forward(const Tensor& input) override { return input; }
};

/// Flattens dims start_dim..end_dim (torch.nn.Flatten).
class Flatten : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Flatten)
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : UnaryModule("Flatten"), start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& input) override { return input.flatten(start_dim, end_dim); }
  std::string extra_repr() const override;
  int64_t start_dim, end_dim;
};

/// Zeroes elements with probability p in training and scales the rest by 1/(1-p) (torch.nn.Dropout).
class Dropout : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Dropout)
 public:
  explicit Dropout(double p = 0.5) : Dropout(p, "Dropout") {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double p;

 protected:
  /// A dropout layer printed as `name` (Dropout2d).
  Dropout(double p, const char* name);
};

/// Zeroes whole channels of [N, C, H, W] in training (torch.nn.Dropout2d).
class Dropout2d : public Dropout {
  CTORCH_MODULE_REPLICABLE(Dropout2d)
 public:
  explicit Dropout2d(double p = 0.5) : Dropout(p, "Dropout2d") {}
  Tensor forward(const Tensor& input) override;
};

}  // namespace ctorch::nn

namespace ctorch::nn {

/// A lookup table of `num_embeddings` vectors of size `embedding_dim` (torch.nn.Embedding),
/// initialized from N(0, 1); the row at padding_idx starts at zero and gets no gradient.
class Embedding : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(Embedding)
  void rebind() override;

 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt);
  /// The rows of weight at the int64 indices in `input`, shaped input.sizes() + [embedding_dim].
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  Tensor weight;  ///< [num_embeddings, embedding_dim]
  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;
};

/// Normalizes over the trailing `normalized_shape` dims, then scales and shifts (torch.nn.LayerNorm).
class LayerNorm : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(LayerNorm)
  void rebind() override;

 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  Tensor weight, bias;  ///< ones and zeros of normalized_shape (when elementwise_affine)
  std::vector<int64_t> normalized_shape;
  double eps;
};

/// A list of modules registered as "0", "1", ... (torch.nn.ModuleList); it has no forward.
class ModuleList : public Module {
  CTORCH_MODULE_REPLICABLE(ModuleList)
  void rebind() override;

 public:
  ModuleList() : Module("ModuleList") {}
  /// Appends a module.
  void push_back(std::shared_ptr<Module> module);
  /// Inserts a module before `index` (negative counts from the end); later ones are renamed.
  void insert(int64_t index, std::shared_ptr<Module> module);
  /// Appends every module of `modules`.
  void extend(const std::vector<std::shared_ptr<Module>>& modules);
  /// Module `index` (negative counts from the end).
  Module& operator[](int64_t index) const;
  /// Module `index` as a shared pointer.
  std::shared_ptr<Module> ptr(int64_t index) const { return modules_[checked_index(index)]; }
  /// Number of modules.
  size_t size() const { return modules_.size(); }
  /// True when the list holds no module.
  bool is_empty() const { return modules_.empty(); }
  /// The modules, in order.
  std::vector<std::shared_ptr<Module>>::const_iterator begin() const { return modules_.begin(); }
  std::vector<std::shared_ptr<Module>>::const_iterator end() const { return modules_.end(); }

 private:
  size_t checked_index(int64_t index) const;
  std::vector<std::shared_ptr<Module>> modules_;
};

}  // namespace ctorch::nn

namespace ctorch::nn {

/// Batch normalization over dim 1 with running statistics (torch.nn.BatchNorm1d / BatchNorm2d):
/// inputs [N, C] or [N, C, L] (1d), [N, C, H, W] (2d).
class BatchNorm : public UnaryModule {
  CTORCH_MODULE_REPLICABLE(BatchNorm)
  void rebind() override;

 public:
  /// `dims` is 1 or 2 (the class name printed: BatchNorm1d or BatchNorm2d).
  BatchNorm(int dims, int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
            bool track_running_stats = true);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  Tensor weight, bias;                                      ///< [C] (affine)
  Tensor running_mean, running_var, num_batches_tracked;    ///< buffers (track_running_stats)
  int64_t num_features;
  double eps, momentum;

 private:
  int dims_;
};

/// torch.nn.BatchNorm1d.
class BatchNorm1d : public BatchNorm {
  CTORCH_MODULE_REPLICABLE(BatchNorm1d)
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                       bool track_running_stats = true)
      : BatchNorm(1, num_features, eps, momentum, affine, track_running_stats) {}
};

/// torch.nn.BatchNorm2d.
class BatchNorm2d : public BatchNorm {
  CTORCH_MODULE_REPLICABLE(BatchNorm2d)
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                       bool track_running_stats = true)
      : BatchNorm(2, num_features, eps, momentum, affine, track_running_stats) {}
};

}  // namespace ctorch::nn
