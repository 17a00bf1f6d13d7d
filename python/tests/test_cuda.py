"""torch.cuda semantics from Python on emulated GPUs (PyTorch itself skips these without a GPU)."""
import pytest

import ctorch as torch

pytestmark = pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two (emulated) cuda devices")


def test_devices_and_current_device():
    assert torch.cuda.is_available()
    assert torch.cuda.device_count() == 2
    assert torch.cuda.current_device() == 0
    with torch.cuda.device(1):
        assert torch.cuda.current_device() == 1
        a = torch.cuda.FloatTensor(1)
        b = torch.FloatTensor(1).cuda()
        assert a.get_device() == b.get_device() == 1
        assert (a + b).get_device() == 1
    assert torch.cuda.current_device() == 0
    assert "emulated" in torch.cuda.get_device_name(0)
    assert torch.cuda.get_device_capability(0) == (8, 0)
    assert repr(torch.cuda.get_device_properties(0)).startswith("_CudaDeviceProperties(name='")


def test_moves_between_devices_keep_values():
    x = torch.arange(6.0).reshape(2, 3)
    y = x.to("cuda:1")
    assert y.device == torch.device("cuda:1") and y.is_cuda
    assert repr(y) == "tensor([[0., 1., 2.],\n        [3., 4., 5.]], device='cuda:1')"
    assert torch.equal(y.cpu(), x)
    z = x.cuda(0, non_blocking=True)
    assert z.get_device() == 0
    assert y.to(x) .device.type == "cpu"
    c = torch.zeros(2, 3)
    assert c.copy_(y) is c and torch.equal(c, x)


def test_mixed_devices_raise_pytorchs_error():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.ones(2, device="cuda:0") + torch.ones(2, device="cuda:1")
    # a 0-dim cpu tensor is allowed with a cuda tensor, as in PyTorch
    assert (torch.ones(2, device="cuda:0") + torch.tensor(1.0)).get_device() == 0


def test_pinned_memory_and_non_blocking_copies():
    x = torch.ones(1000)
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and p is not x
    g = p.cuda(non_blocking=True)
    torch.cuda.synchronize()
    assert g.sum().item() == 1000.0
    assert torch.zeros(3, pin_memory=True).is_pinned()


def test_streams_and_events():
    s = torch.cuda.Stream()
    assert torch.cuda.current_stream() == torch.cuda.default_stream()
    a = torch.randn(100, device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
        b = a * 2
    torch.cuda.current_stream().wait_stream(s)
    assert torch.allclose(b.cpu(), a.cpu() * 2)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.ones(1000, device="cuda").sum()
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0
    assert repr(s).startswith("<torch.cuda.Stream device=cuda:0 cuda_stream=")


def test_caching_allocator_statistics_and_oom():
    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated(0)
    x = torch.empty(1024, 1024, device="cuda:0")
    assert torch.cuda.memory_allocated(0) - before == 4 * 1024 * 1024
    assert torch.cuda.memory_reserved(0) >= torch.cuda.memory_allocated(0)
    stats = torch.cuda.memory_stats(0)
    assert stats["allocated_bytes.all.current"] == torch.cuda.memory_allocated(0)
    assert "PyTorch CUDA memory summary, device ID 0" in torch.cuda.memory_summary(0)
    del x
    with pytest.raises(torch.cuda.OutOfMemoryError, match="CUDA out of memory. Tried to allocate"):
        torch.empty(1 << 45, device="cuda:0")
    assert issubclass(torch.cuda.OutOfMemoryError, RuntimeError)


def test_cuda_random_state_round_trips():
    torch.cuda.manual_seed_all(3)
    state = torch.cuda.get_rng_state()
    assert state.dtype == torch.uint8
    a = torch.rand(4, device="cuda")
    torch.cuda.set_rng_state(state)
    assert torch.equal(torch.rand(4, device="cuda"), a)


def test_module_to_device_and_training_on_it():
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Sequential(torch.nn.Linear(3, 1)).to(device)
    params = list(model.parameters())
    assert all(p.device == torch.device("cuda:0") for p in params)
    assert isinstance(params[0], torch.nn.Parameter)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(32, 3, device=device), torch.randn(32, 1, device=device)
    first = None
    for _ in range(20):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < first


def test_same_losses_on_cpu_and_emulated_gpu():
    def run(device):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.arange(32.0).reshape(8, 4).div(32).to(device)
        y = torch.tensor([0, 1] * 4, device=device)
        out = []
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out

    assert run("cpu") == pytest.approx(run("cuda:1"), rel=1e-5)


def test_data_parallel_matches_a_single_device():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3)).cuda()
    dp = torch.nn.DataParallel(model)
    assert dp.device_ids == [0, 1]
    x = torch.randn(8, 5, device="cuda")
    out = dp(x)
    assert out.shape == (8, 3) and out.get_device() == 0
    assert torch.allclose(out, model(x), atol=1e-6)
    out.sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for g, p in zip(grads, model.parameters()):
        assert torch.allclose(g, p.grad, atol=1e-5)


