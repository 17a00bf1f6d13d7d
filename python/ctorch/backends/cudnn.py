"""torch.backends.cudnn: flags (ctorch has no cuDNN kernels yet; the flags are kept as PyTorch's)."""
import sys
import types

from .. import _C


class _CudnnModule(types.ModuleType):
    @property
    def allow_tf32(self):
        return _C._cuda.cudnn_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _C._cuda.set_cudnn_allow_tf32(bool(value))


enabled = True
benchmark = False
deterministic = False


def is_available():
    """False: no cuDNN here."""
    return False


sys.modules[__name__].__class__ = _CudnnModule
