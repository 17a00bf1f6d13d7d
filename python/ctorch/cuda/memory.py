"""torch.cuda.memory: the caching allocator's statistics, summaries and snapshots."""
import json

from .. import _C
from . import (  # noqa: F401
    memory_allocated, max_memory_allocated, memory_reserved, max_memory_reserved, memory_stats, memory_summary,
    memory_snapshot, empty_cache, reset_peak_memory_stats, set_per_process_memory_fraction, list_gpu_processes,
    caching_allocator_alloc, caching_allocator_delete, get_allocator_backend, mem_get_info,
)


CUDAPluggableAllocator = _C._cuda.CUDAPluggableAllocator
change_current_allocator = _C._cuda.change_current_allocator


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=2**63 - 1):
    """Starts (or, with enabled=None, stops) recording allocations for snapshots; frames are C++ frames."""
    if enabled is True:
        enabled = "all"
    elif enabled is False:
        enabled = None
    _C._cuda._record_memory_history(enabled, context, stacks, max_entries)


def _snapshot(device=None):
    """Segments and allocation traces of every device, as PyTorch's snapshot dict."""
    return json.loads(_C._cuda._snapshot_json())


def _dump_snapshot(filename="dump_snapshot.pickle"):
    """Writes _snapshot() to filename as JSON (ctorch-memory-viz reads it; not a pickle)."""
    _C._cuda._dump_snapshot(filename)
