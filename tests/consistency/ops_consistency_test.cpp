// Every op on each cuda backend (emulated, and real when present) against the cpu result
// (ggml's test-backend-ops): same inputs, results compared exactly for integer and bool
// outputs and with a per-dtype tolerance for floating outputs.
#include <functional>
#include <string>
#include <vector>

#include "ctorch/cuda_trace.h"
#include "device/device_test.h"
#include "unit/json_lite.h"

using namespace ctorch;
using ctorch::testing::DeviceTest;

namespace {

class Consistency : public DeviceTest {
 protected:
  // Runs `op` on cpu inputs and on the same inputs moved to the device; compares.
  void check(const std::string& name, const std::vector<Tensor>& inputs,
             const std::function<Tensor(const std::vector<Tensor>&)>& op) {
    SCOPED_TRACE(name);
    std::vector<Tensor> on_dev;
    for (const Tensor& t : inputs) on_dev.push_back(t.to(device()));
    const Tensor expected = op(inputs);
    const Tensor actual = op(on_dev);
    EXPECT_EQ(actual.device(), device()) << name;
    compare(expected, actual.cpu(), name);
  }

  // As check(), but when the cpu throws, the device must throw an error of the same type and text.
  void check_or_same_error(const std::string& name, const std::vector<Tensor>& inputs,
                           const std::function<Tensor(const std::vector<Tensor>&)>& op) {
    std::string cpu_error;
    try {
      op(inputs);
    } catch (const Error& e) {
      cpu_error = e.what();
    }
    if (cpu_error.empty()) return check(name, inputs, op);
    std::vector<Tensor> on_dev;
    for (const Tensor& t : inputs) on_dev.push_back(t.to(device()));
    std::string device_error;
    try {
      op(on_dev);
    } catch (const Error& e) {
      device_error = e.what();
    }
    EXPECT_EQ(device_error, cpu_error) << name;
  }

  static void compare(const Tensor& expected, const Tensor& actual, const std::string& name) {
    ASSERT_EQ(expected.sizes(), actual.sizes()) << name;
    ASSERT_EQ(expected.dtype(), actual.dtype()) << name;
    if (expected.is_floating_point()) {
      const double tol = expected.dtype() == kHalf || expected.dtype() == kBFloat16 ? 1e-2 : 1e-5;
      EXPECT_TRUE(actual.to(kDouble).allclose(expected.to(kDouble), tol, tol, /*equal_nan=*/true))
          << name << "\nexpected " << expected << "\nactual   " << actual;
    } else {
      EXPECT_TRUE(actual.equal(expected)) << name << "\nexpected " << expected << "\nactual   " << actual;
    }
  }
};
CTORCH_INSTANTIATE_CUDA_TESTS(Consistency);

Tensor randn_of(IntArrayRef size, ScalarType dtype = kFloat) { return randn(size).to(dtype); }

using Unary = Tensor (*)(const Tensor&);

}  // namespace

