// Forwards PyTorch's <torch/nn/module.h> to ctorch's libtorch-compatibility header (tests/upstream only).
#pragma once
#include <ctorch/torch.h>
