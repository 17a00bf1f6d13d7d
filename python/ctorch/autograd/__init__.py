"""torch.autograd: backward, grad, and the grad-mode context managers."""
from .. import _C
from .. import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: F401


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, _C.Tensor):
        return (x,)
    return tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulates the gradients of tensors into the leaves' .grad (torch.autograd.backward)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    _C._autograd_backward(_as_tuple(tensors), _as_tuple(grad_tensors), retain_graph, create_graph, _as_tuple(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """The gradients of outputs with respect to inputs, as a tuple (torch.autograd.grad)."""
    if is_grads_batched:
        raise NotImplementedError("ctorch: is_grads_batched=True is not supported")
    return _C._autograd_grad(_as_tuple(outputs), _as_tuple(inputs), _as_tuple(grad_outputs), retain_graph,
                             create_graph, allow_unused)


class detect_anomaly:
    """Records each op's forward frames and checks backward for NaNs in its block."""

    def __init__(self, check_nan=True):
        self._prev = _C.is_anomaly_enabled()
        self._prev_check_nan = _C.is_anomaly_check_nan_enabled()
        self._check_nan = check_nan

    def __enter__(self):
        _C._set_anomaly_enabled(True, self._check_nan)
        return self

    def __exit__(self, *args):
        _C._set_anomaly_enabled(self._prev, self._prev_check_nan)
        return False


class set_detect_anomaly(detect_anomaly):
    """Turns anomaly detection on or off, now and (as a context manager) for its block."""

    def __init__(self, mode, check_nan=True):
        self._prev = _C.is_anomaly_enabled()
        self._prev_check_nan = _C.is_anomaly_check_nan_enabled()
        _C._set_anomaly_enabled(bool(mode), check_nan)

    def __enter__(self):
        return self


def Variable(data, requires_grad=False, volatile=False):
    """The deprecated Variable wrapper: returns data, with requires_grad set as asked."""
    if requires_grad:
        data.requires_grad_(True)
    return data
