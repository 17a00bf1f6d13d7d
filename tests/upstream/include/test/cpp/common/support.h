// PyTorch's <test/cpp/common/support.h>, replaced by ctorch's stand-in (tests/upstream/support.h).
#pragma once
#include "../../../../support.h"
