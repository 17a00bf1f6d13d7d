"""torch.save / torch.load both ways against Debian's python3-torch 1.13.1: a checkpoint saved by
one library loads in the other with every tensor equal bit for bit, containers and Parameters
kept; optimizer states resume training with the same losses; errors agree with PyTorch's."""
import collections
import copy
import io
import pickle

import pytest

import ctorch
from side_by_side import outcome, real_torch

needs_torch = pytest.mark.skipif(real_torch is None, reason="python3-torch is not installed")


def raw(t):
    """A tensor's dtype, shape, strides, offset and bytes (bfloat16 through its exact float32)."""
    dtype = str(t.dtype).replace("torch.", "")
    c = t.detach().cpu()
    if dtype == "bfloat16":
        c = c.float()
    return (dtype, tuple(c.shape), tuple(t.stride()), t.storage_offset(), c.contiguous().numpy().tobytes())


def objects(torch):
    """The same checkpoint built with either library."""
    torch.manual_seed(0)
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    tensors = collections.OrderedDict(
        (str(dt).replace("torch.", ""), torch.arange(-3, 3).to(dt))
        for dt in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                   torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128))
    tensors["view"] = base[1:, 1::2]
    tensors["transposed"] = base.t()
    tensors["scalar"] = torch.tensor(2.5)
    tensors["empty"] = torch.empty(0, 3)
    return {"tensors": tensors, "base": base, "epoch": 7, "lr": 0.125, "big": -(2 ** 40), "name": "run-1",
            "flags": [True, False, None], "shape": (2, 3), "nested": {"a": {"b": [1, (2, 3.5)]}},
            "param": torch.nn.Parameter(torch.ones(2) * 3)}


def check_same(a, b):
    if isinstance(a, (ctorch.Tensor, real_torch.Tensor)):
        assert raw(a) == raw(b)
        assert isinstance(a, (ctorch.nn.Parameter, real_torch.nn.Parameter)) == \
            isinstance(b, (ctorch.nn.Parameter, real_torch.nn.Parameter))
        assert a.requires_grad == b.requires_grad
    elif isinstance(a, dict):
        assert type(a).__name__ == type(b).__name__
        assert list(a) == list(b)
        for k in a:
            check_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            check_same(x, y)
    else:
        assert type(a) is type(b) and a == b


@needs_torch
@pytest.mark.parametrize("protocol", [2, 4])
def test_pytorch_saves_ctorch_loads(tmp_path, protocol):
    obj = objects(real_torch)
    path = tmp_path / "from_pytorch.pt"
    real_torch.save(obj, path, pickle_protocol=protocol)
    back = ctorch.load(path)
    check_same(obj, back)
    # views still share their storage after loading, as in PyTorch
    back["base"].add_(1)
    assert back["tensors"]["view"][0, 0].item() == obj["tensors"]["view"][0, 0].item() + 1
    assert back["tensors"]["transposed"][0, 1].item() == 5.0


@needs_torch
def test_ctorch_saves_pytorch_loads(tmp_path):
    obj = objects(ctorch)
    buf = io.BytesIO()
    ctorch.save(obj, buf)
    buf.seek(0)
    back = real_torch.load(buf)
    check_same(obj, back)
    path = tmp_path / "from_ctorch.pt"
    ctorch.save(obj, str(path))
    check_same(obj, real_torch.load(str(path)))


@needs_torch
def test_state_dicts_cross_between_models():
    real_torch.manual_seed(0)
    ref = real_torch.nn.Sequential(real_torch.nn.Linear(4, 3), real_torch.nn.BatchNorm1d(3), real_torch.nn.ReLU(),
                                   real_torch.nn.Linear(3, 2))
    ref.train()
    ref(real_torch.randn(5, 4))  # running statistics move
    buf = io.BytesIO()
    real_torch.save(ref.state_dict(), buf)
    buf.seek(0)
    sd = ctorch.load(buf)
    assert type(sd) is collections.OrderedDict
    assert sd._metadata == ref.state_dict()._metadata
    model = ctorch.nn.Sequential(ctorch.nn.Linear(4, 3), ctorch.nn.BatchNorm1d(3), ctorch.nn.ReLU(),
                                 ctorch.nn.Linear(3, 2))
    model.load_state_dict(sd)
    model.eval()
    ref.eval()
    x = [[0.5, -1.0, 2.0, 0.25], [1.0, 0.0, -0.5, 3.0]]
    assert model(ctorch.tensor(x)).flatten().tolist() == pytest.approx(ref(real_torch.tensor(x)).flatten().tolist(),
                                                                       abs=1e-6)
    # and back: ctorch's state_dict (with PyTorch's _metadata) into a PyTorch model
    out = io.BytesIO()
    ctorch.save(model.state_dict(), out)
    out.seek(0)
    fresh = real_torch.nn.Sequential(real_torch.nn.Linear(4, 3), real_torch.nn.BatchNorm1d(3), real_torch.nn.ReLU(),
                                     real_torch.nn.Linear(3, 2))
    fresh.load_state_dict(real_torch.load(out))
    fresh.eval()
    assert fresh(real_torch.tensor(x)).tolist() == ref(real_torch.tensor(x)).tolist()