TEST_P(Consistency, UnaryOps) {
  manual_seed(1);
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> ops = {
      {"neg", [](const Tensor& t) { return t.neg(); }},         {"abs", [](const Tensor& t) { return t.abs(); }},
      {"exp", [](const Tensor& t) { return t.exp(); }},         {"log", [](const Tensor& t) { return t.abs().add(1).log(); }},
      {"sqrt", [](const Tensor& t) { return t.abs().sqrt(); }}, {"rsqrt", [](const Tensor& t) { return t.abs().add(1).rsqrt(); }},
      {"sin", [](const Tensor& t) { return t.sin(); }},         {"cos", [](const Tensor& t) { return t.cos(); }},
      {"tanh", [](const Tensor& t) { return t.tanh(); }},       {"sigmoid", [](const Tensor& t) { return t.sigmoid(); }},
      {"erf", [](const Tensor& t) { return t.erf(); }},
      {"log1p", [](const Tensor& t) { return t.abs().log1p(); }},
      {"relu", [](const Tensor& t) { return t.relu(); }},       {"floor", [](const Tensor& t) { return t.mul(3).floor(); }},
      {"ceil", [](const Tensor& t) { return t.mul(3).ceil(); }}, {"round", [](const Tensor& t) { return t.mul(3).round(); }},
      {"sign", [](const Tensor& t) { return t.sign(); }},
      {"clamp", [](const Tensor& t) { return t.clamp(-0.5, 0.5); }},
      {"neg_", [](const Tensor& t) { Tensor c = t.clone(); c.neg_(); return c; }},
  };
  for (ScalarType dtype : {kFloat, kDouble, kHalf, kBFloat16}) {
    const Tensor x = randn_of({5, 7}, dtype);
    for (const auto& [name, f] : ops) {
      check(std::string(name) + "/" + scalar_type_name(dtype), {x}, [&](const std::vector<Tensor>& in) { return f(in[0]); });
    }
  }
  const Tensor ints = randint(-5, 5, {4, 6});
  for (const char* name : {"neg", "abs", "sign", "exp"}) {
    check(std::string(name) + "/int64", {ints}, [&](const std::vector<Tensor>& in) {
      const std::string n = name;
      return n == "neg" ? in[0].neg() : n == "abs" ? in[0].abs() : n == "sign" ? in[0].sign() : in[0].exp();
    });
  }
}

TEST_P(Consistency, BinaryOpsWithBroadcastingAndPromotion) {
  manual_seed(2);
  const Tensor a = randn({4, 1, 5});
  const Tensor b = randn({3, 5}).add(2);
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&, const Tensor&)>>> ops = {
      {"add", [](const Tensor& x, const Tensor& y) { return x.add(y, 2); }},
      {"sub", [](const Tensor& x, const Tensor& y) { return x.sub(y); }},
      {"mul", [](const Tensor& x, const Tensor& y) { return x * y; }},
      {"div", [](const Tensor& x, const Tensor& y) { return x / y; }},
      {"div_trunc", [](const Tensor& x, const Tensor& y) { return x.div(y, "trunc"); }},
      {"div_floor", [](const Tensor& x, const Tensor& y) { return x.div(y, "floor"); }},
      {"remainder", [](const Tensor& x, const Tensor& y) { return x.remainder(y); }},
      {"pow", [](const Tensor& x, const Tensor& y) { return x.abs().pow(y); }},
      {"maximum", [](const Tensor& x, const Tensor& y) { return x.maximum(y); }},
      {"minimum", [](const Tensor& x, const Tensor& y) { return x.minimum(y); }},
      {"eq", [](const Tensor& x, const Tensor& y) { return x.round() == y.round(); }},
      {"lt", [](const Tensor& x, const Tensor& y) { return x < y; }},
      {"ge", [](const Tensor& x, const Tensor& y) { return x >= y; }},
      {"logical_xor", [](const Tensor& x, const Tensor& y) { return x.gt(0).logical_xor(y.gt(2)); }},
      {"where", [](const Tensor& x, const Tensor& y) { return where(x > 0, x, y); }},
      {"scalar_rhs", [](const Tensor& x, const Tensor&) { return x * 2.5 + 1; }},
      {"scalar_lhs", [](const Tensor& x, const Tensor&) { return 1.0 - x; }},
      {"promote", [](const Tensor& x, const Tensor& y) { return x.to(kInt) + y.to(kDouble); }},
      {"add_", [](const Tensor& x, const Tensor& y) { Tensor c = x.expand({4, 3, 5}).clone(); c.add_(y); return c; }},
  };
  for (const auto& [name, f] : ops) {
    check(name, {a, b}, [&](const std::vector<Tensor>& in) { return f(in[0], in[1]); });
  }
  const Tensor ia = randint(-20, 20, {6, 4}), ib = randint(1, 7, {6, 4});
  check("int_div_floor", {ia, ib}, [](const std::vector<Tensor>& in) { return in[0].div(in[1], "floor"); });
  check("int_remainder", {ia, ib}, [](const std::vector<Tensor>& in) { return in[0].remainder(in[1]); });
  check("int_true_div", {ia, ib}, [](const std::vector<Tensor>& in) { return in[0] / in[1]; });
}

