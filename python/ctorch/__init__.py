"""ctorch: PyTorch's tensor core and torch.cuda, in C++, with torch's Python API.

``import ctorch as torch`` runs PyTorch code on the cpu and on real or emulated CUDA devices
(``CTORCH_EMULATED_CUDA=2`` gives two emulated GPUs on a machine without any).
"""
import builtins as _builtins
import math as _math

from . import _C
from ._C import (  # noqa: F401
    Generator, Tensor, device, dtype, from_dlpack,
    uint8, int8, int16, short, int32, int64, long, float16, half, float32, float64, double,
    bool, bfloat16, complex64, cfloat, complex128, cdouble,
    empty, zeros, ones, full, rand, randn, randint, randperm, normal, bernoulli, arange, linspace, eye,
    tensor, as_tensor, from_numpy, empty_like, zeros_like, ones_like, full_like, rand_like, randn_like,
    manual_seed, seed, initial_seed, get_rng_state, set_rng_state,
    cat, concat, stack, where, pow, result_type, promote_types, can_cast, get_default_dtype,
    set_default_dtype, is_grad_enabled, set_warn_always, is_warn_always_enabled,
)
from ._size import Size  # noqa: F401
from . import return_types  # noqa: F401

__version__ = "1.13.1+ctorch." + _C.__version__
"""The PyTorch API version ctorch follows, and ctorch's own version."""

default_generator = _C.default_generator()
inf = _math.inf
nan = _math.nan
pi = _math.pi
e = _math.e


class _StridedLayout:
    def __repr__(self):
        return "torch.strided"


strided = _StridedLayout()


def is_tensor(obj):
    """True when obj is a Tensor (torch.is_tensor)."""
    return isinstance(obj, Tensor)


def numel(input):
    """The number of elements of input."""
    return input.numel()


# Functions that are Tensor methods with the tensor first (torch.exp(x) is x.exp()).
_METHOD_FUNCTIONS = [
    "add", "sub", "mul", "div", "remainder", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_xor", "logical_not", "matmul", "mm", "bmm", "addmm", "clamp",
    "neg", "negative", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "erf", "relu",
    "floor", "ceil", "round", "sign", "square", "sum", "mean", "prod", "max", "min", "argmax", "argmin",
    "all", "any", "norm", "var", "std", "softmax", "log_softmax", "equal", "allclose", "isclose",
    "reshape", "transpose", "permute", "t", "squeeze", "unsqueeze", "flatten", "narrow", "select",
    "unbind", "chunk", "split", "index_select", "gather", "scatter", "scatter_add", "index_add",
    "masked_select", "masked_fill", "nonzero", "clone", "detach", "real", "imag", "conj",
]
for _name in _METHOD_FUNCTIONS:
    globals()[_name] = getattr(Tensor, _name)
clip = clamp  # noqa: F821
absolute = abs  # noqa: F821
divide = div  # noqa: F821
multiply = mul  # noqa: F821
subtract = sub  # noqa: F821
greater = gt  # noqa: F821
less = lt  # noqa: F821


def var_mean(input, dim=None, unbiased=True, keepdim=False):
    """(var, mean) of input over dim."""
    return input.var(dim, unbiased, keepdim), (input.mean() if dim is None else input.mean(dim, keepdim))


def std_mean(input, dim=None, unbiased=True, keepdim=False):
    """(std, mean) of input over dim."""
    return input.std(dim, unbiased, keepdim), (input.mean() if dim is None else input.mean(dim, keepdim))


# ---- grad mode: no_grad, enable_grad, set_grad_enabled, inference_mode -------------------------

class _GradModeContext:
    _enabled = True

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *args):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Disables gradient recording in its block (or in a decorated function)."""
    _enabled = False


class enable_grad(_GradModeContext):
    """Enables gradient recording in its block."""
    _enabled = True


class inference_mode(_GradModeContext):
    """Same as no_grad here (ctorch has no separate inference tensors)."""
    _enabled = False

    def __init__(self, mode=True):
        self._enabled = not mode


class set_grad_enabled:
    """Sets gradient recording on or off, now and (as a context manager) for its block."""

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(_builtins.bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *args):
        _C._set_grad_enabled(self._prev)
        return False


# ---- legacy tensor types: torch.FloatTensor(2, 3), isinstance(x, torch.cuda.FloatTensor) -------

class _LegacyTensorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.is_cuda == cls.is_cuda

    def __repr__(cls):
        return "<class '" + cls.__module__.replace("ctorch", "torch") + "." + cls.__name__ + "'>"


def _legacy_type(name, dtype_, is_cuda, module):
    def __new__(cls, *args, device=None):
        if device is None:
            device = "cuda" if is_cuda else "cpu"
        return _C._legacy_new(dtype_, device, *args)

    return _LegacyTensorMeta(name, (), {"__new__": __new__, "dtype": dtype_, "is_cuda": is_cuda,
                                        "__module__": module})


_LEGACY_TYPES = [("FloatTensor", float32), ("DoubleTensor", float64), ("HalfTensor", float16),
                 ("BFloat16Tensor", bfloat16), ("ByteTensor", uint8), ("CharTensor", int8),
                 ("ShortTensor", int16), ("IntTensor", int32), ("LongTensor", int64), ("BoolTensor", bool)]
for _name, _type in _LEGACY_TYPES:
    globals()[_name] = _legacy_type(_name, _type, False, "ctorch")

_LEGACY_NAMES = {prefix + n: (t, prefix == "torch.cuda.") for n, t in _LEGACY_TYPES
                 for prefix in ("torch.", "torch.cuda.")}
_tensor_type = Tensor.type


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """Tensor.type(): the type's name ('torch.cuda.FloatTensor'); Tensor.type(t) converts to t, a dtype, a
    legacy type (torch.cuda.FloatTensor) or its name, keeping the device when t's device type is the same."""
    if isinstance(dtype, (str, _LegacyTensorMeta)) or isinstance(dtype, type):
        if isinstance(dtype, _LegacyTensorMeta):
            scalar_type, is_cuda = dtype.dtype, dtype.is_cuda
        else:
            name = dtype if isinstance(dtype, str) else dtype.__name__
            if name not in _LEGACY_NAMES:
                raise ValueError(f"invalid type: '{name}'")
            scalar_type, is_cuda = _LEGACY_NAMES[name]
        device_ = self.device
        if device_.type != ("cuda" if is_cuda else "cpu"):
            device_ = device("cuda" if is_cuda else "cpu")
        return self.to(device_, scalar_type, non_blocking)
    return _tensor_type(self, dtype, non_blocking, **kwargs)


Tensor.type = _type


from . import autograd, cuda, distributed, fft, nn, optim, safetensors, serialization, utils, backends  # noqa: E402,F401
from .nn.parameter import Parameter  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from .nn.functional import conv1d, conv2d, conv_transpose1d, conv_transpose2d  # noqa: E402,F401


def _reduce_ex(self, proto):
    """Pickles a tensor (or Parameter) as its torch.save checkpoint bytes."""
    return (serialization._rebuild_from_checkpoint, (_C._serialization.save_to_bytes(self),))


Tensor.__reduce_ex__ = _reduce_ex  # Parameter inherits it



del _name, _type
float = _C.float  # noqa: A001  (torch.float and torch.int, as in PyTorch; last, so the code above
int = _C.int  # noqa: A001   sees Python's builtins)
