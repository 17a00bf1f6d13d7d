// libtorch's version macros (torch/version.h): the libtorch release whose C++ API ctorch follows.
#pragma once

#include "ctorch/version.h"

/// Major version of the libtorch API ctorch follows.
#define TORCH_VERSION_MAJOR 1
/// Minor version of the libtorch API ctorch follows.
#define TORCH_VERSION_MINOR 13
/// Patch version of the libtorch API ctorch follows.
#define TORCH_VERSION_PATCH 1
/// "1.13.1" (CTORCH_TORCH_API_VERSION); ctorch's own version is CTORCH_VERSION.
#define TORCH_VERSION CTORCH_TORCH_API_VERSION
