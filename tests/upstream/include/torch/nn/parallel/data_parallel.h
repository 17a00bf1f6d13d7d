// Forwards PyTorch's <torch/nn/parallel/data_parallel.h> to ctorch's libtorch-compatibility header (tests/upstream only).
#pragma once
#include <ctorch/torch.h>