TEST_P(Consistency, Reductions) {
  manual_seed(3);
  const Tensor x = randn({3, 4, 5});
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> ops = {
      {"sum", [](const Tensor& t) { return t.sum(); }},
      {"sum_dim", [](const Tensor& t) { return t.sum({0, 2}, true); }},
      {"mean_dim", [](const Tensor& t) { return t.mean({1}); }},
      {"prod", [](const Tensor& t) { return t.prod(1); }},
      {"max", [](const Tensor& t) { return t.max(); }},
      {"max_dim", [](const Tensor& t) { return std::get<0>(t.max(2)); }},
      {"max_idx", [](const Tensor& t) { return std::get<1>(t.max(2)); }},
      {"argmin", [](const Tensor& t) { return t.argmin(1); }},
      {"argmax_all", [](const Tensor& t) { return t.argmax(); }},
      {"all", [](const Tensor& t) { return t.gt(-10).all(); }},
      {"any_dim", [](const Tensor& t) { return t.gt(1).any(0); }},
      {"norm", [](const Tensor& t) { return t.norm(); }},
      {"var", [](const Tensor& t) { return t.var(IntArrayRef({1})); }},
      {"std", [](const Tensor& t) { return t.std(); }},
      {"softmax", [](const Tensor& t) { return t.softmax(2); }},
      {"log_softmax", [](const Tensor& t) { return t.log_softmax(0); }},
      {"transposed_sum", [](const Tensor& t) { return t.transpose(0, 2).sum({1}); }},
  };
  for (const auto& [name, f] : ops) check(name, {x}, [&](const std::vector<Tensor>& in) { return f(in[0]); });
  check("int_sum", {randint(0, 9, {4, 5})}, [](const std::vector<Tensor>& in) { return in[0].sum({1}); });
}

TEST_P(Consistency, LinearAlgebra) {
  manual_seed(4);
  check("mm", {randn({5, 3}), randn({3, 4})}, [](const std::vector<Tensor>& in) { return in[0].mm(in[1]); });
  check("mm_transposed", {randn({3, 5}), randn({4, 3})},
        [](const std::vector<Tensor>& in) { return in[0].t().mm(in[1].t()); });
  check("bmm", {randn({2, 5, 3}), randn({2, 3, 4})}, [](const std::vector<Tensor>& in) { return in[0].bmm(in[1]); });
  check("matmul_broadcast", {randn({2, 1, 5, 3}), randn({4, 3, 2})},
        [](const std::vector<Tensor>& in) { return in[0].matmul(in[1]); });
  check("matmul_vec", {randn({5, 3}), randn({3})}, [](const std::vector<Tensor>& in) { return in[0].matmul(in[1]); });
  check("addmm", {randn({4}), randn({5, 3}), randn({3, 4})},
        [](const std::vector<Tensor>& in) { return in[0].addmm(in[1], in[2], 0.5, 2); });
  check("linear", {randn({2, 5, 3}), randn({4, 3}), randn({4})},
        [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); });
  check("mm_double", {randn({5, 3}).to(kDouble), randn({3, 4}).to(kDouble)},
        [](const std::vector<Tensor>& in) { return in[0].mm(in[1]); });
  check("mm_int", {randint(-3, 3, {5, 3}), randint(-3, 3, {3, 4})},
        [](const std::vector<Tensor>& in) { return in[0].mm(in[1]); });
}

