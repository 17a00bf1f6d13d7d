"""Per-op cost from Python, ctorch against PyTorch (Debian's python3-torch 1.13.1), each library in
its own process, alternating rounds (ABAB); prints medians and ratios (PyTorch time / ctorch time).

    PYTHONPATH=build/python /usr/bin/python3 bench/python/python_bench.py [--rounds 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CASES = ["add_1elem", "mlp_sgd_step", "to_cuda_1elem", "sum_item_cuda"]


def bench(lib_name, case, seconds=0.5):
    torch = __import__(lib_name)
    if case in ("to_cuda_1elem", "sum_item_cuda") and not torch.cuda.is_available():
        return None
    if case == "add_1elem":
        a, b = torch.ones(1), torch.ones(1)
        fn = lambda: a + b  # noqa: E731
    elif case == "to_cuda_1elem":
        x = torch.ones(1)
        fn = lambda: x.to("cuda:0")  # noqa: E731
    elif case == "sum_item_cuda":
        y = torch.ones(1, device="cuda:0")
        fn = lambda: y.sum().item()  # noqa: E731
    else:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                    torch.nn.ReLU(), torch.nn.Linear(256, 10))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x, y = torch.randn(64, 784), torch.randint(0, 10, (64,))

        def fn():
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    for _ in range(20):
        fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            fn()
        n += 10
    return (time.perf_counter() - start) / n


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--child", nargs=2, metavar=("LIB", "CASE"))
    args = p.parse_args()
    if args.child:
        print(json.dumps(bench(*args.child)))
        return
    env = dict(os.environ, CTORCH_EMULATED_CUDA=os.environ.get("CTORCH_EMULATED_CUDA", "2"))
    times = {(lib, c): [] for lib in ("torch", "ctorch") for c in CASES}
    for _ in range(args.rounds):
        for case in CASES:
            for lib in ("torch", "ctorch"):
                out = subprocess.run([sys.executable, __file__, "--child", lib, case], env=env, check=True,
                                     capture_output=True, text=True).stdout
                t = json.loads(out.strip().splitlines()[-1])
                if t is not None:
                    times[(lib, case)].append(t)
    print(f"{'case':<16} {'torch us':>10} {'ctorch us':>10} {'speedup':>8}")
    for case in CASES:
        ct = times[("ctorch", case)]
        pt = times[("torch", case)]
        c = statistics.median(ct) * 1e6 if ct else float("nan")
        t = statistics.median(pt) * 1e6 if pt else float("nan")
        print(f"{case:<16} {t:>10.2f} {c:>10.2f} {t / c if pt and ct else float('nan'):>7.2f}x")


if __name__ == "__main__":
    main()
