"""Checkpoints in the safetensors format, with safetensors.torch's API (save_file, load_file): files
are byte-identical to Python's safetensors for the same tensors."""
from . import _C


def save_file(tensors, filename, metadata=None):
    """Writes a dict of name -> tensor to filename."""
    if metadata:
        raise NotImplementedError("ctorch: safetensors metadata from Python is not supported yet")
    _C._nn.safetensors_save_file(dict(tensors), str(filename))


def load_file(filename, device="cpu"):
    """Reads a dict of name -> tensor, placed on device."""
    return dict(_C._nn.safetensors_load_file(str(filename), device))
