// Fuzzed factories (with options, huge and negative sizes) and Device construction (ints, null,
// malformed strings, random bytes), the latter checked against c10's grammar.
#include <cctype>
#include <cstring>

#include "fuzz/fuzz_core.h"

namespace ctorch::fuzz {
namespace {

// A size list: usually small, sometimes huge (out of memory), overflowing, or negative.
Shape factory_shape(Rng& rng) {
  const int64_t k = rand_int(rng, 0, 99);
  if (k < 90) return random_shape(rng, 4, 512);
  if (k < 93) return {int64_t{1} << 40};                            // 4 TiB of float: no device or host has it
  if (k < 95) return {int64_t{1} << 31, int64_t{1} << 31};          // numel 2^62: bytes overflow int64
  if (k < 97) return {INT64_MAX, 2};                                 // numel overflows
  return {2, -1 - rand_int(rng, 0, 2)};                              // negative
}

TensorOptions random_options(Rng& rng, Device target, bool device, std::string& desc) {
  TensorOptions o;
  desc.clear();
  if (chance(rng, 0.7)) {
    const ScalarType t = random_dtype(rng);
    o = o.dtype(t);
    desc += std::string("dtype=") + scalar_type_name(t) + " ";
  }
  if (device) {
    o = o.device(target);
    desc += "device=target ";
  }
  if (chance(rng, 0.05)) {
    o = o.requires_grad(true);
    desc += "requires_grad ";
  }
  return o;
}

void gen_factory(Rng& rng, Case& c) {
  const int64_t which = rand_int(rng, 0, 11);
  const Shape size = factory_shape(rng);
  const Scalar v = random_scalar(rng);
  Scalar a = random_scalar(rng, chance(rng, 0.1)), b = random_scalar(rng, chance(rng, 0.1));
  const Scalar step = chance(rng, 0.05) ? Scalar(0) : chance(rng, 0.03) ? Scalar(1e-15) : random_scalar(rng, false);
  const int64_t steps = chance(rng, 0.05) ? pick(rng, std::vector<int64_t>{-1, int64_t{1} << 40}) : rand_int(rng, 0, 20);
  const int64_t n = chance(rng, 0.05) ? -1 : rand_int(rng, 0, 6);
  const std::optional<int64_t> m = chance(rng, 0.5) ? std::nullopt : std::optional<int64_t>(rand_int(rng, -1, 6));
  Shape stride;
  for (size_t i = 0; i < size.size(); ++i) {
    stride.push_back(chance(rng, 0.05) ? pick(rng, std::vector<int64_t>{-1, INT64_MAX, int64_t{1} << 62}) : rand_int(rng, 0, 6));
  }
  if (chance(rng, 0.03)) stride.push_back(1);
  // A huge empty_strided is either one element (all strides 0) or far beyond any memory: sizes in
  // between take seconds to allocate and poison on an emulated device.
  if (which == 11 && size.size() == 2 && size[0] == (int64_t{1} << 31)) {
    stride = chance(rng, 0.5) ? Shape{0, 0} : Shape{int64_t{1} << 20, int64_t{1} << 20};
  }
  // arange: lengths between 10^6 and 2^40 elements are legal but slow (and take gigabytes): shortened.
  if (which == 5 && step.to_double() != 0) {
    const double len = (b.to_double() - a.to_double()) / step.to_double();
    if (len > 1e6 && len < 1e12) b = Scalar(a.to_double() + step.to_double() * 1000);
  }
  if (which == 4 && a.to_double() > 1e6 && a.to_double() < 1e12) a = Scalar(1000);
  std::string od;
  // The like/new forms take the device from their operand unless the options give one.
  const bool with_operand = which >= 8 && which <= 10;
  const bool dev_opt = !with_operand || chance(rng, 0.5);
  const TensorOptions o = random_options(rng, Device(DeviceType::CPU), dev_opt, od);
  c.results_on_target = dev_opt;
  if (with_operand) c.operand(random_shape(rng, 3, 256), random_dtype(rng), true, Values::Finite);
  static const char* names[] = {"empty", "zeros", "ones", "full", "arange(end)", "arange(start, end, step)",
                                "linspace", "eye", "*_like", "new_*", "new_tensor", "empty_strided"};
  c.call = std::string(names[which]) + " size=" + shape_str(size) + " value=" + scalar_str(v) + " a=" + scalar_str(a) +
           " b=" + scalar_str(b) + " step=" + scalar_str(step) + " steps=" + std::to_string(steps) + " n=" +
           std::to_string(n) + " m=" + (m ? std::to_string(*m) : "None") + " stride=" + shape_str(stride) + " " + od;
  c.compare_values = which != 0 && which != 11;
  const int64_t form = rand_int(rng, 0, 3);
  c.fn = [=](Results& r, std::vector<Tensor>& t, Device target) {
    TensorOptions opts = o;
    if (dev_opt) opts = opts.device(target);
    switch (which) {
      case 0: r.add(empty(size, opts)); break;
      case 1: r.add(zeros(size, opts)); break;
      case 2: r.add(ones(size, opts)); break;
      case 3: r.add(full(size, v, opts)); break;
      case 4: r.add(arange(a, opts)); break;
      case 5: r.add(arange(a, b, step, opts)); break;
      case 6: r.add(linspace(a, b, steps, opts)); break;
      case 7: r.add(eye(n, m, opts)); break;
      case 8:
        switch (form) {
          case 0: r.add(zeros_like(t[0], opts)); break;
          case 1: r.add(ones_like(t[0], opts)); break;
          case 2: r.add(full_like(t[0], v, opts)); break;
          default: {
            NoGradGuard no_grad;  // filling a leaf that requires grad is only legal without recording
            r.add(empty_like(t[0], opts).fill_(0));
            break;
          }
        }
        break;
      case 9:
        switch (form) {
          case 0: r.add(t[0].new_zeros(size, opts)); break;
          case 1: r.add(t[0].new_ones(size, opts)); break;
          case 2: r.add(t[0].new_full(size, v, opts)); break;
          default: {
            NoGradGuard no_grad;
            r.add(t[0].new_empty(size, opts).zero_());
            break;
          }
        }
        break;
      case 10: r.add(t[0].new_tensor(t[0], opts)); break;
      default: r.add(empty_strided(size, stride, opts)); break;
    }
  };
}

// ---- Device construction ---------------------------------------------------------------------------

// c10's grammar ([a-zA-Z_]+)(?::([1-9]\d*|0))? with a known type; index -1 when absent. False when
// the text must be rejected. Indices above 127 are left unchecked (c10 1.13 keeps them in an int8).
bool reference_device(const std::string& s, Device& out, bool& unchecked) {
  unchecked = false;
  size_t i = 0;
  while (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  const std::string name = s.substr(0, i);
  if (name.empty()) return false;
  int64_t index = -1;
  if (i < s.size()) {
    if (s[i] != ':') return false;
    const std::string digits = s.substr(i + 1);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); })) {
      return false;
    }
    if (digits.size() > 1 && digits[0] == '0') return false;
    if (digits.size() > 3 || std::stoll(digits) > 127) {
      unchecked = true;
      return false;
    }
    index = std::stoll(digits);
  }
  if (name != "cpu" && name != "cuda") return false;
  if (name == "cpu" && index > 0) return false;
  out = Device(name == "cpu" ? DeviceType::CPU : DeviceType::CUDA, static_cast<DeviceIndex>(index));
  return true;
}