TEST_P(Consistency, ShapesCopiesAndConversions) {
  manual_seed(5);
  const Tensor x = randn({4, 6});
  check("permute_contiguous", {x}, [](const std::vector<Tensor>& in) { return in[0].reshape({2, 3, 4}).permute({2, 0, 1}).contiguous(); });
  check("slice_step", {x}, [](const std::vector<Tensor>& in) { return in[0].slice(1, 1, 6, 2) * 2; });
  check("expand_add", {x.select(1, 0)}, [](const std::vector<Tensor>& in) { return in[0].unsqueeze(1).expand({4, 3}) + 1; });
  check("cat", {x, randn({2, 6})}, [](const std::vector<Tensor>& in) { return cat({in[0], in[1]}, 0); });
  check("stack", {x, x.neg()}, [](const std::vector<Tensor>& in) { return stack({in[0], in[1]}, 1); });
  check("index_put", {x}, [](const std::vector<Tensor>& in) {
    Tensor c = in[0].clone();
    c.index_put_({Slice(1, 3), 2}, 7.0);
    return c;
  });
  for (ScalarType to : {kDouble, kHalf, kBFloat16, kInt, kLong, kUInt8, kBool}) {
    check(std::string("to_") + scalar_type_name(to), {x.mul(3)}, [to](const std::vector<Tensor>& in) { return in[0].to(to); });
  }
  check("fill_zero", {x}, [](const std::vector<Tensor>& in) {
    Tensor c = in[0].clone();
    c.slice(0, 0, 2).fill_(3.0);
    c.slice(0, 3).zero_();
    return c;
  });
}

// ---- the GPU path: every op over dtypes and layouts -------------------------------------------------
// On emulated devices these run the CUDA grid walk (Note [Emulated grid walk]); the shapes leave
// partial blocks (257, 1001), cover 0-size and 1-element tensors, non-contiguous and broadcast
// operands, and one tensor spans several grid-stride rounds (two waves of 108 SMs x 2048 threads).

namespace {

const ScalarType kAllDtypes[] = {kUInt8, kChar, kShort, kInt, kLong, kHalf, kFloat, kDouble, kBool, kBFloat16};

// Named cpu inputs of `dtype` with the layouts above.
std::vector<std::pair<std::string, Tensor>> layouts(ScalarType dtype) {
  const auto make = [&](IntArrayRef size) { return randn(size).mul(4).to(dtype); };
  return {
      {"empty", make({0, 3})},
      {"one", make({1})},
      {"partial_block", make({257})},
      {"rows", make({3, 1001})},
      {"transposed", make({33, 17}).t()},
      {"strided", make({6, 40}).slice(1, 1, 40, 3)},
      {"broadcast", make({5, 1}).expand({5, 7})},
  };
}

}  // namespace

TEST_P(Consistency, GpuPathUnaryOpsOverDtypesAndLayouts) {
  manual_seed(6);
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> ops = {
      {"neg", [](const Tensor& t) { return t.neg(); }},     {"abs", [](const Tensor& t) { return t.abs(); }},
      {"exp", [](const Tensor& t) { return t.exp(); }},     {"sin", [](const Tensor& t) { return t.sin(); }},
      {"sigmoid", [](const Tensor& t) { return t.sigmoid(); }}, {"relu", [](const Tensor& t) { return t.relu(); }},
      {"erf", [](const Tensor& t) { return t.erf(); }},
      {"floor", [](const Tensor& t) { return t.floor(); }}, {"sign", [](const Tensor& t) { return t.sign(); }},
      {"logical_not", [](const Tensor& t) { return t.logical_not(); }},
      {"clamp", [](const Tensor& t) { return t.clamp(-2, 3); }},
      {"to_float", [](const Tensor& t) { return t.to(kFloat); }},  {"to_uint8", [](const Tensor& t) { return t.to(kByte); }},
      {"to_half", [](const Tensor& t) { return t.to(kHalf); }},    {"contiguous", [](const Tensor& t) { return t.contiguous(); }},
      {"fill", [](const Tensor& t) { Tensor c = t.clone(); c.fill_(2); return c; }},
  };
  for (ScalarType dtype : kAllDtypes) {
    for (const auto& [layout, x] : layouts(dtype)) {
      for (const auto& [name, f] : ops) {
        check_or_same_error(std::string(name) + "/" + scalar_type_name(dtype) + "/" + layout, {x},
                            [&](const std::vector<Tensor>& in) { return f(in[0]); });
      }
    }
  }
}

