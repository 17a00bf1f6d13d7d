"""torch.utils."""
from . import data, hooks  # noqa: F401
