"""torch.cuda: devices, streams, events, memory, random numbers, on real or emulated GPUs.

Emulated GPUs (``CTORCH_EMULATED_CUDA=2``, or ``ctorch.cuda.emulate(2)`` before first use) are
ctorch's: N virtual devices in host memory with real streams, events, a caching allocator and OOM.
"""
import contextlib
import json
import os  # noqa: F401  (torch.cuda.os is the os module in PyTorch too)
import warnings

from .. import _C
from .._C import OutOfMemoryError  # noqa: F401

_cuda = _C._cuda

is_available = _cuda.is_available
device_count = _cuda.device_count
init = _cuda.init
is_initialized = _cuda.is_initialized
current_device = _cuda.current_device
synchronize = _cuda.synchronize
mem_get_info = _cuda.mem_get_info
get_arch_list = _cuda.get_arch_list
get_gencode_flags = _cuda.get_gencode_flags
is_bf16_supported = _cuda.is_bf16_supported
get_sync_debug_mode = _cuda.get_sync_debug_mode
set_sync_debug_mode = _cuda.set_sync_debug_mode
utilization = _cuda.utilization
memory_usage = _cuda.memory_usage
temperature = _cuda.temperature
power_draw = _cuda.power_draw
clock_rate = _cuda.clock_rate
emulate = _cuda.emulate
_CudaDeviceProperties = _cuda._CudaDeviceProperties

Stream = _cuda.Stream
ExternalStream = _cuda.ExternalStream
Event = _cuda.Event
current_stream = _cuda.current_stream
default_stream = _cuda.default_stream
set_stream = _cuda.set_stream

current_blas_handle = _cuda.current_blas_handle
ipc_collect = _cuda.ipc_collect
make_graphed_callables = _cuda.make_graphed_callables
CUDAPluggableAllocator = _cuda.CUDAPluggableAllocator
change_current_allocator = _cuda.change_current_allocator
CUDAGraph = _cuda.CUDAGraph
graph_pool_handle = _cuda.graph_pool_handle
is_current_stream_capturing = _cuda.is_current_stream_capturing


def _get_device_index(device, optional=False, allow_cpu=False):
    """The index of a cuda device given as a device, str, int, torch.cuda.device or None (the current
    device when optional), with PyTorch's errors (torch.cuda._utils._get_device_index)."""
    if isinstance(device, str):
        device = _C.device(device)
    if isinstance(device, _C.device):
        if allow_cpu:
            if device.type not in ["cuda", "cpu"]:
                raise ValueError("Expected a cuda or cpu device, but got: {}".format(device))
        elif device.type != "cuda":
            raise ValueError("Expected a cuda device, but got: {}".format(device))
    if isinstance(device, globals()["device"]):
        return device.idx
    idx = None
    if isinstance(device, _C.device):
        idx = -1 if device.type == "cpu" else device.index
    elif isinstance(device, int):
        idx = device
    if idx is None:
        if not optional:
            raise ValueError("Expected a torch.device with a specified index or an integer, but got:{}".format(device))
        idx = current_device()
    return idx


def get_device_properties(device):
    """The properties of a cuda device (AssertionError "Invalid device id" for a missing one, as PyTorch)."""
    device = _get_device_index(device, optional=True)
    if device < 0 or device >= device_count():
        raise AssertionError("Invalid device id")
    return _cuda.get_device_properties(device)


def get_device_name(device=None):
    """The name of a cuda device (the current one by default)."""
    return get_device_properties(device).name


def get_device_capability(device=None):
    """(major, minor) compute capability of a cuda device (the current one by default)."""
    prop = get_device_properties(device)
    return prop.major, prop.minor


def can_device_access_peer(device, peer_device):
    """Whether device can access peer_device's memory directly."""
    device = _get_device_index(device, optional=True)
    peer_device = _get_device_index(peer_device)
    if device < 0 or device >= device_count():
        raise AssertionError("Invalid device id")
    if peer_device < 0 or peer_device >= device_count():
        raise AssertionError("Invalid peer device id")
    return _cuda.can_device_access_peer(device, peer_device)


def set_device(device):
    """Makes device the current cuda device (a negative index does nothing, as in PyTorch)."""
    if isinstance(device, int) and device < 0:
        return
    _cuda.set_device(device)


def _device_index(device):
    if device is None:
        return None
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _C.device(device)
    return device.index


class _GuardContext:
    """Enters the C++ guard that _make_guard() returns (None: nothing to do) for the block."""

    _guard = None

    def _make_guard(self):
        raise NotImplementedError

    def __enter__(self):
        self._guard = self._make_guard()
        if self._guard is not None:
            self._guard.__enter__()
        return self

    def __exit__(self, *args):
        if self._guard is not None:
            self._guard.__exit__(*args)
            self._guard = None
        return False