std::string random_device_text(Rng& rng) {
  static const std::vector<std::string> seeds = {
      "cpu", "cuda", "cuda:0", "cuda:1", "cuda:2", "cpu:0", "cpu:1", "cuda:", ":0", "cuda:01", "cuda:-1",
      "cuda:1:2", "cuda: 1", " cuda", "cuda ", "CUDA", "Cuda:0", "gpu", "meta", "mps", "cuda:511", "cuda:512",
      "cuda:127", "cuda:128", "cuda:255", "cuda:256", "cuda:2147483647", "cuda:2147483648",
      "cuda:99999999999999999999", "cuda:1a", "cuda:0x1", "cuda:+1", "cuda::1", "_", "cuda_:0", "cud@", "",
      std::string("cuda\0:1", 7), "cuda:\xff", "\xe2\x82\xac"};
  std::string s = pick(rng, seeds);
  const int64_t k = rand_int(rng, 0, 9);
  if (k < 5) return s;
  if (k < 8) {  // a few byte mutations
    const int64_t edits = rand_int(rng, 1, 3);
    for (int64_t e = 0; e < edits; ++e) {
      const int64_t op = rand_int(rng, 0, 2);
      const size_t pos = s.empty() ? 0 : static_cast<size_t>(rand_int(rng, 0, static_cast<int64_t>(s.size()) - 1));
      const char ch = static_cast<char>(chance(rng, 0.5) ? "cpuda:0123456789_"[rand_int(rng, 0, 16)] : rand_int(rng, 0, 255));
      if (op == 0 || s.empty()) s.insert(s.begin() + static_cast<std::ptrdiff_t>(std::min(pos, s.size())), ch);
      else if (op == 1) s.erase(pos, 1);
      else s[pos] = ch;
    }
    return s;
  }
  std::string r;  // random bytes
  const int64_t len = rand_int(rng, 0, 12);
  for (int64_t i = 0; i < len; ++i) r.push_back(static_cast<char>(rand_int(rng, 0, 255)));
  return r;
}

