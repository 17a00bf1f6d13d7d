// Running one case: the reference run on cpu, the same call on contiguous copies (metamorphic),
// the run on the case's device(s), and every check of tests/fuzz/README.md.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <typeinfo>

#include "fuzz/fuzz_core.h"

namespace ctorch::fuzz {

uint64_t case_seed(uint64_t seed, uint64_t index) {
  auto mix = [](uint64_t z) {  // splitmix64
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return mix(seed ^ mix(index + 0x632be59bd9b4e019ULL));
}

bool message_is_concrete(const std::string& msg) {
  if (msg.empty()) return false;
  static const std::set<std::string> words = {
      "bool",   "byte",    "char",     "short",      "int",        "long",     "half",    "float",  "double",
      "bfloat16", "uint8", "int8",     "int16",      "int32",      "int64",    "float16", "float32", "float64",
      "integer", "integers", "integral", "floating", "cpu",       "cuda",     "device",  "devices", "dim",
      "dims",   "dimension", "dimensions", "index",  "indices",    "size",     "sizes",   "shape",  "shapes",
      "dtype",  "type",    "element",  "elements",   "length",     "step",     "stride",  "strides", "numel", "steps",
      // what kind of value was expected or received
      "boolean", "scalar", "matrix", "vector", "empty", "list", "tensorlist", "nan", "inf", "contiguous"};
  // Verbatim PyTorch 1.13 texts that name nothing concrete (ctorch copies PyTorch's wording).
  static const std::set<std::string> pytorch_texts = {"ZeroDivisionError"};
  if (pytorch_texts.count(msg)) return true;
  // A quoted value ('round', "cuda:x", `-`) names what was received.
  if (msg.find_first_of("'\"`") != std::string::npos) return true;
  std::string token;
  auto concrete = [&](const std::string& t) {
    if (t.empty()) return false;
    if (std::any_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) return true;
    return words.count(t) > 0;
  };
  for (char ch : msg) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      token.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
    } else {
      if (concrete(token)) return true;
      token.clear();
    }
  }
  return concrete(token);
}

namespace {

struct Meta {
  Shape sizes, strides;
  int64_t offset = 0;
  ScalarType dtype = kFloat;
  Device device = Device(DeviceType::CPU);
  bool operator==(const Meta& o) const {
    return sizes == o.sizes && strides == o.strides && offset == o.offset && dtype == o.dtype && device == o.device;
  }
};

Meta meta_of(const Tensor& t) {
  return Meta{t.sizes().vec(), t.strides().vec(), t.storage_offset(), t.dtype(), t.device()};
}

std::string meta_str(const Meta& m) {
  std::ostringstream os;
  os << scalar_type_name(m.dtype) << shape_str(m.sizes) << " strides " << shape_str(m.strides) << " offset "
     << m.offset << " on " << m.device;
  return os.str();
}

struct Outcome {
  bool ok = false;
  std::string err_type, err_msg;
  std::vector<Results::Entry> results;  // cpu copies
  std::vector<Meta> meta;               // of the results as returned
  std::vector<Tensor> bases_after;      // cpu copies of the bases written by the op (empty tensor: not written)
};

// Tolerances: a floating result of `dtype` compared with another run's.
void tolerance(ScalarType dtype, double scale, double& rtol, double& atol) {
  switch (dtype) {
    case kDouble: rtol = 1e-9; atol = 1e-12; break;
    case kHalf: rtol = 2e-3; atol = 1e-3; break;
    case kBFloat16: rtol = 1.6e-2; atol = 1e-2; break;
    default: rtol = 2e-5; atol = 1e-6; break;
  }
  rtol *= scale;
  atol *= scale;
}

// Empty when equal; else the first difference.
std::string compare_values(const Tensor& expected, const Tensor& actual, double scale, bool exact) {
  if (expected.sizes() != actual.sizes()) {
    return "sizes " + shape_str(expected.sizes()) + " vs " + shape_str(actual.sizes());
  }
  if (expected.dtype() != actual.dtype()) {
    return std::string("dtype ") + scalar_type_name(expected.dtype()) + " vs " + scalar_type_name(actual.dtype());
  }
  if (expected.numel() == 0) return "";
  std::ostringstream os;
  os.precision(17);
  if (!expected.is_floating_point()) {
    const auto a = expected.to_vector<int64_t>(), b = actual.to_vector<int64_t>();
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) {
        os << "element " << i << ": expected " << a[i] << ", got " << b[i];
        return os.str();
      }
    }
    return "";
  }
  double rtol = 0, atol = 0;
  if (!exact) tolerance(expected.dtype(), scale, rtol, atol);
  const auto a = expected.to_vector<double>(), b = actual.to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], y = b[i];
    bool same;
    if (std::isnan(x) || std::isnan(y)) {
      same = std::isnan(x) && std::isnan(y);
    } else if (std::isinf(x) || std::isinf(y)) {
      same = x == y || (!exact && std::fabs(x - y) <= rtol * std::max(std::fabs(x), std::fabs(y)));
    } else {
      same = std::fabs(x - y) <= atol + rtol * std::max(std::fabs(x), std::fabs(y));
    }
    if (!same) {
      os << "element " << i << ": expected " << x << ", got " << y;
      return os.str();
    }
  }
  return "";
}

