// Forwards PyTorch's <torch/utils.h> to ctorch's libtorch-compatibility header (tests/upstream only).
#pragma once
#include <ctorch/torch.h>
