// The whole public API of ctorch.
#pragma once

#include "ctorch/cuda.h"
#include "ctorch/emulation.h"
#include "ctorch/device.h"
#include "ctorch/dtype.h"
#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/generator.h"
#include "ctorch/indexing.h"
#include "ctorch/ops.h"
#include "ctorch/parallel.h"
#include "ctorch/print_options.h"
#include "ctorch/random.h"
#include "ctorch/scalar.h"
#include "ctorch/stream.h"
#include "ctorch/tensor.h"