TEST_P(Consistency, GpuPathBinaryOpsOverDtypesAndLayouts) {
  manual_seed(7);
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&, const Tensor&)>>> ops = {
      {"add", [](const Tensor& x, const Tensor& y) { return x.add(y); }},
      {"add_alpha", [](const Tensor& x, const Tensor& y) { return x.add(y, 3); }},
      {"sub", [](const Tensor& x, const Tensor& y) { return x.sub(y); }},
      {"mul", [](const Tensor& x, const Tensor& y) { return x * y; }},
      {"div", [](const Tensor& x, const Tensor& y) { return x / y; }},
      {"div_floor", [](const Tensor& x, const Tensor& y) { return x.div(y.abs().add(1), "floor"); }},
      {"remainder", [](const Tensor& x, const Tensor& y) { return x.remainder(y.abs().add(1)); }},
      {"maximum", [](const Tensor& x, const Tensor& y) { return x.maximum(y); }},
      {"lt", [](const Tensor& x, const Tensor& y) { return x < y; }},
      {"logical_and", [](const Tensor& x, const Tensor& y) { return x.logical_and(y); }},
      {"where", [](const Tensor& x, const Tensor& y) { return where(x.gt(0), x, y); }},
      {"scalar_rhs", [](const Tensor& x, const Tensor&) { return x.mul(2); }},
      {"scalar_lhs", [](const Tensor& x, const Tensor&) { return 1.0 - x; }},
      {"pow_scalar", [](const Tensor& x, const Tensor&) { return x.pow(2); }},
  };
  for (ScalarType dtype : kAllDtypes) {
    for (const auto& [layout, x] : layouts(dtype)) {
      const Tensor y = randn(x.sizes()).mul(4).to(dtype);
      for (const auto& [name, f] : ops) {
        check_or_same_error(std::string(name) + "/" + scalar_type_name(dtype) + "/" + layout, {x, y},
                            [&](const std::vector<Tensor>& in) { return f(in[0], in[1]); });
      }
    }
  }
}

TEST_P(Consistency, GpuPathReductionsOverDtypesAndBothPlans) {
  manual_seed(8);
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> ops = {
      {"sum", [](const Tensor& t) { return t.sum(); }},
      {"sum_rows", [](const Tensor& t) { return t.sum(IntArrayRef{-1}); }},
      {"sum_across_rows", [](const Tensor& t) { return t.sum(IntArrayRef{0}); }},
      // Factors in [-1, 1]: an integer product of thousands of factors would overflow (UB, known_bugs.h).
      {"prod_rows", [](const Tensor& t) { return t.clamp(-1, 1).prod(-1); }},
      {"amax_across_rows", [](const Tensor& t) { return std::get<0>(t.max(0)); }},
      {"argmax_rows", [](const Tensor& t) { return t.argmax(-1); }},
      {"argmin_across_rows", [](const Tensor& t) { return t.argmin(0); }},
      {"mean", [](const Tensor& t) { return t.mean(IntArrayRef{0}); }},
      {"any", [](const Tensor& t) { return t.any(0); }},
      {"all_rows", [](const Tensor& t) { return t.all(-1); }},
      {"var", [](const Tensor& t) { return t.var(IntArrayRef{-1}); }},
      {"norm", [](const Tensor& t) { return t.norm(); }},
      {"softmax_rows", [](const Tensor& t) { return t.softmax(-1); }},
      {"log_softmax_across", [](const Tensor& t) { return t.log_softmax(0); }},
  };
  // "wide" has 5000 columns: a reduction over dim 0 has enough outputs for the thread-per-output plan.
  const std::vector<std::pair<const char*, std::vector<int64_t>>> shapes = {
      {"empty", {0, 4}}, {"one", {1, 1}}, {"partial_block", {3, 300}}, {"wide", {3, 5000}}, {"long_rows", {2, 4099}}};
  for (ScalarType dtype : kAllDtypes) {
    for (const auto& [shape_name, shape] : shapes) {
      const Tensor x = randn(shape).mul(2).to(dtype);
      for (const auto& [name, f] : ops) {
        check_or_same_error(std::string(name) + "/" + scalar_type_name(dtype) + "/" + shape_name, {x},
                            [&](const std::vector<Tensor>& in) { return f(in[0]); });
      }
    }
  }
}

