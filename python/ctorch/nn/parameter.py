"""torch.nn.Parameter: a tensor that a Module registers as a parameter when assigned."""
from .. import _C


class Parameter(_C.Tensor):
    """A leaf tensor that requires grad (by default) and registers itself on a Module."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        _C.Tensor.__init__(self, data.detach())
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + _C.Tensor.__repr__(self)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.detach().clone(), self.requires_grad)
        return memo[id(self)]
