"""torch.backends.cudnn: the switches of the real CUDA backend's cuDNN convolution (compiled, never run
on this project's machines); emulated devices and the cpu never use cuDNN, so there is_available() is
False and version() None, as on a CPU-only PyTorch. Each attribute reads and writes the C++ setting."""
import sys
import types

from .. import _C


def _switch(name):
    """A module attribute over the C++ switch `name` (getter _C._cuda.cudnn_<name>, setter set_cudnn_<name>)."""
    getter = getattr(_C._cuda, "cudnn_" + name)
    setter = getattr(_C._cuda, "set_cudnn_" + name)
    return property(lambda self: getter(), lambda self, value: setter(bool(value)))


class _CudnnModule(types.ModuleType):
    allow_tf32 = _switch("allow_tf32")
    enabled = _switch("enabled")
    benchmark = _switch("benchmark")
    deterministic = _switch("deterministic")


def is_available():
    """True when the cuda devices are real GPUs with a loadable cuDNN."""
    return _C._cuda.cudnn_is_available()


def version():
    """cuDNN's version (e.g. 91900), or None when it is not available."""
    return _C._cuda.cudnn_version()


sys.modules[__name__].__class__ = _CudnnModule