// Storage offsets (in elements) that `t` reaches.
std::vector<int64_t> footprint(const Tensor& t) {
  std::vector<int64_t> out;
  const int64_t n = t.numel();
  if (n == 0) return out;
  const int64_t nd = t.dim();
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = t.storage_offset();
    for (int64_t d = 0; d < nd; ++d) off += idx[static_cast<size_t>(d)] * t.strides()[static_cast<size_t>(d)];
    out.push_back(off);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < t.sizes()[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

struct Stats {
  std::vector<int64_t> v;
  bool operator==(const Stats& o) const { return v == o.v; }
};

Stats device_stats() {
  Stats s;
  for (int d = 0; d < cuda::device_count(); ++d) {
    s.v.push_back(cuda::memory_allocated(d));
    const auto m = cuda::memory_stats(d);
    auto it = m.find("allocation.all.current");
    s.v.push_back(it == m.end() ? -1 : it->second);
  }
  return s;
}

std::string stats_str(const Stats& s) {
  std::ostringstream os;
  for (size_t i = 0; i + 1 < s.v.size(); i += 2) {
    os << "cuda:" << i / 2 << " allocated " << s.v[i] << " B in " << s.v[i + 1] << " blocks; ";
  }
  return os.str();
}

const char* error_type_name(const Error& e) {
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const TypeError*>(&e)) return "TypeError";
  if (dynamic_cast<const NotImplementedError*>(&e)) return "NotImplementedError";
  if (dynamic_cast<const OutOfMemoryError*>(&e)) return "OutOfMemoryError";
  if (dynamic_cast<const DeviceError*>(&e)) return "DeviceError";
  return "Error";
}

// One call of the case with its bases on `devs` (contiguous copies of the operands when `contig`).
Outcome run(const Case& c, const std::vector<Device>& devs, Device target, bool contig, bool stats, const std::string& label) {
  Outcome out;
  const auto& cb = c.bases();
  std::vector<Tensor> bases(cb.size());
  for (size_t i = 0; i < cb.size(); ++i) bases[i] = cb[i].cpu.to(devs[i], false, /*copy=*/true);
  std::vector<Tensor> ops;
  for (const auto& op : c.operands()) {
    Tensor t = op.view(bases[static_cast<size_t>(op.base)]);
    if (contig) t = t.contiguous().clone();
    ops.push_back(t);
  }
  // Which bases the op may write, and where.
  std::vector<std::set<int64_t>> written(cb.size());
  std::vector<bool> is_written(cb.size(), false);
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& op = c.operands()[i];
    if (!op.output || contig) continue;
    const size_t b = static_cast<size_t>(op.base);
    is_written[b] = true;
    if (ops[i].impl()->storage().get() == bases[b].impl()->storage().get()) {
      for (int64_t o : footprint(ops[i])) written[b].insert(o);
    }
  }
  std::vector<Meta> before;
  for (const Tensor& t : ops) before.push_back(meta_of(t));
  const Stats s0 = stats ? device_stats() : Stats{};

  std::vector<Tensor> work = ops;  // the call may reassign its vector's elements
  Results r;
  try {
    c.fn(r, work, target);
    out.ok = true;
  } catch (const Finding&) {
    throw;
  } catch (const Error& e) {
    out.err_type = error_type_name(e);
    out.err_msg = e.what();
  } catch (const std::exception& e) {
    throw Finding(label + ": threw a non-ctorch exception (" + typeid(e).name() + "): " + e.what());
  } catch (...) {
    throw Finding(label + ": threw something that is not a std::exception");
  }
  work.clear();
  if (out.ok && !c.overlap_allowed && !contig) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!c.operands()[i].output || ops[i].numel() == 0) continue;  // empty tensors are contiguous
      for (int64_t d = 0; d < ops[i].dim(); ++d) {
        if (ops[i].strides()[static_cast<size_t>(d)] == 0 && ops[i].sizes()[static_cast<size_t>(d)] > 1) {
          throw Finding(label + ": wrote into operand #" + std::to_string(i) +
                        ", which has internal overlap (stride 0); PyTorch raises \"unsupported operation: more than "
                        "one element of the written-to tensor refers to a single memory location\"");
        }
      }
    }
  }
  if (out.ok) {
    for (const auto& e : r.entries()) {
      if (!e.tensor.defined()) throw Finding(label + ": returned an undefined tensor");
      out.meta.push_back(meta_of(e.tensor));
      // Huge (expanded) views are compared by their geometry only.
      // Results whose values are not compared (empty(): uninitialized memory, which may hold invalid
      // bools) are not read either.
      // Empty results have nothing to read (and a legal empty view may have sizes whose product
      // overflows before its 0, which no copy can allocate).
      const bool read = c.compare_values && e.tensor.numel() > 0 && e.tensor.numel() <= (int64_t{1} << 22);
      // detach(): a copy that recorded history would keep the device result alive through its graph.
      out.results.push_back({e.host ? e.tensor : read ? e.tensor.detach().cpu() : Tensor(), e.host});
    }
  } else {
    if (out.err_msg.find("internal assert failed") != std::string::npos) {
      throw Finding(label + ": internal assert: " + out.err_msg);
    }
    if (!message_is_concrete(out.err_msg)) {
      throw Finding(label + ": error message names nothing concrete: " + out.err_type + ": " + out.err_msg);
    }
  }
  r.clear();
  if (stats) {
    const Stats s1 = device_stats();
    if (!(s1 == s0)) {
      throw Finding(label + (out.ok ? ": after the call and its results are gone" : ": after the error") +
                    ", the allocator statistics changed: before " + stats_str(s0) + "after " + stats_str(s1));
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const Meta m = meta_of(ops[i]);
    if (!(m == before[i])) {
      throw Finding(label + ": operand #" + std::to_string(i) + " changed from " + meta_str(before[i]) + " to " +
                    meta_str(m));
    }
  }
  out.bases_after.resize(cb.size());
  for (size_t b = 0; b < cb.size(); ++b) {
    if (contig && !is_written[b]) continue;
    const Tensor after = bases[b].cpu();
    if (!out.ok || !is_written[b]) {
      const std::string d = compare_values(cb[b].cpu, after, 1.0, /*exact=*/true);
      if (!d.empty()) {
        throw Finding(label + (out.ok ? ": an input was modified" : ": the error left an operand modified") +
                      " (base of operand(s) " + std::to_string(b) + "): " + d);
      }
      continue;
    }
    if (contig) continue;
    // Written: elements outside the written views keep their values.
    const auto a = cb[b].cpu.reshape({-1}), z = after.reshape({-1});
    const int64_t n = a.numel();
    if (static_cast<int64_t>(written[b].size()) < n && n > 0) {
      std::vector<int64_t> keep;
      for (int64_t k = 0; k < n; ++k) {
        if (!written[b].count(k)) keep.push_back(k);
      }
      for (int64_t k : keep) {
        const std::string d = compare_values(a.select(0, k), z.select(0, k), 1.0, true);
        if (!d.empty()) {
          throw Finding(label + ": wrote outside the written view: storage element " + std::to_string(k) + ": " + d);
        }
      }
    }
    out.bases_after[b] = after;
  }
  return out;
}

