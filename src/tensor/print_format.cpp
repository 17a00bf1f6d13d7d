// PyTorch 1.13's Python tensor repr (torch/_tensor_str.py), reading elements through raw strides.
#include "tensor/print_format.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

namespace ctorch::inline api::print_detail {

namespace {

template <class T>
T load(const char* data, int64_t offset) {
  T v;
  std::memcpy(&v, data + offset * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

std::atomic<GradFnNameProvider> g_grad_fn_provider{nullptr};

// printf with one precision argument; sized exactly, so any precision and magnitude fits.
std::string printf_double(const char* fmt, int precision, double v) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, fmt, precision, v);
  if (n < 0) return std::string();
  if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
  std::string s(static_cast<size_t>(n), '\0');
  std::snprintf(s.data(), s.size() + 1, fmt, precision, v);
  return s;
}

// Python spells non-finite floats "nan" (never "-nan"), "inf" and "-inf" under every format.
bool non_finite_str(double v, std::string& out) {
  if (std::isnan(v)) {
    out = "nan";
    return true;
  }
  if (std::isinf(v)) {
    out = v > 0 ? "inf" : "-inf";
    return true;
  }
  return false;
}

std::string spaces(int64_t n) { return std::string(static_cast<size_t>(std::max<int64_t>(n, 0)), ' '); }

// Python's str(tuple(sizes)): "(0, 3)", "(0,)".
std::string tuple_str(IntArrayRef sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) s += ",";
  return s + ")";
}

// _Formatter: decides int/fixed/scientific mode and the common element width.
class Formatter {
 public:
  Formatter(const ElementReader& reader, const std::vector<int64_t>& offsets, const PrintOptions& options)
      : reader_(reader), floating_(is_floating_point(reader.dtype()) || is_complex(reader.dtype())), precision_(std::max(options.precision, 0)) {
    if (!floating_) {
      for (int64_t off : offsets) max_width_ = std::max<int64_t>(max_width_, int_str(off).size());
      return;
    }
    std::vector<double> vals;
    for (int64_t off : offsets) {
      const double v = reader_.as_double(off);
      if (std::isfinite(v) && v != 0) vals.push_back(v);
    }
    if (vals.empty()) return;  // as PyTorch: no valid number, the sci_mode option is not applied either
    double lo = std::fabs(vals[0]), hi = lo;
    for (double v : vals) {
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (int_mode_ && v != std::ceil(v)) int_mode_ = false;
    }
    const bool wide = hi / lo > 1000.0 || hi > 1.0e8;
    if (int_mode_) {
      if (wide) {
        sci_mode_ = true;
        for (double v : vals) max_width_ = std::max<int64_t>(max_width_, py_format_e(v, precision_).size());
      } else {
        for (double v : vals) max_width_ = std::max<int64_t>(max_width_, py_format_f(v, 0).size() + 1);
      }
    } else {
      if (wide || lo < 1.0e-4) {
        sci_mode_ = true;
        for (double v : vals) max_width_ = std::max<int64_t>(max_width_, py_format_e(v, precision_).size());
      } else {
        for (double v : vals) max_width_ = std::max<int64_t>(max_width_, py_format_f(v, precision_).size());
      }
    }
    if (options.sci_mode.has_value()) sci_mode_ = *options.sci_mode;
  }

  int64_t width() const { return max_width_; }

  // The element at `offset`, right-aligned to width().
  std::string format(int64_t offset) const {
    std::string s;
    if (floating_) {
      const double v = reader_.as_double(offset);
      if (sci_mode_) {
        s = py_format_e(v, precision_);
      } else if (int_mode_) {
        s = py_format_f(v, 0);
        if (std::isfinite(v)) s += '.';
      } else {
        s = py_format_f(v, precision_);
      }
    } else {
      s = int_str(offset);
    }
    if (static_cast<int64_t>(s.size()) < max_width_) s.insert(0, spaces(max_width_ - static_cast<int64_t>(s.size())));
    return s;
  }

 private:
  std::string int_str(int64_t offset) const {
    if (reader_.dtype() == kBool) return reader_.as_int(offset) ? "True" : "False";
    return std::to_string(reader_.as_int(offset));
  }

