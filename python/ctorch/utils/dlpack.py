"""torch.utils.dlpack: DLPack capsules to and from tensors (cpu memory is shared, not copied)."""
from .. import _C

from_dlpack = _C.from_dlpack
to_dlpack = _C.to_dlpack