TEST_P(Consistency, GpuPathSpansSeveralGridStrideRounds) {
  manual_seed(9);
  const Tensor x = randn({2 * 108 * 2048 + 5});
  check("add_rounds", {x, x.mul(-0.5)}, [](const std::vector<Tensor>& in) { return in[0] + in[1]; });
  check("strided_rounds", {x}, [](const std::vector<Tensor>& in) { return in[0].slice(0, 0, in[0].numel(), 2).exp(); });
  check("int_sum_rounds", {x.mul(100).to(kInt)}, [](const std::vector<Tensor>& in) { return in[0].sum(); });
  check("mm_int_loop", {randint(-3, 3, {70, 90}), randint(-3, 3, {90, 80})},
        [](const std::vector<Tensor>& in) { return in[0].mm(in[1]); });
}

// Note [Reduction grid]: a block-per-output float sum folds position r into thread r % block and
// combines the threads by the block tree; the device result is exactly that, the cpu's (a fixed
// pairwise tree) is not: here thread 0 loses x[256] = 1 next to 1e8, so the GPU gets 510, not 511.
TEST_P(Consistency, FloatSumRoundsAsTheGpuGridDoes) {
  std::vector<float> v(513, 1.0f);
  v.front() = 1e8f;
  v.back() = -1e8f;
  const Tensor x = tensor(v);
  const uint32_t block = 256;  // kernels::reduce_block_size(513)
  std::vector<float> partial(block, 0.0f);
  for (size_t r = 0; r < v.size(); ++r) partial[r % block] += v[r];
  for (uint32_t s = block / 2; s > 0; s /= 2) {
    for (uint32_t t = 0; t < s; ++t) partial[t] += partial[t + s];
  }
  const float on_device = x.to(device()).sum().item<float>();
  EXPECT_EQ(on_device, partial[0]);
  EXPECT_EQ(on_device, 510.0f);
  EXPECT_NE(x.sum().item<float>(), on_device) << "the cpu's summation order differs from the GPU's";
}

// Note [cpu and gpu arithmetic]: float16 x + alpha * y rounds the product to half first on the cpu,
// once (fma in float) on the GPU.
TEST_P(Consistency, HalfScaledAddRoundsAsTheDeviceDoes) {
  const Tensor x = tensor({-0.000244140625}).to(kHalf);  // -2^-12
  const Tensor y = tensor({1.0009765625}).to(kHalf);     // 1 + 2^-10
  EXPECT_EQ(x.add(y, 3).item<double>(), 3.00390625);
  EXPECT_EQ(x.to(device()).add(y.to(device()), 3).item<double>(), 3.001953125);
}

namespace {

// The gradients of sum(op(inputs) * weights) with respect to every input, concatenated flat.
Tensor grads_of(const std::vector<Tensor>& inputs, const std::function<Tensor(const std::vector<Tensor>&)>& op) {
  std::vector<Tensor> leaves;
  for (const Tensor& t : inputs) leaves.push_back(t.detach().requires_grad_());
  const Tensor out = op(leaves);
  const Tensor weights = arange(0, out.numel(), TensorOptions().dtype(out.dtype())).to(out.device()).view(out.sizes());
  const autograd::variable_list g =
      autograd::grad({(out * weights.sin()).sum()}, leaves, {}, std::nullopt, false, /*allow_unused=*/true);
  std::vector<Tensor> flat;
  for (const Tensor& t : g) {
    if (t.defined()) flat.push_back(t.reshape({-1}));
  }
  return cat(flat);
}

}  // namespace

