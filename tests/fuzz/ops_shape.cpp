// Fuzzed shape ops (views, reshape, splits, cat/stack), basic indexing (checked against a
// reference of Python's rules), index_put_, and copies/conversions (copy_, to, clone, fill_).
#include "fuzz/fuzz_core.h"
#include "fuzz/known_bugs.h"

namespace ctorch::fuzz {
namespace {

// A shape with the same element count as `s` (or, with probability `bad`, a wrong one or a -1).
Shape reshape_target(Rng& rng, const Shape& s, double bad = 0.1) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  Shape out;
  if (n == 0) {
    out = {0, rand_int(rng, 1, 3)};
    if (chance(rng, 0.3)) out.push_back(-1);  // ambiguous: an error
    std::shuffle(out.begin(), out.end(), rng);
    return out;
  }
  int64_t rest = n;
  while (rest > 1 && out.size() < 4) {
    int64_t f = rand_int(rng, 2, 6);
    while (rest % f != 0) --f;
    if (f < 2) break;
    out.push_back(f);
    rest /= f;
  }
  if (rest > 1) out.push_back(rest);
  if (chance(rng, 0.3)) out.insert(out.begin() + rand_int(rng, 0, static_cast<int64_t>(out.size())), 1);
  std::shuffle(out.begin(), out.end(), rng);
  if (!out.empty() && chance(rng, 0.3)) out[static_cast<size_t>(rand_int(rng, 0, static_cast<int64_t>(out.size()) - 1))] = -1;
  if (chance(rng, bad)) {
    if (out.empty()) out.push_back(2);
    out[0] += chance(rng, 0.5) ? 1 : -2;
    if (chance(rng, 0.3)) out.push_back(-1), out.push_back(-1);
  }
  return out;
}

int64_t small_or_wild(Rng& rng, int64_t lo, int64_t hi) {
  if (chance(rng, 0.05)) return pick(rng, std::vector<int64_t>{INT64_MAX, INT64_MIN, -1000, 1000, INT64_MAX / 2});
  return rand_int(rng, lo, hi);
}

void gen_view_op(Rng& rng, Case& c) {
  const Shape s = random_shape(rng);
  const int x = c.operand(s, random_dtype(rng));
  (void)x;
  const int64_t nd = static_cast<int64_t>(s.size());
  const int64_t which = rand_int(rng, 0, 17);
  const int64_t d0 = random_dim(rng, nd), d1 = random_dim(rng, nd), ud = random_dim(rng, nd + 1);
  const int64_t size_d = nd > 0 && d0 >= -nd && d0 < nd ? s[static_cast<size_t>(d0 < 0 ? d0 + nd : d0)] : 3;
  const Shape target = reshape_target(rng, s);
  const int64_t a = small_or_wild(rng, -size_d - 1, size_d + 1), b = small_or_wild(rng, -1, size_d + 1);
  const int64_t chunks = b;  // chunk(n) / split(n), huge n included
  const int64_t step = chance(rng, 0.05) ? rand_int(rng, -1, 0) : rand_int(rng, 1, 3);
  const std::optional<int64_t> start = chance(rng, 0.2) ? std::nullopt : std::optional<int64_t>(a);
  const std::optional<int64_t> end = chance(rng, 0.2) ? std::nullopt : std::optional<int64_t>(b);
  std::vector<int64_t> perm(static_cast<size_t>(nd));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  if (chance(rng, 0.05) && nd > 1) perm[0] = perm[1];
  if (chance(rng, 0.03)) perm.push_back(0);
  for (auto& p : perm) {
    if (chance(rng, 0.2)) p -= nd;
  }
  Shape expand_to = s;
  for (auto& v : expand_to) {
    if (v == 1 && chance(rng, 0.5)) v = rand_int(rng, 0, 4);
    else if (chance(rng, 0.1)) v = -1;
    else if (chance(rng, 0.03)) v += 1;
  }
  if (chance(rng, 0.3)) expand_to.insert(expand_to.begin(), rand_int(rng, 1, 3));
  if (chance(rng, 0.02)) expand_to.insert(expand_to.begin(), int64_t{1} << 40);  // a huge, still legal, view
  static const char* names[] = {"view", "reshape", "transpose", "permute", "t", "squeeze()", "squeeze(d)", "unsqueeze",
                                "flatten", "narrow", "select", "slice", "expand", "chunk", "split(n)", "split(sizes)",
                                "unbind", "view_as/reshape_as/expand_as"};
  c.call = std::string("#0.") + names[which] + " target=" + shape_str(target) + " d0=" + std::to_string(d0) +
           " d1=" + std::to_string(d1) + " a=" + std::to_string(a) + " b=" + std::to_string(b) +
           " step=" + std::to_string(step) + " perm=" + shape_str(perm) + " expand=" + shape_str(expand_to);
  Shape split_sizes;
  for (int64_t left = size_d; left > 0;) {
    const int64_t p = std::min(left, rand_int(rng, 0, 3));
    split_sizes.push_back(p);
    left -= p;
  }
  if (chance(rng, 0.1)) split_sizes.push_back(1);
  if (which == 17) {
    c.mixed = MixedRule::Any;  // only the other tensor's sizes are used
    c.results_on_operand = 0;
    const bool concrete = std::all_of(target.begin(), target.end(), [](int64_t d) { return d >= 0; });
    c.operand(concrete && chance(rng, 0.7) ? target : s, random_dtype(rng));
  }
  c.fn = [=](Results& r, std::vector<Tensor>& t, Device) {
    const Tensor& x = t[0];
    switch (which) {
      case 0: r.view(x.view(target), x); break;
      case 1: r.add(x.reshape(target)); break;
      case 2: r.view(x.transpose(d0, d1), x); break;
      case 3: r.view(x.permute(perm), x); break;
      case 4: r.view(x.t(), x); break;
      case 5: r.view(x.squeeze(), x); break;
      case 6: r.view(x.squeeze(d0), x); break;
      case 7: r.view(x.unsqueeze(ud), x); break;
      case 8: r.add(x.flatten(d0, d1)); break;
      case 9: r.view(x.narrow(d0, a, b), x); break;
      case 10: r.view(x.select(d0, a), x); break;
      case 11: r.view(x.slice(d0, start, end, step), x); break;
      case 12: r.view(x.expand(expand_to), x); break;
      case 13: r.add(x.chunk(chunks, d0)); break;
      case 14: r.add(x.split(chunks, d0)); break;
      case 15: r.add(x.split(IntArrayRef(split_sizes), d0)); break;
      case 16: r.add(x.unbind(d0)); break;
      default:
        r.add(x.reshape_as(t[1]));
        r.view(x.view_as(t[1]), x);
        r.view(x.expand_as(t[1]), x);
        break;
    }
  };
}


void gen_as_strided(Rng& rng, Case& c) {
  const Shape s = random_shape(rng, 3);
  c.operand(s, random_dtype(rng));
  const int64_t nd = rand_int(rng, 0, 3);
  Shape size, stride;
  for (int64_t i = 0; i < nd; ++i) {
    size.push_back(small_or_wild(rng, 0, 4));
    stride.push_back(chance(rng, 0.08) ? pick(rng, std::vector<int64_t>{int64_t{1} << 62, INT64_MAX, -1, int64_t{1} << 40})
                                       : rand_int(rng, 0, 4));
  }
  if (chance(rng, 0.03)) stride.push_back(1);
  std::optional<int64_t> offset = chance(rng, 0.5) ? std::nullopt : std::optional<int64_t>(small_or_wild(rng, 0, 6));
  c.call = "#0.as_strided(" + shape_str(size) + ", " + shape_str(stride) + ", " +
           (offset ? std::to_string(*offset) : std::string("None")) + ")";
  c.metamorphic = false;  // reads the storage, not the operand's elements
  c.fn = [=](Results& r, std::vector<Tensor>& t, Device) {
    Tensor v = t[0].as_strided(size, stride, offset);
    r.view(v, t[0]);
    if (v.numel() <= 100000) r.add(v.clone());  // reads every element of the view
  };
}

void gen_cat_stack(Rng& rng, Case& c) {
  const Shape s = random_shape(rng, 3, 256);
  const int64_t nd = static_cast<int64_t>(s.size());
  const int64_t dim = random_dim(rng, nd + 1, 0.05);
  const bool stack_op = chance(rng, 0.3);
  const int64_t count = chance(rng, 0.03) ? 0 : rand_int(rng, 1, 4);
  const ScalarType dt = random_dtype(rng);
  for (int64_t i = 0; i < count; ++i) {
    Shape si = s;
    const int64_t d = nd > 0 ? ((dim % nd) + nd) % nd : 0;
    if (!stack_op && nd > 0 && chance(rng, 0.6)) si[static_cast<size_t>(d)] = rand_int(rng, 0, 3);
    if (chance(rng, 0.05)) si = random_shape(rng, 3, 256);
    if (chance(rng, 0.05)) si = {0};  // legacy: 1-D empty tensors are skipped by cat
    c.operand(si, chance(rng, 0.7) ? dt : random_dtype(rng));
  }
  c.call = std::string(stack_op ? "stack" : "cat") + "(#0..#" + std::to_string(count - 1) + ", dim=" + std::to_string(dim) + ")";
  c.fn = [=](Results& r, std::vector<Tensor>& t, Device) {
    const std::vector<Tensor> in(t.begin(), t.end());
    r.add(stack_op ? stack(in, dim) : cat(in, dim));
  };
}

// ---- indexing ------------------------------------------------------------------------------------

struct Idx {
  TensorIndex::Kind kind;
  int64_t i = 0;                        // Integer
  bool b = false;                       // Boolean
  std::optional<int64_t> start, stop;   // Slice (None: open)
  int64_t step = 1;
};

// Built inside the call: Slice's constructor itself rejects a zero step (ValueError).
TensorIndex to_index(const Idx& x) {
  switch (x.kind) {
    case TensorIndex::Kind::Integer: return TensorIndex(x.i);
    case TensorIndex::Kind::Boolean: return TensorIndex(x.b);
    case TensorIndex::Kind::Slice: return TensorIndex(Slice(SliceBound(x.start), SliceBound(x.stop), SliceBound(x.step)));
    case TensorIndex::Kind::None: return TensorIndex(None);
    default: return TensorIndex(Ellipsis);
  }
}

std::string idx_str(const std::vector<Idx>& v) {
  std::string out = "[";
  for (size_t k = 0; k < v.size(); ++k) {
    if (k) out += ", ";
    const Idx& x = v[k];
    switch (x.kind) {
      case TensorIndex::Kind::Integer: out += std::to_string(x.i); break;
      case TensorIndex::Kind::Boolean: out += x.b ? "True" : "False"; break;
      case TensorIndex::Kind::None: out += "None"; break;
      case TensorIndex::Kind::Ellipsis: out += "..."; break;
      default:
        out += (x.start ? std::to_string(*x.start) : "") + ":" + (x.stop ? std::to_string(*x.stop) : "") + ":" +
               std::to_string(x.step);
    }
  }
  return out + "]";
}

std::vector<TensorIndex> to_indices(const std::vector<Idx>& v) {
  std::vector<TensorIndex> ti;
  for (const Idx& i : v) ti.push_back(to_index(i));
  return ti;
}

// Python's basic indexing (libtorch's C++ form: an empty list is an error) on (sizes, strides,
// offset), independently of ctorch: false for an error.
bool reference_index(const Tensor& x, const std::vector<Idx>& v, Shape& sizes, Shape& strides, int64_t& offset) {
  sizes = x.sizes().vec();
  strides = x.strides().vec();
  offset = x.storage_offset();
  if (v.empty()) return false;  // libtorch: "Passing an empty index list to Tensor::index() is not valid syntax"
  int64_t specified = 0, ellipses = 0;
  for (const Idx& i : v) {
    if (i.kind == TensorIndex::Kind::Integer || i.kind == TensorIndex::Kind::Slice) ++specified;
    if (i.kind == TensorIndex::Kind::Ellipsis) ++ellipses;
    if (i.kind == TensorIndex::Kind::Slice && i.step <= 0) return false;
  }
  if (specified > x.dim()) return false;
  int64_t dim = 0;
  auto unsqueeze = [&](int64_t size) {
    const int64_t st = dim < static_cast<int64_t>(sizes.size())
                           ? sizes[static_cast<size_t>(dim)] * strides[static_cast<size_t>(dim)] : 1;
    sizes.insert(sizes.begin() + dim, size);
    strides.insert(strides.begin() + dim, st);
    ++dim;
  };
  for (const Idx& i : v) {
    switch (i.kind) {
      case TensorIndex::Kind::Integer: {
        if (dim >= static_cast<int64_t>(sizes.size())) return false;
        const int64_t size = sizes[static_cast<size_t>(dim)];
        if (i.i < -size || i.i >= size) return false;
        offset += (i.i < 0 ? i.i + size : i.i) * strides[static_cast<size_t>(dim)];
        sizes.erase(sizes.begin() + dim);
        strides.erase(strides.begin() + dim);
        break;
      }
      case TensorIndex::Kind::Slice: {
        if (dim >= static_cast<int64_t>(sizes.size())) return false;
        const int64_t size = sizes[static_cast<size_t>(dim)];
        int64_t start = i.start.value_or(0), stop = i.stop.value_or(INT64_MAX);
        if (start == INT64_MAX) start = 0;
        if (start < 0) start += size;
        if (stop < 0) stop += size;
        start = std::clamp<int64_t>(start, 0, size);
        stop = stop < start ? start : std::min(stop, size);
        const int64_t len = stop - start;
        offset += start * strides[static_cast<size_t>(dim)];
        sizes[static_cast<size_t>(dim)] = len == 0 ? 0 : (len - 1) / i.step + 1;
        strides[static_cast<size_t>(dim)] *= i.step;
        ++dim;
        break;
      }
      case TensorIndex::Kind::Boolean:
      case TensorIndex::Kind::None:
        if (dim > static_cast<int64_t>(sizes.size())) return false;  // past the end (two ellipses)
        unsqueeze(i.kind == TensorIndex::Kind::None || i.b ? 1 : 0);
        break;
      default: dim += x.dim() - specified; break;
    }
  }
  return true;
}

std::vector<Idx> random_indices(Rng& rng, const Shape& s) {
  std::vector<Idx> v;
  const int64_t n = rand_int(rng, 0, std::min<int64_t>(5, static_cast<int64_t>(s.size()) + 2));
  bool ellipsis = false;
  size_t d = 0;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t size = d < s.size() ? s[d] : 2;
    const int64_t kind = rand_int(rng, 0, 9);
    Idx x;
    if (kind < 4) {
      x.kind = TensorIndex::Kind::Integer;
      x.i = chance(rng, 0.08) ? small_or_wild(rng, size, size + 2) : rand_int(rng, -size, std::max<int64_t>(size - 1, 0));
      ++d;
    } else if (kind < 8) {
      x.kind = TensorIndex::Kind::Slice;
      if (chance(rng, 0.7)) x.start = small_or_wild(rng, -size - 1, size + 1);
      if (chance(rng, 0.7)) x.stop = small_or_wild(rng, -size - 1, size + 1);
      x.step = chance(rng, 0.05) ? rand_int(rng, -2, 0) : rand_int(rng, 1, 3);
      ++d;
    } else if (kind < 9) {
      x.kind = chance(rng, 0.6) ? TensorIndex::Kind::None : TensorIndex::Kind::Boolean;
      x.b = chance(rng, 0.5);
    } else {
      if (ellipsis && !chance(rng, 0.1)) continue;
      x.kind = TensorIndex::Kind::Ellipsis;
      ellipsis = true;
    }
    v.push_back(x);
  }
  return v;
}