  const ElementReader& reader_;
  bool floating_;
  int precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int64_t max_width_ = 1;
};

constexpr int64_t kEllipsis = -1;

// _tensor_str / _tensor_str_with_formatter / _vector_str over a non-empty cpu tensor.
class ReprBuilder {
 public:
  ReprBuilder(const Tensor& host, const PrintOptions& options)
      : reader_(host, 0), imag_reader_(host, 1), options_(options), sizes_(host.sizes().begin(), host.sizes().end()),
        strides_(host.strides().begin(), host.strides().end()) {
    const int64_t ndim = static_cast<int64_t>(sizes_.size());
    const bool summarize = host.numel() > options.threshold;
    const int64_t edge = std::max(options.edgeitems, 0);
    kept_.resize(static_cast<size_t>(ndim));
    for (int64_t d = 0; d < ndim; ++d) {
      std::vector<int64_t>& k = kept_[static_cast<size_t>(d)];
      const int64_t size = sizes_[static_cast<size_t>(d)];
      if (summarize && size > 2 * edge) {
        for (int64_t i = 0; i < edge; ++i) k.push_back(i);
        k.push_back(kEllipsis);
        // Python's self[-edgeitems:] is the whole vector when edgeitems == 0.
        const int64_t tail = (d == ndim - 1 && edge == 0) ? 0 : size - edge;
        for (int64_t i = tail; i < size; ++i) k.push_back(i);
      } else {
        for (int64_t i = 0; i < size; ++i) k.push_back(i);
      }
    }
    std::vector<int64_t> offsets;
    collect(0, 0, offsets);
    formatter_.emplace(reader_, offsets, options_);
    // Complex: one formatter for the real parts, one for the imaginary parts (_tensor_str).
    if (is_complex(host.dtype())) imag_formatter_.emplace(imag_reader_, offsets, options_);
  }

  ReprBuilder(const ReprBuilder&) = delete;
  ReprBuilder& operator=(const ReprBuilder&) = delete;

  std::string str(int64_t indent) const {
    std::string out;
    tensor_str(out, 0, 0, indent);
    return out;
  }

 private:
  // Offsets of every element get_summarized_data keeps.
  void collect(size_t d, int64_t offset, std::vector<int64_t>& out) const {
    if (d == sizes_.size()) {
      out.push_back(offset);
      return;
    }
    for (int64_t i : kept_[d]) {
      if (i != kEllipsis) collect(d + 1, offset + i * strides_[d], out);
    }
  }

  void tensor_str(std::string& out, size_t d, int64_t offset, int64_t indent) const {
    const size_t remaining = sizes_.size() - d;
    if (remaining == 0) {
      out += element(offset);
      return;
    }
    if (remaining == 1) {
      vector_str(out, d, offset, indent);
      return;
    }
    std::string sep(1, ',');
    sep.append(remaining - 1, '\n');
    sep += spaces(indent + 1);
    out += '[';
    bool first = true;
    for (int64_t i : kept_[d]) {
      if (!first) out += sep;
      first = false;
      if (i == kEllipsis) {
        out += "...";
      } else {
        tensor_str(out, d + 1, offset + i * strides_[d], indent + 1);
      }
    }
    out += ']';
  }

  void vector_str(std::string& out, size_t d, int64_t offset, int64_t indent) const {
    int64_t element_length = formatter_->width() + 2;
    if (imag_formatter_) element_length += imag_formatter_->width() + 1;  // the imaginary part and its 'j'
    const int64_t room = options_.linewidth - indent;
    const int64_t per_line = room > 0 ? std::max<int64_t>(1, room / element_length) : 1;
    std::string line_sep = ",\n";
    line_sep += spaces(indent + 1);
    out += '[';
    int64_t count = 0;
    for (int64_t i : kept_[d]) {
      if (count > 0) out += (count % per_line == 0) ? line_sep : std::string(", ");
      out += i == kEllipsis ? std::string(" ...") : element(offset + i * strides_[d]);
      ++count;
    }
    out += ']';
  }

  // _val_formatter: "1.+2.j", "3.-1.j" (the imaginary part's padding stripped).
  std::string element(int64_t offset) const {
    if (!imag_formatter_) return formatter_->format(offset);
    std::string imag = imag_formatter_->format(offset) + "j";
    imag.erase(0, imag.find_first_not_of(' '));
    const std::string real = formatter_->format(offset);
    return imag[0] == '+' || imag[0] == '-' ? real + imag : real + "+" + imag;
  }