def test_data_parallel_over_a_python_forward_raises_with_its_replica():
    class Bad(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(2, 2)

        def forward(self, x):
            if x.get_device() == 1:
                raise ValueError("boom")
            return self.fc(x)

    dp = torch.nn.DataParallel(Bad().cuda())
    with pytest.raises(Exception, match="in replica 1"):
        dp(torch.ones(4, 2, device="cuda"))


def test_dataloader_pin_memory_and_workers():
    from ctorch.utils.data import DataLoader, TensorDataset
    ds = TensorDataset(torch.arange(20.0).reshape(10, 2), torch.arange(10))
    batches = list(DataLoader(ds, batch_size=4, pin_memory=True, num_workers=2))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert all(b[0].is_pinned() for b in batches)
    x = batches[0][0].to("cuda", non_blocking=True)
    assert x.sum().item() == 28.0


def test_legacy_cuda_types_and_isinstance():
    x = torch.cuda.FloatTensor(2)
    assert isinstance(x, torch.cuda.FloatTensor) and not isinstance(x, torch.FloatTensor)
    assert x.type() == "torch.cuda.FloatTensor"
    assert torch.cuda.LongTensor([1, 2]).dtype == torch.int64


def test_comm_and_nvtx():
    x = torch.arange(4.0, device="cuda:0")
    copies = torch.cuda.comm.broadcast(x, [0, 1])
    assert [c.get_device() for c in copies] == [0, 1]
    total = torch.cuda.comm.reduce_add(copies, destination=0)
    assert total.tolist() == [0.0, 2.0, 4.0, 6.0]
    with torch.cuda.nvtx.range("step {}", 1):
        torch.cuda.nvtx.mark("inside")


def test_backends_cudnn_switches_reach_the_library():
    # python3-torch 1.13.1 (CPU): is_available() False, version() None, enabled True, benchmark False,
    # deterministic False, allow_tf32 True; emulated devices have no cuDNN either.
    cudnn = torch.backends.cudnn
    assert cudnn.is_available() is False and cudnn.version() is None
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (True, False, False, True)
    try:
        cudnn.deterministic, cudnn.benchmark, cudnn.enabled = True, True, False
        assert torch._C._cuda.cudnn_deterministic() is True  # the C++ switch, which the conv kernels read
        assert torch._C._cuda.cudnn_benchmark() is True and torch._C._cuda.cudnn_enabled() is False
        assert (cudnn.deterministic, cudnn.benchmark, cudnn.enabled) == (True, True, False)
    finally:
        cudnn.deterministic, cudnn.benchmark, cudnn.enabled = False, False, True


def test_backends_matmul_allow_tf32():
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    assert torch.backends.cuda.matmul.allow_tf32 is True
    torch.backends.cuda.matmul.allow_tf32 = old


def test_cuda_graph_capture_and_replay():
    g = torch.cuda.CUDAGraph()
    static_in = torch.ones(4, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        static_out = static_in * 2
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        static_out = static_in * 2
    static_in.fill_(3)
    g.replay()
    torch.cuda.synchronize()
    assert static_out.tolist() == [6.0] * 4


def test_make_graphed_callables_of_a_python_module_trains_as_eager():
    # torch.cuda.graphs' whole-network example: a Python nn.Module graphed, trained by SGD steps,
    # against an eager copy of it on the same data; eval() runs the original forward.
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 8)
            self.fc2 = torch.nn.Linear(8, 2)

        def forward(self, x):
            return self.fc2(self.fc1(x).relu())

    torch.manual_seed(0)
    model = Net().cuda()
    eager = Net().cuda()
    eager.load_state_dict(model.state_dict())
    x = torch.randn(16, 4, device="cuda")
    target = torch.randn(16, 2, device="cuda")
    graphed = torch.cuda.make_graphed_callables(model, (torch.randn(16, 4, device="cuda"),))
    assert graphed is model
    first, second = model(x), model(x)  # replays: the graph's static output, a GraphedBackward node
    assert first.data_ptr() == second.data_ptr() and type(first.grad_fn).__name__ != "AddmmBackward0"
    assert repr(first.grad_fn).startswith("<GraphedBackward")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt_eager = torch.optim.SGD(eager.parameters(), lr=0.1)
    for _ in range(3):
        for net, o in ((model, opt), (eager, opt_eager)):
            o.zero_grad(set_to_none=True)
            torch.nn.functional.mse_loss(net(x), target).backward()
            o.step()
    for p, q in zip(model.parameters(), eager.parameters()):
        assert torch.allclose(p, q, atol=1e-6)
    model.eval()
    assert torch.allclose(model(x[:3]), eager(x[:3]), atol=1e-6)  # another shape: the eager forward ran
    with pytest.raises(ValueError, match="Modules must not have hooks registered"):
        hooked = Net().cuda()
        hooked.register_forward_hook(lambda m, i, o: None)
        torch.cuda.make_graphed_callables(hooked, (x,))


def test_make_graphed_callables_of_a_function():
    w = torch.randn(4, 4, device="cuda", requires_grad=True)

    def step(x, weight):
        return (x @ weight).relu()

    x = torch.randn(8, 4, device="cuda", requires_grad=True)
    graphed = torch.cuda.make_graphed_callables(step, (x, w))
    out = graphed(x, w)
    assert torch.allclose(out, step(x, w), atol=1e-6)
    out.sum().backward()
    expect = torch.autograd.grad(step(x, w).sum(), w)[0]
    assert torch.allclose(w.grad, expect, atol=1e-5)
    assert torch.cuda.current_blas_handle() != 0
    torch.cuda.ipc_collect()
