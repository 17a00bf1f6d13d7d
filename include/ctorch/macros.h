// Portability macros shared by host and device code.
#pragma once

#if defined(__CUDACC__)
/// Marks a function callable from host and device code (empty on host-only compilers).
#define CTORCH_HD __host__ __device__
/// Keeps a shared helper out of line in device code (one copy per kernel file: less for ptxas).
#define CTORCH_DEVICE_NOINLINE __noinline__
#else
/// Marks a function callable from host and device code (empty on host-only compilers).
#define CTORCH_HD
/// Keeps a shared helper out of line in device code (nothing on host-only compilers).
#define CTORCH_DEVICE_NOINLINE
#endif

/// Exported symbol of libctorch.
#define CTORCH_API __attribute__((visibility("default")))
