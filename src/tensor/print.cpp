// Tensor printing: repr() (PyTorch's Python format), cpp_repr() (libtorch's operator<< format,
// aten/src/ATen/core/Formatting.cpp), type_string(), and the global print options.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <iomanip>
#include <mutex>
#include <ostream>
#include <sstream>
#include <tuple>
#include <vector>

#include "ctorch/print_options.h"
#include "ctorch/tensor.h"
#include "tensor/print_format.h"

namespace ctorch::inline api {

namespace {

std::mutex g_options_mutex;
PrintOptions g_options;

// A cpu tensor with the same values (the tensor itself when already on cpu).
Tensor host_copy(const Tensor& t) { return t.is_cpu() ? t : t.cpu(); }

// All elements of a cpu tensor, row-major, as doubles (libtorch prints t.to(kCPU, kDouble).contiguous()).
std::vector<double> to_doubles(const Tensor& host) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(host.numel()));
  if (host.numel() == 0) return out;
  const print_detail::ElementReader reader(host);
  const IntArrayRef sizes = host.sizes(), strides = host.strides();
  const size_t ndim = sizes.size();
  std::vector<int64_t> index(ndim, 0);
  int64_t offset = 0;
  for (int64_t n = 0; n < host.numel(); ++n) {
    out.push_back(reader.as_double(offset));
    for (size_t d = ndim; d-- > 0;) {  // odometer increment, last dim fastest
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= (sizes[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
  return out;
}

// ---- libtorch's Formatting.cpp, step for step ------------------------------------------------

std::ios_base& defaultfloat(std::ios_base& base) {
  base.unsetf(std::ios_base::floatfield);
  return base;
}

// __printFormat: chooses the stream format and returns (scale, field width).
std::tuple<double, int64_t> print_format(std::ostream& stream, const double* p, int64_t size) {
  if (size == 0) return {1., 0};
  bool int_mode = true;
  for (int64_t i = 0; i < size; i++) {
    const double z = p[i];
    if (std::isfinite(z) && z != std::ceil(z)) {
      int_mode = false;
      break;
    }
  }
  int64_t offset = 0;
  while (!std::isfinite(p[offset])) {
    offset = offset + 1;
    if (offset == size) break;
  }
  double exp_min;
  double exp_max;
  if (offset == size) {
    exp_min = 1;
    exp_max = 1;
  } else {
    exp_min = std::fabs(p[offset]);
    exp_max = std::fabs(p[offset]);
    for (int64_t i = offset; i < size; i++) {
      const double z = std::fabs(p[i]);
      if (std::isfinite(z)) {
        if (z < exp_min) exp_min = z;
        if (p[i] > exp_max) exp_max = z;  // compares the signed value, as libtorch does
      }
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  double scale = 1;
  int64_t sz;
  if (int_mode) {
    if (exp_max > 9) {
      sz = 11;
      stream << std::scientific << std::setprecision(4);
    } else {
      sz = static_cast<int64_t>(exp_max) + 1;
      stream << defaultfloat;
    }
  } else {
    if (exp_max - exp_min > 4) {
      sz = 11;
      if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) sz = sz + 1;
      stream << std::scientific << std::setprecision(4);
    } else {
      if (exp_max > 5 || exp_max < 0) {
        sz = 7;
        scale = std::pow(10, exp_max - 1);
        stream << std::fixed << std::setprecision(4);
      } else {
        sz = exp_max == 0 ? 7 : static_cast<int64_t>(exp_max) + 6;
        stream << std::fixed << std::setprecision(4);
      }
    }
  }
  return {scale, sz};
}

void print_indent(std::ostream& stream, int64_t indent) {
  for (int64_t i = 0; i < indent; i++) stream << " ";
}

void print_scale(std::ostream& stream, double scale) {
  std::ios saved(nullptr);
  saved.copyfmt(stream);
  stream << defaultfloat << scale << " *" << '\n';
  stream.copyfmt(saved);
}

// __printMatrix over a contiguous rows x cols block (including its "Columns a to b" quirks).
void print_matrix(std::ostream& stream, const double* p, int64_t rows, int64_t cols, int64_t linesize,
                  int64_t indent) {
  auto [scale, sz] = print_format(stream, p, rows * cols);
  print_indent(stream, indent);
  // libtorch divides by zero columns into an endless loop only for absurd linesizes; keep at least one.
  const int64_t columns_per_line = std::max<int64_t>((linesize - indent) / (sz + 1), 1);
  int64_t first_column = 0;
  int64_t last_column = -1;
  while (first_column < cols) {
    last_column = first_column + columns_per_line <= cols ? first_column + columns_per_line - 1 : cols - 1;
    if (columns_per_line < cols) {
      if (first_column != 0) stream << '\n';
      stream << "Columns " << first_column + 1 << " to " << last_column + 1;
      print_indent(stream, indent);
    }
    if (scale != 1) {
      print_scale(stream, scale);
      print_indent(stream, indent);
    }
    for (int64_t l = 0; l < rows; l++) {
      const double* row = p + l * cols;
      for (int64_t c = first_column; c < last_column + 1; c++) {
        stream << std::setw(static_cast<int>(sz)) << row[c] / scale;
        if (c == last_column) {
          stream << '\n';
          if (l != rows - 1) {
            print_indent(stream, indent);
            if (scale != 1) stream << " ";
          }
        } else {
          stream << " ";
        }
      }
    }
    first_column = last_column + 1;
  }
}

// __printTensor: one "(i,j,.,.) = " block per matrix, the first leading dim varying fastest.
void print_tensor(std::ostream& stream, const double* p, const std::vector<int64_t>& sizes, int64_t linesize) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> counter(static_cast<size_t>(ndim - 2), 0);
  counter[0] = -1;
  std::vector<int64_t> contiguous_strides(static_cast<size_t>(ndim), 1);
  for (int64_t d = ndim - 2; d >= 0; --d) contiguous_strides[d] = contiguous_strides[d + 1] * sizes[d + 1];
  bool start = true;
  while (true) {
    bool finished = false;
    for (int64_t i = 0;; i++) {
      counter[i] = counter[i] + 1;
      if (counter[i] >= sizes[i]) {
        if (i == ndim - 3) {
          finished = true;
          break;
        }
        counter[i] = 0;
      } else {
        break;
      }
    }
    if (finished) break;
    if (start) {
      start = false;
    } else {
      stream << '\n';
    }
    stream << "(";
    int64_t offset = 0;
    for (int64_t i = 0; i < ndim - 2; i++) {
      offset += counter[i] * contiguous_strides[i];
      stream << counter[i] + 1 << ",";
    }
    stream << ".,.) = " << '\n';
    print_matrix(stream, p + offset, sizes[ndim - 2], sizes[ndim - 1], linesize, 1);
  }
}

// DeprecatedTypeProperties::toString(): "CPUFloatType", "CUDALongType".
std::string type_properties_name(const Tensor& t) {
  return std::string(t.is_cuda() ? "CUDA" : "CPU") + scalar_type_cpp_name(t.dtype()) + "Type";
}

std::string libtorch_print(const Tensor& t, int64_t linesize) {
  if (!t.defined()) return "[ Tensor (undefined) ]";
  std::ostringstream stream;
  const Tensor host = host_copy(t);
  const std::vector<double> values = to_doubles(host);
  const std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  const int64_t ndim = t.dim();
  const std::string type_name = type_properties_name(t);
  if (ndim == 0) {
    stream << defaultfloat << values[0] << '\n';
    stream << "[ " << type_name << "{}";
  } else if (ndim == 1) {
    if (!values.empty()) {
      auto [scale, sz] = print_format(stream, values.data(), static_cast<int64_t>(values.size()));
      if (scale != 1) print_scale(stream, scale);
      for (double v : values) stream << std::setw(static_cast<int>(sz)) << v / scale << '\n';
    }
    stream << "[ " << type_name << "{" << sizes[0] << "}";
  } else if (ndim == 2) {
    if (!values.empty()) print_matrix(stream, values.data(), sizes[0], sizes[1], linesize, 0);
    stream << "[ " << type_name << "{" << sizes[0] << "," << sizes[1] << "}";
  } else {
    if (!values.empty()) print_tensor(stream, values.data(), sizes, linesize);
    stream << "[ " << type_name << "{" << sizes[0];
    for (int64_t i = 1; i < ndim; i++) stream << "," << sizes[i];
    stream << "}";
  }
  stream << " ]";
  return stream.str();
}

}  // namespace

void set_printoptions(const PrintOptions& options) {
  std::lock_guard<std::mutex> lock(g_options_mutex);
  g_options = options;
}

PrintOptions get_printoptions() {
  std::lock_guard<std::mutex> lock(g_options_mutex);
  return g_options;
}

std::string Tensor::repr() const {
  if (!defined()) return "tensor(undefined)";
  return print_detail::python_repr(*this, host_copy(*this), get_printoptions());
}

std::string Tensor::cpp_repr() const { return libtorch_print(*this, 80); }

std::string Tensor::type_string() const {
  if (!defined()) return "UndefinedType";
  return std::string(is_cuda() ? "torch.cuda." : "torch.") + scalar_type_cpp_name(dtype()) + "Tensor";
}

namespace {
std::atomic<TensorPrintStyle> g_print_style{TensorPrintStyle::Python};
}  // namespace

void set_tensor_print_style(TensorPrintStyle style) { g_print_style.store(style, std::memory_order_relaxed); }

TensorPrintStyle get_tensor_print_style() { return g_print_style.load(std::memory_order_relaxed); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return os << (get_tensor_print_style() == TensorPrintStyle::Libtorch ? t.cpp_repr() : t.repr());
}

}  // namespace ctorch::api
