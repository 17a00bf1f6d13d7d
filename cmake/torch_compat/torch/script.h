// <torch/script.h>: TorchScript (torch::jit) is not part of ctorch.
#pragma once
#error "ctorch: <torch/script.h> (TorchScript: torch::jit::load, script modules) is out of scope; use <torch/torch.h> and torch::save/torch::load checkpoints"
