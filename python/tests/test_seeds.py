"""The seeds' own Python examples, run as written with `import torch` meaning ctorch.

Every Python code example of ../shared/seeds/ is transcribed in seeds/examples.py (code as
written, the fragment definitions it needs, devices, the seed's printed output, skip reasons).
Each runs in a fresh /usr/bin/python3 with PYTHONPATH from the environment and
CTORCH_EMULATED_CUDA=<its device count, at least 2>, through seeds/run_example.py (which aliases
torch to ctorch); it must exit 0 and, where the seed shows deterministic output, print it.

  python3 -m pytest -q python/tests/test_seeds.py      # with PYTHONPATH=<build>/python
  python3 python/tests/test_seeds.py                   # the report: every example and its status
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "seeds"))
from examples import API_PAGE_ENTRIES, BY_ID, EXAMPLES  # noqa: E402

SEEDS_DIR = os.environ.get("CTORCH_SEEDS_DIR") or os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "shared", "seeds"))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
RUNNER = os.path.join(HERE, "seeds", "run_example.py")
TIMEOUT = 120
WORKERS = 2  # examples run two at a time (the machine has two cores)


def normalize(text):
    """Whitespace runs as one space (the web pages collapse the spaces of printed tensors)."""
    return " ".join(text.split())


def seed_text(name):
    """A seed file with whitespace normalized and the gutter lines of GitHub's file view ("|") removed."""
    with open(os.path.join(SEEDS_DIR, name), encoding="utf-8") as f:
        lines = f.read().split("\n")
    return normalize("\n".join(line for line in lines if line.strip() != "|"))


def devices_for(rec):
    return max(2, rec["devices"])


def prelude(rec):
    """Code run before the example: required examples (recursively, with their fragments), then its fragments."""
    pieces, seen = [], set()

    def add(rid):
        if rid in seen:
            return
        seen.add(rid)
        r = BY_ID[rid]
        for sub in r["requires"]:
            add(sub)
        if r["fragments"]:
            pieces.append(r["fragments"])
        pieces.append(r["code"])

    for rid in rec["requires"]:
        add(rid)
    if rec["fragments"]:
        pieces.append(rec["fragments"])
    return pieces


