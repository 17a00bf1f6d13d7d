"""Zero-copy exchange with NumPy and PyTorch: from_numpy / numpy() and DLPack share memory."""
import numpy as np
import pytest

import ctorch

try:
    import torch
except ImportError:
    torch = None


def test_numpy_round_trip_shares_memory():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = ctorch.from_numpy(a)
    assert t.dtype == ctorch.float64 and t.shape == (2, 3)
    a[1, 1] = 100
    assert t[1, 1].item() == 100
    n = t.numpy()
    n[0, 0] = -5
    assert a[0, 0] == -5
    assert np.shares_memory(n, a)


def test_numpy_refuses_what_pytorch_refuses():
    with pytest.raises(TypeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        ctorch.ones(2, requires_grad=True).numpy()
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.object_"):
        ctorch.from_numpy(np.array([object()]))


def test_dlpack_with_numpy():
    t = ctorch.arange(5, dtype=ctorch.int32)
    a = np.from_dlpack(t)  # NumPy marks DLPack imports read-only
    t[0] = 42
    assert a[0] == 42
    back = ctorch.from_dlpack(np.arange(3.0))
    assert back.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.skipif(torch is None, reason="python3-torch is not installed")
def test_dlpack_with_pytorch_both_ways():
    t = ctorch.arange(4.0)
    p = torch.from_dlpack(t)
    p[2] = 7.0
    assert t.tolist() == [0.0, 1.0, 7.0, 3.0]
    q = torch.arange(6).reshape(2, 3)[:, 1:]
    c = ctorch.from_dlpack(q)
    assert c.tolist() == q.tolist() and c.stride() == q.stride()
    q[0, 0] = -1
    assert c[0, 0].item() == -1
    assert ctorch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(torch.ones(2))).tolist() == [1.0, 1.0]


def test_dlpack_refuses_bool_as_pytorch_1_13():
    with pytest.raises(TypeError, match="Bool type is not supported by dlpack"):
        ctorch.tensor([True]).__dlpack__()


def test_safetensors_round_trip_onto_a_device(tmp_path):
    state = {"w": ctorch.arange(6.0).reshape(2, 3), "b": ctorch.tensor([1, 2], dtype=ctorch.int64)}
    path = tmp_path / "m.safetensors"
    ctorch.safetensors.save_file(state, path)
    loaded = ctorch.safetensors.load_file(path)
    assert ctorch.equal(loaded["w"], state["w"]) and loaded["b"].dtype == ctorch.int64
    if ctorch.cuda.is_available():
        on_gpu = ctorch.safetensors.load_file(path, device="cuda:1")
        assert on_gpu["w"].device == ctorch.device("cuda:1")
    model = ctorch.nn.Linear(3, 2)
    ctorch.safetensors.save_file(model.state_dict(), tmp_path / "lin.safetensors")
    other = ctorch.nn.Linear(3, 2)
    other.load_state_dict(ctorch.safetensors.load_file(tmp_path / "lin.safetensors"))
    assert ctorch.equal(other.weight, model.weight)
