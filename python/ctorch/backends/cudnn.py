"""torch.backends.cudnn: the switches of the real CUDA backend's cuDNN convolution (compiled, never run
on this project's machines); emulated devices and the cpu never use cuDNN, so there is_available() is
False and version() None, as on a CPU-only PyTorch. Each attribute reads and writes the C++ setting."""
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

    @property
    def enabled(self):
        return _C._cuda.cudnn_enabled()

    @enabled.setter
    def enabled(self, value):
        _C._cuda.set_cudnn_enabled(bool(value))

    @property
    def benchmark(self):
        return _C._cuda.cudnn_benchmark()

    @benchmark.setter
    def benchmark(self, value):
        _C._cuda.set_cudnn_benchmark(bool(value))

    @property
    def deterministic(self):
        return _C._cuda.cudnn_deterministic()

    @deterministic.setter
    def deterministic(self, value):
        _C._cuda.set_cudnn_deterministic(bool(value))


def is_available():
    """True when the cuda devices are real GPUs with a loadable cuDNN."""
    return _C._cuda.cudnn_is_available()


def version():
    """cuDNN's version (e.g. 91900), or None when it is not available."""
    return _C._cuda.cudnn_version()


sys.modules[__name__].__class__ = _CudnnModule
