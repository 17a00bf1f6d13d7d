"""torch.cuda.comm: broadcast, scatter, gather and reduce across cuda devices."""
from .. import _C

broadcast = _C._cuda.broadcast
broadcast_coalesced = _C._cuda.broadcast_coalesced
reduce_add = _C._cuda.reduce_add
scatter = _C._cuda.scatter
gather = _C._cuda.gather
