"""The layers of torch.nn."""
from .module import Module  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict  # noqa: F401
from .layers import (  # noqa: F401
    Identity, Linear, Conv2d, ConvTranspose2d, Embedding, BatchNorm1d, BatchNorm2d, LayerNorm, MaxPool2d, AvgPool2d,
    AdaptiveAvgPool2d,
    Dropout, Dropout2d, Flatten,
    ReLU, LeakyReLU, GELU, Sigmoid, Tanh, Softmax, LogSoftmax,
)
from .loss import MSELoss, L1Loss, SmoothL1Loss, NLLLoss, CrossEntropyLoss, BCELoss, BCEWithLogitsLoss  # noqa: F401
