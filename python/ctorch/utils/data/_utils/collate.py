"""default_collate: a list of samples as one batch (tensors stacked, numbers as tensors)."""
import collections.abc
import numbers

from .... import _C


def default_convert(data):
    """data with NumPy arrays as tensors, recursively (for loaders without batching)."""
    if isinstance(data, _C.Tensor):
        return data
    if type(data).__module__ == "numpy" and hasattr(data, "dtype") and data.dtype.kind in "biufc":
        return _C.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Stacks tensors along a new dim 0; numbers become 1-d tensors; containers recurse."""
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _C.stack(list(batch), 0)
    if type(elem).__module__ == "numpy" and type(elem).__name__ in ("ndarray", "memmap"):
        return default_collate([_C.as_tensor(b) for b in batch])
    if type(elem).__module__ == "numpy" and hasattr(elem, "dtype"):
        return _C.as_tensor(batch)
    if isinstance(elem, bool):
        return _C.tensor(batch)
    if isinstance(elem, float):
        return _C.tensor(batch, dtype=_C.float64)
    if isinstance(elem, int):
        return _C.tensor(batch)
    if isinstance(elem, numbers.Number):
        return _C.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({k: default_collate([d[k] for d in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        return [default_collate(s) for s in transposed]
    raise TypeError("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
                    + str(type(elem)))