std::string printable(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (std::isprint(ch) && ch != '"' && ch != '\\') {
      out.push_back(static_cast<char>(ch));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      out += buf;
    }
  }
  return out + "\"";
}

// Runs `f`; returns the ctorch error text, or "" when it did not throw. Anything else is a finding.
template <class F>
std::string error_of(const std::string& what, F&& f, bool& threw) {
  threw = false;
  try {
    f();
  } catch (const Error& e) {
    threw = true;
    const std::string msg = e.what();
    if (!message_is_concrete(msg)) throw Finding(what + ": error message names nothing concrete: " + msg);
    return msg;
  } catch (const std::exception& e) {
    throw Finding(what + ": threw a non-ctorch exception: " + e.what());
  }
  return "";
}

}  // namespace

std::string run_device_case(Rng& rng) {
  const int64_t kind = rand_int(rng, 0, 9);
  bool threw = false;
  if (kind == 0) {  // Device(int)
    const int64_t v = pick(rng, std::vector<int64_t>{-1, -2, 0, 1, 2, 7, 127, 128, 511, 512, INT32_MAX, INT32_MIN});
    const std::string what = "Device(" + std::to_string(v) + ")";
    Device d(DeviceType::CPU);
    error_of(what, [&] { d = Device(static_cast<int>(v)); }, threw);
    if (v < 0 && !threw) throw Finding(what + " was accepted: a negative index must throw");
    if (v >= 0 && v <= 127 && threw) throw Finding(what + " threw");
    if (!threw && (!d.is_cuda() || d.index() != v)) throw Finding(what + " gave " + d.str());
    return what;
  }
  if (kind == 1) {  // null const char*
    const char* null_text = nullptr;
    try {
      Device d(null_text);
      (void)d;
    } catch (const TypeError& e) {
      if (!message_is_concrete(e.what())) throw Finding(std::string("Device(nullptr): vague message: ") + e.what());
      return "Device((const char*)nullptr)";
    } catch (const std::exception& e) {
      throw Finding(std::string("Device((const char*)nullptr) threw something other than TypeError: ") + e.what());
    }
    throw Finding("Device((const char*)nullptr) was accepted");
  }
  const std::string text = random_device_text(rng);
  const std::string what = "Device(std::string(" + printable(text) + "))";
  Device expect(DeviceType::CPU);
  bool unchecked = false;
  const bool valid = reference_device(text, expect, unchecked);
  Device got(DeviceType::CPU);
  error_of(what, [&] { got = Device(text); }, threw);
  if (!unchecked) {
    if (valid && threw) throw Finding(what + " threw, but c10's grammar accepts it");
    if (!valid && !threw) throw Finding(what + " was accepted as " + got.str() + ", but c10 rejects it");
    if (valid && got != expect) throw Finding(what + " gave " + got.str() + ", expected " + expect.str());
  }
  if (!threw && got.str() != text && text != "cuda:-1") {
    throw Finding(what + " prints as " + got.str());
  }
  // The NUL-terminated spelling parses the text up to its first NUL.
  const std::string c_text(text.c_str());
  Device got_c(DeviceType::CPU);
  bool threw_c = false;
  error_of("Device(\"" + printable(c_text) + "\")", [&] { got_c = Device(c_text.c_str()); }, threw_c);
  // A parsed cuda device beyond the emulated ones: using it must be a typed error, not a crash.
  if (!threw && got.is_cuda() && got.index() >= cuda::device_count()) {
    bool t2 = false;
    error_of("zeros({2}, " + got.str() + ")", [&] { (void)zeros({2}, TensorOptions().device(got)); }, t2);
    if (!t2) throw Finding("zeros({2}, device=" + got.str() + ") succeeded with " + std::to_string(cuda::device_count()) + " devices");
    error_of("ones({2}).to(" + got.str() + ")", [&] { (void)ones({2}).to(got); }, t2);
    if (!t2) throw Finding("to(" + got.str() + ") succeeded with " + std::to_string(cuda::device_count()) + " devices");
  }
  return what;
}

void add_factory_ops(std::vector<OpEntry>& ops) { ops.push_back({"factory", 10, gen_factory}); }

}  // namespace ctorch::fuzz
