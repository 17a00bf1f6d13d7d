// CUDA libraries loaded on first use (cuBLAS, cuFFT, NVRTC, cuDNN), as ATen's LazyNVRTC does for NVRTC.
// Linking them made every process pay their static initialization at start (cuBLAS ~80 ms,
// NVRTC ~20 ms, measured on the CI machine), GPU or not; now only the first GEMM or jiterator
// compile on a real device does.
#pragma once

namespace ctorch::inline api::backends::cuda {

/// dlopen()s `soname` (e.g. "libcublas.so.13") once, searching the default paths and then the
/// toolkit's library folder; throws DeviceError naming the library and dlerror() when absent.
void* open_cuda_library(const char* soname);
/// The address of `symbol` in `library` (from open_cuda_library); throws DeviceError when absent.
void* cuda_library_symbol(void* library, const char* soname, const char* symbol);

}  // namespace ctorch::api::backends::cuda

#define CTORCH_LAZY_STR_(x) #x
#define CTORCH_LAZY_XSTR_(x) CTORCH_LAZY_STR_(x)
/// The function `fn` of a lazily opened library, typed as its declaration (macro names such as
/// cublasCreate are expanded first, so the v2 symbol is looked up).
#define CTORCH_LAZY_SYMBOL(library, soname, fn) \
  reinterpret_cast<decltype(&fn)>(::ctorch::backends::cuda::cuda_library_symbol(library, soname, CTORCH_LAZY_XSTR_(fn)))
