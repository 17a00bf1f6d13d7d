"""torch.nn: modules (defined in Python, computing with ctorch's C++ ops), functional, init, parallel."""
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from . import functional, init, utils, parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
