"""Runs one transcribed seed example (a JSON record on stdin) with `torch` aliased to ctorch.

The example's code is not edited: `import torch`, `from torch import nn` and
`from torch.utils.data._utils.pin_memory import pin_memory` find ctorch because every ctorch
module is also registered under its torch name in sys.modules (and a finder maps any torch.*
module imported later to its ctorch.* counterpart).

Record fields used: id, prelude (code run first with stdout silenced: required examples and
fragments), code, mode ("script" or "cell": display the last expression's value as IPython does),
after (assertions run after the example). Exits non-zero with a traceback on any error.
"""
import ast
import contextlib
import importlib
import importlib.abc
import importlib.util
import io
import json
import os
import pkgutil
import sys


class _TorchAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import torch.x.y` imports ctorch.x.y and registers it as torch.x.y too."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "torch" or fullname.startswith("torch."):
            if importlib.util.find_spec("c" + fullname) is None:
                return None
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("c" + spec.name)

    def exec_module(self, module):
        pass


def install_torch_alias():
    import ctorch
    for info in pkgutil.walk_packages(ctorch.__path__, "ctorch."):
        try:
            importlib.import_module(info.name)
        except ImportError:
            pass
    for name, module in list(sys.modules.items()):
        if name == "ctorch" or name.startswith("ctorch."):
            sys.modules[name[1:]] = module
    sys.meta_path.append(_TorchAliasFinder())


def _ipython_repr(value):
    """IPython's display of a value: its repr, or <module.Class at 0x...> for object's default repr."""
    cls = type(value)
    if cls.__repr__ is object.__repr__:
        return "<%s.%s at 0x%x>" % (cls.__module__, cls.__qualname__, id(value))
    return repr(value)


def run_cell(code, ns, filename):
    tree = ast.parse(code, filename)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    exec(compile(tree, filename, "exec"), ns)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), filename, "eval"), ns)
        if value is not None:
            print(_ipython_repr(value))


def main():
    rec = json.load(sys.stdin)
    if not os.environ.get("SEED_RUNNER_REAL_TORCH"):  # set: run against PyTorch itself (a reference)
        install_torch_alias()
    sys.argv = [rec["id"]]
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    with contextlib.redirect_stdout(io.StringIO()):
        for i, piece in enumerate(rec.get("prelude", [])):
            exec(compile(piece, "<%s: prelude %d>" % (rec["id"], i), "exec"), ns)
    filename = "<%s>" % rec["id"]
    if rec.get("mode") == "cell":
        run_cell(rec["code"], ns, filename)
    else:
        exec(compile(rec["code"], filename, "exec"), ns)
    sys.stdout.flush()
    if rec.get("after"):
        exec(compile(rec["after"], "<%s: after>" % rec["id"], "exec"), ns)


if __name__ == "__main__":
    main()
