"""torch.optim: optimizers whose update runs in ctorch's C++ optimizers; param_groups are
Python dicts as in PyTorch (schedulers and users change them between steps)."""
from .. import _C  # noqa: F401
from .optimizer import Optimizer, SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS  # noqa: F401
from . import lr_scheduler  # noqa: F401
