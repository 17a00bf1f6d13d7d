"""torch.save / torch.load in PyTorch's own checkpoint format (the zip archive torch.save writes
since 1.6): files saved here load in PyTorch, and PyTorch's load here. Objects are tensors
(Parameters stay Parameters), numbers, strings, None, and lists, tuples, dicts and OrderedDicts of
them -- what state_dicts, optimizer states and training checkpoints hold. Other classes are
refused when saving (TypeError) and when loading (pickle.UnpicklingError), never executed."""
import io
import os

from . import _C

DEFAULT_PROTOCOL = 2


def save(obj, f, pickle_module=None, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True):
    """Writes obj to f (a path, or a binary file object) as torch.save does."""
    if pickle_module is not None:
        raise NotImplementedError("ctorch.save: a custom pickle_module is not supported (the format's pickler is ctorch's)")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("ctorch.save: the legacy (pre-1.6) format is not supported")
    if isinstance(f, (str, os.PathLike)):
        _C._serialization.save_file(obj, os.fspath(f))
    else:
        f.write(_C._serialization.save_to_bytes(obj))


def load(f, map_location=None, pickle_module=None, *, weights_only=False, **pickle_load_args):
    """Reads an object saved by torch.save from f (a path, or a binary file object). map_location:
    None (where it was saved), a device or its string, a dict of locations ({'cuda:1': 'cuda:0'}),
    or a function f(storage, location)."""
    if pickle_module is not None:
        raise NotImplementedError("ctorch.load: a custom pickle_module is not supported")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    return _C._serialization.load_from_bytes(bytes(data), map_location)


def _rebuild_from_checkpoint(data):
    """Unpickles a tensor pickled by Tensor.__reduce_ex__ (its checkpoint bytes)."""
    return load(io.BytesIO(data))
