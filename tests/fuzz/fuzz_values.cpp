// Random choices, values, shapes and operand layouts of the API fuzzer.
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "fuzz/fuzz_core.h"
#include "fuzz/known_bugs.h"

namespace ctorch::fuzz {

namespace {
bool g_include_known = false;
}  // namespace

bool avoid(Known) { return !g_include_known; }

void include_known_bugs(bool on) { g_include_known = on; }

int64_t rand_int(Rng& rng, int64_t lo, int64_t hi) {
  if (lo >= hi) return lo;
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == std::numeric_limits<uint64_t>::max()) return static_cast<int64_t>(rng());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + rng() % (span + 1));
}

bool chance(Rng& rng, double p) { return static_cast<double>(rng() >> 11) * 0x1.0p-53 < p; }

ScalarType random_dtype(Rng& rng) {
  static const std::vector<ScalarType> all = {kFloat, kFloat, kFloat, kDouble, kHalf,  kBFloat16, kLong,
                                              kLong,  kInt,   kShort, kChar,   kByte,  kBool};
  return pick(rng, all);
}

Scalar random_scalar(Rng& rng, bool special) {
  const int64_t k = rand_int(rng, 0, special ? 9 : 7);
  switch (k) {
    case 0: return Scalar(chance(rng, 0.5));
    case 1:
    case 2:
    case 3: return Scalar(rand_int(rng, -5, 5));
    case 4:
    case 5: return Scalar(static_cast<double>(rand_int(rng, -40, 40)) / 4.0);
    case 6: return Scalar(std::ldexp(static_cast<double>(rand_int(rng, -1000, 1000)), static_cast<int>(rand_int(rng, -8, 8))));
    case 7: return Scalar(rand_int(rng, -300, 300));
    case 8: {
      static const std::vector<int64_t> ints = {0, -1, 127, 128, 255, 256, -129, 32768, 1LL << 31,
                                                std::numeric_limits<int64_t>::max(),
                                                std::numeric_limits<int64_t>::min()};
      return Scalar(pick(rng, ints));
    }
    default: {
      static const std::vector<double> doubles = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1e300, -1e-300, 65504.0, 1e5, 0.5};
      return Scalar(pick(rng, doubles));
    }
  }
}

Shape random_shape(Rng& rng, int max_dim, int64_t max_numel) {
  const int64_t ndim = chance(rng, 0.12) ? 0 : rand_int(rng, 1, max_dim);
  Shape s;
  for (int64_t d = 0; d < ndim; ++d) {
    int64_t size = rand_int(rng, 1, 5);
    if (chance(rng, 0.06)) size = 0;
    if (chance(rng, 0.2)) size = 1;
    s.push_back(size);
  }
  if (ndim > 0 && chance(rng, 0.05)) s[static_cast<size_t>(rand_int(rng, 0, ndim - 1))] = rand_int(rng, 64, 1500);
  // Keep the element count bounded: shrink the largest dims.
  for (;;) {
    int64_t n = 1;
    for (int64_t v : s) n *= v;
    if (n <= max_numel) break;
    auto it = std::max_element(s.begin(), s.end());
    *it = std::max<int64_t>(1, *it / 2);
  }
  return s;
}

Shape broadcast_partner(Rng& rng, const Shape& s) {
  Shape p = s;
  const int64_t k = rand_int(rng, 0, 9);
  if (k <= 2) return p;                       // same shape
  if (k <= 4 && !p.empty()) {                 // drop leading dims
    p.erase(p.begin(), p.begin() + rand_int(rng, 1, static_cast<int64_t>(p.size())));
    return p;
  }
  if (k <= 7) {                               // ones in some dims
    for (auto& v : p) {
      if (chance(rng, 0.5)) v = 1;
    }
    return p;
  }
  if (k == 8) {                               // extra leading dims on this side
    p.insert(p.begin(), rand_int(rng, 1, 3));
    return p;
  }
  if (!p.empty()) p[static_cast<size_t>(rand_int(rng, 0, static_cast<int64_t>(p.size()) - 1))] += 1;  // incompatible (mostly)
  return p;
}

int64_t random_dim(Rng& rng, int64_t ndim, double bad) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  if (chance(rng, bad)) {
    switch (rand_int(rng, 0, 3)) {
      case 0: return n;
      case 1: return -n - 1;
      case 2: return std::numeric_limits<int64_t>::max();
      default: return std::numeric_limits<int64_t>::min();
    }
  }
  const int64_t d = rand_int(rng, 0, n - 1);
  return chance(rng, 0.3) ? d - n : d;
}

std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