void gen_index(Rng& rng, Case& c) {
  const Shape s = random_shape(rng);
  const ScalarType dt = random_dtype(rng);
  const int64_t form = rand_int(rng, 0, 2);
  const std::vector<Idx> v = random_indices(rng, s);
  Shape target = s;
  {
    Shape sizes, strides;
    int64_t offset = 0;
    if (reference_index(ctorch::empty(s), v, sizes, strides, offset)) target = sizes;
  }
  const Shape vs = chance(rng, 0.2) ? Shape{} : chance(rng, 0.7) ? target : broadcast_partner(rng, target);
  // A 0-dim value on cpu is written with fill_ (overlap allowed, value range checked), elsewhere
  // with copy_ (an overlapping destination is an error, values wrap): PyTorch's copy_to, but the
  // runs are not comparable. So such a destination does not overlap, and a cpu-only error is fine.
  const int x = c.operand(s, dt, !(form == 1 && vs.empty()));
  if (form == 0) {
    c.call = "#0.index(" + idx_str(v) + ")";
    // Two ellipses: Python raises IndexError, libtorch's C++ API (and ctorch) accept them; unchecked.
    int64_t ellipses = 0;
    int64_t booleans = 0;
    for (const Idx& i : v) {
      ellipses += i.kind == TensorIndex::Kind::Ellipsis;
      booleans += i.kind == TensorIndex::Kind::Boolean;
    }
    c.fn = [v, ellipses, booleans](Results& r, std::vector<Tensor>& t, Device) {
      Shape sizes, strides;
      int64_t offset = 0;
      const bool ok = reference_index(t[0], v, sizes, strides, offset);
      if (ellipses > 1) {
        try {
          const Tensor out = t[0].index(ArrayRef<TensorIndex>(to_indices(v)));
          booleans > 0 ? r.add(out) : r.view(out, t[0]);
        } catch (const Error&) {
        }
        return;
      }
      Tensor out;
      try {
        out = t[0].index(ArrayRef<TensorIndex>(to_indices(v)));
      } catch (const Error& e) {
        if (ok) throw Finding(std::string("index() threw where Python's rules give a view: ") + e.what());
        throw;
      }
      if (!ok) throw Finding("index() succeeded where Python's indexing rules raise an IndexError/ValueError");
      // A boolean makes it advanced indexing (PyTorch's boolToIndexingTensor): a copy, not a view.
      // One boolean gives NumPy's sizes; several become index tensors [0] / [] that broadcast together
      // (PyTorch: x[True, False] of a [3] tensor is [0, 3], NumPy's is [1, 0, 3]), so only one is checked.
      if (booleans > 0) {
        if (booleans == 1 && out.sizes().vec() != sizes) {
          throw Finding("index() with a boolean gives sizes " + shape_str(out.sizes()) + "; Python's rules give " +
                        shape_str(sizes));
        }
        r.add(out);
        return;
      }
      if (out.sizes().vec() != sizes || out.strides().vec() != strides || out.storage_offset() != offset) {
        throw Finding("index() view is sizes " + shape_str(out.sizes()) + " strides " + shape_str(out.strides()) +
                      " offset " + std::to_string(out.storage_offset()) + "; Python's rules give sizes " +
                      shape_str(sizes) + " strides " + shape_str(strides) + " offset " + std::to_string(offset));
      }
      r.view(out, t[0]);
    };
    return;
  }
  // index_put_: a value tensor of the indexed shape (or broadcastable, or a 0-dim tensor), or a Scalar.
  c.output(x);
  c.overlap_allowed = true;  // the written view is a part of #0: the engine cannot judge; cpu and devices must agree
  c.mixed = MixedRule::Any;
  if (form == 1) {
    if (vs.empty()) c.cpu_only_error_ok = true;
    c.operand(vs, chance(rng, 0.6) ? dt : random_dtype(rng), /*overlap_ok=*/true);
    c.call = "#0.index_put_(" + idx_str(v) + ", #1)";
    c.fn = [v](Results& r, std::vector<Tensor>& t, Device) {
      t[0].index_put_(ArrayRef<TensorIndex>(to_indices(v)), t[1]);
      r.add(t[0]);
    };
  } else {
    const Scalar value = random_scalar(rng);
    c.overlap_allowed = true;  // fill_
    c.call = "#0.index_put_(" + idx_str(v) + ", " + scalar_str(value) + ")";
    c.fn = [v, value](Results& r, std::vector<Tensor>& t, Device) {
      t[0].index_put_(ArrayRef<TensorIndex>(to_indices(v)), value);
      r.add(t[0]);
    };
  }
}