// The training kernels (issue 26: convolution, pooling, batch norm, dropout), forward and backward,
// on the device against the cpu (oneDNN or the cpu kernels there; im2col + GEMM and the grid walk on an
// emulated device, cuDNN on a real one).
TEST_P(Consistency, TrainingKernelsForwardAndBackward) {
  struct CudnnTf32Off {  // cuDNN's default TF32 (a real GPU's convolutions) would miss 1e-5
    bool was = backends::cudnn::allow_tf32();
    CudnnTf32Off() { backends::cudnn::set_allow_tf32(false); }
    ~CudnnTf32Off() { backends::cudnn::set_allow_tf32(was); }
  } const tf32_off;
  manual_seed(0);
  const Tensor x = randn({2, 3, 9, 8});
  const Tensor w = randn({4, 3, 3, 3}), b = randn({4});
  const Tensor wt = randn({3, 2, 3, 3});
  using Ops = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::vector<std::pair<std::string, Ops>> cases = {
      {"conv2d", [](const std::vector<Tensor>& t) { return conv2d(t[0], t[1], t[2], {2, 1}, {1, 0}); }},
      {"conv2d_groups_dilation", [](const std::vector<Tensor>& t) {
         return conv2d(t[0], t[1].narrow(1, 0, 1).narrow(0, 0, 3), Tensor(), {1}, {2}, {2}, 3);
       }},
      {"conv_transpose2d", [&](const std::vector<Tensor>& t) {
         return conv_transpose2d(t[0], t[3], Tensor(), {2}, {1}, {1});
       }},
      {"max_pool2d", [](const std::vector<Tensor>& t) { return max_pool2d(t[0], {3, 2}, {2, 1}, {1, 0}, {1}, true); }},
      {"avg_pool2d", [](const std::vector<Tensor>& t) { return avg_pool2d(t[0], {3}, {2}, {1}, true, false); }},
      {"adaptive_avg_pool2d", [](const std::vector<Tensor>& t) { return adaptive_avg_pool2d(t[0], {4, 3}); }},
      {"batch_norm_train", [](const std::vector<Tensor>& t) {
         return batch_norm(t[0], t[2].narrow(0, 0, 3), t[2].narrow(0, 1, 3), Tensor(), Tensor(), true, 0.1, 1e-5);
       }},
      {"batch_norm_float64", [](const std::vector<Tensor>& t) {
         return batch_norm(t[0].to(kDouble), t[2].narrow(0, 0, 3).to(kDouble), Tensor(), Tensor(), Tensor(), true, 0.1,
                           1e-5);
       }},
      {"layer_norm", [](const std::vector<Tensor>& t) {
         return layer_norm(t[0], {9, 8}, t[1].reshape({-1}).narrow(0, 0, 72).view({9, 8}),
                           t[1].reshape({-1}).narrow(0, 20, 72).view({9, 8}), 1e-5);
       }},
      {"layer_norm_float64_no_affine", [](const std::vector<Tensor>& t) { return layer_norm(t[0].to(kDouble), {8}); }},
  };
  const std::vector<Tensor> inputs = {x, w, b, wt};
  for (const auto& [name, op] : cases) {
    check(name, inputs, op);
    check(name + " backward", inputs, [&op](const std::vector<Tensor>& t) {
      return grads_of({t[0], t[1], t[2], t[3]}, [&op](const std::vector<Tensor>& l) { return op(l); });
    });
  }
  // max_pool2d's indices, and batch norm's running statistics in training and their use in eval
  check("max_pool2d indices", {x}, [](const std::vector<Tensor>& t) {
    return std::get<1>(max_pool2d_with_indices(t[0], {2}, {2}, {1}, {1}, true));
  });
  check("batch_norm running stats", {x}, [](const std::vector<Tensor>& t) {
    const Tensor mean = zeros({3}, TensorOptions().device(t[0].device()));
    const Tensor var = ones({3}, TensorOptions().device(t[0].device()));
    (void)batch_norm(t[0], Tensor(), Tensor(), mean, var, true, 0.3, 1e-5);
    return cat({mean, var, batch_norm(t[0], Tensor(), Tensor(), mean, var, false, 0.3, 1e-5).reshape({-1})});
  });
  // dropout draws per device (cpu and CUDA generators differ, as PyTorch's): given the device's mask,
  // the output and the gradient are the cpu's
  const auto [out, mask] = native_dropout(x.to(device()), 0.3, true);
  compare(x * mask.cpu() * (1.0f / 0.7f), out.cpu(), "native_dropout output");
  const Tensor g = randn({2, 3, 9, 8});
  compare(native_dropout_backward(g, mask.cpu(), 1 / 0.7), native_dropout_backward(g.to(device()), mask, 1 / 0.7).cpu(),
          "native_dropout_backward");
}

