// Module checkpoints in the safetensors format: state_dict to a file and back, onto the module's device.
#pragma once

#include <map>
#include <string>

#include "ctorch/nn_module.h"

namespace ctorch::nn {

/// Writes module.state_dict() to `path` as safetensors (safetensors.torch.save_file(model.state_dict(), path)).
void save(const Module& module, const std::string& path);

/// Loads a safetensors state dict from `path` onto the module's device (wherever it was saved:
/// the map_location a checkpoint from cuda:1 needs on a cpu-only machine) and copies it in with
/// load_state_dict(strict). A corrupt, truncated or mismatching file raises and changes nothing.
void load(Module& module, const std::string& path, bool strict = true);

}  // namespace ctorch::nn
