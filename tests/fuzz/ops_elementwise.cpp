// Fuzzed elementwise ops: unary (and in place), clamp, binary with broadcasting (tensor, Scalar on
// either side, in place, out=, aliasing operands), where.
#include "fuzz/fuzz_core.h"
#include "fuzz/known_bugs.h"

namespace ctorch::fuzz {
namespace {

// Fails the case when an in-place op does not return its self.
void check_self(const Tensor& returned, const Tensor& self) {
  if (!returned.is_same(self)) throw Finding("in-place op did not return self");
}

struct Unary {
  const char* name;
  Tensor (Tensor::*f)() const;
  Tensor& (Tensor::*f_)();
};

const std::vector<Unary>& unaries() {
  static const std::vector<Unary> u = {
      {"neg", &Tensor::neg, &Tensor::neg_},       {"abs", &Tensor::abs, &Tensor::abs_},
      {"exp", &Tensor::exp, &Tensor::exp_},       {"log", &Tensor::log, &Tensor::log_},
      {"sqrt", &Tensor::sqrt, &Tensor::sqrt_},    {"rsqrt", &Tensor::rsqrt, &Tensor::rsqrt_},
      {"sin", &Tensor::sin, &Tensor::sin_},       {"cos", &Tensor::cos, &Tensor::cos_},
      {"tanh", &Tensor::tanh, &Tensor::tanh_},    {"sigmoid", &Tensor::sigmoid, &Tensor::sigmoid_},
      {"relu", &Tensor::relu, &Tensor::relu_},    {"floor", &Tensor::floor, &Tensor::floor_},
      {"ceil", &Tensor::ceil, &Tensor::ceil_},    {"round", &Tensor::round, &Tensor::round_},
      {"sign", &Tensor::sign, &Tensor::sign_},    {"logical_not", &Tensor::logical_not, nullptr},
  };
  return u;
}

void gen_unary(Rng& rng, Case& c) {
  const Unary& u = pick(rng, unaries());
  const int a = c.operand(random_shape(rng), random_dtype(rng));
  const bool inplace = u.f_ && chance(rng, 0.3);
  if (inplace) {
    c.output(a);
    c.call = "#0." + std::string(u.name) + "_()";
    c.fn = [u](Results& r, std::vector<Tensor>& t, Device) {
      check_self((t[0].*u.f_)(), t[0]);
      r.add(t[0]);
    };
  } else {
    c.call = "#0." + std::string(u.name) + "()";
    c.fn = [u](Results& r, std::vector<Tensor>& t, Device) { r.add((t[0].*u.f)()); };
  }
}

void gen_clamp(Rng& rng, Case& c) {
  const int a = c.operand(random_shape(rng), random_dtype(rng));
  std::optional<Scalar> lo, hi;
  const int64_t k = rand_int(rng, 0, 9);
  if (k != 0) lo = random_scalar(rng, chance(rng, 0.2));
  if (k != 1) hi = random_scalar(rng, chance(rng, 0.2));
  const bool inplace = chance(rng, 0.3);
  auto s = [](const std::optional<Scalar>& v) { return v ? scalar_str(*v) : std::string("None"); };
  c.call = "#0.clamp" + std::string(inplace ? "_" : "") + "(" + s(lo) + ", " + s(hi) + ")";
  if (inplace) c.output(a);
  c.fn = [lo, hi, inplace](Results& r, std::vector<Tensor>& t, Device) {
    if (inplace) {
      check_self(t[0].clamp_(lo, hi), t[0]);
      r.add(t[0]);
    } else {
      r.add(t[0].clamp(lo, hi));
    }
  };
}

enum class Bin { Add, Sub, Mul, Div, DivTrunc, DivFloor, DivBad, Rem, Pow, Max, Min, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor };
const char* bin_names[] = {"add", "sub", "mul", "div", "div(trunc)", "div(floor)", "div(bad mode)", "remainder",
                           "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
                           "logical_or", "logical_xor"};

std::optional<std::string> div_mode(Bin op) {
  if (op == Bin::DivTrunc) return "trunc";
  if (op == Bin::DivFloor) return "floor";
  if (op == Bin::DivBad) return "round";
  return std::nullopt;
}

Tensor apply(Bin op, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  switch (op) {
    case Bin::Add: return a.add(b, alpha);
    case Bin::Sub: return a.sub(b, alpha);
    case Bin::Mul: return a.mul(b);
    case Bin::Div:
    case Bin::DivTrunc:
    case Bin::DivFloor:
    case Bin::DivBad: return a.div(b, div_mode(op));
    case Bin::Rem: return a.remainder(b);
    case Bin::Pow: return a.pow(b);
    case Bin::Max: return a.maximum(b);
    case Bin::Min: return a.minimum(b);
    case Bin::Eq: return a.eq(b);
    case Bin::Ne: return a.ne(b);
    case Bin::Lt: return a.lt(b);
    case Bin::Le: return a.le(b);
    case Bin::Gt: return a.gt(b);
    case Bin::Ge: return a.ge(b);
    case Bin::And: return a.logical_and(b);
    case Bin::Or: return a.logical_or(b);
    case Bin::Xor: return a.logical_xor(b);
  }
  return Tensor();
}

// Ops with a Scalar right operand; false for the others.
bool apply_scalar(Bin op, const Tensor& a, const Scalar& s, const Scalar& alpha, Tensor& out) {
  switch (op) {
    case Bin::Add: out = a.add(s, alpha); return true;
    case Bin::Sub: out = a.sub(s, alpha); return true;
    case Bin::Mul: out = a.mul(s); return true;
    case Bin::Div:
    case Bin::DivTrunc:
    case Bin::DivFloor:
    case Bin::DivBad: out = a.div(s, div_mode(op)); return true;
    case Bin::Rem: out = a.remainder(s); return true;
    case Bin::Pow: out = a.pow(s); return true;
    case Bin::Eq: out = a.eq(s); return true;
    case Bin::Ne: out = a.ne(s); return true;
    case Bin::Lt: out = a.lt(s); return true;
    case Bin::Le: out = a.le(s); return true;
    case Bin::Gt: out = a.gt(s); return true;
    case Bin::Ge: out = a.ge(s); return true;
    default: return false;
  }
}

// In-place ops; false for those without one.
bool apply_(Bin op, Tensor& a, const Tensor* b, const Scalar& s, const Scalar& alpha) {
  Tensor* ret = nullptr;
  switch (op) {
    case Bin::Add: ret = b ? &a.add_(*b, alpha) : &a.add_(s, alpha); break;
    case Bin::Sub: ret = b ? &a.sub_(*b, alpha) : &a.sub_(s, alpha); break;
    case Bin::Mul: ret = b ? &a.mul_(*b) : &a.mul_(s); break;
    case Bin::Div:
    case Bin::DivTrunc:
    case Bin::DivFloor:
    case Bin::DivBad: ret = b ? &a.div_(*b, div_mode(op)) : &a.div_(s, div_mode(op)); break;
    case Bin::Rem: ret = b ? &a.remainder_(*b) : &a.remainder_(s); break;
    case Bin::Pow: ret = b ? &a.pow_(*b) : &a.pow_(s); break;
    default: return false;
  }
  check_self(*ret, a);
  return true;
}

bool has_inplace(Bin op) { return op <= Bin::Pow; }
bool has_scalar(Bin op) { return op <= Bin::Pow || (op >= Bin::Eq && op <= Bin::Ge); }

void gen_binary(Rng& rng, Case& c) {
  const Bin op = static_cast<Bin>(rand_int(rng, 0, 19));
  const std::string name = bin_names[static_cast<int>(op)];
  const Shape sa = random_shape(rng);
  Shape sb = broadcast_partner(rng, sa);
  const ScalarType ta = random_dtype(rng);
  const ScalarType tb = chance(rng, 0.4) ? ta : random_dtype(rng);
  const Scalar alpha = (op == Bin::Add || op == Bin::Sub) && chance(rng, 0.25) ? random_scalar(rng, false) : Scalar(1);
  const std::string alpha_s = alpha.is_integral(false) && alpha.to_long() == 1 ? "" : ", alpha=" + scalar_str(alpha);
  const int64_t form = rand_int(rng, 0, 99);
  c.mixed = MixedRule::CpuScalar;
  if (form < 40) {  // tensor op tensor, either order of shapes
    const bool swap = chance(rng, 0.5);
    const int a = c.operand(swap ? sb : sa, ta), b = c.operand(swap ? sa : sb, tb);
    (void)a;
    (void)b;
    c.call = "#0." + name + "(#1" + alpha_s + ")";
    c.fn = [op, alpha](Results& r, std::vector<Tensor>& t, Device) { r.add(apply(op, t[0], t[1], alpha)); };
  } else if (form < 55 && has_scalar(op)) {  // tensor op Scalar
    c.operand(sa, ta);
    const Scalar s = random_scalar(rng);
    c.call = "#0." + name + "(" + scalar_str(s) + alpha_s + ")";
    c.fn = [op, s, alpha](Results& r, std::vector<Tensor>& t, Device) {
      Tensor out;
      apply_scalar(op, t[0], s, alpha, out);
      r.add(out);
    };
  } else if (form < 62) {  // Scalar op tensor
    c.operand(sa, ta);
    const Scalar s = random_scalar(rng);
    const int64_t which = rand_int(rng, 0, 3);
    static const char* forms[] = {"%s - #0", "%s / #0", "pow(%s, #0)", "%s * #0 + %s"};
    c.call = std::string(forms[which]) + " with %s = " + scalar_str(s);
    c.fn = [s, which](Results& r, std::vector<Tensor>& t, Device) {
      switch (which) {
        case 0: r.add(s - t[0]); break;
        case 1: r.add(s / t[0]); break;
        case 2: r.add(pow(s, t[0])); break;
        default: r.add(s * t[0] + s); break;
      }
    };
  } else if (form < 88 && has_inplace(op)) {  // in place, tensor or Scalar other
    const int64_t kind = rand_int(rng, 0, 9);
    if (kind < 6) {
      const int a = c.operand(sa, ta), b = c.operand(sb, tb);
      (void)b;
      c.output(a);
      c.call = "#0." + name + "_(#1" + alpha_s + ")";
      c.fn = [op, alpha](Results& r, std::vector<Tensor>& t, Device) {
        apply_(op, t[0], &t[1], Scalar(), alpha);
        r.add(t[0]);
      };
    } else if (kind < 8) {
      const int a = c.operand(sa, ta);
      c.output(a);
      const Scalar s = random_scalar(rng);
      c.call = "#0." + name + "_(" + scalar_str(s) + alpha_s + ")";
      c.fn = [op, s, alpha](Results& r, std::vector<Tensor>& t, Device) {
        apply_(op, t[0], nullptr, s, alpha);
        r.add(t[0]);
      };
    } else {
      // Aliasing operands: self and other are views of one tensor (same view, or shifted rows).
      Shape s = sa;
      if (s.empty()) s = {3};
      if (s[0] < 2) s[0] = 3;
      const int base = c.operand(s, ta, /*overlap_ok=*/false);
      const int64_t n = s[0];
      const bool same = chance(rng, 0.4);
      const int self = same ? c.alias(base, [](const Tensor& x) { return x; }, "all")
                            : c.alias(base, [n](const Tensor& x) { return x.slice(0, 0, n - 1); }, "rows 0:n-1");
      c.alias(base, [n, same](const Tensor& x) { return same ? x : x.slice(0, 1, n); }, same ? "all" : "rows 1:n");
      c.output(self);
      c.call = "#1." + name + "_(#2" + alpha_s + ")  (aliasing views)";
      c.fn = [op, alpha](Results& r, std::vector<Tensor>& t, Device) {
        apply_(op, t[1], &t[2], Scalar(), alpha);
        r.add(t[1]);
      };
    }
  } else if (form < 94 && (op == Bin::Add || op == Bin::Mul)) {  // out=
    const Shape so = chance(rng, 0.8) ? sa : random_shape(rng);
    if (chance(rng, 0.15) && !sa.empty() && sa[0] >= 1) {
      // out= and the first input are shifted rows of one tensor (partial overlap: an error).
      Shape s = sa;
      s[0] += 1;
      const int base = c.operand(s, ta, false);
      const int64_t n = s[0];
      const int out = c.alias(base, [n](const Tensor& x) { return x.slice(0, 1, n); }, "rows 1:n");
      c.alias(base, [n](const Tensor& x) { return x.slice(0, 0, n - 1); }, "rows 0:n-1");
      c.operand(sb, tb);
      c.output(out);
      c.call = std::string(op == Bin::Add ? "add_out" : "mul_out") + "(#1, #2, #3" + alpha_s + ")  (aliasing views)";
      c.fn = [op, alpha](Results& r, std::vector<Tensor>& t, Device) {
        Tensor& ret = op == Bin::Add ? add_out(t[1], t[2], t[3], alpha) : mul_out(t[1], t[2], t[3]);
        check_self(ret, t[1]);
        r.add(t[1]);
      };
      return;
    }
    const int out = c.operand(chance(rng, 0.5) ? so : sa, chance(rng, 0.6) ? ta : random_dtype(rng));
    c.operand(sa, ta);
    c.operand(sb, tb);
    c.output(out);
    c.call = std::string(op == Bin::Add ? "add_out" : "mul_out") + "(#0, #1, #2" + alpha_s + ")";
    c.fn = [op, alpha](Results& r, std::vector<Tensor>& t, Device) {
      Tensor& ret = op == Bin::Add ? add_out(t[0], t[1], t[2], alpha) : mul_out(t[0], t[1], t[2]);
      check_self(ret, t[0]);
      r.add(t[0]);
    };
  } else {  // operator forms
    const int a = c.operand(sa, ta), b = c.operand(sb, tb);
    (void)a;
    (void)b;
    const int64_t which = rand_int(rng, 0, 5);
    static const char* ops[] = {"#0 + #1", "#0 - #1", "#0 * #1", "#0 / #1", "#0 == #1", "-#0 && #1"};
    c.call = ops[which];
    c.fn = [which](Results& r, std::vector<Tensor>& t, Device) {
      switch (which) {
        case 0: r.add(t[0] + t[1]); break;
        case 1: r.add(t[0] - t[1]); break;
        case 2: r.add(t[0] * t[1]); break;
        case 3: r.add(t[0] / t[1]); break;
        case 4: r.add(t[0] == t[1]); break;
        default: r.add(-t[0] && t[1]); break;
      }
    };
  }
}

void gen_where(Rng& rng, Case& c) {
  const Shape s = random_shape(rng, 3);
  const ScalarType cond_t = chance(rng, 0.85) ? kBool : chance(rng, 0.5) ? kByte : random_dtype(rng);
  c.operand(chance(rng, 0.5) ? s : broadcast_partner(rng, s), cond_t);
  const int64_t form = rand_int(rng, 0, 3);
  const ScalarType tx = random_dtype(rng);
  const ScalarType ty = chance(rng, 0.5) ? tx : random_dtype(rng);
  const Scalar sx = random_scalar(rng), sy = random_scalar(rng);
  if (form == 0 || form == 2) c.operand(broadcast_partner(rng, s), tx);
  if (form == 0 || form == 1) c.operand(broadcast_partner(rng, s), ty);
  c.mixed = MixedRule::Strict;
  switch (form) {
    case 0: c.call = "where(#0, #1, #2)"; break;
    case 1: c.call = "where(#0, " + scalar_str(sx) + ", #1)"; break;
    case 2: c.call = "where(#0, #1, " + scalar_str(sy) + ")"; break;
    default: c.call = "where(#0, " + scalar_str(sx) + ", " + scalar_str(sy) + ")"; break;
  }
  c.fn = [form, sx, sy](Results& r, std::vector<Tensor>& t, Device) {
    switch (form) {
      case 0: r.add(where(t[0], t[1], t[2])); break;
      case 1: r.add(where(t[0], sx, t[1])); break;
      case 2: r.add(where(t[0], t[1], sy)); break;
      default: r.add(where(t[0], sx, sy)); break;
    }
  };
}

}  // namespace

void add_elementwise_ops(std::vector<OpEntry>& ops) {
  ops.push_back({"unary", 12, gen_unary});
  ops.push_back({"clamp", 3, gen_clamp});
  ops.push_back({"binary", 24, gen_binary});
  ops.push_back({"where", 4, gen_where});
}

}  // namespace ctorch::fuzz
