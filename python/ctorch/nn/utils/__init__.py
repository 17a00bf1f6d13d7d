"""torch.nn.utils: gradient clipping."""
from ... import _C


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients so that their total norm is at most max_norm; returns the total norm."""
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    parameters = [p for p in parameters if p.grad is not None]
    return _C._nn.clip_grad_norm_(parameters, float(max_norm), float(norm_type), error_if_nonfinite)


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient to [-clip_value, clip_value]."""
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    _C._nn.clip_grad_value_([p for p in parameters if p.grad is not None], float(clip_value))
