"""Optimizer and the algorithms (SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS)."""
from .. import _C


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Parameter groups (dicts of params and hyperparameters) over a C++ optimizer, which checks the
    hyperparameters (PyTorch's ValueError texts) when a group is added and before every step."""

    _native_class = None

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        if isinstance(params, _C.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got torch.Tensor")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        self._native = None
        for group in param_groups:
            self.add_param_group(group)

    def _complete(self, group):
        group = dict(group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, _C.Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, _C.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        return group

    def add_param_group(self, param_group):
        """Adds a group (a dict with "params" and any hyperparameters to override)."""
        group = self._complete(param_group)
        self.param_groups.append(group)
        if self._native is None:
            self._native = self._native_class([group])
        else:
            self._native.add_param_group(group)

    def state_dict(self):
        """{'state': {index: per-parameter state}, 'param_groups': [hyperparameters + 'params' indices]},
        as PyTorch's (the state lives in the C++ optimizer; torch.save writes it, PyTorch loads it)."""
        groups, index = [], 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = list(range(index, index + len(group["params"])))
            index += len(group["params"])
            groups.append(packed)
        return {"state": self._native.state_dict()["state"], "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads a state_dict (ctorch's or PyTorch's): hyperparameters and per-parameter state, the
        state's tensors moved to each parameter's device and dtype. PyTorch's checks and texts."""
        saved_groups = state_dict["param_groups"]
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        self._native.load_state_dict(state_dict)
        new_groups = []
        for group, saved in zip(self.param_groups, saved_groups):
            new = dict(saved)
            new["params"] = group["params"]
            new_groups.append(new)
        self.param_groups = new_groups

    def zero_grad(self, set_to_none=False):
        """Zeroes (or clears) the gradients of every parameter."""
        self._native.zero_grad(set_to_none)

    def step(self, closure=None):
        """One update of every parameter from its .grad (a closure re-evaluates the loss first)."""
        loss = None
        if closure is not None:
            with _C_enable_grad():
                loss = closure()
        self._native.step(self.param_groups)
        return loss

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}"
            for key in sorted(group):
                if key != "params":
                    s += f"\n    {key}: {group[key]}"
        return s + "\n)"


class _C_enable_grad:
    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *args):
        _C._set_grad_enabled(self._prev)


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, weight decay and Nesterov."""

    _native_class = _C._nn.SGD

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable))


class Adam(Optimizer):
    """Adam (and AMSGrad)."""

    _native_class = _C._nn.Adam

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused))


class AdamW(Optimizer):
    """Adam with decoupled weight decay."""

    _native_class = _C._nn.AdamW

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      foreach=foreach, maximize=maximize, capturable=capturable))


class RMSprop(Optimizer):
    """RMSprop (centered, with momentum)."""

    _native_class = _C._nn.RMSprop

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))


class Adagrad(Optimizer):
    """Adagrad (per-parameter sums of squared gradients, starting at initial_accumulator_value)."""

    _native_class = _C._nn.Adagrad

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize))


class LBFGS(Optimizer):
    """L-BFGS (one parameter group), with the optional strong-Wolfe line search."""

    _native_class = _C._nn.LBFGS

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))

    def step(self, closure):
        """Evaluates closure (which zeroes the gradients, computes the loss and runs backward) up to max_eval
        times; returns its first result."""
        return self._native.step(self.param_groups, closure)
