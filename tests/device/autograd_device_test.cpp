// Autograd on every backend: gradcheck (float64, central differences) for each differentiable op
// that records, with the gradients on a cuda device compared to the cpu's; then where gradients
// land (leaf devices, cuda:1, cpu->cuda copies) and backward on a side stream under the sanitizer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "autograd/formula_node.h"
#include "ctorch/autograd.h"
#include "ctorch/dropout.h"
#include "ctorch/cuda_sanitizer.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/normalization.h"
#include "ctorch/ops.h"
#include "ctorch/random.h"
#include "ctorch/factories.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

using autograd::variable_list;
using ::testing::HasSubstr;

// ---- the gradcheck table ------------------------------------------------------------------------

/// How one input is drawn: uniform in [lo, hi), optionally pushed away from 0 (|x| >= gap).
struct InputSpec {
  std::vector<int64_t> shape;
  double lo = -1, hi = 1;
  double gap = 0;             ///< values in (-gap, gap) are moved out by gap (abs, sign kinks)
  bool requires_grad = true;  ///< false: a constant operand (condition, indices)
};

struct GradCase {
  std::string name;
  std::vector<InputSpec> inputs;
  std::function<variable_list(const variable_list&)> fn;
  autograd::GradcheckOptions options = {};
  bool draws = false;  ///< random: a device draws its own values (cpu and cuda generators differ, as PyTorch's)
};

InputSpec in(std::vector<int64_t> shape, double lo = -1, double hi = 1, double gap = 0) {
  return InputSpec{std::move(shape), lo, hi, gap, true};
}
InputSpec positive(std::vector<int64_t> shape) { return in(std::move(shape), 0.5, 2.0); }
InputSpec nonzero(std::vector<int64_t> shape) { return in(std::move(shape), -1, 1, 0.2); }

using F1 = std::function<Tensor(const Tensor&)>;
using F2 = std::function<Tensor(const Tensor&, const Tensor&)>;
using F3 = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;

// An int64 index tensor on `like`'s device.
Tensor longs(std::vector<int64_t> values, IntArrayRef shape, const Tensor& like) {
  return tensor(values).reshape(shape).to(like.device());
}

GradCase unary(std::string name, InputSpec a, F1 f) {
  return {std::move(name), {std::move(a)}, [f](const variable_list& v) { return variable_list{f(v[0])}; }};
}
GradCase binary(std::string name, InputSpec a, InputSpec b, F2 f) {
  return {std::move(name), {std::move(a), std::move(b)},
          [f](const variable_list& v) { return variable_list{f(v[0], v[1])}; }};
}
GradCase ternary(std::string name, InputSpec a, InputSpec b, InputSpec c, F3 f) {
  return {std::move(name), {std::move(a), std::move(b), std::move(c)},
          [f](const variable_list& v) { return variable_list{f(v[0], v[1], v[2])}; }};
}

