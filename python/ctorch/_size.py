"""torch.Size: the shape of a tensor, a tuple that prints as torch.Size([2, 3])."""


class Size(tuple):
    """A tensor's sizes (torch.Size)."""

    def __repr__(self):
        return "torch.Size([" + ", ".join(str(s) for s in self) + "])"

    __str__ = __repr__

    def numel(self):
        """The number of elements of a tensor of this shape."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))
