"""pin_memory(data): every tensor in data (recursively) copied to pinned host memory."""
from .... import _C


def pin_memory(data, device=None):
    """Tensors in data, recursively through tuples, lists and dicts, as pinned copies."""
    if isinstance(data, _C.Tensor):
        return data.pin_memory()
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        return type(data)({k: pin_memory(v, device) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(pin_memory(s, device) for s in data))
    if isinstance(data, (list, tuple)):
        return type(data)(pin_memory(s, device) for s in data)
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
