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


def test_two_processes_with_env_init(tmp_path):
    script = tmp_path / "collectives.py"
    script.write_text(SCRIPT)
    port = str(free_port())
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                   CTORCH_EMULATED_CUDA="2")
        procs.append(subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
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
