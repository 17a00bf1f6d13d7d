"""torch.cuda.nvtx: NVTX markers and ranges (recorded by ctorch's tracer on emulated devices)."""
import contextlib

from .. import _C

mark = _C._cuda.nvtx_mark
range_push = _C._cuda.nvtx_range_push
range_pop = _C._cuda.nvtx_range_pop
range_start = _C._cuda.nvtx_range_start
range_end = _C._cuda.nvtx_range_end


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """Pushes an NVTX range named msg (formatted with args) for the block."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
