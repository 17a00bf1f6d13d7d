"""torch.distributed from Python: two processes (launched directly and by ctorchrun) run the
collectives over Gloo on cpu tensors and on emulated cuda tensors."""
import os
import shutil
import socket
import subprocess
import sys
import textwrap

import pytest

import ctorch

SCRIPT = textwrap.dedent("""
    import ctorch as torch
    import ctorch.distributed as dist
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = "cuda:%d" % rank if torch.cuda.device_count() >= world else "cpu"
    t = torch.tensor([rank + 1.0, 10.0], device=device)
    dist.all_reduce(t)
    assert t.tolist() == [3.0, 20.0], t
    m = torch.tensor([float(rank)])
    dist.all_reduce(m, op=dist.ReduceOp.MAX)
    assert m.item() == 1.0
    b = torch.full((3,), float(rank), device=device)
    dist.broadcast(b, src=1)
    assert b.tolist() == [1.0, 1.0, 1.0]
    outs = [torch.zeros(2) for _ in range(world)]
    dist.all_gather(outs, torch.tensor([rank, rank * 2.0]))
    assert [o.tolist() for o in outs] == [[0.0, 0.0], [1.0, 2.0]]
    work = dist.all_reduce(torch.ones(4), async_op=True)
    work.wait()
    dist.barrier()
    print("rank", rank, "of", world, "on", device, "ok")
    dist.destroy_process_group()
""")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_two_ranks(tmp_path, name, text, emulated_gpus, timeout):
    """Runs script `text` as ranks 0 and 1 (env:// on a free port); returns their outputs after both succeed."""
    script = tmp_path / name
    script.write_text(text)
    port = str(free_port())
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                   CTORCH_EMULATED_CUDA=emulated_gpus)
        procs.append(subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    outs = [p.communicate(timeout=timeout)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    return outs


def test_two_processes_with_env_init(tmp_path):
    outs = run_two_ranks(tmp_path, "collectives.py", SCRIPT, "2", timeout=120)
    assert "rank 0 of 2 on cuda:0 ok" in outs[0] and "rank 1 of 2 on cuda:1 ok" in outs[1]


def _ctorchrun():
    here = os.path.dirname(ctorch.__file__)
    for candidate in (os.path.join(here, "..", "..", "tools", "ctorchrun"), shutil.which("ctorchrun") or ""):
        if candidate and os.path.exists(candidate):
            return os.path.abspath(candidate)
    return None


@pytest.mark.skipif(_ctorchrun() is None, reason="ctorchrun is not built beside this package")
def test_ctorchrun_launches_python_scripts(tmp_path):
    script = tmp_path / "collectives.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, CTORCH_EMULATED_CUDA="0")
    r = subprocess.run([_ctorchrun(), "--nproc-per-node", "2", "--master-port", str(free_port()), sys.executable,
                        str(script)], env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "rank 0 of 2 on cpu ok" in r.stdout and "rank 1 of 2 on cpu ok" in r.stdout


def test_collectives_without_a_group_raise():
    with pytest.raises(RuntimeError):
        ctorch.distributed.all_reduce(ctorch.ones(1))


# DistributedDataParallel over a Python Module, on 2 ranks with different data (cpu, or each rank on its
# own emulated cuda device with device_ids=[rank]); every check asserts on both ranks.
DDP_SCRIPT = textwrap.dedent("""
    import copy
    import ctorch as torch
    import ctorch.distributed as dist
    import ctorch.nn as nn
    import ctorch.nn.functional as F
    from ctorch.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    on_cuda = torch.cuda.device_count() >= world
    device = "cuda:%d" % rank if on_cuda else "cpu"
    device_ids = [rank] if on_cuda else None

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 5)
            self.fc2 = nn.Linear(5, 2)
            self.register_buffer("scale", torch.full((1,), 1.0 + rank))

        def forward(self, x):
            return self.fc2(torch.tanh(self.fc1(x))) * self.scale

    def gathered(t):
        outs = [torch.zeros_like(t) for _ in range(world)]
        dist.all_gather(outs, t.detach().contiguous())
        return outs

    def close(a, b, tol=1e-6):
        return (a.detach().cpu() - b.detach().cpu()).abs().max().item() <= tol

    torch.manual_seed(1234)  # the same data on every rank; each rank trains on its half
    X, Y = torch.randn(8, 4), torch.randn(8, 2)
    torch.manual_seed(rank)  # different initial weights: the constructor must broadcast rank 0's
    net = Net().to(device)
    ddp = DDP(net, device_ids=device_ids)
    assert ddp.module is net
    assert list(ddp.state_dict().keys()) == ["module." + k for k in net.state_dict().keys()]
    assert ddp.module.scale.item() == 1.0  # rank 0's buffer
    ref = copy.deepcopy(net)  # rank 0's initial model, trained on the whole batch in one process
    for p, q in zip(gathered(net.fc1.weight), gathered(ref.fc1.weight)):
        assert close(p, q, 0.0)

    # (1) 3 SGD steps under DDP == 3 steps of one process on the concatenated batch (mean loss).
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    xs, ys = X[4 * rank:4 * rank + 4], Y[4 * rank:4 * rank + 4].to(device)  # ddp moves xs to device_ids[0]
    for step in range(3):
        opt.zero_grad()
        F.mse_loss(ddp(xs), ys).backward()
        opt.step()
        ref_opt.zero_grad()
        F.mse_loss(ref(X.to(device)), Y.to(device)).backward()
        ref_opt.step()
    for (name, p), q in zip(net.named_parameters(), ref.parameters()):
        mine, theirs = gathered(p)
        assert close(mine, theirs, 0.0), name  # the same parameters on both ranks
        assert close(p, q), (name, (p.detach().cpu() - q.detach().cpu()).abs().max().item())

    # (2) no_sync: backward accumulates locally, the next synced backward averages the sum.
    local = copy.deepcopy(net)
    opt.zero_grad()
    with ddp.no_sync():
        F.mse_loss(ddp(xs), ys).backward()
    F.mse_loss(local(xs.to(device)), ys).backward()
    for p, q in zip(net.parameters(), local.parameters()):
        assert close(p.grad, q.grad)  # not averaged
    other = 2 * xs + 1
    F.mse_loss(ddp(other), ys).backward()
    F.mse_loss(local(other.to(device)), ys).backward()
    for p, q in zip(net.parameters(), local.parameters()):
        expected = q.grad.clone()
        dist.all_reduce(expected)
        assert close(p.grad, expected / world)
    a, b = gathered(net.fc1.weight.grad)
    assert close(a, b, 0.0)

    # gradient_as_bucket_view: the same averaged gradients, each .grad a view of its bucket.
    twin = copy.deepcopy(net)
    ddp_v = DDP(twin, device_ids=device_ids, gradient_as_bucket_view=True)
    net.zero_grad(set_to_none=True)
    F.mse_loss(ddp(xs), ys).backward()
    F.mse_loss(ddp_v(xs), ys).backward()
    for p, q in zip(net.parameters(), twin.parameters()):
        assert close(p.grad, q.grad, 0.0)
    bases = {q.grad.data_ptr() - q.grad.storage_offset() * q.grad.element_size() for q in twin.parameters()}
    assert len(bases) == 1 and ddp_v.reducer._get_bucket_indices() == [[3, 2, 1, 0]]  # slots of one bucket

    # (3) find_unused_parameters: rank 1 skips a branch, the iterations complete and agree.
    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 2)
            self.b = nn.Linear(4, 2)

        def forward(self, x, use_b):
            y = self.a(x)
            return {"out": y + self.b(x) if use_b else y}

    br = Branchy().to(device)
    ddp_u = DDP(br, device_ids=device_ids, find_unused_parameters=True)
    for step in range(2):
        br.zero_grad()
        ddp_u(xs, use_b=(rank == 0))["out"].sum().backward()
        a0, a1 = gathered(br.a.weight.grad)
        assert close(a0, a1, 0.0)
        b0, b1 = gathered(br.b.weight.grad)
        assert close(b0, b1, 0.0)  # rank 1 contributed zeros
    # Without it, a backward that leaves parameters without a gradient makes the next forward raise.
    ddp_s = DDP(Branchy().to(device), device_ids=device_ids)
    ddp_s(xs, use_b=False)["out"].sum().backward()  # no rank uses b: no bucket with b is launched
    try:
        ddp_s(xs, use_b=False)
        raise AssertionError("no error")
    except RuntimeError as e:
        assert "Expected to have finished reduction in the prior iteration" in str(e), e
        assert "Parameter indices which did not receive grad for rank %d: 2 3" % rank in str(e), e
    with torch.no_grad():
        ddp_s(xs, use_b=False)  # a forward without grad still runs
    dist.barrier()
    print("rank", rank, "ddp on", device, "ok")
    dist.destroy_process_group()
""")


@pytest.mark.parametrize("emulated_gpus", ["0", "2"], ids=["cpu", "emulated-cuda"])
def test_distributed_data_parallel_two_processes(tmp_path, emulated_gpus):
    outs = run_two_ranks(tmp_path, "ddp.py", DDP_SCRIPT, emulated_gpus, timeout=180)
    device = ["cpu", "cpu"] if emulated_gpus == "0" else ["cuda:0", "cuda:1"]
    for rank in range(2):
        assert "rank %d ddp on %s ok" % (rank, device[rank]) in outs[rank], outs


def test_distributed_data_parallel_errors_without_a_group():
    from ctorch.nn.parallel import DistributedDataParallel as DDP
    frozen = ctorch.nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="DistributedDataParallel is not needed when a module doesn't have any "
                                           "parameter that requires a gradient"):
        DDP(frozen)
    with pytest.raises(ValueError, match="device_ids and output_device arguments only work with"):
        DDP(ctorch.nn.Linear(2, 2), device_ids=[0])
    with pytest.raises(ValueError, match="device_ids can only be None or contain a single element"):
        DDP(ctorch.nn.Linear(2, 2), device_ids=[0, 1])
    if not ctorch.distributed.is_initialized():
        with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
            DDP(ctorch.nn.Linear(2, 2))