// ---- copies and conversions ------------------------------------------------------------------------

void gen_copy(Rng& rng, Case& c) {
  const Shape s = random_shape(rng);
  const ScalarType dt = random_dtype(rng);
  const int64_t which = rand_int(rng, 0, 10);
  const bool nb = chance(rng, 0.3);
  const ScalarType to_t = random_dtype(rng);
  const bool copy = chance(rng, 0.3);
  // Conversions from floating values to integers are undefined outside the integer's range (as in
  // PyTorch), so converted operands hold finite moderate values.
  const Values vals = which <= 2 || which == 7 ? Values::Finite : Values::Any;
  const int x = c.operand(s, dt, which != 0, vals);
  switch (which) {
    case 0: {
      c.output(x);
      c.operand(chance(rng, 0.7) ? s : broadcast_partner(rng, s), random_dtype(rng), true, Values::Finite);
      c.mixed = MixedRule::Any;
      c.call = std::string("#0.copy_(#1, non_blocking=") + (nb ? "True" : "False") + ")";
      c.fn = [nb](Results& r, std::vector<Tensor>& t, Device) {
        if (!t[0].copy_(t[1], nb).is_same(t[0])) throw Finding("copy_ did not return self");
        if (nb) cuda::synchronize(0), cuda::synchronize(1);
        r.add(t[0]);
      };
      break;
    }
    case 1:
      c.call = std::string("#0.to(") + scalar_type_name(to_t) + ", copy=" + (copy ? "True" : "False") + ")";
      c.fn = [to_t, copy](Results& r, std::vector<Tensor>& t, Device) {
        Tensor y = t[0].to(to_t, false, copy);
        if (!copy && to_t == t[0].dtype() && !y.is_same(t[0])) throw Finding("to(same dtype) made a copy");
        if (copy && y.impl()->storage().get() == t[0].impl()->storage().get()) throw Finding("to(copy=True) aliases");
        r.add(y);
      };
      break;
    case 2:
    case 3:
      c.results_on_target = true;
      c.compare_strides = false;
      c.mixed = MixedRule::Any;
      c.call = std::string("#0.to(target") + (which == 2 ? std::string(", ") + scalar_type_name(to_t) : "") +
               ", non_blocking=" + (nb ? "True" : "False") + ")";
      c.fn = [which, to_t, nb](Results& r, std::vector<Tensor>& t, Device target) {
        Tensor y = which == 2 ? t[0].to(target, to_t, nb) : t[0].to(target, nb);
        if (nb && target.is_cuda()) cuda::synchronize(target.index());
        r.add(y);
      };
      break;
    case 4:
      c.call = "#0.clone()";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) { r.add(t[0].clone()); };
      break;
    case 5:
      c.call = "#0.contiguous()";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) {
        Tensor y = t[0].contiguous();
        if (!y.is_contiguous()) throw Finding("contiguous() is not contiguous");
        r.add(y);
      };
      break;
    case 6: {
      c.output(x);
      c.overlap_allowed = true;  // PyTorch's fill_ skips the overlap check (it is idempotent)
      const Scalar v = random_scalar(rng);
      c.call = "#0.fill_(" + scalar_str(v) + ")";
      c.fn = [v](Results& r, std::vector<Tensor>& t, Device) {
        t[0].fill_(v);
        r.add(t[0]);
      };
      break;
    }
    case 7: {
      c.output(x);
      c.operand(chance(rng, 0.85) ? Shape{} : Shape{1}, chance(rng, 0.5) ? dt : random_dtype(rng), true, Values::Finite);
      c.mixed = MixedRule::Any;
      c.overlap_allowed = true;
      c.call = "#0.fill_(#1)";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) {
        t[0].fill_(t[1]);
        r.add(t[0]);
      };
      break;
    }
    case 8:
      c.output(x);
      c.overlap_allowed = true;
      c.call = "#0.zero_()";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) {
        t[0].zero_();
        r.add(t[0]);
      };
      break;
    case 9:
      c.call = "#0.item()";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) { r.host(t[0].item()); };
      break;
    default:
      c.call = "#0.detach() and #0.to_vector<double>()";
      c.fn = [](Results& r, std::vector<Tensor>& t, Device) {
        r.view(t[0].detach(), t[0]);
        const auto v = t[0].to_vector<double>();
        if (static_cast<int64_t>(v.size()) != t[0].numel()) throw Finding("to_vector has the wrong length");
      };
      break;
  }
}

}  // namespace

void add_shape_ops(std::vector<OpEntry>& ops) {
  ops.push_back({"view", 14, gen_view_op});
  ops.push_back({"as_strided", 3, gen_as_strided});
  ops.push_back({"cat/stack", 5, gen_cat_stack});
  ops.push_back({"index", 8, gen_index});
  ops.push_back({"copy", 10, gen_copy});
}

}  // namespace ctorch::fuzz