std::string scalar_str(const Scalar& s) {
  std::ostringstream os;
  if (s.is_floating_point()) {
    os.precision(17);
    os << s.to_double();
  } else if (s.is_bool()) {
    os << (s.to_bool() ? "true" : "false");
  } else {
    os << s.to_long();
  }
  return os.str();
}

// ---- values -----------------------------------------------------------------------------------------

namespace {

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

double random_float(Rng& rng, bool special) {
  const int64_t k = rand_int(rng, 0, 99);
  if (special && k < 6) {
    static const std::vector<double> sp = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e30, -1e-30, 65504.0, 1e5, 2.5};
    return pick(rng, sp);
  }
  if (k < 30) return static_cast<double>(rand_int(rng, -5, 5)) + (chance(rng, 0.2) ? 0.5 : 0.0);
  if (k < 80) return std::normal_distribution<double>(0.0, 2.0)(rng);
  return std::uniform_real_distribution<double>(-100.0, 100.0)(rng);
}

void int_range(ScalarType t, int64_t& lo, int64_t& hi) {
  switch (t) {
    case kByte: lo = 0; hi = 255; return;
    case kChar: lo = -128; hi = 127; return;
    case kShort: lo = -32768; hi = 32767; return;
    case kInt: lo = std::numeric_limits<int32_t>::min(); hi = std::numeric_limits<int32_t>::max(); return;
    default: lo = std::numeric_limits<int64_t>::min(); hi = std::numeric_limits<int64_t>::max(); return;
  }
}

int64_t random_integer(Rng& rng, ScalarType t, bool special) {
  int64_t lo, hi;
  int_range(t, lo, hi);
  const int64_t k = rand_int(rng, 0, 99);
  if (special && k < 5) return pick(rng, std::vector<int64_t>{lo, hi, 0, t == kByte ? 1 : -1});
  if (special && k < 15) return rand_int(rng, lo, hi);
  return std::clamp<int64_t>(rand_int(rng, -10, 10), lo, hi);
}

}  // namespace

Tensor random_values(Rng& rng, const Shape& shape, ScalarType dtype, Values style) {
  const bool special = style == Values::Any;
  const int64_t n = numel_of(shape);
  if (n == 0) return empty(shape, TensorOptions().dtype(dtype));
  if (is_floating_point(dtype)) {
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) {
      x = style == Values::SmallInts ? static_cast<double>(rand_int(rng, -4, 4)) : random_float(rng, special);
    }
    return from_blob(v.data(), {n}, TensorOptions().dtype(kDouble)).to(dtype, false, true).view(shape);
  }
  std::vector<int64_t> v(static_cast<size_t>(n));
  if (dtype == kBool) {
    for (int64_t& x : v) x = chance(rng, 0.5) ? 1 : 0;
  } else {
    for (int64_t& x : v) {
      x = style == Values::SmallInts ? std::max<int64_t>(rand_int(rng, -4, 4), dtype == kByte ? 0 : -4)
                                     : random_integer(rng, dtype, special);
    }
  }
  return from_blob(v.data(), {n}, TensorOptions().dtype(kLong)).to(dtype, false, true).view(shape);
}

// ---- operands ------------------------------------------------------------------------------------------

namespace {

const char* short_name(ScalarType t) {
  static const char* names[] = {"u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "bool", "bf16"};
  return names[static_cast<int>(t)];
}

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(s[i], 1);
  }
  return st;
}

}  // namespace

