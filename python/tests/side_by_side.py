"""Runs one function against PyTorch (Debian's python3-torch, cpu) and ctorch and describes what
each did: the value (tensors by their repr, dtype and shape), or the exception's type and text."""
import math

import ctorch

try:
    import torch as real_torch
except ImportError:  # the side-by-side cases then check ctorch alone
    real_torch = None

TENSOR_TYPES = tuple(t for t in (ctorch.Tensor, getattr(real_torch, "Tensor", None)) if t is not None)


def describe(v):
    """A comparable description of a value returned by a case."""
    if isinstance(v, TENSOR_TYPES):
        return ("tensor", repr(v), str(v.dtype), tuple(v.shape), v.requires_grad)
    if isinstance(v, (list, tuple)):
        return (type(v).__name__ if type(v).__name__ in ("list", "tuple", "Size") else "seq",
                tuple(describe(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((k, describe(x)) for k, x in v.items()))
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else v.hex())
    if isinstance(v, (bool, int, str, type(None))):
        return (type(v).__name__, v)
    return ("other", str(v))


def outcome(lib, fn):
    """('value', description) or ('raise', exception type name, message)."""
    try:
        return ("value", describe(fn(lib)))
    except Exception as e:  # noqa: BLE001  (compared, not hidden)
        name = type(e).__name__
        if name == "OutOfMemoryError":
            name = "OutOfMemoryError"
        return ("raise", name, str(e))
