// Forwards PyTorch's <torch/nn/pimpl.h> to ctorch's libtorch-compatibility header (tests/upstream only).
#pragma once
#include <ctorch/torch.h>
