// libtorch's torch::data (docs/libtorch.md "torch::data"), one concept per header under
// libtorch/data/: Example<Data, Target> and WorkerException (example.h), samplers (samplers.h),
// transforms (transforms.h), datasets: BatchDataset, Dataset, StreamDataset, StatefulDataset,
// MapDataset, SharedBatchDataset, TensorDataset, MNIST (datasets.h), ChunkDataset (chunk.h), and
// the loaders with make_data_loader (dataloader.h), whose worker threads use ctorch's
// DataShuttle / OrderedSequencer (ctorch/data/worker_queue.h). These are templates over any
// example and batch types, as libtorch's; ctorch's own loader (ctorch::data::DataLoader) is the
// Python-style one. Not here: serialization of samplers and stateful datasets (torch::save).
#pragma once

#include <memory>

#include "ctorch/libtorch/data/chunk.h"
#include "ctorch/libtorch/data/dataloader.h"
#include "ctorch/libtorch/data/datasets.h"
#include "ctorch/libtorch/data/example.h"
#include "ctorch/libtorch/data/samplers.h"
#include "ctorch/libtorch/data/transforms.h"

namespace torch {
/// libtorch's torch::make_unique (torch/csrc/utils/memory.h): std::make_unique.
using std::make_unique;
}  // namespace torch
