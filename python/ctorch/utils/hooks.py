"""torch.utils.hooks: handles that remove a registered hook."""


class RemovableHandle:
    """Removes the hook it was returned for (Tensor.register_hook, Module.register_*_hook)."""

    def __init__(self, remove):
        self._remove = remove

    def remove(self):
        """Removes the hook; a second call does nothing."""
        if self._remove is not None:
            self._remove()
            self._remove = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()