class device(_GuardContext):
    """Context manager that makes ``device`` current in its block (torch.cuda.device)."""

    def __init__(self, device):
        self.idx = _device_index(device) if device is not None else -1

    def _make_guard(self):
        return None if self.idx is None or self.idx < 0 else _cuda._DeviceGuard(self.idx)


class device_of(device):
    """Context manager that makes the device of tensor ``obj`` current (the cpu: nothing)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class StreamContext(_GuardContext):
    """Context manager that makes ``stream`` current on its device in its block (None: nothing)."""

    def __init__(self, stream):
        self.stream = stream

    def _make_guard(self):
        return None if self.stream is None else _cuda._StreamGuard(self.stream)


def stream(stream):
    """A StreamContext for ``stream`` (torch.cuda.stream)."""
    return StreamContext(stream)


# ---- memory ------------------------------------------------------------------------------------

memory_allocated = _cuda.memory_allocated
max_memory_allocated = _cuda.max_memory_allocated
memory_reserved = _cuda.memory_reserved
max_memory_reserved = _cuda.max_memory_reserved
reset_peak_memory_stats = _cuda.reset_peak_memory_stats
reset_accumulated_memory_stats = _cuda.reset_accumulated_memory_stats
empty_cache = _cuda.empty_cache
set_per_process_memory_fraction = _cuda.set_per_process_memory_fraction
get_allocator_backend = _cuda.get_allocator_backend
memory_summary = _cuda.memory_summary
list_gpu_processes = _cuda.list_gpu_processes
caching_allocator_alloc = _cuda.caching_allocator_alloc
caching_allocator_delete = _cuda.caching_allocator_delete


def memory_stats(device=None):
    """The caching allocator's statistics as an OrderedDict sorted by key."""
    import collections
    return collections.OrderedDict(sorted(_cuda.memory_stats(device).items()))


def memory_cached(device=None):
    """Deprecated name of memory_reserved."""
    warnings.warn("torch.cuda.memory_cached has been renamed to torch.cuda.memory_reserved", FutureWarning)
    return memory_reserved(device)


def max_memory_cached(device=None):
    """Deprecated name of max_memory_reserved."""
    warnings.warn("torch.cuda.max_memory_cached has been renamed to torch.cuda.max_memory_reserved", FutureWarning)
    return max_memory_reserved(device)


def reset_max_memory_allocated(device=None):
    """Deprecated: resets the peak statistics."""
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    """Deprecated: resets the peak statistics."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning)
    reset_peak_memory_stats(device)


def memory_snapshot():
    """Every segment of every device's caching allocator, as a list of dicts."""
    return json.loads(_cuda._snapshot_json())["segments"]


# ---- random numbers ----------------------------------------------------------------------------

manual_seed = _cuda.manual_seed
manual_seed_all = _cuda.manual_seed_all
seed = _cuda.seed
seed_all = _cuda.seed_all
initial_seed = _cuda.initial_seed
get_rng_state = _cuda.get_rng_state
set_rng_state = _cuda.set_rng_state
get_rng_state_all = _cuda.get_rng_state_all
set_rng_state_all = _cuda.set_rng_state_all


class _DefaultGenerators:
    def __getitem__(self, i):
        return _cuda.default_generator(i)

    def __len__(self):
        return device_count()

    def __iter__(self):
        return (self[i] for i in range(len(self)))


default_generators = _DefaultGenerators()


# ---- graphs --------------------------------------------------------------------------------------

class graph:
    """Captures the work of its block into ``cuda_graph`` on a side stream (torch.cuda.graph)."""

    default_capture_stream = None

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        if self.__class__.default_capture_stream is None:
            self.__class__.default_capture_stream = Stream()
        self.pool = () if pool is None else (pool,)
        self.capture_stream = stream if stream is not None else self.__class__.default_capture_stream
        self.stream_ctx = StreamContext(self.capture_stream)
        self.cuda_graph = cuda_graph
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        synchronize()
        empty_cache()
        self.stream_ctx.__enter__()
        self.cuda_graph.capture_begin(*self.pool, capture_error_mode=self.capture_error_mode)

    def __exit__(self, exc_type, exc, tb):
        try:
            self.cuda_graph.capture_end()
        finally:
            self.stream_ctx.__exit__(exc_type, exc, tb)
        return False


from . import comm, memory, nvtx, jiterator, random  # noqa: E402,F401


def _legacy_cuda_types():
    from .. import _legacy_type, _LEGACY_TYPES
    for name, dtype in _LEGACY_TYPES:
        globals()[name] = _legacy_type(name, dtype, True, "ctorch.cuda")


_legacy_cuda_types()
