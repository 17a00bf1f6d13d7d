// torch.fft (ctorch._C._fft): the discrete Fourier transforms over FFTW (cpu, emulated devices).
#include "bindings.h"

namespace ctorch::inline api::python {
namespace {

std::optional<std::vector<int64_t>> opt_list(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_int_list(h);
}

std::optional<std::string_view> norm_of(const std::optional<std::string>& norm) {
  if (!norm) return std::nullopt;
  return std::string_view(*norm);
}

}  // namespace

void bind_fft(py::module_& m) {
#define CTORCH_FFT_1D(name)                                                                                   \
  m.def(#name, [](const Tensor& x, std::optional<int64_t> n, int64_t dim, std::optional<std::string> norm) { \
    return no_gil([&] { return fft::name(x, n, dim, norm_of(norm)); });                                      \
  }, py::arg("input"), py::arg("n") = py::none(), py::arg("dim") = -1, py::arg("norm") = py::none());
  CTORCH_FFT_1D(fft) CTORCH_FFT_1D(ifft) CTORCH_FFT_1D(rfft) CTORCH_FFT_1D(irfft)
#undef CTORCH_FFT_1D
#define CTORCH_FFT_ND(name)                                                                                \
  m.def(#name, [](const Tensor& x, py::handle s, py::handle dim, std::optional<std::string> norm) {         \
    auto ss = opt_list(s), dd = opt_list(dim);                                                             \
    return no_gil([&] {                                                                                    \
      return fft::name(x, ss ? OptionalIntArrayRef(*ss) : std::nullopt,                                   \
                       dd ? OptionalIntArrayRef(*dd) : std::nullopt, norm_of(norm));                       \
    });                                                                                                    \
  }, py::arg("input"), py::arg("s") = py::none(), py::arg("dim") = py::none(), py::arg("norm") = py::none());
  CTORCH_FFT_ND(fftn) CTORCH_FFT_ND(ifftn) CTORCH_FFT_ND(rfftn) CTORCH_FFT_ND(irfftn)
#undef CTORCH_FFT_ND
#define CTORCH_FFT_2D(name)                                                                                \
  m.def(#name, [](const Tensor& x, py::handle s, py::handle dim, std::optional<std::string> norm) {         \
    auto ss = opt_list(s);                                                                                 \
    auto dd = to_int_list(dim);                                                                            \
    return no_gil([&] { return fft::name(x, ss ? OptionalIntArrayRef(*ss) : std::nullopt, dd, norm_of(norm)); }); \
  }, py::arg("input"), py::arg("s") = py::none(), py::arg("dim") = py::make_tuple(-2, -1),                 \
     py::arg("norm") = py::none());
  CTORCH_FFT_2D(fft2) CTORCH_FFT_2D(ifft2) CTORCH_FFT_2D(rfft2) CTORCH_FFT_2D(irfft2)
#undef CTORCH_FFT_2D
  m.def("fftfreq", [](int64_t n, double d, const py::kwargs& k) { return fft::fftfreq(n, d, options_from(k)); },
        py::arg("n"), py::arg("d") = 1.0);
  m.def("rfftfreq", [](int64_t n, double d, const py::kwargs& k) { return fft::rfftfreq(n, d, options_from(k)); },
        py::arg("n"), py::arg("d") = 1.0);
  m.def("fftshift", [](const Tensor& x, py::handle dim) {
    auto dd = opt_list(dim);
    return fft::fftshift(x, dd ? OptionalIntArrayRef(*dd) : std::nullopt);
  }, py::arg("input"), py::arg("dim") = py::none());
  m.def("ifftshift", [](const Tensor& x, py::handle dim) {
    auto dd = opt_list(dim);
    return fft::ifftshift(x, dd ? OptionalIntArrayRef(*dd) : std::nullopt);
  }, py::arg("input"), py::arg("dim") = py::none());
}

}  // namespace ctorch::api::python