std::vector<GradCase> make_cases() {
  std::vector<GradCase> c;
  // Unary.
  c.push_back(unary("neg", in({3, 4}), [](const Tensor& x) { return x.neg(); }));
  c.push_back(unary("abs", nonzero({3, 4}), [](const Tensor& x) { return x.abs(); }));
  c.push_back(unary("exp", in({3, 4}), [](const Tensor& x) { return x.exp(); }));
  c.push_back(unary("log", positive({3, 4}), [](const Tensor& x) { return x.log(); }));
  c.push_back(unary("sqrt", positive({3, 4}), [](const Tensor& x) { return x.sqrt(); }));
  c.push_back(unary("rsqrt", positive({3, 4}), [](const Tensor& x) { return x.rsqrt(); }));
  c.push_back(unary("sin", in({3, 4}, -3, 3), [](const Tensor& x) { return x.sin(); }));
  c.push_back(unary("cos", in({3, 4}, -3, 3), [](const Tensor& x) { return x.cos(); }));
  c.push_back(unary("tanh", in({3, 4}, -2, 2), [](const Tensor& x) { return x.tanh(); }));
  c.push_back(unary("sigmoid", in({3, 4}, -3, 3), [](const Tensor& x) { return x.sigmoid(); }));
  c.push_back(unary("relu", nonzero({3, 4}), [](const Tensor& x) { return x.relu(); }));
  c.push_back(unary("clamp", in({4, 5}, -2, 2), [](const Tensor& x) { return x.clamp(-0.5, 0.7); }));
  c.push_back(unary("clamp_min_only", in({4, 5}, -2, 2), [](const Tensor& x) { return x.clamp(0.3); }));
  c.push_back(unary("clamp_max_only", in({4, 5}, -2, 2),
                    [](const Tensor& x) { return x.clamp(std::nullopt, -0.3); }));
  c.push_back(unary("clamp_min", in({4, 5}, -2, 2), [](const Tensor& x) { return x.clamp_min(0.1); }));
  c.push_back(unary("clamp_max", in({4, 5}, -2, 2), [](const Tensor& x) { return x.clamp_max(0.1); }));
  c.push_back(unary("erf", in({3, 4}, -2, 2), [](const Tensor& x) { return x.erf(); }));
  c.push_back(unary("log1p", in({3, 4}, -0.5, 2), [](const Tensor& x) { return x.log1p(); }));
  // Piecewise constant: zero gradients (the inputs stay away from the steps).
  c.push_back(unary("floor", in({3, 4}, -3, 3), [](const Tensor& x) { return x.floor(); }));
  c.push_back(unary("ceil", in({3, 4}, -3, 3), [](const Tensor& x) { return x.ceil(); }));
  c.push_back(unary("round", in({3, 4}, -3, 3), [](const Tensor& x) { return x.round(); }));
  c.push_back(unary("sign", nonzero({3, 4}), [](const Tensor& x) { return x.sign() * 2; }));
  c.push_back(binary("div_trunc", in({3, 4}, -3, 3), nonzero({4}),
                     [](const Tensor& a, const Tensor& b) { return a.div(b, std::string("trunc")); }));
  c.push_back(binary("div_floor", in({3, 4}, -3, 3), nonzero({3, 1}),
                     [](const Tensor& a, const Tensor& b) { return a.div(b, std::string("floor")); }));
  c.push_back(unary("div_scalar_trunc", in({3, 4}, -3, 3), [](const Tensor& x) { return x.div(0.7, std::string("trunc")); }));
  c.push_back(unary("div_scalar_floor", in({3, 4}, -3, 3), [](const Tensor& x) { return x.div(0.7, std::string("floor")); }));
  // Binary, broadcasting both ways.
  c.push_back(binary("add_broadcast", in({3, 1}), in({1, 4}), [](const Tensor& a, const Tensor& b) { return a + b; }));
  c.push_back(binary("add_alpha", in({2, 3, 4}), in({4}),
                     [](const Tensor& a, const Tensor& b) { return a.add(b, 2.5); }));
  c.push_back(binary("sub_broadcast", in({4}), in({3, 4}), [](const Tensor& a, const Tensor& b) { return a - b; }));
  c.push_back(binary("sub_alpha", in({3, 4}), in({3, 1}),
                     [](const Tensor& a, const Tensor& b) { return a.sub(b, -1.5); }));
  c.push_back(binary("mul_broadcast", in({2, 3, 4}), in({3, 1}),
                     [](const Tensor& a, const Tensor& b) { return a * b; }));
  c.push_back(binary("mul_zero_dim", in({3, 4}), in({}), [](const Tensor& a, const Tensor& b) { return a * b; }));
  c.push_back(unary("mul_same_tensor", in({3, 4}), [](const Tensor& a) { return a * a; }));
  c.push_back(binary("div_broadcast", in({3, 4}), nonzero({4}),
                     [](const Tensor& a, const Tensor& b) { return a / b; }));
  c.push_back(binary("pow_tensor_tensor", positive({3, 4}), in({3, 4}, -2, 2),
                     [](const Tensor& a, const Tensor& b) { return a.pow(b); }));
  c.push_back(binary("pow_tensor_tensor_broadcast", positive({3, 1}), in({4}, -2, 2),
                     [](const Tensor& a, const Tensor& b) { return a.pow(b); }));
  c.push_back(unary("pow_tensor_int", in({3, 4}), [](const Tensor& x) { return x.pow(3); }));
  c.push_back(unary("pow_tensor_double", positive({3, 4}), [](const Tensor& x) { return x.pow(2.5); }));
  c.push_back(unary("pow_tensor_negative", positive({3, 4}), [](const Tensor& x) { return x.pow(-1.5); }));
  c.push_back(unary("pow_scalar_tensor", in({3, 4}, -2, 2), [](const Tensor& x) { return pow(2.0, x); }));
  c.push_back(binary("maximum", in({3, 4}), in({4}), [](const Tensor& a, const Tensor& b) { return a.maximum(b); }));
  c.push_back(binary("minimum", in({3, 1}), in({3, 4}), [](const Tensor& a, const Tensor& b) { return a.minimum(b); }));
  c.push_back(binary("remainder", in({3, 4}, -3, 3), in({4}, 0.7, 1.3),
                     [](const Tensor& a, const Tensor& b) { return a.remainder(b); }));
  c.push_back(unary("remainder_scalar", in({3, 4}, -3, 3), [](const Tensor& x) { return x.remainder(1.3); }));
  // Scalar operands on either side.
  c.push_back(unary("add_scalar", in({3, 4}), [](const Tensor& x) { return x + 2; }));
  c.push_back(unary("add_scalar_alpha", in({3, 4}), [](const Tensor& x) { return x.add(2, 3); }));
  c.push_back(unary("sub_scalar", in({3, 4}), [](const Tensor& x) { return x - 2.5; }));
  c.push_back(unary("mul_scalar", in({3, 4}), [](const Tensor& x) { return x * 3; }));
  c.push_back(unary("div_scalar", in({3, 4}), [](const Tensor& x) { return x / 4.0; }));
  c.push_back(unary("scalar_add", in({3, 4}), [](const Tensor& x) { return 2 + x; }));
  c.push_back(unary("scalar_sub", in({3, 4}), [](const Tensor& x) { return 2 - x; }));
  c.push_back(unary("scalar_mul", in({3, 4}), [](const Tensor& x) { return 2.5 * x; }));
  c.push_back(unary("scalar_div", in({3, 4}, 0.5, 2), [](const Tensor& x) { return 2 / x; }));
  c.push_back(unary("scalar_div_negative", in({3, 4}, -2, -0.5), [](const Tensor& x) { return 3.0 / x; }));
  // Reductions.
  c.push_back(unary("sum", in({3, 4}), [](const Tensor& x) { return x.sum(); }));
  c.push_back(unary("sum_dims", in({2, 3, 4}), [](const Tensor& x) { return x.sum({0, 2}); }));
  c.push_back(unary("sum_dim_keepdim", in({2, 3, 4}), [](const Tensor& x) { return x.sum({1}, true); }));
  c.push_back(unary("sum_negative_dim", in({2, 3, 4}), [](const Tensor& x) { return x.sum({-1}); }));
  c.push_back(unary("mean", in({3, 4}), [](const Tensor& x) { return x.mean(); }));
  c.push_back(unary("mean_dims", in({2, 3, 4}), [](const Tensor& x) { return x.mean({0, 2}); }));
  c.push_back(unary("mean_dim_keepdim", in({2, 3, 4}), [](const Tensor& x) { return x.mean({-2}, true); }));
  c.push_back(unary("prod", positive({3, 4}), [](const Tensor& x) { return x.prod(); }));
  c.push_back(unary("prod_dim", positive({3, 4}), [](const Tensor& x) { return x.prod(1); }));
  c.push_back(unary("norm_p1", nonzero({3, 4}), [](const Tensor& x) { return x.norm(1); }));
  c.push_back(unary("norm_p2", in({3, 4}), [](const Tensor& x) { return x.norm(); }));
  c.push_back(unary("norm_p3", nonzero({3, 4}), [](const Tensor& x) { return x.norm(3); }));
  c.push_back(unary("norm_inf", in({3, 4}), [](const Tensor& x) { return x.norm(INFINITY); }));
  c.push_back(unary("norm_p2_dim", in({3, 4}), [](const Tensor& x) { return x.norm(2, {1}); }));
  c.push_back(unary("norm_p3_dim_keepdim", nonzero({3, 4}), [](const Tensor& x) { return x.norm(3, {0}, true); }));
  c.push_back(unary("norm_inf_dim", in({3, 4}), [](const Tensor& x) { return x.norm(INFINITY, {1}); }));
  c.push_back(unary("var", in({3, 4}), [](const Tensor& x) { return x.var(); }));
  c.push_back(unary("var_dim", in({3, 4}), [](const Tensor& x) { return x.var(IntArrayRef{1}); }));
  c.push_back(unary("var_dim_keepdim_correction0", in({3, 4}),
                    [](const Tensor& x) { return x.var(IntArrayRef{0}, 0, true); }));
  c.push_back(unary("std", in({3, 4}), [](const Tensor& x) { return x.std(); }));
  c.push_back(unary("std_dims", in({2, 3, 4}), [](const Tensor& x) { return x.std(IntArrayRef{0, 2}); }));
  c.push_back(unary("max_all", in({3, 4}), [](const Tensor& x) { return x.max(); }));
  c.push_back(unary("min_all", in({3, 4}), [](const Tensor& x) { return x.min(); }));
  c.push_back(unary("max_dim", in({3, 4}), [](const Tensor& x) { return std::get<0>(x.max(1)); }));
  c.push_back(unary("max_negative_dim_keepdim", in({3, 4}),
                    [](const Tensor& x) { return std::get<0>(x.max(-1, true)); }));
  c.push_back(unary("min_dim", in({3, 4}), [](const Tensor& x) { return std::get<0>(x.min(0)); }));
  c.push_back(unary("softmax", in({3, 4}), [](const Tensor& x) { return x.softmax(1); }));
  c.push_back(unary("softmax_dim0", in({3, 4}), [](const Tensor& x) { return x.softmax(0); }));
  c.push_back(unary("log_softmax", in({3, 4}), [](const Tensor& x) { return x.log_softmax(-1); }));
  c.push_back(unary("log_softmax_3d", in({2, 3, 4}), [](const Tensor& x) { return x.log_softmax(1); }));
  // Matrix products.
  c.push_back(binary("mm", in({3, 4}), in({4, 5}), [](const Tensor& a, const Tensor& b) { return a.mm(b); }));
  c.push_back(binary("mm_transposed", in({4, 3}), in({5, 4}),
                     [](const Tensor& a, const Tensor& b) { return a.t().mm(b.t()); }));
  c.push_back(binary("bmm", in({2, 3, 4}), in({2, 4, 2}), [](const Tensor& a, const Tensor& b) { return a.bmm(b); }));
  c.push_back(ternary("addmm", in({3, 5}), in({3, 4}), in({4, 5}),
                      [](const Tensor& s, const Tensor& a, const Tensor& b) { return s.addmm(a, b); }));
  c.push_back(ternary("addmm_beta_alpha_broadcast", in({5}), in({3, 4}), in({4, 5}),
                      [](const Tensor& s, const Tensor& a, const Tensor& b) { return s.addmm(a, b, 0.5, -2); }));
  c.push_back(binary("matmul_1d_1d", in({4}), in({4}), [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(binary("matmul_2d_1d", in({3, 4}), in({4}), [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(binary("matmul_1d_2d", in({4}), in({4, 3}), [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(binary("matmul_2d_2d", in({3, 4}), in({4, 2}), [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(binary("matmul_3d_2d", in({2, 3, 4}), in({4, 2}),
                     [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(binary("matmul_2d_3d", in({3, 4}), in({2, 4, 2}),
                     [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(binary("matmul_3d_1d", in({2, 3, 4}), in({4}),
                     [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(binary("matmul_1d_3d", in({3}), in({2, 3, 4}),
                     [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(binary("matmul_batched_broadcast", in({2, 1, 3, 4}), in({3, 4, 2}),
                     [](const Tensor& a, const Tensor& b) { return a.matmul(b); }));
  c.push_back(ternary("linear", in({2, 3, 4}), in({5, 4}), in({5}),
                      [](const Tensor& x, const Tensor& w, const Tensor& b) { return linear(x, w, b); }));
  c.push_back(binary("linear_no_bias", in({3, 4}), in({2, 4}),
                     [](const Tensor& x, const Tensor& w) { return linear(x, w); }));
  // Batch normalization: batch statistics (the gradient through the mean and variance), running
  // statistics (eval), no affine parameters, a 2-d input.
  c.push_back(ternary("batch_norm_training", in({3, 2, 2, 2}), in({2}), in({2}),
                      [](const Tensor& x, const Tensor& w, const Tensor& b) {
                        return batch_norm(x, w, b, {}, {}, true, 0.1, 1e-5);
                      }));
  c.push_back(ternary("batch_norm_eval", in({3, 2, 4}), in({2}), in({2}),
                      [](const Tensor& x, const Tensor& w, const Tensor& b) {
                        const TensorOptions f64 = TensorOptions().dtype(kDouble).device(x.device());
                        return batch_norm(x, w, b, full({2}, 0.25, f64), full({2}, 1.5, f64), false, 0.1, 1e-5);
                      }));
  c.push_back(unary("batch_norm_no_affine_2d", in({4, 3}),
                    [](const Tensor& x) { return batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5); }));
  // Convolution: padding, stride, dilation, groups, no bias, unbatched, "same".
  c.push_back(ternary("conv2d", in({2, 3, 5, 6}), in({4, 3, 3, 2}), in({4}),
                      [](const Tensor& x, const Tensor& w, const Tensor& b) { return conv2d(x, w, b); }));
  c.push_back(ternary("conv2d_padding_stride_dilation", in({2, 2, 7, 6}), in({3, 2, 3, 3}), in({3}),
                      [](const Tensor& x, const Tensor& w, const Tensor& b) {
                        return conv2d(x, w, b, {2, 1}, {1, 2}, {2, 1});
                      }));
  c.push_back(binary("conv2d_groups_no_bias", in({1, 4, 5, 5}), in({6, 2, 2, 3}),
                     [](const Tensor& x, const Tensor& w) { return conv2d(x, w, {}, {1}, {1}, {1}, 2); }));
  c.push_back(binary("conv2d_unbatched_same", in({2, 5, 4}), in({3, 2, 2, 3}),
                     [](const Tensor& x, const Tensor& w) { return conv2d(x, w, {}, {1}, "same"); }));
  c.push_back(ternary("conv_transpose2d", in({2, 4, 3, 4}), in({4, 2, 3, 2}), in({4}),
                      [](const Tensor& x, const Tensor& w, const Tensor& b) {
                        return conv_transpose2d(x, w, b, {2, 1}, {1, 0}, {1, 0}, 2, {1, 2});
                      }));
  c.push_back(binary("conv_transpose2d_unbatched", in({2, 3, 3}), in({2, 3, 2, 2}),
                     [](const Tensor& x, const Tensor& w) { return conv_transpose2d(x, w, {}, {2}); }));
  c.push_back(ternary("conv1d", in({2, 3, 7}), in({2, 3, 3}), in({2}),
                      [](const Tensor& x, const Tensor& w, const Tensor& b) { return conv1d(x, w, b, {2}, {1}); }));
  c.push_back(unary("max_pool2d", in({2, 3, 6, 5}), [](const Tensor& x) { return max_pool2d(x, {2}); }));
  c.push_back(unary("max_pool2d_overlapping_padded_dilated_ceil", in({1, 2, 7, 8}), [](const Tensor& x) {
    return max_pool2d(x, {3, 2}, {2, 1}, {1, 1}, {1, 2}, /*ceil_mode=*/true);
  }));
  c.push_back(unary("max_pool2d_unbatched", in({2, 5, 5}), [](const Tensor& x) { return max_pool2d(x, {3}, {2}); }));
  c.push_back(ternary("layer_norm", in({3, 2, 4}), in({2, 4}), in({2, 4}),
                      [](const Tensor& x, const Tensor& w, const Tensor& b) { return layer_norm(x, {2, 4}, w, b); }));
  c.push_back(unary("layer_norm_no_affine", in({4, 5}), [](const Tensor& x) { return layer_norm(x, {5}); }));
  c.push_back(unary("native_dropout", in({3, 5}), [](const Tensor& x) {
    manual_seed(21);  // the same mask at every evaluation
    return std::get<0>(native_dropout(x, 0.4, true));
  }));
  c.back().draws = true;
  c.push_back(unary("avg_pool2d", in({2, 3, 6, 4}), [](const Tensor& x) { return avg_pool2d(x, {2}); }));
  c.push_back(unary("avg_pool2d_overlapping_padded_ceil", in({1, 2, 7, 8}), [](const Tensor& x) {
    return avg_pool2d(x, {3, 2}, {2, 1}, {1, 1}, /*ceil_mode=*/true);
  }));
  c.push_back(unary("avg_pool2d_unbatched_gaps_exclude_pad", in({2, 6, 7}), [](const Tensor& x) {
    return avg_pool2d(x, {2, 3}, {3, 4}, {1, 1}, /*ceil_mode=*/true, /*count_include_pad=*/false);
  }));
  c.push_back(unary("avg_pool2d_divisor_override", in({1, 2, 5, 5}),
                    [](const Tensor& x) { return avg_pool2d(x, {3}, {2}, {1}, false, true, /*divisor_override=*/4); }));
  c.push_back(unary("adaptive_avg_pool2d_divisible", in({2, 3, 6, 4}),
                    [](const Tensor& x) { return adaptive_avg_pool2d(x, {3, 2}); }));
  c.push_back(unary("adaptive_avg_pool2d_overlapping", in({2, 7, 5}),
                    [](const Tensor& x) { return adaptive_avg_pool2d(x, {3, 4}); }));
  c.push_back(unary("adaptive_avg_pool2d_rows_divide", in({1, 2, 6, 5}),
                    [](const Tensor& x) { return adaptive_avg_pool2d(x, {3, 2}); }));
  // Views.
  c.push_back(unary("view", in({3, 4}), [](const Tensor& x) { return x.view({2, 6}) * 1.5; }));
  c.push_back(unary("view_inferred", in({2, 3, 4}), [](const Tensor& x) { return x.view({-1, 4}).sin(); }));
  c.push_back(unary("reshape", in({3, 4}), [](const Tensor& x) { return x.reshape({4, 3}).exp(); }));
  c.push_back(unary("reshape_copy", in({3, 4}), [](const Tensor& x) { return x.t().reshape({12}).exp(); }));
  c.push_back(unary("permute", in({2, 3, 4}), [](const Tensor& x) { return x.permute({2, 0, 1}).cos(); }));
  c.push_back(unary("transpose", in({2, 3, 4}), [](const Tensor& x) { return x.transpose(0, -1).cos(); }));
  c.push_back(unary("t", in({3, 4}), [](const Tensor& x) { return x.t().mm(x); }));
  c.push_back(unary("squeeze", in({3, 1, 4, 1}), [](const Tensor& x) { return x.squeeze().exp(); }));
  c.push_back(unary("squeeze_dim", in({3, 1, 4}), [](const Tensor& x) { return x.squeeze(1).exp(); }));
  c.push_back(unary("squeeze_dim_noop", in({3, 4}), [](const Tensor& x) { return x.squeeze(0).exp(); }));
  c.push_back(unary("unsqueeze", in({3, 4}), [](const Tensor& x) { return x.unsqueeze(1).exp(); }));
  c.push_back(unary("unsqueeze_negative", in({3}), [](const Tensor& x) { return x.unsqueeze(-1) * x.unsqueeze(0); }));
  c.push_back(unary("expand", in({3, 1}), [](const Tensor& x) { return x.expand({2, 3, 4}).sin(); }));
  c.push_back(unary("expand_as", in({4}), [](const Tensor& x) { return x.expand_as(ones({3, 4}, x.options())) * 2; }));
  c.push_back(unary("select", in({3, 4}), [](const Tensor& x) { return x.select(1, 2).exp(); }));
  c.push_back(unary("select_negative", in({3, 4}), [](const Tensor& x) { return x.select(0, -1).exp(); }));
  c.push_back(unary("index_int", in({3, 4}), [](const Tensor& x) { return x[1].exp(); }));
  c.push_back(unary("slice", in({3, 6}), [](const Tensor& x) { return x.slice(1, 1, std::nullopt, 2).exp(); }));
  c.push_back(unary("slice_negative", in({5, 2}), [](const Tensor& x) { return x.slice(0, -3, -1).exp(); }));
  c.push_back(unary("narrow", in({3, 6}), [](const Tensor& x) { return x.narrow(1, 2, 3).exp(); }));
  c.push_back(unary("flatten", in({2, 3, 4}), [](const Tensor& x) { return x.flatten(1).sin(); }));
  c.push_back(unary("chunk", in({4, 3}), [](const Tensor& x) {
    auto parts = x.chunk(2, 0);
    return parts[0] * parts[1];
  }));
  c.push_back(unary("unbind", in({3, 4}), [](const Tensor& x) {
    auto rows = x.unbind(0);
    return rows[0] * rows[2] + rows[1];
  }));
  c.push_back(unary("view_of_view", in({2, 3, 4}),
                    [](const Tensor& x) { return x.transpose(0, 1).select(2, 1).unsqueeze(0).exp(); }));
  c.push_back(unary("alias", in({3, 4}), [](const Tensor& x) { return x.alias().exp(); }));
  c.push_back(unary("as_strided", in({3, 4}), [](const Tensor& x) { return x.as_strided({2, 3}, {1, 2}, 1).exp(); }));
  c.push_back(unary("as_strided_overlapping", in({3, 4}),
                    [](const Tensor& x) { return x.as_strided({3, 3}, {1, 1}).sin(); }));
  c.push_back(unary("as_strided_of_a_slice", in({4, 5}),
                    [](const Tensor& x) { return x.narrow(1, 1, 3).as_strided({2, 2}, {5, 1}, 2).exp(); }));
  // Indexing with index tensors (made on the input's device).
  c.push_back(unary("index", in({3, 4}), [](const Tensor& x) { return x.index({longs({2, 0, 2}, {3}, x)}).sin(); }));
  c.push_back(unary("index_select", in({3, 4}),
                    [](const Tensor& x) { return x.index_select(1, longs({2, 0, 2}, {3}, x)).cos(); }));
  c.push_back(unary("gather", in({3, 4}),
                    [](const Tensor& x) { return x.gather(1, longs({0, 3, 1, 2, 2, 0}, {3, 2}, x)).pow(2); }));
  c.push_back(binary("scatter", in({3, 4}), in({3, 2}), [](const Tensor& x, const Tensor& src) {
    return x.scatter(1, longs({0, 3, 1, 2, 2, 0}, {3, 2}, x), src).sin();
  }));
  c.push_back(binary("scatter_add", in({3, 4}), in({3, 2}), [](const Tensor& x, const Tensor& src) {
    return x.scatter_add(1, longs({0, 3, 1, 2, 2, 0}, {3, 2}, x), src).sin();
  }));
  c.push_back(binary("index_add_alpha", in({5, 4}), in({3, 4}), [](const Tensor& x, const Tensor& src) {
    return x.index_add(0, longs({2, 0, 2}, {3}, x), src, 0.5).tanh();
  }));
  c.push_back(binary("index_put_accumulate", in({3, 4}), in({4}), [](const Tensor& x, const Tensor& v) {
    Tensor p = x.clone();
    p.index_put_({std::optional<Tensor>(longs({2, 0, 2}, {3}, x))}, v, /*accumulate=*/true);
    return p.sin();
  }));
  c.push_back(binary("index_put", in({3, 4}), in({4}), [](const Tensor& x, const Tensor& v) {
    Tensor p = x * 1.5;
    p.index_put_({std::optional<Tensor>(longs({2, 0}, {2}, x))}, v);
    return p.sin();
  }));
  // In-place fills of a non-leaf: self's old value gets a zero gradient.
  c.push_back(unary("inplace_fill_", in({3, 4}), [](const Tensor& x) {
    Tensor y = x * 2;
    y.fill_(0.5);
    return y * x;
  }));
  c.push_back(unary("inplace_zero_", in({3, 4}), [](const Tensor& x) {
    Tensor y = x * 2;
    y.zero_();
    return y + x;
  }));
  // Copies and joins.
  c.push_back(unary("clone", in({3, 4}), [](const Tensor& x) { return x.clone() * x; }));
  c.push_back(unary("contiguous", in({3, 4}), [](const Tensor& x) { return x.t().contiguous().exp(); }));
  {
    GradCase to_float = unary("to_dtype", in({3, 4}), [](const Tensor& x) { return x.to(kFloat).exp().to(kDouble); });
    to_float.options.eps = 1e-3;  // float32 in between: differences need a larger step
    to_float.options.atol = 1e-3;
    to_float.options.rtol = 1e-2;
    c.push_back(std::move(to_float));
  }
  c.push_back(ternary("cat", in({2, 3}), in({2, 1}), in({2, 2}), [](const Tensor& a, const Tensor& b, const Tensor& d) {
    return cat({a, b, d}, 1).exp();
  }));
  c.push_back(binary("cat_negative_dim_same_input", in({2, 3}), in({1, 3}),
                     [](const Tensor& a, const Tensor& b) { return cat({a, b, a}, -2).exp(); }));
  c.push_back(ternary("stack", in({2, 3}), in({2, 3}), in({2, 3}),
                      [](const Tensor& a, const Tensor& b, const Tensor& d) { return stack({a, b, d}, 0).exp(); }));
  c.push_back(binary("stack_last_dim", in({2, 3}), in({2, 3}),
                     [](const Tensor& a, const Tensor& b) { return stack({a, b}, -1).sin(); }));
  c.push_back(ternary("where", in({3, 4}, -1, 1, 0.1), in({3, 4}), in({4}),
                      [](const Tensor& c0, const Tensor& x, const Tensor& y) { return where(c0.gt(0), x, y); }));
  c.back().inputs[0].requires_grad = false;
  c.push_back(unary("where_scalar", in({3, 4}, -1, 1, 0.1),
                    [](const Tensor& x) { return where(x.gt(0), x * x, 0.5); }));
  // In-place ops on non-leaves (recorded_inplace, with and without the original self).
  c.push_back(binary("inplace_mul_", in({3, 4}), in({4}),
                     [](const Tensor& a, const Tensor& b) { return a.clone().mul_(b); }));
  c.push_back(binary("inplace_add_alpha_", in({3, 4}), in({3, 4}),
                     [](const Tensor& a, const Tensor& b) { return (a * 2).add_(b, 0.5); }));
  c.push_back(binary("inplace_div_", in({3, 4}), nonzero({3, 4}),
                     [](const Tensor& a, const Tensor& b) { return a.clone().div_(b); }));
  c.push_back(unary("inplace_sin_", in({3, 4}), [](const Tensor& x) { return x.clone().sin_(); }));
  c.push_back(unary("inplace_exp_", in({3, 4}), [](const Tensor& x) { return x.clone().exp_(); }));
  c.push_back(unary("inplace_pow_", positive({3, 4}), [](const Tensor& x) { return (x * 1).pow_(3); }));
  c.push_back(unary("inplace_clamp_", in({3, 4}, -2, 2), [](const Tensor& x) { return x.clone().clamp_(-0.5, 0.5); }));
  c.push_back(binary("inplace_copy_", in({3, 4}), in({4}), [](const Tensor& a, const Tensor& b) {
    Tensor y = a * 2;
    y.copy_(b);
    return y;
  }));
  // A small network: chains several nodes and reuses inputs.
  c.push_back(ternary("mlp", in({4, 3}), in({5, 3}), in({5}), [](const Tensor& x, const Tensor& w, const Tensor& b) {
    const Tensor h = linear(x, w, b).tanh();
    return (h.log_softmax(1) * h.sigmoid()).sum(IntArrayRef{0}) + h.norm();
  }));
  return c;
}

const std::vector<GradCase>& cases() {
  static const std::vector<GradCase> all = make_cases();
  return all;
}

// Deterministic float64 inputs drawn on the cpu (same values on every backend).
variable_list make_inputs(const GradCase& gc, Device device, uint64_t seed) {
  manual_seed(seed);
  variable_list out;
  for (const InputSpec& s : gc.inputs) {
    Tensor t = rand(s.shape, TensorOptions().dtype(kDouble)) * (s.hi - s.lo) + s.lo;
    if (s.gap > 0) t = where(t.ge(0), t + s.gap, t - s.gap);
    t = t.to(device);
    if (s.requires_grad) t.requires_grad_();
    out.push_back(t);
  }
  return out;
}

// The gradients of sum(out * w) for a fixed random weight w of the output's shape.
variable_list weighted_grads(const GradCase& gc, const variable_list& inputs) {
  const Tensor out = gc.fn(inputs).at(0);
  manual_seed(7);
  const Tensor w = rand(out.sizes(), TensorOptions().dtype(kDouble)).to(out.device());
  variable_list wanted;
  for (const Tensor& t : inputs) {
    if (t.requires_grad()) wanted.push_back(t);
  }
  return autograd::grad({(out * w).sum()}, wanted, {}, std::nullopt, false, /*allow_unused=*/true);
}

class AutogradGradcheck : public ::testing::TestWithParam<std::tuple<Backend, size_t>> {
 protected:
  void SetUp() override {
    switch (std::get<0>(GetParam())) {
      case Backend::Cpu: device_ = Device(DeviceType::CPU); break;
      case Backend::Emulated:
        use_emulated_devices(2);
        device_ = Device(DeviceType::CUDA, 0);
        break;
      case Backend::Cuda:
        if (cuda::is_emulated() || cuda::device_count() == 0) GTEST_SKIP() << "no real CUDA device";
        device_ = Device(DeviceType::CUDA, 0);
        break;
    }
  }
  Device device_ = Device(DeviceType::CPU);
};

TEST_P(AutogradGradcheck, MatchesFiniteDifferences) {
  const GradCase& gc = cases()[std::get<1>(GetParam())];
  const variable_list inputs = make_inputs(gc, device_, 1234);
  const variable_list outputs = gc.fn(inputs);
  ASSERT_TRUE(outputs.at(0).requires_grad()) << gc.name << " did not record";
  EXPECT_EQ(outputs.at(0).device(), device_);
  EXPECT_TRUE(autograd::gradcheck(gc.fn, inputs, gc.options));
}

TEST_P(AutogradGradcheck, DeviceGradientsEqualCpuGradients) {
  if (device_.is_cpu()) GTEST_SKIP() << "compares a cuda device with the cpu";
  const GradCase& gc = cases()[std::get<1>(GetParam())];
  if (gc.draws) GTEST_SKIP() << "random draws differ between the cpu and cuda generators (tests/device/dropout_test.cpp)";
  const variable_list on_cpu = weighted_grads(gc, make_inputs(gc, Device(DeviceType::CPU), 99));
  const variable_list on_device = weighted_grads(gc, make_inputs(gc, device_, 99));
  ASSERT_EQ(on_cpu.size(), on_device.size());
  for (size_t i = 0; i < on_cpu.size(); ++i) {
    SCOPED_TRACE("input " + std::to_string(i));
    ASSERT_EQ(on_device[i].defined(), on_cpu[i].defined());
    if (!on_cpu[i].defined()) continue;
    EXPECT_EQ(on_device[i].device(), device_);
    EXPECT_EQ(on_device[i].dtype(), kDouble);
    EXPECT_EQ(on_device[i].sizes(), on_cpu[i].sizes());
    EXPECT_TRUE(on_device[i].cpu().allclose(on_cpu[i], 1e-9, 1e-12))
        << "cpu: " << on_cpu[i].repr() << "\ndevice: " << on_device[i].cpu().repr();
  }
}

TEST_P(AutogradGradcheck, SecondDerivativesMatchFiniteDifferences) {
  const GradCase& gc = cases()[std::get<1>(GetParam())];
  const variable_list inputs = make_inputs(gc, device_, 1234);
  manual_seed(5);  // the random grad_outputs
  EXPECT_TRUE(autograd::gradgradcheck(gc.fn, inputs, gc.options));
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<Backend, size_t>>& info) {
  return cases()[std::get<1>(info.param)].name + "_" +
         backend_name(::testing::TestParamInfo<Backend>(std::get<0>(info.param), 0));
}

INSTANTIATE_TEST_SUITE_P(, AutogradGradcheck,
                         ::testing::Combine(::testing::Values(Backend::Cpu, Backend::Emulated, Backend::Cuda),
                                            ::testing::Range<size_t>(0, cases().size())),
                         case_name);

// ---- the gradient table: every entry has a case above --------------------------------------------

// Note [Gradient table]: the cases above reach every entry of the table, so each gradient is
// checked against finite differences, to second order, on the cpu and on an emulated device.
class GradientTable : public DeviceTest {};

TEST_P(GradientTable, EveryEntryHasAGradcheckCase) {
  std::set<std::string> reached;
  for (const GradCase& gc : cases()) {
    const variable_list out = gc.fn(make_inputs(gc, device(), 1));
    std::vector<autograd::Node*> pending{out.at(0).grad_fn().get()};
    while (!pending.empty()) {
      autograd::Node* node = pending.back();
      pending.pop_back();
      if (node == nullptr) continue;
      if (auto* f = dynamic_cast<autograd::FormulaNode*>(node)) reached.insert(f->derivative().op);
      for (const autograd::Edge& e : node->next_edges()) pending.push_back(e.function.get());
    }
  }
  size_t entries = 0;
  for (const autograd::Derivative& d : autograd::all_derivatives()) {
    ++entries;
    EXPECT_EQ(reached.count(d.op), 1u) << "the gradient of '" << d.op << "' (" << d.node << ") has no gradcheck case";
  }
  EXPECT_GE(entries, 70u);
}

TEST_P(GradientTable, OpNamesAreUnique) {
  std::set<std::string> seen;
  for (const autograd::Derivative& d : autograd::all_derivatives()) EXPECT_TRUE(seen.insert(d.op).second) << d.op;
}

CTORCH_INSTANTIATE_DEVICE_TESTS(GradientTable);

// ---- semantics on a device ------------------------------------------------------------------------

class AutogradDevice : public DeviceTest {};

TEST_P(AutogradDevice, GradientLandsOnTheLeafsDevice) {
  Tensor x = tensor({1.0, 2.0, 3.0}, on_device()).requires_grad_();
  Tensor w = tensor({0.5, -1.0, 2.0}, on_device()).requires_grad_();
  (x * w).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().device(), device());
  EXPECT_EQ(w.grad().device(), device());
  EXPECT_EQ(x.grad().dtype(), kFloat);
  EXPECT_EQ(x.grad().cpu().to_vector<float>(), (std::vector<float>{0.5f, -1.0f, 2.0f}));
  EXPECT_EQ(w.grad().cpu().to_vector<float>(), (std::vector<float>{1.0f, 2.0f, 3.0f}));
}

TEST_P(AutogradDevice, ReprShowsDeviceAndGradFn) {
  Tensor x = tensor({1.0, 2.0}, on_device()).requires_grad_();
  const std::string dev = is_cuda() ? ", device='cuda:0'" : "";
  EXPECT_EQ(x.repr(), "tensor([1., 2.]" + dev + ", requires_grad=True)");
  EXPECT_EQ((x * 2).repr(), "tensor([2., 4.]" + dev + ", grad_fn=<MulBackward0>)");
}

TEST_P(AutogradDevice, AccumulatesAndRetainsGraphOnTheDevice) {
  Tensor x = tensor({1.0, -2.0}, on_device(kDouble)).requires_grad_();
  Tensor y = (x * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_EQ(x.grad().cpu().to_vector<double>(), (std::vector<double>{4.0, -8.0}));
  EXPECT_THAT(error_of([&] { y.backward(); }), HasSubstr("Trying to backward through the graph a second time"));
}

TEST_P(AutogradDevice, DoubleBackwardOnTheDevice) {
  Tensor x = tensor({1.0, 2.0, -3.0}, on_device(kDouble)).requires_grad_();
  const variable_list g = autograd::grad({x.pow(3).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(g[0].requires_grad());
  g[0].sum().backward();
  EXPECT_EQ(x.grad().device(), device());
  EXPECT_TRUE(x.grad().cpu().allclose(tensor({6.0, 12.0, -18.0}, TensorOptions().dtype(kDouble))))
      << x.grad().cpu().repr();
}

TEST_P(AutogradDevice, AnomalyModeNamesTheNodeOnTheDevice) {
  Tensor x = zeros({2}, on_device(kDouble)).requires_grad_();
  Tensor y = (x.sqrt() * 0).sum();
  autograd::DetectAnomalyGuard anomaly;
  const std::string e = error_of([&] { y.backward(); });
  EXPECT_THAT(e, HasSubstr("Function 'SqrtBackward0' returned nan values in its 0th output."));
}

TEST_P(AutogradDevice, ProdGradientOverZeroFactorsIsThatOfTheOtherFactors) {
  // Rows with 1, 2, 0 and 3 zero factors; python3-torch 1.13.1 gives the same gradients.
  const Tensor x0 = tensor({1.5, 0.0, 3.0, 0.0, 0.0, 2.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0}, on_device(kDouble)).view({4, 3});
  Tensor x = x0.clone().requires_grad_();
  x.prod(1).sum().backward();
  EXPECT_TRUE(allclose(x.grad().cpu(), tensor({0.0, 4.5, 0.0, 0.0, 0.0, 0.0, 12.0, 8.0, 6.0, 0.0, 0.0, 0.0}, kDouble).view({4, 3})));
  Tensor y = x0.select(0, 0).clone().requires_grad_();
  y.prod().backward();
  EXPECT_TRUE(allclose(y.grad().cpu(), tensor({0.0, 4.5, 0.0}, kDouble)));
  EXPECT_EQ(y.prod().grad_fn()->name(), "ProdBackward0");
  // Second derivatives too: with two zeros in a row, d2/dx_i dx_k of the zeros is the other factor.
  auto by_rows = [](const variable_list& v) { return variable_list{v[0].prod(1)}; };
  auto all = [](const variable_list& v) { return variable_list{v[0].prod()}; };
  EXPECT_TRUE(autograd::gradcheck(by_rows, {x0.clone().requires_grad_()}));
  EXPECT_TRUE(autograd::gradgradcheck(by_rows, {x0.clone().requires_grad_()}));
  EXPECT_TRUE(autograd::gradcheck(all, {x0.slice(0, 0, 2).clone().requires_grad_()}));
  EXPECT_TRUE(autograd::gradgradcheck(all, {x0.slice(0, 0, 2).clone().requires_grad_()}));
  EXPECT_TRUE(autograd::gradgradcheck(all, {x0.select(0, 1).clone().requires_grad_()}));
}

CTORCH_INSTANTIATE_DEVICE_TESTS(AutogradDevice);

class AutogradCuda : public DeviceTest {};

TEST_P(AutogradCuda, LeafOnSecondDeviceGetsItsGradientThere) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two cuda devices";
  const Device d1(DeviceType::CUDA, 1);
  Tensor x = tensor({1.0, 2.0, 3.0}, TensorOptions().dtype(kDouble).device(d1)).requires_grad_();
  Tensor y = (x.exp() * x).sum();
  EXPECT_EQ(y.device(), d1);
  y.backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().device(), d1);
  // d/dx x e^x = (x + 1) e^x, computed on the cpu.
  const Tensor xc = tensor({1.0, 2.0, 3.0}, TensorOptions().dtype(kDouble));
  EXPECT_TRUE(x.grad().cpu().allclose((xc + 1) * xc.exp()));
}

TEST_P(AutogradCuda, BackwardFromAnotherCurrentDevice) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two cuda devices";
  Tensor x = tensor({1.0, 2.0}, TensorOptions().dtype(kDouble).device(Device(DeviceType::CUDA, 1))).requires_grad_();
  Tensor y = (x * x).sum();
  cuda::set_device(0);
  y.backward();
  EXPECT_EQ(x.grad().device(), Device(DeviceType::CUDA, 1));
  EXPECT_EQ(x.grad().cpu().to_vector<double>(), (std::vector<double>{2.0, 4.0}));
}

TEST_P(AutogradCuda, CpuLeafMovedToCudaGetsACpuGradient) {
  Tensor a = tensor({1.0, 2.0, 3.0}, TensorOptions().dtype(kDouble)).requires_grad_();
  Tensor b = a.to(device());
  EXPECT_FALSE(b.is_leaf());
  ASSERT_NE(b.grad_fn(), nullptr);
  EXPECT_EQ(b.grad_fn()->name(), "ToCopyBackward0");
  Tensor w = tensor({2.0, -1.0, 0.5}, on_device(kDouble)).requires_grad_();
  Tensor y = (b * w).sum();
  y.backward();
  ASSERT_TRUE(a.grad().defined());
  EXPECT_TRUE(a.grad().is_cpu());
  EXPECT_EQ(a.grad().to_vector<double>(), (std::vector<double>{2.0, -1.0, 0.5}));
  EXPECT_EQ(w.grad().device(), device());
  EXPECT_EQ(w.grad().cpu().to_vector<double>(), (std::vector<double>{1.0, 2.0, 3.0}));
}

TEST_P(AutogradCuda, CudaToCpuAndBack) {
  Tensor a = tensor({1.0, -2.0}, on_device(kDouble)).requires_grad_();
  Tensor y = (a.cpu() * 3).to(device()).exp().sum();
  y.backward();
  EXPECT_EQ(a.grad().device(), device());
  const Tensor ac = tensor({1.0, -2.0}, TensorOptions().dtype(kDouble));
  EXPECT_TRUE(a.grad().cpu().allclose((ac * 3).exp() * 3));
}

// Runs `body` with the stream sanitizer on; returns the race count (0 when nothing was thrown).
template <class F>
size_t races_in(F&& body) {
  cuda::enable_cuda_sanitizer();
  size_t n = 0;
  try {
    body();
    cuda::synchronize();
  } catch (const cuda::CUDASanitizerErrors& e) {
    n = e.errors().size();
  }
  cuda::disable_cuda_sanitizer();
  return n;
}

TEST_P(AutogradCuda, BackwardOnASideStreamMatchesAndHasNoRace) {
  cuda::set_device(0);
  const Tensor xc = linspace(-1.0, 1.0, 64, TensorOptions().dtype(kDouble)).view({8, 8});
  const Tensor wc = linspace(0.5, 1.5, 64, TensorOptions().dtype(kDouble)).view({8, 8});
  auto run = [&](Tensor& x, Tensor& w) {
    Tensor y = (x.mm(w).tanh() * x).sum() + w.sigmoid().mean();
    y.backward();
  };
  // Reference on the default stream.
  Tensor x0 = xc.to(device()).requires_grad_(), w0 = wc.to(device()).requires_grad_();
  run(x0, w0);
  const Tensor gx0 = x0.grad().cpu(), gw0 = w0.grad().cpu();

  Tensor x1, w1, gx1, gw1;
  const size_t races = races_in([&] {
    x1 = xc.to(device()).requires_grad_();
    w1 = wc.to(device()).requires_grad_();
    const cuda::Stream side;
    side.wait_stream(cuda::current_stream());
    {
      cuda::StreamContext ctx(side);
      run(x1, w1);
    }
    cuda::current_stream().wait_stream(side);
    gx1 = x1.grad().cpu();
    gw1 = w1.grad().cpu();
  });
  EXPECT_EQ(races, 0u);
  ASSERT_TRUE(gx1.defined() && gw1.defined());
  EXPECT_TRUE(gx1.allclose(gx0, 1e-12, 1e-12));
  EXPECT_TRUE(gw1.allclose(gw0, 1e-12, 1e-12));
}

TEST_P(AutogradCuda, ForwardOnASideStreamBackwardFromTheDefaultStream) {
  cuda::set_device(0);
  const Tensor xc = linspace(-2.0, 2.0, 32, TensorOptions().dtype(kDouble));
  Tensor x, g;
  const size_t races = races_in([&] {
    x = xc.to(device()).requires_grad_();
    const cuda::Stream side;
    side.wait_stream(cuda::current_stream());
    Tensor y;
    {
      cuda::StreamContext ctx(side);
      y = (x.exp() * x.sin()).sum();
    }
    // backward from the default stream: each node runs on its forward's stream, and the
    // caller's current stream waits for them (PyTorch's stream semantics of backward).
    y.backward();
    g = x.grad() * 1;  // read on the default stream
    g = g.cpu();
  });
  EXPECT_EQ(races, 0u);
  ASSERT_TRUE(g.defined());
  EXPECT_TRUE(g.allclose(xc.exp() * (xc.sin() + xc.cos()), 1e-12, 1e-12));
}

CTORCH_INSTANTIATE_CUDA_TESTS(AutogradCuda);

}  // namespace
}  // namespace ctorch::testing
