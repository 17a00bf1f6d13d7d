"""torch.nn.parallel: DataParallel over Python modules, with ctorch's C++ scatter, gather and
replica threads (each replica's Python forward runs on its own thread with its device current);
DistributedDataParallel (distributed.py) over ctorch's C++ Reducer."""
import threading

from ... import _C
from ..modules.module import Module

_nn = _C._nn


def _device_index(d):
    if d is None:
        return None
    if isinstance(d, int):
        return d
    d = _C.device(d) if not isinstance(d, _C.device) else d
    return d.index if d.index is not None else _C._cuda.current_device()


def _check_balance(device_ids):
    """PyTorch's check of DataParallel's devices: AssertionError "Invalid device id" for a missing one,
    a warning when one has less than 75% of the memory or cores of another."""
    import warnings
    from ... import cuda
    imbalance_warn = """
    There is an imbalance between your GPUs. You may want to exclude GPU {} which
    has less than 75% of the memory or cores of GPU {}. You can do so by setting
    the device_ids argument to DataParallel, or by setting the CUDA_VISIBLE_DEVICES
    environment variable."""
    device_ids = [cuda._get_device_index(x, True) for x in device_ids]
    dev_props = [cuda.get_device_properties(i) for i in device_ids]

    def warn_imbalance(get_prop):
        values = [get_prop(props) for props in dev_props]
        min_pos, min_val = min(enumerate(values), key=lambda v: v[1])
        max_pos, max_val = max(enumerate(values), key=lambda v: v[1])
        if min_val / max_val < 0.75:
            warnings.warn(imbalance_warn.format(device_ids[min_pos], device_ids[max_pos]))
            return True
        return False

    if warn_imbalance(lambda props: props.total_memory):
        return
    if warn_imbalance(lambda props: props.multi_processor_count):
        return


def scatter(inputs, target_gpus, dim=0):
    """Splits every tensor in inputs (tuples, lists and dicts recursively) over target_gpus."""
    n = len(target_gpus)

    def scatter_map(obj):
        if isinstance(obj, _C.Tensor):
            return _nn.parallel_scatter(obj, list(target_gpus), dim)
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in range(n)]

    return scatter_map(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """scatter() of the positional and keyword inputs, padded to the same number of replicas."""
    inputs = scatter(inputs, target_gpus, dim) if inputs else []
    kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(inputs) < len(kwargs):
        inputs.extend(() for _ in range(len(kwargs) - len(inputs)))
    elif len(kwargs) < len(inputs):
        kwargs.extend({} for _ in range(len(inputs) - len(kwargs)))
    return tuple(inputs), tuple(kwargs)


def gather(outputs, target_device, dim=0):
    """Concatenates the replicas' outputs (tensors, tuples, dicts) on target_device."""
    out = outputs[0]
    if isinstance(out, _C.Tensor):
        return _nn.parallel_gather(outputs, -1 if target_device == "cpu" else target_device, dim)
    if out is None:
        return None
    if isinstance(out, dict):
        return type(out)((k, gather([d[k] for d in outputs], target_device, dim)) for k in out)
    return type(out)(map(lambda o: gather(o, target_device, dim), zip(*outputs)))


def replicate(network, devices, detach=False):
    """Copies of network on each device: parameters copied differentiably, buffers detached.
    Replica 0 shares the original's tensors (as ctorch's C++ replicate)."""
    devices = [_device_index(d) for d in devices]
    modules = list(network.modules())
    replicas = []
    for i, device in enumerate(devices):
        memo = {}

        def copy(t, is_param):
            if i == 0:
                return t
            if id(t) not in memo:
                differentiable = not detach and t.requires_grad and (is_param or _C.is_grad_enabled())
                src = t if differentiable else t.detach()
                memo[id(t)] = src.to(_C.device("cuda", device), non_blocking=True)
            return memo[id(t)]

        copies = {id(m): m._replicate_for_data_parallel() for m in modules}
        for m in modules:
            r = copies[id(m)]
            for name, p in m._parameters.items():
                r._parameters[name] = None if p is None else copy(p, True)
            for name, b in m._buffers.items():
                r._buffers[name] = None if b is None else copy(b, False)
            for name, child in m._modules.items():
                r._modules[name] = None if child is None else copies[id(child)]
        replicas.append(copies[id(network)])
    return replicas


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """modules[i](*inputs[i], **kwargs_tup[i]) on one thread per replica, each with its device and
    stream current and the caller's grad mode; the first failure is raised naming its replica."""
    if kwargs_tup is None:
        kwargs_tup = ({},) * len(modules)
    if devices is None:
        devices = []
        for m in modules:
            p = next(m.parameters(), None)
            devices.append(p.get_device() if p is not None else _C._cuda.current_device())
    devices = [_device_index(d) for d in devices]
    results = [None] * len(modules)

    def body(i):
        inp = inputs[i]
        if not isinstance(inp, (list, tuple)):
            inp = (inp,)
        results[i] = modules[i](*inp, **kwargs_tup[i])

    _nn.run_replicas(len(modules), devices, body)
    return results


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional DataParallel."""
    return DataParallel(module, device_ids, output_device, dim)(*(inputs if isinstance(inputs, tuple) else (inputs,)),
                                                                **(module_kwargs or {}))


class DataParallel(Module):
    """Splits each batch over the GPUs, runs a replica of module on each, gathers the outputs."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not _C._cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(_C._cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _C.device("cuda", self.device_ids[0])
        _check_balance(self.device_ids)
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError("module must have its parameters and buffers on device {} (device_ids[0]) but "
                                   "found one of them on device: {}".format(self.src_device_obj, t.device))
        inputs, kwargs = scatter_kwargs(inputs, kwargs, self.device_ids, self.dim)
        if not inputs and not kwargs:
            inputs, kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **kwargs[0])
        replicas = replicate(self.module, self.device_ids[:len(inputs)], not _C.is_grad_enabled())
        outputs = parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])
        return gather(outputs, self.output_device, self.dim)


from .distributed import DistributedDataParallel  # noqa: E402,F401