def train(torch, model, opt, steps, seed):
    torch.manual_seed(seed)
    losses = []
    for _ in range(steps):
        x = torch.randn(8, 4)
        y = x.sum(1, keepdim=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("make", ["sgd", "adam", "adamw", "rmsprop", "adagrad"])
def test_resumed_training_continues_with_the_same_losses(make):
    def build(torch):
        torch.manual_seed(1)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        opt = {"sgd": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
               "adam": lambda p: torch.optim.Adam(p, lr=0.01, amsgrad=True),
               "adamw": lambda p: torch.optim.AdamW(p, lr=0.01),
               "rmsprop": lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
               "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.05, lr_decay=0.01, initial_accumulator_value=0.1)}[make](
                   model.parameters())
        return model, opt

    model, opt = build(ctorch)
    train(ctorch, model, opt, 3, seed=2)
    checkpoint = io.BytesIO()
    ctorch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}, checkpoint)
    uninterrupted = train(ctorch, model, opt, 4, seed=3)

    checkpoint.seek(0)
    state = ctorch.load(checkpoint)
    model2, opt2 = build(ctorch)
    model2.load_state_dict(state["model"])
    opt2.load_state_dict(state["optimizer"])
    assert state["epoch"] == 3
    assert train(ctorch, model2, opt2, 4, seed=3) == uninterrupted

    if real_torch is not None:  # PyTorch resumes ctorch's checkpoint: same losses
        checkpoint.seek(0)
        state = real_torch.load(checkpoint)
        model3, opt3 = build(real_torch)
        model3.load_state_dict(state["model"])
        opt3.load_state_dict(state["optimizer"])
        assert train(real_torch, model3, opt3, 4, seed=3) == pytest.approx(uninterrupted, rel=1e-5)


def test_lbfgs_resumes_from_its_state_dict():
    def run(torch, resume_from=None, steps=3):
        p = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
        opt = torch.optim.LBFGS([p], max_iter=4, history_size=3, line_search_fn="strong_wolfe")
        if resume_from is not None:
            p.data.copy_(torch.tensor(resume_from["p"], dtype=torch.float64))
            opt.load_state_dict(resume_from["opt"])

        def closure():
            opt.zero_grad()
            loss = (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2 + (p[2] - 1) ** 2
            loss.backward()
            return loss
        losses = [opt.step(closure).item() for _ in range(steps)]
        return losses, {"p": p.detach().tolist(), "opt": opt.state_dict()}

    first, saved = run(ctorch, steps=1)
    uninterrupted, _ = run(ctorch, steps=3)
    buf = io.BytesIO()
    ctorch.save(saved["opt"], buf)
    buf.seek(0)
    resumed, _ = run(ctorch, {"p": saved["p"], "opt": ctorch.load(buf)}, steps=2)
    assert first + resumed == uninterrupted
    if real_torch is not None:  # PyTorch resumes ctorch's L-BFGS state
        buf.seek(0)
        theirs, _ = run(real_torch, {"p": saved["p"], "opt": real_torch.load(buf)}, steps=2)
        assert theirs == pytest.approx(resumed, rel=1e-9)


def test_optimizer_load_checks_groups():
    p = ctorch.nn.Parameter(ctorch.ones(2))
    opt = ctorch.optim.SGD([p], lr=0.1)
    sd = opt.state_dict()
    sd["param_groups"].append(dict(sd["param_groups"][0]))
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(sd)
    sd = opt.state_dict()
    sd["param_groups"][0]["params"] = [0, 1]
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.1


def test_cuda_locations_and_map_location():
    if ctorch.cuda.device_count() < 2:
        pytest.skip("needs two (emulated) GPUs")
    obj = {"w": ctorch.arange(4.0).cuda(1), "c": ctorch.ones(2)}
    buf = io.BytesIO()
    ctorch.save(obj, buf)
    data = buf.getvalue()
    assert ctorch.load(io.BytesIO(data))["w"].device == ctorch.device("cuda:1")
    assert ctorch.load(io.BytesIO(data), map_location="cpu")["w"].device == ctorch.device("cpu")
    assert ctorch.load(io.BytesIO(data), map_location={"cuda:1": "cuda:0"})["w"].device == ctorch.device("cuda:0")
    assert ctorch.load(io.BytesIO(data), map_location=lambda s, loc: s)["w"].device == ctorch.device("cpu")
    assert ctorch.load(io.BytesIO(data), map_location=lambda s, loc: s.cuda(0))["w"].device == ctorch.device("cuda:0")
    if real_torch is not None:  # PyTorch without a GPU: its advice, then map_location
        with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
            real_torch.load(io.BytesIO(data))
        assert real_torch.load(io.BytesIO(data), map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


class NotATensor:
    pass


def test_refuses_classes_both_ways():
    with pytest.raises(TypeError, match="cannot save an object of type 'NotATensor'"):
        ctorch.save({"x": NotATensor()}, io.BytesIO())
    if real_torch is not None:
        buf = io.BytesIO()
        real_torch.save({"x": NotATensor()}, buf)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError, match="test_serialization.NotATensor; ctorch reads tensors"):
            ctorch.load(buf)


@needs_torch
def test_damaged_files_raise_pytorchs_errors(tmp_path):
    buf = io.BytesIO()
    real_torch.save({"w": real_torch.ones(3)}, buf)
    data = buf.getvalue()

    def truncated(torch):
        return torch.load(io.BytesIO(data[: len(data) // 2]))

    def missing(torch):
        return torch.load(str(tmp_path / "missing.pt"))

    for case in (truncated, missing):
        assert outcome(ctorch, case) == outcome(real_torch, case)


def test_tensors_pickle_and_deepcopy():
    t = ctorch.arange(6.0).reshape(2, 3)[:, 1:]
    back = pickle.loads(pickle.dumps(t))
    assert back.tolist() == t.tolist() and back.stride() == t.stride()
    p = ctorch.nn.Parameter(ctorch.ones(2))
    q = copy.deepcopy(p)
    assert isinstance(q, ctorch.nn.Parameter) and q.requires_grad and q.tolist() == [1.0, 1.0]
