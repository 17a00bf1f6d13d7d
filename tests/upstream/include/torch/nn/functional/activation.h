// PyTorch's <torch/nn/functional/activation.h>, included by test/cpp/api files: forwards to <ctorch/torch.h> (tests using
// what it declares beyond that do not compile and are counted so).
#pragma once
#include <ctorch/torch.h>
