"""torch.utils."""
from . import data, dlpack, hooks  # noqa: F401
