// torch.fft: discrete Fourier transforms of tensors (cpu: FFTW; cuda: cuFFT; emulated cuda: FFTW on
// the stream worker). Signatures, defaults, norm modes, promotion and errors follow PyTorch 1.13.
// norm is "backward" (default: no scaling forward, 1/n inverse), "forward" (1/n forward) or "ortho".
#pragma once

#include <optional>
#include <string_view>

#include "ctorch/array_ref.h"
#include "ctorch/tensor.h"

namespace ctorch::fft {

/// torch.fft.fft: 1-d transform along `dim`, input zero-padded or trimmed to `n` (real inputs become complex).
Tensor fft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
           std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.ifft: inverse of fft.
Tensor ifft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
            std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.rfft: transform of a real input, the n / 2 + 1 non-negative frequencies.
Tensor rfft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
            std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.irfft: inverse of rfft; `n` real outputs (default 2 * (input.size(dim) - 1)).
Tensor irfft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
             std::optional<std::string_view> norm = std::nullopt);

/// torch.fft.fftn: transform over `dim` (default: all dims, or the last s.size() dims) with sizes `s`.
Tensor fftn(const Tensor& input, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
            std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.ifftn: inverse of fftn.
Tensor ifftn(const Tensor& input, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
             std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.rfftn: fftn of a real input, onesided in the last transformed dim.
Tensor rfftn(const Tensor& input, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
             std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.irfftn: inverse of rfftn.
Tensor irfftn(const Tensor& input, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
              std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.fft2: fftn over the last two dims.
Tensor fft2(const Tensor& input, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
            std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.ifft2: ifftn over the last two dims.
Tensor ifft2(const Tensor& input, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
             std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.rfft2: rfftn over the last two dims.
Tensor rfft2(const Tensor& input, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
             std::optional<std::string_view> norm = std::nullopt);
/// torch.fft.irfft2: irfftn over the last two dims.
Tensor irfft2(const Tensor& input, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
              std::optional<std::string_view> norm = std::nullopt);

/// torch.fft.fftfreq: the sample frequencies [0, 1, ..., -(n/2), ..., -1] / (d * n).
Tensor fftfreq(int64_t n, double d = 1.0, TensorOptions options = {});
/// torch.fft.rfftfreq: [0, 1, ..., n/2] / (d * n).
Tensor rfftfreq(int64_t n, double d = 1.0, TensorOptions options = {});
/// torch.fft.fftshift: zero frequency moved to the centre of `dim` (default: all dims).
Tensor fftshift(const Tensor& input, OptionalIntArrayRef dim = std::nullopt);
/// torch.fft.ifftshift: inverse of fftshift.
Tensor ifftshift(const Tensor& input, OptionalIntArrayRef dim = std::nullopt);

}  // namespace ctorch::fft
