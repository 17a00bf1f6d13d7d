"""torch.return_types: the named tuples that max(dim), min(dim), ... return."""
from collections import namedtuple as _namedtuple


def _make(name):
    base = _namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__repr__": __repr__, "__slots__": ()})


max = _make("max")
min = _make("min")
sort = _make("sort")
topk = _make("topk")
kthvalue = _make("kthvalue")
mode = _make("mode")
median = _make("median")
