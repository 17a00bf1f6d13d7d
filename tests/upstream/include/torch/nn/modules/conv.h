// Forwards PyTorch's <torch/nn/modules/conv.h> to ctorch's libtorch-compatibility header (tests/upstream only).
#pragma once
#include <ctorch/torch.h>
