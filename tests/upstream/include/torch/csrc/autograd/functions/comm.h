// Forwards PyTorch's <torch/csrc/autograd/functions/comm.h> to ctorch's libtorch-compatibility header (tests/upstream only).
#pragma once
#include <ctorch/torch.h>
