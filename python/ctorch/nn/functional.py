"""torch.nn.functional: the layers' and losses' computations as functions (ctorch's C++ ones)."""
import warnings

from .. import _C

_nn = _C._nn

linear = _nn.linear
batch_norm = _nn.batch_norm
layer_norm = _nn.layer_norm
conv2d = _nn.conv2d
conv1d = _nn.conv1d
conv_transpose2d = _nn.conv_transpose2d
conv_transpose1d = _nn.conv_transpose1d
avg_pool2d = _nn.avg_pool2d


def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='"
                  + ("mean" if (reduce is not False and size_average is not False) else
                     "sum" if reduce is not False else "none") + "' instead.")
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """input where positive, else negative_slope * input."""
    out = _nn.leaky_relu(input, negative_slope)
    return input.copy_(out) if inplace else out


def relu(input, inplace=False):
    """max(input, 0)."""
    return input.relu_() if inplace else _nn.relu(input)


def gelu(input, approximate="none"):
    """GELU, exact (erf) or with the tanh approximation."""
    return _nn.gelu(input, approximate)


def sigmoid(input):
    """1 / (1 + exp(-input))."""
    return input.sigmoid()


def tanh(input):
    """tanh(input)."""
    return input.tanh()


def _softmax_dim(ndim):
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X "
                  "as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """softmax along dim."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    return input.softmax(dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(input)) along dim, computed stably."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    return input.log_softmax(dim, dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes elements with probability p and scales the rest by 1/(1-p) when training."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    out = _nn.dropout(input, p, training)
    return input.copy_(out) if inplace else out


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels with probability p and scales the rest by 1/(1-p) when training."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    out = _nn.dropout2d(input, p, training)
    return input.copy_(out) if inplace else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over each kernel_size window (and, with return_indices, where it was in the input plane)."""
    values, indices = _nn.max_pool2d_with_indices(input, kernel_size, stride if stride else None, padding, dilation,
                                                  ceil_mode)
    return (values, indices) if return_indices else values


def _list_with_default(out_size, defaults):
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least {}".format(len(out_size) + 1))
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool2d(input, output_size):
    """Mean over adaptive windows: output (i, j) averages rows [floor(i*H/OH), ceil((i+1)*H/OH)) and likewise
    columns; None in output_size keeps that input size."""
    return _nn.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of weight at the indices in input."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("ctorch: embedding's max_norm, scale_grad_by_freq and sparse are not implemented")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.size(0)
    return _nn.embedding(input, weight, padding_idx)


def flatten(input, start_dim=0, end_dim=-1):
    """input with dims start_dim..end_dim flattened into one."""
    return input.flatten(start_dim, end_dim)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean squared error."""
    return _nn.mse_loss(input, target, _reduction(size_average, reduce, reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Smooth L1 loss: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta."""
    return _nn.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean absolute error."""
    return _nn.l1_loss(input, target, _reduction(size_average, reduce, reduction))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of the target classes under log-probabilities input."""
    return _nn.nll_loss(input, target, weight, ignore_index, _reduction(size_average, reduce, reduction))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax then nll_loss (with label smoothing)."""
    return _nn.cross_entropy(input, target, weight, ignore_index, _reduction(size_average, reduce, reduction),
                             label_smoothing)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities."""
    return _nn.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of logits, computed stably."""
    return _nn.binary_cross_entropy_with_logits(input, target, weight, _reduction(size_average, reduce, reduction),
                                                pos_weight)
