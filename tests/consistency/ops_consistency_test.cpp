// Every op on each cuda backend (emulated, and real when present) against the cpu result
// (ggml's test-backend-ops): same inputs, results compared exactly for integer and bool
// outputs and with a per-dtype tolerance for floating outputs.
#include <functional>
#include <string>
#include <vector>

#include "device/device_test.h"

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
