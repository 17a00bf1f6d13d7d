// Fuzzed reductions (with dim lists, keepdim, dtype), softmax, whole-tensor comparisons, and the
// matrix products (matmul in all its ranks, mm, bmm, addmm, linear).
#include "fuzz/fuzz_core.h"
#include "fuzz/known_bugs.h"

namespace ctorch::fuzz {
namespace {

// Values for reductions: mostly small integers (exact, so any summation order gives the same).
Values reduction_values(Rng& rng, Case& c) {
  const int64_t k = rand_int(rng, 0, 9);
  if (k < 5) return Values::SmallInts;
  c.tol_scale = 100;
  return k < 8 ? Values::Finite : Values::Any;
}

// A dim list: a random subset (either sign), sometimes empty, a duplicate or out of range.
std::vector<int64_t> random_dims(Rng& rng, int64_t ndim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < ndim; ++d) {
    if (chance(rng, 0.4)) dims.push_back(chance(rng, 0.3) ? d - ndim : d);
  }
  if (dims.empty() && ndim > 0 && chance(rng, 0.7)) dims.push_back(random_dim(rng, ndim, 0));
  if (chance(rng, 0.04) && !dims.empty()) dims.push_back(dims.front());
  if (chance(rng, 0.04)) dims.push_back(random_dim(rng, ndim, 1.0));
  std::shuffle(dims.begin(), dims.end(), rng);
  return dims;
}

std::string list_str(const std::vector<int64_t>& v) { return shape_str(v); }

std::optional<ScalarType> random_opt_dtype(Rng& rng, double p = 0.2) {
  if (!chance(rng, p)) return std::nullopt;
  return random_dtype(rng);
}

std::string dtype_arg(const std::optional<ScalarType>& t) {
  return t ? std::string(", dtype=") + scalar_type_name(*t) : std::string();
}

void gen_reduction(Rng& rng, Case& c) {
  const int64_t which = rand_int(rng, 0, 22);
  // prod: few small integers, so that no partial product overflows (overflow to inf before or after
  // a zero makes NaN or 0 depending on the order of the multiplications).
  const bool prod = which == 4 || which == 5;
  const Shape s = random_shape(rng, 4, prod ? 6 : 1500);
  const ScalarType dt = random_dtype(rng);
  const int64_t nd = static_cast<int64_t>(s.size());
  const std::vector<int64_t> dims = random_dims(rng, nd);
  const int64_t dim = random_dim(rng, nd);
  const bool keep = chance(rng, 0.4);
  const std::optional<ScalarType> odt = random_opt_dtype(rng);
  const Values style = prod ? Values::SmallInts : reduction_values(rng, c);
  c.operand(s, dt, true, style);
  const std::string ks = keep ? ", keepdim=True" : "";
  const Scalar p = pick(rng, std::vector<Scalar>{Scalar(2), Scalar(1), Scalar(0), Scalar(3.5), Scalar(INFINITY),
                                                  Scalar(-INFINITY), Scalar(-1)});
  const int64_t correction = rand_int(rng, 0, 2);
  static const char* names[] = {"sum()", "sum(dims)", "mean()", "mean(dims)", "prod()", "prod(dim)", "max()",
                                "min()", "max(dim)", "min(dim)", "argmax()", "argmax(dim)", "argmin(dim)", "all()",
                                "all(dim)", "any()", "any(dim)", "norm(p)", "norm(p, dims)", "var(dims)",
                                "std()", "softmax(dim)", "log_softmax(dim)"};
  c.call = std::string("#0.") + names[which] + " dims=" + list_str(dims) + " dim=" + std::to_string(dim) + ks +
           dtype_arg(odt) + " p=" + scalar_str(p) + " correction=" + std::to_string(correction);
  c.fn = [=](Results& r, std::vector<Tensor>& t, Device) {
    const Tensor& x = t[0];
    switch (which) {
      case 0: r.add(x.sum(odt)); break;
      case 1: r.add(x.sum(dims, keep, odt)); break;
      case 2: r.add(x.mean(odt)); break;
      case 3: r.add(x.mean(dims, keep, odt)); break;
      case 4: r.add(x.prod(odt)); break;
      case 5: r.add(x.prod(dim, keep, odt)); break;
      case 6: r.add(x.max()); break;
      case 7: r.add(x.min()); break;
      case 8: {
        auto [v, i] = x.max(dim, keep);
        r.add(v);
        r.add(i);
        break;
      }
      case 9: {
        auto [v, i] = x.min(dim, keep);
        r.add(v);
        r.add(i);
        break;
      }
      case 10: r.add(x.argmax()); break;
      case 11: r.add(x.argmax(dim, keep)); break;
      case 12: r.add(x.argmin(dim, keep)); break;
      case 13: r.add(x.all()); break;
      case 14: r.add(x.all(dim, keep)); break;
      case 15: r.add(x.any()); break;
      case 16: r.add(x.any(dim, keep)); break;
      case 17: r.add(x.norm(p)); break;
      case 18: r.add(x.norm(p, dims, keep)); break;
      case 19: r.add(x.var(IntArrayRef(dims), correction, keep)); break;
      case 20: r.add(x.std(std::nullopt, correction, keep)); break;
      case 21: r.add(x.softmax(dim, odt)); break;
      default: r.add(x.log_softmax(dim, odt)); break;
    }
  };
}

void gen_compare(Rng& rng, Case& c) {
  const Shape s = random_shape(rng, 3);
  const ScalarType ta = random_dtype(rng);
  const ScalarType tb = chance(rng, 0.7) ? ta : random_dtype(rng);
  c.operand(s, ta);
  const int b = c.operand(chance(rng, 0.7) ? s : broadcast_partner(rng, s), tb);
  (void)b;
  const int64_t which = rand_int(rng, 0, 2);
  const double rtol = chance(rng, 0.1) ? -1.0 : 1e-5, atol = chance(rng, 0.1) ? 0.0 : 1e-8;
  const bool nan = chance(rng, 0.5);
  static const char* names[] = {"#0.equal(#1)", "#0.allclose(#1, rtol, atol, equal_nan)", "isclose(#0, #1, rtol, atol, equal_nan)"};
  c.call = std::string(names[which]) + " rtol=" + std::to_string(rtol) + " equal_nan=" + (nan ? "True" : "False");
  c.mixed = which == 0 ? MixedRule::Strict : MixedRule::CpuScalar;  // equal checks devices; isclose is TensorIterator ops
  c.fn = [=](Results& r, std::vector<Tensor>& t, Device) {
    switch (which) {
      case 0: r.host(t[0].equal(t[1])); break;
      case 1: r.host(t[0].allclose(t[1], rtol, atol, nan)); break;
      default: r.add(isclose(t[0], t[1], rtol, atol, nan)); break;
    }
  };
}

ScalarType matmul_dtype(Rng& rng) {
  const int64_t k = rand_int(rng, 0, 9);
  if (k < 5) return kFloat;
  if (k < 7) return kDouble;
  return random_dtype(rng);
}

int64_t mat_size(Rng& rng) { return chance(rng, 0.08) ? 0 : rand_int(rng, 1, 6); }

void gen_matmul(Rng& rng, Case& c) {
  const int64_t which = rand_int(rng, 0, 4);
  const ScalarType ta = matmul_dtype(rng);
  const ScalarType tb = chance(rng, 0.85) ? ta : matmul_dtype(rng);
  const Values v = chance(rng, 0.5) ? Values::SmallInts : Values::Finite;
  c.tol_scale = 20;
  const int64_t m = mat_size(rng), n = mat_size(rng);
  int64_t k = mat_size(rng);
  const int64_t k2 = chance(rng, 0.08) ? k + 1 : k;  // mismatched inner dims
  auto batch = [&](int64_t nb) {
    Shape b;
    for (int64_t i = 0; i < nb; ++i) b.push_back(chance(rng, 0.3) ? 1 : rand_int(rng, 1, 3));
    return b;
  };
  switch (which) {
    case 0: {  // matmul of any ranks (1..4)
      const int64_t ra = chance(rng, 0.03) ? 0 : rand_int(rng, 1, 4), rb = chance(rng, 0.03) ? 0 : rand_int(rng, 1, 4);
      Shape sa = ra >= 2 ? batch(ra - 2) : Shape{}, sb = rb >= 2 ? batch(rb - 2) : Shape{};
      if (chance(rng, 0.5) && sa.size() >= sb.size()) {  // same batch, or broadcastable
        for (size_t i = 0; i < sb.size(); ++i) sb[i] = chance(rng, 0.5) ? sa[sa.size() - sb.size() + i] : 1;
      }
      if (ra >= 2) sa.push_back(m);
      if (ra >= 1) sa.push_back(k);
      if (rb >= 2) sb.push_back(k2);
      if (rb >= 1) sb.push_back(rb >= 2 ? n : k2);
      c.operand(sa, ta, true, v);
      c.operand(sb, tb, true, v);
      c.call = "#0.matmul(#1)";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) { r.add(t[0].matmul(t[1])); };
      break;
    }
    case 1: {
      c.operand(chance(rng, 0.95) ? Shape{m, k} : Shape{m, k, 1}, ta, true, v);
      c.operand({k2, n}, tb, true, v);
      c.call = "#0.mm(#1)";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) { r.add(t[0].mm(t[1])); };
      break;
    }
    case 2: {
      const int64_t b = rand_int(rng, 0, 3);
      c.operand({b, m, k}, ta, true, v);
      c.operand({chance(rng, 0.9) ? b : b + 1, k2, n}, tb, true, v);
      c.call = "#0.bmm(#1)";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) { r.add(t[0].bmm(t[1])); };
      break;
    }
    case 3: {
      const Shape self = pick(rng, std::vector<Shape>{{m, n}, {n}, {1, n}, {m, 1}, {}, {n + 1}});
      c.operand(self, chance(rng, 0.9) ? ta : matmul_dtype(rng), true, v);
      c.operand({m, k}, ta, true, v);
      c.operand({k2, n}, tb, true, v);
      const Scalar beta = chance(rng, 0.7) ? Scalar(1) : pick(rng, std::vector<Scalar>{Scalar(0), Scalar(0.5), Scalar(2)});
      const Scalar alpha = chance(rng, 0.7) ? Scalar(1) : pick(rng, std::vector<Scalar>{Scalar(0), Scalar(-1), Scalar(1.5)});
      c.call = "#0.addmm(#1, #2, beta=" + scalar_str(beta) + ", alpha=" + scalar_str(alpha) + ")";
      c.fn = [beta, alpha](Results& r, std::vector<Tensor>& t, Device) { r.add(t[0].addmm(t[1], t[2], beta, alpha)); };
      break;
    }
    default: {
      Shape in = batch(rand_int(rng, 0, 2));
      in.push_back(k);
      c.operand(in, ta, true, v);
      c.operand({n, k2}, tb, true, v);
      const bool bias = chance(rng, 0.6);
      if (bias) c.operand(chance(rng, 0.9) ? Shape{n} : Shape{n + 1}, ta, true, v);
      c.call = bias ? "linear(#0, #1, #2)" : "linear(#0, #1)";
      c.fn = [bias](Results& r, std::vector<Tensor>& t, Device) {
        r.add(bias ? linear(t[0], t[1], t[2]) : linear(t[0], t[1]));
      };
      break;
    }
  }
}

}  // namespace

void add_reduction_ops(std::vector<OpEntry>& ops) {
  ops.push_back({"reduction", 20, gen_reduction});
  ops.push_back({"compare", 3, gen_compare});
  ops.push_back({"matmul", 10, gen_matmul});
}

}  // namespace ctorch::fuzz
