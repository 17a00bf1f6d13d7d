"""torch.nn.parallel.DistributedDataParallel over Python modules. The gradient averaging is ctorch's
C++ Reducer (include/ctorch/nn_reducer.h, Note [DDP reducer]), the one the C++ DistributedDataParallel
uses: its hooks on the parameters bucket and all-reduce the gradients while backward runs."""
from contextlib import contextmanager

from ... import _C
from ..modules.module import Module, _C_no_grad

_d = _C._distributed


def _find_tensors(obj):
    """The tensors in a forward's output (tensors, lists, tuples, dicts, recursively)."""
    if isinstance(obj, _C.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    return []


def _to_device(obj, device):
    """obj with every tensor in it (lists, tuples, dicts, recursively) moved to device."""
    if isinstance(obj, _C.Tensor):
        return obj.to(device)
    if isinstance(obj, tuple):
        return tuple(_to_device(o, device) for o in obj)
    if isinstance(obj, list):
        return [_to_device(o, device) for o in obj]
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    return obj


class DistributedDataParallel(Module):
    """Replicates module on every rank of process_group: the constructor broadcasts rank 0's parameters
    and buffers, forward broadcasts rank 0's buffers (broadcast_buffers) and runs module, backward
    averages the gradients across the ranks in buckets of about bucket_cap_mb MiB."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        if static_graph:
            raise NotImplementedError("ctorch: DistributedDataParallel(static_graph=True) is not supported")
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        devices = {p.device for p in module.parameters()}
        device_types = {d.type for d in devices}
        if len(device_types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of devices, but input "
                             "module parameters locate in {}.".format(device_types))
        device_type = next(iter(device_types))
        if device_ids is None or len(device_ids) == 0 or device_type == "cpu" or len(devices) > 1:
            if device_ids or output_device:
                raise ValueError(
                    "DistributedDataParallel device_ids and output_device arguments only work with "
                    "single-device/multiple-device GPU modules or CPU modules, but got device_ids {}, output_device "
                    "{}, and module parameters {}.".format(device_ids, output_device, devices))
            self.device_ids = None
            self.output_device = None
        else:
            from ... import cuda
            self.device_ids = [cuda._get_device_index(x, True) for x in device_ids]
            self.output_device = cuda._get_device_index(device_ids[0] if output_device is None else output_device,
                                                        True)
        self.module = module
        self.device_type = device_type
        self.dim = dim
        self.process_group = process_group if process_group is not None else _d._default_group()
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        # Checks that every rank holds the same model (before any broadcast), then buckets and hooks.
        self.reducer = _d.Reducer([p for _, p in named], [n for n, _ in named], self.process_group,
                                  float(bucket_cap_mb), find_unused_parameters, gradient_as_bucket_view)
        with _C_no_grad():  # _sync_module_states
            for t in list(module.parameters()) + list(module.buffers()):
                _d.broadcast(t, 0, self.process_group)

    def forward(self, *inputs, **kwargs):
        grad_enabled = _C.is_grad_enabled()
        if grad_enabled:
            self.reducer._ensure_prior_reduction_finished()
        if self.device_ids:
            device = _C.device(self.device_type, self.device_ids[0])
            inputs, kwargs = _to_device(inputs, device), _to_device(kwargs, device)
        if self.broadcast_buffers and self.process_group.size() > 1:
            with _C_no_grad():
                for b in self.module.buffers():
                    _d.broadcast(b, 0, self.process_group)
        output = self.module(*inputs, **kwargs)
        if grad_enabled and self.require_backward_grad_sync:
            self.reducer.prepare_for_backward(_find_tensors(output) if self.find_unused_parameters else [])
        return output

    @contextmanager
    def no_sync(self):
        """Backward passes inside accumulate gradients locally; the first backward after averages them."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