int Case::operand(const Shape& shape, ScalarType dtype, bool overlap_ok, Values style) {
  Operand op;
  op.shape = shape;
  op.dtype = dtype;
  op.base = static_cast<int>(bases_.size());
  const int64_t ndim = static_cast<int64_t>(shape.size());
  const int64_t n = numel_of(shape);
  std::string layout = "contiguous";
  Shape base_shape = shape;
  const int64_t k = rand_int(rng_, 0, 99);
  if (k < 40 || ndim == 0) {
    op.view = [](const Tensor& b) { return b; };
  } else if (k < 55 && ndim >= 2) {
    std::vector<int64_t> perm(static_cast<size_t>(ndim));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng_);
    Shape inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      base_shape[i] = shape[static_cast<size_t>(perm[i])];
      inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    }
    op.view = [inv](const Tensor& b) { return b.permute(inv); };
    layout = "permuted from " + shape_str(base_shape);
  } else if (k < 70) {
    const int64_t d = rand_int(rng_, 0, ndim - 1);
    const int64_t step = rand_int(rng_, 2, 3), off = rand_int(rng_, 0, 2);
    const int64_t len = shape[static_cast<size_t>(d)] * step;
    base_shape[static_cast<size_t>(d)] = len + off;
    op.view = [d, step, off, len](const Tensor& b) { return b.slice(d, off, off + len, step); };
    layout = "slice(dim=" + std::to_string(d) + ", " + std::to_string(off) + ":" + std::to_string(off + len) + ":" +
             std::to_string(step) + ")";
  } else if (k < 82 && overlap_ok) {
    // Expanded: some dims (and maybe leading ones) of the base are 1.
    Shape small = shape;
    for (auto& v : small) {
      if (chance(rng_, 0.5)) v = 1;
    }
    const int64_t drop = chance(rng_, 0.3) ? rand_int(rng_, 0, ndim) : 0;
    small.erase(small.begin(), small.begin() + drop);
    for (size_t i = 0; i < small.size(); ++i) op.overlapping |= small[i] == 1 && shape[drop + i] > 1;
    for (int64_t i = 0; i < drop; ++i) op.overlapping |= shape[static_cast<size_t>(i)] > 1;
    base_shape = small;
    const Shape target = shape;
    op.view = [target](const Tensor& b) { return b.expand(target); };
    layout = "expanded from " + shape_str(small);
  } else if (k < 88 && overlap_ok && n > 0) {
    // Overlapping strides (a sliding window): one dim steps by less than the inner extent.
    Shape st = contiguous_strides(shape);
    const int64_t d = rand_int(rng_, 0, ndim - 1);
    st[static_cast<size_t>(d)] = rand_int(rng_, 0, std::max<int64_t>(st[static_cast<size_t>(d)] - 1, 0));
    const int64_t off = rand_int(rng_, 0, 3);
    int64_t extent = 1;
    for (size_t i = 0; i < shape.size(); ++i) extent += (shape[i] - 1) * st[i];
    base_shape = {extent + off};
    op.overlapping = true;
    const Shape target = shape;
    op.view = [target, st, off](const Tensor& b) { return b.as_strided(target, st, off); };
    layout = "as_strided(" + shape_str(st) + ", offset " + std::to_string(off) + ")";
  } else {
    // Dense with a storage offset.
    const int64_t off = rand_int(rng_, 1, 5);
    base_shape = {n + off + rand_int(rng_, 0, 2)};
    const Shape target = shape, st = contiguous_strides(shape);
    op.view = [target, st, off](const Tensor& b) { return b.as_strided(target, st, off); };
    layout = "offset " + std::to_string(off);
  }
  bases_.push_back(Base{random_values(rng_, base_shape, dtype, style)});
  op.desc = std::string(short_name(dtype)) + shape_str(shape) + (layout == "contiguous" ? "" : " " + layout);
  operands_.push_back(std::move(op));
  return static_cast<int>(operands_.size()) - 1;
}

int Case::operand_from(const Tensor& cpu_value, const std::string& desc) {
  Operand op;
  op.shape = cpu_value.sizes().vec();
  op.dtype = cpu_value.dtype();
  op.base = static_cast<int>(bases_.size());
  op.view = [](const Tensor& b) { return b; };
  op.desc = desc;
  bases_.push_back(Base{cpu_value.contiguous().clone()});
  operands_.push_back(std::move(op));
  return static_cast<int>(operands_.size()) - 1;
}

int Case::alias(int of, std::function<Tensor(const Tensor&)> view, const std::string& desc) {
  const Operand& src = operands_[static_cast<size_t>(of)];
  Operand op;
  op.base = src.base;
  auto inner = src.view;
  op.view = [inner, view](const Tensor& b) { return view(inner(b)); };
  const Tensor probe = op.view(bases_[static_cast<size_t>(src.base)].cpu);
  op.shape = probe.sizes().vec();
  op.dtype = probe.dtype();
  op.overlapping = src.overlapping;
  op.desc = desc + " of #" + std::to_string(of);
  operands_.push_back(std::move(op));
  has_alias_ = true;
  return static_cast<int>(operands_.size()) - 1;
}

void Case::output(int i) { operands_[static_cast<size_t>(i)].output = true; }

void Results::host(const Scalar& v) {
  entries_.push_back({full({}, v, TensorOptions().dtype(v.is_bool() ? kBool : v.is_floating_point() ? kDouble : kLong)), true});
}

void Results::view(const Tensor& t, const Tensor& of) {
  if (t.impl()->storage().get() != of.impl()->storage().get()) {
    throw Finding("result is not a view of its input (PyTorch returns a view sharing storage)");
  }
  add(t);
}

}  // namespace ctorch::fuzz