  ElementReader reader_;
  ElementReader imag_reader_;  // read only for complex tensors
  PrintOptions options_;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  std::vector<std::vector<int64_t>> kept_;  // per dim: indices shown, kEllipsis where "..." goes
  std::optional<Formatter> formatter_;
  std::optional<Formatter> imag_formatter_;
};

// _add_suffixes, including its off-by-two last_line_len when there is no newline.
std::string add_suffixes(const std::string& tensor_str, const std::vector<std::string>& suffixes, int64_t indent,
                         int64_t linewidth) {
  std::string out = tensor_str;
  const size_t nl = tensor_str.rfind('\n');
  const int64_t rfind = nl == std::string::npos ? -1 : static_cast<int64_t>(nl);
  int64_t last_line_len = static_cast<int64_t>(tensor_str.size()) - rfind + 1;
  for (const std::string& suffix : suffixes) {
    const int64_t len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > linewidth) {
      out += ",\n";
      out += spaces(indent);
      out += suffix;
      last_line_len = indent + len;
    } else {
      out += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

}  // namespace

double ElementReader::as_double(int64_t offset) const {
  switch (dtype_) {
    case ScalarType::UInt8: return load<uint8_t>(data_, offset);
    case ScalarType::Int8: return load<int8_t>(data_, offset);
    case ScalarType::Int16: return load<int16_t>(data_, offset);
    case ScalarType::Int32: return load<int32_t>(data_, offset);
    case ScalarType::Int64: return static_cast<double>(load<int64_t>(data_, offset));
    case ScalarType::Float16: return static_cast<float>(load<Half>(data_, offset));
    case ScalarType::Float32: return load<float>(data_, offset);
    case ScalarType::Float64: return load<double>(data_, offset);
    case ScalarType::Bool: return load<uint8_t>(data_, offset) != 0 ? 1.0 : 0.0;
    case ScalarType::BFloat16: return static_cast<float>(load<BFloat16>(data_, offset));
    case ScalarType::ComplexFloat: return load<float>(data_, 2 * offset + part_);
    case ScalarType::ComplexDouble: return load<double>(data_, 2 * offset + part_);
  }
  return 0;
}

int64_t ElementReader::as_int(int64_t offset) const {
  switch (dtype_) {
    case ScalarType::UInt8: return load<uint8_t>(data_, offset);
    case ScalarType::Int8: return load<int8_t>(data_, offset);
    case ScalarType::Int16: return load<int16_t>(data_, offset);
    case ScalarType::Int32: return load<int32_t>(data_, offset);
    case ScalarType::Int64: return load<int64_t>(data_, offset);
    case ScalarType::Bool: return load<uint8_t>(data_, offset) != 0 ? 1 : 0;
    default: return static_cast<int64_t>(as_double(offset));
  }
}

std::string py_format_e(double v, int precision) {
  std::string s;
  if (non_finite_str(v, s)) return s;
  return printf_double("%.*e", std::max(precision, 0), v);
}

std::string py_format_f(double v, int precision) {
  std::string s;
  if (non_finite_str(v, s)) return s;
  return printf_double("%.*f", std::max(precision, 0), v);
}

void set_grad_fn_name_provider(GradFnNameProvider provider) { g_grad_fn_provider.store(provider); }

GradFnNameProvider grad_fn_name_provider() { return g_grad_fn_provider.load(); }

std::string python_repr(const Tensor& original, const Tensor& host, const PrintOptions& options) {
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  // The default device is always cpu in ctorch, so every other device is printed.
  if (!original.is_cpu()) suffixes.push_back("device='" + original.device().str() + "'");
  const ScalarType dtype = host.dtype();
  const ScalarType default_dtype = get_default_dtype();
  std::string body;
  if (host.numel() == 0) {
    if (host.dim() != 1) suffixes.push_back("size=" + tuple_str(host.sizes()));
    if (dtype != default_dtype) suffixes.push_back("dtype=" + dtype_name(dtype));
    body = "[]";
  } else {
    const ScalarType default_complex = default_dtype == kFloat64 ? kComplexDouble : kComplexFloat;
    const bool has_default_dtype =
        dtype == default_dtype || dtype == default_complex || dtype == kInt64 || dtype == kBool;
    if (!has_default_dtype) suffixes.push_back("dtype=" + dtype_name(dtype));
    body = ReprBuilder(host, options).str(indent);
  }
  const GradFnNameProvider provider = grad_fn_name_provider();
  const std::string grad_fn = provider != nullptr ? provider(original) : std::string();
  if (!grad_fn.empty()) {
    suffixes.push_back("grad_fn=<" + grad_fn + ">");
  } else if (original.requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }
  return add_suffixes(prefix + body, suffixes, indent, options.linewidth);
}

}  // namespace ctorch::api::print_detail
