// Portability macros shared by host and device code.
#pragma once

#if defined(__CUDACC__)
/// Marks a function callable from host and device code (empty on host-only compilers).
#define CTORCH_HD __host__ __device__
#else
/// Marks a function callable from host and device code (empty on host-only compilers).
#define CTORCH_HD
#endif

/// Exported symbol of libctorch.
#define CTORCH_API __attribute__((visibility("default")))