// Empty when `cand` matches `ref`.
std::string compare_outcomes(const Case& c, const Outcome& ref, const Outcome& cand, bool strides, bool bases) {
  if (ref.ok != cand.ok) return "one run failed";
  if (!ref.ok) {
    if (ref.err_type != cand.err_type) {
      return "error types differ: " + ref.err_type + ": " + ref.err_msg + " vs " + cand.err_type + ": " + cand.err_msg;
    }
    return "";
  }
  if (ref.results.size() != cand.results.size()) {
    return "result counts differ: " + std::to_string(ref.results.size()) + " vs " + std::to_string(cand.results.size());
  }
  for (size_t i = 0; i < ref.results.size(); ++i) {
    const std::string which = "result " + std::to_string(i) + ": ";
    const Meta &a = ref.meta[i], &b = cand.meta[i];
    if (a.sizes != b.sizes) return which + "sizes " + shape_str(a.sizes) + " vs " + shape_str(b.sizes);
    if (a.dtype != b.dtype) return which + "dtype " + scalar_type_name(a.dtype) + " vs " + scalar_type_name(b.dtype);
    if (strides && c.compare_strides && !ref.results[i].host) {
      if (a.strides != b.strides) return which + "strides " + shape_str(a.strides) + " vs " + shape_str(b.strides);
    }
    if (!c.compare_values || !ref.results[i].tensor.defined() || !cand.results[i].tensor.defined()) continue;
    const std::string d = compare_values(ref.results[i].tensor, cand.results[i].tensor, c.tol_scale, false);
    if (!d.empty()) return which + d;
  }
  if (bases && c.compare_values) {
    for (size_t b = 0; b < ref.bases_after.size() && b < cand.bases_after.size(); ++b) {
      if (!ref.bases_after[b].defined() || !cand.bases_after[b].defined()) continue;
      const std::string d = compare_values(ref.bases_after[b], cand.bases_after[b], c.tol_scale, false);
      if (!d.empty()) return "written operand storage " + std::to_string(b) + ": " + d;
    }
  }
  return "";
}