def run_example(rec, ndev, extra_env=()):
    """Runs rec in a fresh interpreter with ndev emulated GPUs: (returncode, stdout, stderr, seconds)."""
    payload = json.dumps({"id": rec["id"], "prelude": prelude(rec), "code": rec["code"], "mode": rec["mode"],
                          "after": rec["after"]})
    env = dict(os.environ, CTORCH_EMULATED_CUDA=str(ndev), PYTHONDONTWRITEBYTECODE="1")
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env.pop("CTORCH_CUDA_SANITIZER", None)
    env.update(extra_env)
    start = time.monotonic()
    try:
        p = subprocess.run([PYTHON, RUNNER], input=payload, capture_output=True, text=True, env=env,
                           timeout=TIMEOUT)
        out = (p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired as e:
        out = (-1, e.stdout or "", (e.stderr or "") + f"\n(timed out after {TIMEOUT} s)")
    return out + (time.monotonic() - start,)


def expected_text(rec, ndev):
    text = rec["output"] if rec["expect"] == "SEED" else rec["expect"]
    return text.replace("$NDEV", str(ndev)).replace("$CPU_COUNT", str(os.cpu_count()))


# ---- the runs, started together (two at a time) for the tests selected ------------------------

_JOBS = {}
_POOL = None


def _job(rec, ndev):
    key = (rec["id"], ndev)
    if key not in _JOBS:
        global _POOL
        if _POOL is None:
            _POOL = concurrent.futures.ThreadPoolExecutor(WORKERS)
        _JOBS[key] = _POOL.submit(run_example, rec, ndev)
    return _JOBS[key]


def _result(rec, ndev):
    return _job(rec, ndev).result()


@pytest.fixture(scope="module", autouse=True)
def _prefetch(request):
    """Starts every run the selected tests need, so they overlap; each test waits for its own."""
    for item in request.session.items:
        if item.module is not request.module or not hasattr(item, "callspec"):
            continue
        rec = item.callspec.params.get("rec")
        if rec is None or rec["skip"] or item.get_closest_marker("skip"):
            continue
        if item.originalname == "test_example":
            _job(rec, devices_for(rec))
        elif item.originalname == "test_seed_output_on_seed_device_count":
            _job(rec, rec["seed_devices"])
    yield
    global _POOL
    if _POOL is not None:
        _POOL.shutdown(wait=True)
        _POOL = None


def _params(recs):
    return [pytest.param(r, id=r["id"], marks=[pytest.mark.skip(reason=r["skip"])] if r["skip"] else [])
            for r in recs]


def _failure(rec, rc, out, err):
    return (f"{rec['id']} exited {rc}\n--- code ---\n{rec['code']}--- stdout (tail) ---\n{out[-2000:]}\n"
            f"--- stderr (tail) ---\n{err[-3000:]}")


# ---- the examples ----------------------------------------------------------------------------

def verdict(rec, ndev, result):
    """None when the run passed: exit 0, and the printed text as expected; else what went wrong."""
    rc, out, err, _ = result
    if rc != 0:
        return _failure(rec, rc, out, err)
    if rec["expect"] is not None and normalize(out) != normalize(expected_text(rec, ndev)):
        return f"{rec['id']}: printed\n{out}\ninstead of\n{expected_text(rec, ndev)}"
    if rec["expect_re"] is not None and not re.fullmatch(rec["expect_re"], normalize(out)):
        return f"{rec['id']}: printed\n{out}\nwhich does not match\n{rec['expect_re']}"
    return None


@pytest.mark.parametrize("rec", _params(EXAMPLES))
def test_example(rec):
    """The example exits 0 on emulated GPUs; its printed output matches where the seed shows it."""
    ndev = devices_for(rec)
    problem = verdict(rec, ndev, _result(rec, ndev))
    assert problem is None, problem


def seed_verdict(rec, result):
    """None when the run with the seed machine's GPU count printed the seed's output (or raised its error)."""
    rc, out, err, _ = result
    if rec["seed_error"]:
        return None if rc != 0 and rec["seed_error"] in err else _failure(rec, rc, out, err)
    if rc != 0:
        return _failure(rec, rc, out, err)
    if normalize(out) != normalize(rec["output"]):
        return f"{rec['id']}: printed\n{out}\ninstead of the seed's\n{rec['output']}"
    return None


@pytest.mark.parametrize("rec", _params([r for r in EXAMPLES if r["seed_devices"]]))
def test_seed_output_on_seed_device_count(rec):
    """Output that depends on the seed machine's GPU count, checked with that many emulated GPUs."""
    problem = seed_verdict(rec, _result(rec, rec["seed_devices"]))
    assert problem is None, problem


SANITIZER = (("CTORCH_CUDA_SANITIZER", "1"),)


def test_stream_sanitizer_sees_the_seeds_race():
    """000's first streams example is a race, as its page says (torch.sum on a side stream may run before
    torch.randn on the default stream): the stream sanitizer reports it, and the page's fix
    (Stream.synchronize on the default stream first) runs clean."""
    race, fixed = BY_ID["000-streams-race"], BY_ID["000-streams-synchronize"]
    rc, out, err, _ = run_example(race, 2, SANITIZER)
    assert rc != 0 and "during kernel:\nsum" in err and "during kernel:\nnormal_" in err, \
        _failure(race, rc, out, err)
    rc, out, err, _ = run_example(fixed, 2, SANITIZER)
    assert rc == 0 and not err.strip(), _failure(fixed, rc, out, err)


# ---- the transcription stays tied to the seeds -------------------------------------------------

def _need_seeds():
    if not os.path.isdir(SEEDS_DIR):
        pytest.skip(f"no seeds at {SEEDS_DIR} (set CTORCH_SEEDS_DIR)")


@pytest.mark.parametrize("rec", [pytest.param(r, id=r["id"]) for r in EXAMPLES])
def test_code_occurs_in_seed(rec):
    """The transcribed code (and the output it says the seed shows) occurs in its seed file."""
    _need_seeds()
    text = seed_text(rec["seed"])
    assert normalize(rec["code"]) in text, f"{rec['id']}: code not found in {rec['seed']}"
    if rec["output"] is not None:
        assert normalize(rec["output"]) in text, f"{rec['id']}: output not found in {rec['seed']}"


def test_every_rst_literal_block_is_transcribed():
    """Every `::` literal block of the CUDA-semantics page (002) is an example, transcribed whole: the
    text after each `::` starts with one transcribed example, a different one each time. (The dump
    lost the blocks' common indentation, so where a block ends is the example's end.)"""
    _need_seeds()
    from examples import S2
    text = seed_text(S2)
    codes = [normalize(r["code"]) for r in EXAMPLES if r["seed"] == S2]
    starts = [m.end() for m in re.finditer(r"::(?= )", text)]
    found = []
    for start in starts:
        rest = text[start:].lstrip()
        found.append(next((c for c in codes if rest.startswith(c)), None))
    assert None not in found, "a literal block that is not transcribed follows: " + \
        text[starts[found.index(None)]:starts[found.index(None)] + 80]
    assert sorted(found) == sorted(codes) and len(found) == 7


def test_every_notebook_cell_is_transcribed():
    """The notebook (003) has as many `In [n]:` cells as examples transcribed from it."""
    _need_seeds()
    from examples import S3
    with open(os.path.join(SEEDS_DIR, S3), encoding="utf-8") as f:
        cells = re.findall(r"^In \[\d+\]:$", f.read(), re.M)
    assert len(cells) == len([r for r in EXAMPLES if r["seed"] == S3])


# Entries of the page that ctorch implements in C++ (README) but the Python package does not bind yet.
API_PAGE_NOT_BOUND = set()


def test_api_page_entries_exist():
    """Every entry of the torch.cuda API page's table (004) is in ctorch.cuda, callable or a class, except
    the ones listed as not bound yet (the test fails when one of those appears, to keep the list true)."""
    _need_seeds()
    import ctorch.cuda
    from examples import S4
    text = seed_text(S4)
    missing = []
    for name in API_PAGE_ENTRIES:
        assert name in text, f"{name} is not on the page"
        obj = ctorch.cuda
        try:
            for part in name.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            missing.append(name)
            continue
        assert callable(obj), f"ctorch.cuda.{name} is not callable"
    assert set(missing) <= API_PAGE_NOT_BOUND, "missing from ctorch.cuda: " + ", ".join(missing)
    assert set(missing) == API_PAGE_NOT_BOUND, \
        "now in ctorch.cuda (take them off API_PAGE_NOT_BOUND): " + ", ".join(sorted(API_PAGE_NOT_BOUND - set(missing)))


# ---- examples/python: the seeds' LinearRegression and an MNIST-like MLP, trained ----------------

EXAMPLES_DIR = os.environ.get("CTORCH_EXAMPLES_DIR") or os.path.normpath(
    os.path.join(HERE, "..", "..", "examples", "python"))


@pytest.mark.parametrize("script,args", [
    ("linear_regression.py", ["--epochs", "5"]),
    ("mnist_like.py", ["--epochs", "2", "--train-size", "1024", "--test-size", "256"]),
])
def test_python_example_trains(script, args):
    """The examples train on two emulated GPUs (DataParallel over both for mnist_like): the loss falls."""
    if not os.path.exists(os.path.join(EXAMPLES_DIR, script)):
        pytest.skip(f"{EXAMPLES_DIR} is not here (tests run outside the checkout): set CTORCH_EXAMPLES_DIR")
    env = dict(os.environ, CTORCH_EMULATED_CUDA="2", PYTHONDONTWRITEBYTECODE="1")
    env.pop("CUDA_VISIBLE_DEVICES", None)
    p = subprocess.run([PYTHON, os.path.join(EXAMPLES_DIR, script)] + args, capture_output=True, text=True,
                       env=env, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr[-3000:]
    losses = [float(m) for m in re.findall(r"^epoch +\d+ +loss ([0-9.]+)", p.stdout, re.M)]
    assert len(losses) == int(args[1]) and losses[-1] < losses[0], p.stdout
    assert "cuda:0" in p.stdout, p.stdout
    if script == "mnist_like.py":
        assert "nn.DataParallel over device_ids [0, 1]" in p.stdout, p.stdout


# ---- the count ---------------------------------------------------------------------------------

def report(results=None):
    """Every example with its status, then the counts. results: {(id, ndev): (rc, out, err, s)}."""
    results = results if results is not None else {k: f.result() for k, f in _JOBS.items() if f.done()}
    keys = ["runs, output checked", "runs, seed's statements asserted", "runs", "fails", "not run", "skipped"]
    lines, counts = [], dict.fromkeys(keys, 0)
    for rec in EXAMPLES:
        ndev = devices_for(rec)
        if rec["skip"]:
            status, key = "skipped: " + rec["skip"], "skipped"
        else:
            r = results.get((rec["id"], ndev))
            problem = verdict(rec, ndev, r) if r is not None else None
            if r is None:
                status = key = "not run"
            elif problem is None:
                if rec["expect"] is not None or rec["expect_re"] is not None:
                    key = "runs, output checked"
                elif rec["after"]:
                    key = "runs, seed's statements asserted"
                else:
                    key = "runs"
                status = key + (" (and asserted)" if rec["after"] and key != keys[1] else "")
                if rec["seed_devices"]:
                    s = results.get((rec["id"], rec["seed_devices"]))
                    what = "the seed's own " + ("error" if rec["seed_error"] else "output")
                    status += f"; on {rec['seed_devices']} device(s) " + (
                        "not run" if s is None else what + (" checked" if seed_verdict(rec, s) is None
                                                           else " NOT printed"))
                status += f" [{ndev} devices, {r[3]:.1f} s]"
            else:
                status, key = "fails: " + problem.strip().splitlines()[-1][:150], "fails"
        counts[key] += 1
        lines.append(f"{rec['id']:<28} {status}")
    lines.append(f"{len(EXAMPLES)} examples: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v))
    return "\n".join(lines), counts


def test_report(capsys):
    """Prints each example's status and the counts (runs / output checked / skipped with reasons); fails
    when an example that should run did not pass."""
    text, counts = report()
    with capsys.disabled():
        print("\n" + text)
    assert sum(counts.values()) == len(EXAMPLES)
    assert counts["fails"] == 0


if __name__ == "__main__":
    runnable = [r for r in EXAMPLES if not r["skip"]]
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        futures = {(r["id"], devices_for(r)): pool.submit(run_example, r, devices_for(r)) for r in runnable}
        futures.update({(r["id"], r["seed_devices"]): pool.submit(run_example, r, r["seed_devices"])
                        for r in runnable if r["seed_devices"]})
    print(report({k: f.result() for k, f in futures.items()})[0])
