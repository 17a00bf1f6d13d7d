"""torch.distributed: process groups and collectives over ctorch's Gloo backend (cpu tensors and
emulated cuda tensors; NCCL on real GPUs when built with it). Launch with ctorchrun, torchrun's
counterpart (`ctorchrun --nproc_per_node 2 python3 train.py`), or set RANK, WORLD_SIZE, MASTER_ADDR
and MASTER_PORT yourself (init_method="env://", the default)."""
import datetime

from .. import _C

_d = _C._distributed
ReduceOp = _d.ReduceOp
Work = _d.Work
ProcessGroup = _d.ProcessGroup
default_pg_timeout = datetime.timedelta(minutes=30)


def is_available():
    """True: ctorch always has torch.distributed (Gloo)."""
    return True


def init_process_group(backend="gloo", init_method=None, timeout=default_pg_timeout, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None):
    """Joins the default process group (env://, tcp://host:port or file://path)."""
    if store is not None or pg_options is not None:
        raise NotImplementedError("ctorch: init_process_group(store=..., pg_options=...) is not supported from Python")
    seconds = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else timeout
    _d.init_process_group(str(backend), init_method, world_size, rank, seconds)


destroy_process_group = _d.destroy_process_group
is_initialized = _d.is_initialized
is_gloo_available = _d.is_gloo_available
is_nccl_available = _d.is_nccl_available
get_rank = _d.get_rank
get_world_size = _d.get_world_size
get_backend = _d.get_backend
new_group = _d.new_group
all_reduce = _d.all_reduce
broadcast = _d.broadcast
all_gather = _d.all_gather
reduce_scatter = _d.reduce_scatter
barrier = _d.barrier
