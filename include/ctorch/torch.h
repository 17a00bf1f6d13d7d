// libtorch spellings over ctorch: a program written against libtorch 1.13's C++ API (torch::,
// at::, c10::, at::cuda::, c10::cuda::, torch::cuda::) compiles with `#include <torch/torch.h>`
// replaced by this header. Including it anywhere in a program makes `std::cout << tensor` print
// libtorch's format program-wide (ctorch::set_tensor_print_style; t.repr() stays Python's).
// torch::data: the subset in ctorch/libtorch/data.h.
// Not here because ctorch lacks the subsystem: autograd, nn, optim (the training issue),
// complex dtypes, sparse and quantized tensors.
#pragma once

#include "ctorch/ctorch.h"
#include "ctorch/libtorch/core.h"
#include "ctorch/libtorch/cuda.h"
#include "ctorch/libtorch/data.h"
#include "ctorch/libtorch/version.h"
