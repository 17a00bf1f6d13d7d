// Forwards PyTorch's <torch/optim/sgd.h> to ctorch's libtorch-compatibility header (tests/upstream only).
#pragma once
#include <ctorch/torch.h>