// Pooling and normalization are one device kernel each, forward and backward (Note [Thread
// functors]): the tracer sees one kernel task per call, named as PyTorch's op.
TEST_P(Consistency, PoolingAndNormalizationAreOneKernelEach) {
  manual_seed(0);
  const TensorOptions on = TensorOptions().device(device());
  const Tensor x = randn({2, 3, 9, 8}, on).requires_grad_();
  const Tensor w = randn({3}, on).requires_grad_(), b = randn({3}, on).requires_grad_();
  const Tensor lw = randn({8}, on).requires_grad_(), lb = randn({8}, on).requires_grad_();
  // The kernels run by `fn`, in order.
  auto kernels_of = [&](const std::function<void()>& fn) {
    cuda::synchronize(device().index());
    cuda::trace::start();
    fn();
    cuda::synchronize(device().index());
    cuda::trace::stop();
    std::vector<std::string> names;
    namespace json = ctorch::testing::json;
    const json::Value root = json::parse(cuda::trace::json());
    for (const json::Value& e : root["traceEvents"].array()) {
      if (e["ph"].string() == "X" && e.has("cat") && e["cat"].string() == "kernel") names.push_back(e["name"].string());
    }
    return names;
  };
  using Names = std::vector<std::string>;
  struct Case {
    std::string name;
    std::function<Tensor()> forward;
    Names forward_kernels, backward_kernels;
  };
  const std::vector<Case> cases = {
      {"max_pool2d", [&] { return max_pool2d(x, {3, 2}, {2, 1}, {1, 0}, {1}, true); }, {"max_pool2d_with_indices"},
       {"max_pool2d_with_indices_backward"}},
      {"avg_pool2d", [&] { return avg_pool2d(x, {3}, {2}, {1}, true, false); }, {"avg_pool2d"}, {"avg_pool2d_backward"}},
      {"adaptive_avg_pool2d", [&] { return adaptive_avg_pool2d(x, {4, 3}); }, {"adaptive_avg_pool2d"},
       {"adaptive_avg_pool2d_backward"}},
      {"batch_norm", [&] { return batch_norm(x, w, b, Tensor(), Tensor(), true, 0.1, 1e-5); }, {"native_batch_norm"},
       {"native_batch_norm_backward"}},
      {"layer_norm", [&] { return layer_norm(x, {8}, lw, lb, 1e-5); }, {"native_layer_norm"},
       {"native_layer_norm_backward", "native_layer_norm_backward"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor y;
    EXPECT_EQ(kernels_of([&] { y = c.forward(); }), c.forward_kernels);
    const Tensor gy = ones_like(y);
    std::vector<Tensor> inputs = {x};
    if (c.name == "batch_norm") inputs = {x, w, b};
    if (c.name == "layer_norm") inputs = {x, lw, lb};
    EXPECT_EQ(kernels_of([&] { (void)autograd::grad({y}, inputs, {gy}); }), c.backward_kernels);
  }
}
