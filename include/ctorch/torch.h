// libtorch spellings over ctorch: a program written against libtorch 1.13's C++ API (torch::,
// at::, c10::, at::cuda::, c10::cuda::, torch::cuda::) compiles with `#include <torch/torch.h>`
// replaced by this header. Including it anywhere in a program makes `std::cout << tensor` print
// libtorch's format program-wide (ctorch::set_tensor_print_style; t.repr() stays Python's).
// The C++ frontend: torch::nn holders and torch::autograd in libtorch/nn.h, torch::optim in
// libtorch/optim.h, torch::save/load and archives in libtorch/serialize.h, the torch::data subset in
// libtorch/data.h. Not here because ctorch lacks the subsystem: sparse and quantized tensors.
// Complex dtypes exist (torch::kComplexFloat, torch::fft::fft, ...) with std::complex elements,
// not c10::complex.
#pragma once

#include "ctorch/ctorch.h"
#include "ctorch/libtorch/context.h"
#include "ctorch/libtorch/arg.h"
#include "ctorch/libtorch/core.h"
#include "ctorch/libtorch/enum.h"
#include "ctorch/libtorch/cuda.h"
#include "ctorch/libtorch/data.h"
#include "ctorch/libtorch/nn.h"
#include "ctorch/libtorch/optim.h"
#include "ctorch/libtorch/autograd.h"
#include "ctorch/libtorch/parallel.h"
#include "ctorch/libtorch/serialize.h"
#include "ctorch/libtorch/version.h"
