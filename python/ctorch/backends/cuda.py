"""torch.backends.cuda: matmul.allow_tf32 and friends."""
from .. import _C


class _MatmulSettings:
    @property
    def allow_tf32(self):
        """TF32 in float32 matmuls on cuda devices (emulated: inputs rounded to TF32)."""
        return _C._cuda.matmul_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _C._cuda.set_matmul_allow_tf32(bool(value))


matmul = _MatmulSettings()


def is_built():
    """True: ctorch always has its cuda device type (real or emulated)."""
    return True