std::string outcome_str(const Outcome& o) {
  if (!o.ok) return o.err_type + ": " + o.err_msg;
  std::ostringstream os;
  os << "ok:";
  for (const Meta& m : o.meta) os << " " << meta_str(m) << ";";
  return os.str();
}

// The device of the results of a call on `devs`.
Device expected_device(const Case& c, const std::vector<Device>& devs, Device target) {
  if (c.results_on_target) return target;
  if (c.results_on_operand >= 0) return devs[static_cast<size_t>(c.operands()[static_cast<size_t>(c.results_on_operand)].base)];
  for (const auto& op : c.operands()) {
    if (op.output) return devs[static_cast<size_t>(op.base)];
  }
  for (const auto& op : c.operands()) {
    if (devs[static_cast<size_t>(op.base)].is_cuda()) return devs[static_cast<size_t>(op.base)];
  }
  return Device(DeviceType::CPU);
}

enum class Expect { Same, DeviceError };

// What PyTorch does with the operands on `devs` relative to the all-cpu reference.
Expect mixed_expectation(const Case& c, const std::vector<Device>& devs) {
  std::set<std::string> all;
  for (const auto& op : c.operands()) all.insert(devs[static_cast<size_t>(op.base)].str());
  if (all.size() <= 1) return Expect::Same;
  switch (c.mixed) {
    case MixedRule::Any: return Expect::Same;
    case MixedRule::Strict: return Expect::DeviceError;
    case MixedRule::CpuScalar: {  // TensorIterator: at most one 0-dim cpu input beside cuda operands
      std::set<std::string> cuda;
      int cpu_scalars = 0;
      for (const auto& op : c.operands()) {
        const Device d = devs[static_cast<size_t>(op.base)];
        if (d.is_cuda()) {
          cuda.insert(d.str());
        } else if (op.shape.size() != 0 || op.output) {
          return Expect::DeviceError;
        } else {
          ++cpu_scalars;
        }
      }
      return cuda.size() <= 1 && cpu_scalars <= 1 ? Expect::Same : Expect::DeviceError;
    }
  }
  return Expect::Same;
}

bool names_a_device(const std::string& msg) {
  return msg.find("device") != std::string::npos || msg.find("cuda") != std::string::npos;
}

}  // namespace

