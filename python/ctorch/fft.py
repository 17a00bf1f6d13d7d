"""torch.fft: discrete Fourier transforms (FFTW on cpu and emulated devices, cuFFT on real GPUs)."""
from . import _C

_f = _C._fft
fft, ifft, rfft, irfft = _f.fft, _f.ifft, _f.rfft, _f.irfft
fftn, ifftn, rfftn, irfftn = _f.fftn, _f.ifftn, _f.rfftn, _f.irfftn
fft2, ifft2, rfft2, irfft2 = _f.fft2, _f.ifft2, _f.rfft2, _f.irfft2
fftfreq, rfftfreq, fftshift, ifftshift = _f.fftfreq, _f.rfftfreq, _f.fftshift, _f.ifftshift
