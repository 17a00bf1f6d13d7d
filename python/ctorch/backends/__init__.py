"""torch.backends: math settings of the cuda backend (TF32, matmul precision) and cudnn flags."""
from . import cuda, cudnn  # noqa: F401