CaseReport run_case(uint64_t seed, uint64_t index, const std::vector<OpEntry>& ops, bool describe_only) {
  Rng rng(case_seed(seed, index));
  CaseReport rep;
  int total = 0;
  for (const auto& o : ops) total += o.weight;
  int64_t k = rand_int(rng, 0, total);  // total itself: a Device-construction case
  if (k == total) {
    rep.op = "Device";
    if (describe_only) return rep;
    try {
      rep.call = run_device_case(rng);
    } catch (const Finding& f) {
      rep.finding = f.what();
    }
    return rep;
  }
  const OpEntry* entry = &ops.front();
  for (const auto& o : ops) {
    if (k < o.weight) {
      entry = &o;
      break;
    }
    k -= o.weight;
  }
  rep.op = entry->name;
  Case c(rng);
  try {
    entry->gen(rng, c);
  } catch (const Error& e) {
    rep.call = std::string(entry->name) + " (generator)";
    rep.finding = std::string("fuzzer bug: building the operands threw: ") + e.what();
    return rep;
  }
  // Devices: cpu only, all on cuda:0, all on cuda:1, or mixed (cpu, cuda:0, cuda:1).
  const size_t nb = c.bases().size();
  std::vector<Device> devs(nb, Device(DeviceType::CPU));
  Device target = Device(DeviceType::CPU);
  const int64_t mode = rand_int(rng, 0, 99);
  std::string mode_name = "cpu";
  if (mode >= 20 && mode < 75) {
    target = Device(DeviceType::CUDA, mode < 45 ? 0 : 1);
    std::fill(devs.begin(), devs.end(), target);
    mode_name = target.str();
  } else if (mode >= 75) {
    target = Device(DeviceType::CUDA, static_cast<DeviceIndex>(rand_int(rng, 0, 1)));
    static const std::vector<Device> choices = {Device(DeviceType::CPU), Device(DeviceType::CUDA, 0),
                                                Device(DeviceType::CUDA, 1)};
    for (auto& d : devs) d = pick(rng, choices);
    mode_name = "mixed(";
    for (size_t i = 0; i < nb; ++i) mode_name += (i ? "," : "") + devs[i].str();
    mode_name += ") target " + target.str();
  }
  rep.call = c.call + "  on " + mode_name;
  for (int i = 0; i < c.count(); ++i) rep.call += "\n    #" + std::to_string(i) + ": " + c.desc(i);
  if (describe_only) return rep;

  try {
    const std::vector<Device> cpu(nb, Device(DeviceType::CPU));
    const Outcome ref = run(c, cpu, Device(DeviceType::CPU), false, false, "cpu run");
    rep.errored = !ref.ok;
    bool order_dependent = false;
    for (const auto& op : c.operands()) order_dependent |= op.output && op.overlapping;
    if (order_dependent) c.compare_values = false;
    for (size_t i = 0; i < ref.meta.size(); ++i) {
      if (!ref.results[i].host && ref.meta[i].device != expected_device(c, cpu, Device(DeviceType::CPU))) {
        throw Finding("cpu run: result " + std::to_string(i) + " is on " + ref.meta[i].device.str());
      }
    }
    if (ref.ok && c.metamorphic && !c.has_alias()) {
      const Outcome m = run(c, cpu, Device(DeviceType::CPU), true, false, "cpu run on contiguous copies");
      if (m.ok) {
        const std::string d = compare_outcomes(c, ref, m, false, false);
        if (!d.empty()) throw Finding("contiguous operands give a different result: " + d);
      }
    }
    if (mode_name == "cpu") return rep;

    const Outcome dev = run(c, devs, target, false, true, mode_name + " run");
    const Expect expect = mixed_expectation(c, devs);
    if (expect == Expect::DeviceError) {
      if (dev.ok) throw Finding("operands on different devices were accepted: " + outcome_str(dev));
      if (ref.ok && !names_a_device(dev.err_msg)) {
        throw Finding("mixed devices: the error does not name a device: " + dev.err_type + ": " + dev.err_msg);
      }
      return rep;
    }
    if (ref.ok && !dev.ok) {
      if (dev.err_type == "OutOfMemoryError") return rep;
      throw Finding("cpu succeeds (" + outcome_str(ref) + ") but " + mode_name + " throws " + dev.err_type + ": " +
                    dev.err_msg);
    }
    if (!ref.ok && dev.ok) {
      if (c.cpu_only_error_ok || ref.err_msg.find("_cpu\" not implemented") != std::string::npos) return rep;
      throw Finding("cpu throws " + ref.err_type + ": " + ref.err_msg + " but " + mode_name + " succeeds: " +
                    outcome_str(dev));
    }
    // A device may run out of memory before the check that fails on cpu (allocation comes first).
    if (!ref.ok && !dev.ok && dev.err_type == "OutOfMemoryError") return rep;
    if (dev.ok) {
      const Device want = expected_device(c, devs, target);
      for (size_t i = 0; i < dev.meta.size(); ++i) {
        if (!dev.results[i].host && dev.meta[i].device != want) {
          throw Finding("result " + std::to_string(i) + " is on " + dev.meta[i].device.str() + ", expected " + want.str());
        }
      }
    }
    const std::string d = compare_outcomes(c, ref, dev, /*strides=*/true, /*bases=*/true);
    if (!d.empty()) throw Finding("cpu and " + mode_name + " differ: " + d);
  } catch (const Finding& f) {
    rep.finding = f.what();
  } catch (const std::exception& e) {
    rep.finding = std::string("the fuzzer's own checks threw (setting up operands or reading results): ") + e.what();
  }
  return rep;
}

}  // namespace ctorch::fuzz
