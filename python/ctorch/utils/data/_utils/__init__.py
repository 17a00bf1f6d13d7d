"""DataLoader internals: collation and pinned memory."""
from . import collate, pin_memory  # noqa: F401
