"""torch.cuda.jiterator: elementwise kernels compiled at run time from a C++ code string."""
from .. import _C


def _create_jit_fn(code_string, **kwargs):
    """A function running code_string's template function elementwise over its tensor arguments."""
    return _C._cuda.create_jit_fn(code_string, **kwargs)


def _create_multi_output_jit_fn(code_string, num_outputs, **kwargs):
    """Same as _create_jit_fn for a function with num_outputs outputs (a tuple of tensors)."""
    return _C._cuda.create_multi_output_jit_fn(code_string, num_outputs, **kwargs)
