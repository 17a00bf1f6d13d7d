#!/usr/bin/env python3
"""Builds and runs PyTorch's C++ API tensor tests against an installed ctorch, one count per TEST.

Called by scripts/upstream-tests.sh (which fetches the sources and installs ctorch). Steps:
  1. Parse each test file into top-level items (TEST/TEST_F blocks, helper definitions, ...).
  2. Copy it with the excluded tests (exclusions.txt) wrapped in `#if 0`.
  3. Build all files with CMake (tests/upstream/CMakeLists.txt, make -k). The compiler and linker
     run under log-diagnostics.sh, which keeps each one's stderr beside its output file.
  4. Map each error (file:line, through "required from here" and macro-expansion notes) to the
     enclosing TEST, or to the helper definition it is in, wrap those in `#if 0` (with #line so
     line numbers stay those of PyTorch's file) and build again, up to --max-rounds times.
  5. Run each executable with --gtest_output=json (CTORCH_EMULATED_CUDA=2 by default); if a
     binary dies or hangs, rerun its tests one at a time.
  6. Print per-file counts, the excluded tests with their reasons, the tests that did not compile
     (first error), the failing tests (first failure) and a tally of the compile errors; write
     them to --out. Exit 1 only when a test of expected_pass.txt does not pass.
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COUNTED: set = set()  # errors already tallied (file, location, expansion line, message)


# ---------------------------------------------------------------------------------------------
# Source parsing


@dataclasses.dataclass
class Item:
    """A top-level construct of a test file: lines [start, end] (1-based, inclusive)."""

    start: int
    end: int
    kind: str  # "test", "def" (function/struct/template/...), "pp" (preprocessor), "decl" (using, ...)
    name: str  # Suite.Name for tests, the declared identifier for defs, "" otherwise
    text: str = ""


TEST_RE = re.compile(r"^\s*TEST(?:_F)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")


def strip_code(src: str) -> str:
    """The source with comments, string and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in src[i:j]))
            i = j
        elif c == 'R' and src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', src[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            close = ")" + m.group(1) + '"'
            j = src.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            out.append("".join(ch if ch == "\n" else " " for ch in src[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and src[i - 1].isalnum():  # digit separator 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_items(src: str) -> list[Item]:
    """Splits a file into top-level items, by brace depth over comment- and string-free code."""
    code = strip_code(src).split("\n")
    raw = src.split("\n")
    items: list[Item] = []
    depth = 0
    cur_start = None
    in_pp = False
    pp_start = 0
    for ln, line in enumerate(code, start=1):
        stripped = line.strip()
        if in_pp or (depth == 0 and cur_start is None and stripped.startswith("#")):
            if not in_pp:
                pp_start = ln
            in_pp = raw[ln - 1].rstrip().endswith("\\")
            if not in_pp:
                items.append(Item(pp_start, ln, "pp", pp_name(raw[pp_start - 1])))
            continue
        if not stripped:
            continue
        if cur_start is None:
            cur_start = ln
        ended = False
        for ch in line:
            if ch in "{(":
                depth += 1
            elif ch in "})":
                depth -= 1
                if depth == 0 and ch == "}":
                    ended = True
            elif ch == ";" and depth == 0:
                ended = True
        if depth == 0 and ended:
            # the item ends on the line where its braces close or its `;` stands at depth 0
            items.append(make_item(cur_start, ln, raw, code))
            cur_start = None
    if cur_start is not None:
        items.append(make_item(cur_start, len(raw), raw, code))
    return items


def pp_name(line: str) -> str:
    m = re.match(r"\s*#\s*define\s+(\w+)", line)
    return m.group(1) if m else ""


def make_item(start: int, end: int, raw: list[str], code: list[str]) -> Item:
    text = "\n".join(raw[start - 1 : end])
    head = " ".join(code[start - 1 : end])
    m = TEST_RE.match(head)
    if m:
        return Item(start, end, "test", f"{m.group(1)}.{m.group(2)}", text)
    if re.match(r"\s*(using|namespace\s+\w+\s*=|typedef)\b", head):
        return Item(start, end, "decl", "", text)
    # the declared name: the identifier before the first '(' or '{' (struct/class name)
    m = re.match(r"\s*(?:template\s*<[^>]*>\s*)?(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)", head)
    if m:
        return Item(start, end, "def", m.group(1), text)
    m = re.search(r"([A-Za-z_]\w*)\s*\(", head)
    return Item(start, end, "def", m.group(1) if m else "", text)


# ---------------------------------------------------------------------------------------------
# Diagnostics


DIAG_RE = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<kind>fatal error|error|warning|note): (?P<msg>.*)$")
CTX_FUNC_RE = re.compile(r"^(?P<file>[^:\s][^:]*): (In |At global scope)")
CTX_REQ_RE = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+):\s+(?P<what>required from here|required from|required by|recursively required|in (?:constexpr|requirements))")
CTX_INC_RE = re.compile(r"^(?:In file included from|\s+from) (?P<file>[^:\s][^:]*):(?P<line>\d+)[:,]")
LD_FUNC_RE = re.compile(r"in function [`'](?P<func>.*)':\s*$")
LD_ERR_RE = re.compile(r"(undefined reference to .*|multiple definition of .*|relocation .*|collect2: error: .*)$")


@dataclasses.dataclass
class Group:
    """One error with the context lines before it and the notes after it."""

    msg: str
    loc: tuple[str, int]
    ctx: list[tuple[str, str, int]]  # (kind, file, line): "here", "req", "inc"
    notes: list[tuple[str, int, str]]  # (file, line, message)
    raw: str = ""


def parse_compile_log(text: str) -> list[Group]:
    groups: list[Group] = []
    pending: list[tuple[str, str, int]] = []
    current: Group | None = None
    for line in text.splitlines():
        m = DIAG_RE.match(line)
        if m:
            kind = m.group("kind")
            f, ln, msg = m.group("file"), int(m.group("line")), m.group("msg")
            if kind in ("error", "fatal error"):
                current = Group(msg, (f, ln), pending, [], line)
                groups.append(current)
                pending = []
            elif kind == "warning":
                current = None
                pending = []
            else:  # note
                if current is not None:
                    current.notes.append((f, ln, msg))
                pending = []
            continue
        m = CTX_REQ_RE.match(line)
        if m:
            what = "here" if m.group("what") == "required from here" else "req"
            pending.append((what, m.group("file"), int(m.group("line"))))
            continue
        m = CTX_INC_RE.match(line)
        if m:
            pending.append(("inc", m.group("file"), int(m.group("line"))))
            continue
        if CTX_FUNC_RE.match(line):
            continue
    return groups


def normalize(msg: str) -> str:
    """An error message with its variable parts removed, for the tally."""
    msg = re.sub(r"\s*\[with [^\]]*\]", "", msg)
    msg = re.sub(r"\s*\{aka [^}]*\}", "", msg)
    msg = re.sub(r"‘|’", "'", msg)
    msg = re.sub(r"; did you mean '[^']*'\?$", "", msg)
    msg = re.sub(r"\s+", " ", msg).strip()
    return msg[:240]


# ---------------------------------------------------------------------------------------------
# Per-file state


@dataclasses.dataclass
class FileState:
    name: str  # e.g. "tensor" (tensor.cpp)
    src: str
    items: list[Item]
    tests: list[str]  # Suite.Name in file order
    excluded: dict[str, str]  # Suite.Name -> reason
    disabled: dict[int, str] = dataclasses.field(default_factory=dict)  # item start line -> first error
    fatal: str = ""
    built: bool = False
    rounds: int = 0
    results: dict[str, dict] = dataclasses.field(default_factory=dict)  # Suite.Name -> {status, message}

    def item_at(self, line: int) -> Item | None:
        for it in self.items:
            if it.start <= line <= it.end:
                return it
        return None

    def test_items(self) -> list[Item]:
        return [it for it in self.items if it.kind == "test"]

    def patched(self) -> str:
        """The source with the excluded and disabled items wrapped in #if 0 (line numbers kept)."""
        lines = self.src.split("\n")
        off = {it.start: it for it in self.items if it.start in self.disabled or (it.kind == "test" and it.name in self.excluded)}
        out = []
        i = 1
        while i <= len(lines):
            it = off.get(i)
            if it is None:
                out.append(lines[i - 1])
                i += 1
                continue
            why = "excluded" if it.kind == "test" and it.name in self.excluded else "does not compile"
            out.append(f"#if 0  // ctorch upstream-tests: {why}")
            out.extend(lines[it.start - 1 : it.end])
            out.append("#endif")
            out.append(f"#line {it.end + 1}")
            i = it.end + 1
        return "\n".join(out)


def read_list(path: Path) -> dict[str, str]:
    """`Suite.Name  reason` lines (# comments and blank lines skipped)."""
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 1)
        out[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return out


# ---------------------------------------------------------------------------------------------
# Build rounds


def run(cmd: list[str], log: Path | None = None, **kw) -> int:
    if log is None:
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw).returncode
    with open(log, "w") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, **kw).returncode


def find_logs(build: Path, name: str) -> tuple[list[Path], Path]:
    objdir = build / "CMakeFiles" / f"upstream_{name}.dir"
    compile_logs = sorted(objdir.rglob(f"{name}.cpp.o.log")) if objdir.exists() else []
    return compile_logs, build / f"upstream_{name}.log"


def map_groups(fs: FileState, groups: list[Group], src_path: Path, new: dict[int, str], tally: collections.Counter,
               tally_tests: dict[str, set]) -> bool:
    """Marks the items the errors are in; False when an error is outside any item we can disable."""
    real = os.path.realpath(src_path)

    def ours(f: str) -> bool:
        return os.path.realpath(f) == real

    off_defs = {it.name: it for it in fs.items if it.kind == "def" and it.name and it.start in fs.disabled}
    ok = True
    for g in groups:
        cands: list[int] = []
        cands += [ln for (k, f, ln) in g.ctx if k == "here" and ours(f)]
        if ours(g.loc[0]):
            cands.append(g.loc[1])
        cands += [ln for (f, ln, m) in reversed(g.notes) if ours(f) and m.startswith("in expansion of macro")]
        cands += [ln for (k, f, ln) in g.ctx if k == "req" and ours(f)]
        target, line = None, 0
        for kind in ("test", "def"):
            for ln in cands:
                it = fs.item_at(ln)
                if it is not None and it.kind == kind:
                    target, line = it, ln
                    break
            if target is not None:
                break
        # A call of a helper we turned off: blame the helper's own error, and keep this one
        # (an artifact of turning it off) out of the tally.
        m = re.match(r"'(\w+)' was not declared in this scope", g.msg)
        helper = off_defs.get(m.group(1)) if m else None
        if helper is not None and target is not None:
            if target.start not in fs.disabled and target.start not in new:
                new[target.start] = f"calls {helper.name}, which does not compile: {fs.disabled[helper.start]}"
            continue
        norm = normalize(g.msg)
        key = (fs.name, g.loc, line, g.msg)  # line: where a macro's error was expanded
        if key not in COUNTED:  # an error left in place is reported again in the next round
            tally[norm] += 1
        COUNTED.add(key)
        if target is None:
            if not fs.fatal:
                fs.fatal = f"{Path(g.loc[0]).name}:{g.loc[1]}: {g.msg}"
            ok = False
            tally_tests[norm].add(f"{fs.name}.cpp:<file>")
            continue
        tally_tests[norm].add(f"{fs.name}.cpp:{target.name or target.start}")
        if target.start not in fs.disabled and target.start not in new:
            where = f"{fs.name}.cpp:{line}"
            if ours(g.loc[0]) and g.loc[1] != line:
                where += f" (via line {g.loc[1]})"
            new[target.start] = f"{where}: {g.msg}"
    return ok


def map_link_errors(fs: FileState, text: str, new: dict[int, str], tally: collections.Counter,
                    tally_tests: dict[str, set]) -> bool:
    by_class = {}
    for it in fs.items:
        if it.kind == "test":
            suite, name = it.name.split(".", 1)
            by_class[f"{suite}_{name}_Test"] = it
    by_name = {it.name: it for it in fs.items if it.kind == "def" and it.name}
    func = ""
    found_any = False
    ok = True
    for line in text.splitlines():
        m = LD_FUNC_RE.search(line)
        if m:
            func = m.group("func")
            continue
        m = LD_ERR_RE.search(line)
        if not m or m.group(1).startswith("collect2"):
            continue
        found_any = True
        msg = m.group(1)
        norm = "link: " + normalize(re.sub(r"`", "'", msg))
        key = (fs.name, func, msg)
        if key not in COUNTED:
            tally[norm] += 1
        COUNTED.add(key)
        target = None
        cls = func.split("::", 1)[0]
        if cls in by_class:
            target = by_class[cls]
        else:
            fname = re.match(r"(?:\w+::)*(\w+)", func)
            if fname and fname.group(1) in by_name:
                target = by_name[fname.group(1)]
        if target is None:
            ok = False
            fs.fatal = fs.fatal or f"link: {msg} (in {func or 'unknown function'})"
            tally_tests[norm].add(f"{fs.name}.cpp:<file>")
            continue
        tally_tests[norm].add(f"{fs.name}.cpp:{target.name}")
        if target.start not in fs.disabled and target.start not in new:
            new[target.start] = f"link: {msg}"
    if not found_any and text.strip():
        ok = False
        fs.fatal = fs.fatal or "link failed: " + text.strip().splitlines()[-1]
    return ok


def build_rounds(files: list[FileState], args, build: Path, srcdir: Path, tally, tally_tests, logf) -> None:
    pending = [fs for fs in files]
    for rnd in range(1, args.max_rounds + 1):
        if not pending:
            return
        for fs in pending:
            (srcdir / f"{fs.name}.cpp").write_text(fs.patched())
            fs.rounds = rnd
        t0 = time.time()
        # `all` (not --target a --target b, which make builds one after the other): the files
        # that built already are up to date, the others compile in parallel; -k keeps going.
        run(["cmake", "--build", str(build), "-j", str(args.jobs), "--", "-k"], log=build / f"round{rnd}.log")
        print(f"  build round {rnd}: {len(pending)} file(s), {time.time() - t0:.0f} s", file=logf, flush=True)
        still = []
        for fs in pending:
            exe = build / f"upstream_{fs.name}"
            if exe.exists():
                fs.built = True
                continue
            compile_logs, link_log = find_logs(build, fs.name)
            new: dict[int, str] = {}
            groups = []
            for cl in compile_logs:
                text = cl.read_text(errors="replace")
                (build / f"round{rnd}-{fs.name}.log").write_text(text)  # kept for reading
                groups += parse_compile_log(text)
            if groups:
                ok = map_groups(fs, groups, srcdir / f"{fs.name}.cpp", new, tally, tally_tests)
            elif link_log.exists():
                ok = map_link_errors(fs, link_log.read_text(errors="replace"), new, tally, tally_tests)
            else:
                ok = False
                fs.fatal = fs.fatal or f"build failed without a compiler diagnostic (see {build}/round{rnd}.log)"
            if not new:
                if not fs.fatal:
                    fs.fatal = f"no test could be blamed for the errors (see {build}/round{rnd}.log)"
                continue  # stuck: give up on this file
            fs.disabled.update(new)
            fs.fatal = ""  # blamed items are off; a later round tells whether the rest builds
            still.append(fs)
        pending = still
    for fs in pending:
        fs.fatal = fs.fatal or f"still does not build after {args.max_rounds} rounds"


# ---------------------------------------------------------------------------------------------
# Running


def gtest_results(path: Path) -> dict[str, dict]:
    out = {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return out
    for suite in data.get("testsuites", []):
        for t in suite.get("testsuite", []):
            name = f"{suite['name']}.{t['name']}"
            fails = t.get("failures") or []
            if t.get("result") == "SKIPPED" or t.get("status") == "NOTRUN":
                out[name] = {"status": "skip", "message": "skipped"}
            elif fails:
                msg = fails[0].get("failure", "").strip()
                out[name] = {"status": "fail", "message": msg}
            else:
                out[name] = {"status": "pass", "message": ""}
    return out


def run_binary(exe: Path, json_path: Path, env: dict, timeout: float, gtest_filter: str | None = None):
    cmd = [str(exe), f"--gtest_output=json:{json_path}"]
    if gtest_filter:
        cmd.append(f"--gtest_filter={gtest_filter}")
    if json_path.exists():
        json_path.unlink()
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace")


def describe_rc(rc) -> str:
    if rc is None:
        return "timed out"
    if rc < 0:
        try:
            return f"crashed ({signal.Signals(-rc).name})"
        except ValueError:
            return f"crashed (signal {-rc})"
    return f"exited with {rc}"


def run_file(fs: FileState, args, build: Path, outdir: Path) -> None:
    exe = build / f"upstream_{fs.name}"
    env = dict(os.environ)
    if args.emulated_cuda:
        env["CTORCH_EMULATED_CUDA"] = args.emulated_cuda
    jpath = outdir / f"{fs.name}.json"
    rc, out = run_binary(exe, jpath, env, args.timeout)
    (outdir / f"{fs.name}.out").write_text(out)
    res = gtest_results(jpath)
    compiled = [it.name for it in fs.test_items() if it.start not in fs.disabled and it.name not in fs.excluded]
    missing = [n for n in compiled if n not in res]
    if rc is not None and rc >= 0 and res and not missing:
        fs.results = res
        strip_paths(fs, outdir)
        return
    # The binary died, hung, or filtered tests out: list what it has and run each test on its own.
    p = subprocess.run([str(exe), "--gtest_list_tests"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    filtered_out = set(compiled) - set(parse_listing(p.stdout.decode(errors="replace")))
    for n in compiled:
        if n in res and rc is not None:
            fs.results[n] = res[n]
            continue
        if n in filtered_out:
            fs.results[n] = {"status": "skip", "message": "filtered out by the runner (no CUDA device)"}
            continue
        one = outdir / f"{fs.name}.{n}.json"
        trc, tout = run_binary(exe, one, env, args.timeout_one, n)
        r = gtest_results(one).get(n)
        if r is None or trc is None or trc < 0:
            own = [l for l in tout.strip().splitlines() if l.strip() and not l.startswith(("[", "Note:"))]
            tail = "\n".join(own[-3:])
            fs.results[n] = {"status": "fail", "message": describe_rc(trc) + (f": {tail}" if tail else "")}
        else:
            fs.results[n] = r
    strip_paths(fs, outdir)


def strip_paths(fs: FileState, outdir: Path) -> None:
    for r in fs.results.values():
        r["message"] = re.sub(r"/\S*/src/(\w+\.cpp)", r"\1", r["message"])


def parse_listing(text: str) -> list[str]:
    names, suite = [], ""
    for line in text.splitlines():
        if not line.strip() or line.startswith("CUDA not") or line.startswith("Only one"):
            continue
        if not line.startswith(" "):
            suite = line.strip().split()[0].rstrip(".")
        else:
            names.append(f"{suite}.{line.strip().split()[0]}")
    return names


# ---------------------------------------------------------------------------------------------
# Report


def first_line(msg: str, width: int = 220) -> str:
    lines = [l.strip() for l in msg.strip().splitlines() if l.strip()]
    s = " | ".join(lines[:6]) if lines else ""
    return s if len(s) <= width else s[: width - 3] + "..."


def report(files: list[FileState], tally, tally_tests, outdir: Path, expected: dict[str, str], elapsed: float,
           top: int) -> int:
    rows = []
    records = []
    tot = collections.Counter()
    for fs in files:
        c = collections.Counter()
        for it in fs.test_items():
            n = it.name
            if n in fs.excluded:
                st, msg = "excluded", fs.excluded[n]
            elif it.start in fs.disabled:
                st, msg = "does-not-compile", fs.disabled[it.start]
            elif not fs.built:
                st, msg = "does-not-compile", fs.fatal or "file does not build"
            else:
                r = fs.results.get(n, {"status": "fail", "message": "no result from the test binary"})
                st, msg = r["status"], r["message"]
            c[st] += 1
            records.append({"file": f"{fs.name}.cpp", "test": n, "status": st, "message": msg})
        c["total"] = len(fs.test_items())
        tot.update(c)
        rows.append((f"{fs.name}.cpp", c))
    rows.append(("all", tot))

    lines = []
    hdr = f"{'file':<26}{'total':>6}{'pass':>6}{'fail':>6}{'dnc':>6}{'skip':>6}{'excl':>6}"
    lines.append(hdr)
    for name, c in rows:
        lines.append(f"{name:<26}{c['total']:>6}{c['pass']:>6}{c['fail']:>6}{c['does-not-compile']:>6}{c['skip']:>6}{c['excluded']:>6}")
    lines.append("(dnc: does not compile against <ctorch/torch.h>; skip: not run, e.g. no CUDA device; excl: exclusions.txt)")

    def section(title, st, fmt):
        sel = [r for r in records if r["status"] == st]
        lines.append("")
        lines.append(f"{title} ({len(sel)}):")
        for r in sel:
            lines.append(fmt(r))

    section("excluded", "excluded", lambda r: f"  {r['file']:<24}{r['test']:<58} {r['message']}")
    section("does not compile (first error)", "does-not-compile",
            lambda r: f"  {r['file']:<24}{r['test']:<58} {first_line(r['message'])}")
    section("compiled but failed (first failure)", "fail",
            lambda r: f"  {r['file']:<24}{r['test']:<58} {first_line(r['message'])}")
    section("skipped", "skip", lambda r: f"  {r['file']:<24}{r['test']:<58} {first_line(r['message'])}")

    fatal = [fs for fs in files if fs.fatal]
    if fatal:
        lines.append("")
        lines.append("files that stopped building on an error no test could be blamed for:")
        for fs in fatal:
            lines.append(f"  {fs.name}.cpp: {first_line(fs.fatal)}")

    tally_lines = [f"{n:>5} {len(tally_tests[m]):>5}  {m}" for m, n in tally.most_common()]
    (outdir / "compile-errors.txt").write_text(
        "# count  tests  normalized compiler/linker error (all build rounds; tests = distinct tests or helpers hit)\n"
        + "\n".join(tally_lines) + "\n")
    lines.append("")
    lines.append(f"most frequent compile errors (top {min(top, len(tally_lines))} of {len(tally_lines)}; all in {outdir / 'compile-errors.txt'}):")
    lines.append("count tests  message")
    lines += tally_lines[:top]

    by_name = {r["test"]: r for r in records}
    # expected_pass.txt lists the passes of every file; a run of some files checks those files' tests
    in_run = [n for n in expected if n in by_name]
    regressions = sorted(n for n in in_run if by_name[n]["status"] != "pass")
    lines.append("")
    if regressions:
        lines.append(f"REGRESSION: {len(regressions)} test(s) of tests/upstream/expected_pass.txt did not pass:")
        for n in regressions:
            lines.append(f"  {n}: {by_name[n]['status']}: {first_line(by_name[n]['message'])}")
    else:
        lines.append(f"expected_pass.txt: all {len(in_run)} listed tests of these files passed "
                     f"({len(expected) - len(in_run)} listed for files not run)")
    newly = sorted(r["test"] for r in records if r["status"] == "pass" and r["test"] not in expected)
    if newly:
        lines.append(f"passing but not in expected_pass.txt ({len(newly)}; add them): {' '.join(newly)}")
    lines.append(f"upstream-tests: of {tot['total']} tests {tot['pass']} pass, {tot['fail']} fail, "
                 f"{tot['does-not-compile']} do not compile, {tot['skip']} not run, {tot['excluded']} excluded "
                 f"(build and run: {elapsed:.0f} s)")
    text = "\n".join(lines) + "\n"
    (outdir / "summary.txt").write_text(text)
    (outdir / "results.json").write_text(json.dumps(records, indent=1) + "\n")
    (outdir / "passing.txt").write_text("".join(sorted(r["test"] + "\n" for r in records if r["status"] == "pass")))
    print(text, end="")
    return 1 if regressions else 0


# ---------------------------------------------------------------------------------------------


def torch_dir(prefix: Path) -> Path:
    """The installed ctorch's TorchConfig.cmake directory (lib/cmake/Torch or lib/<arch>/cmake/Torch)."""
    found = sorted(prefix.glob("lib*/**/cmake/Torch/TorchConfig.cmake"))
    return found[0].parent if found else prefix / "lib/cmake/Torch"


def write_shadow(shadow: Path, prefix: Path) -> Path:
    """Stubs that stop the build for every libtorch header an installed libtorch-dev has under
    /usr/include and neither ctorch (its compat directory) nor tests/upstream/include provides:
    without them such an #include would reach the real libtorch's header, so a count would
    depend on whether libtorch-dev is installed. With the stubs it is "does not compile" both ways."""
    provided = set()
    for root in [HERE / "include", *prefix.glob("include/ctorch/compat")]:
        provided |= {str(f.relative_to(root)) for f in root.rglob("*") if f.is_file()}
    shadow.mkdir(parents=True, exist_ok=True)
    system = Path("/usr/include")
    for top in ("ATen", "c10", "caffe2", "torch"):
        for f in (system / top).rglob("*") if (system / top).is_dir() else []:
            rel = str(f.relative_to(system))
            if f.is_file() and rel not in provided:
                stub = shadow / rel
                stub.parent.mkdir(parents=True, exist_ok=True)
                stub.write_text(f'#error "<{rel}> is libtorch\'s; ctorch does not provide it"\n')
    return shadow


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream-dir", required=True, type=Path, help="PyTorch's test/cpp/api directory")
    ap.add_argument("--prefix", required=True, type=Path, help="installed ctorch prefix")
    ap.add_argument("--work", required=True, type=Path, help="scratch directory (emptied)")
    ap.add_argument("--out", required=True, type=Path, help="where the reports go")
    ap.add_argument("--files", default="tensor,tensor_options,tensor_indexing,tensor_cuda,tensor_options_cuda")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--max-rounds", type=int, default=6)
    ap.add_argument("--emulated-cuda", default="2", help="CTORCH_EMULATED_CUDA for the test runs ('' for none)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds for one test binary")
    ap.add_argument("--timeout-one", type=float, default=60, help="seconds for one test run on its own")
    ap.add_argument("--top", type=int, default=40, help="compile-error tally lines to print")
    args = ap.parse_args()

    t0 = time.time()
    exclusions = read_list(HERE / "exclusions.txt")
    expected = read_list(HERE / "expected_pass.txt")
    names = [n for n in args.files.split(",") if n]

    files: list[FileState] = []
    seen: dict[str, str] = {}
    for n in names:
        src = (args.upstream_dir / f"{n}.cpp").read_text()
        items = parse_items(src)
        tests = [it.name for it in items if it.kind == "test"]
        for t in tests:
            if t in seen:
                print(f"warning: {t} is in both {seen[t]}.cpp and {n}.cpp; lists name it once", file=sys.stderr)
            seen[t] = n
        files.append(FileState(n, src, items, tests, {t: exclusions[t] for t in tests if t in exclusions}))
    unknown = sorted(set(exclusions) - set(seen))
    if unknown and args.files == ap.get_default("files"):
        print(f"warning: exclusions.txt names tests that are in no file: {' '.join(unknown)}", file=sys.stderr)

    if args.work.exists():
        shutil.rmtree(args.work)
    srcdir, build = args.work / "src", args.work / "build"
    srcdir.mkdir(parents=True)
    if args.out.exists() and (args.out / ".upstream-tests").exists():
        shutil.rmtree(args.out)  # a report directory of ours: start clean
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / ".upstream-tests").touch()
    for fs in files:
        (srcdir / f"{fs.name}.cpp").write_text(fs.patched())

    baseline = args.work / "baseline"
    (baseline / "test/cpp/api").mkdir(parents=True)
    for h in args.upstream_dir.glob("*_baseline.h"):
        shutil.copy(h, baseline / "test/cpp/api" / h.name)
    shadow = write_shadow(args.work / "shadow", args.prefix)

    env = dict(os.environ, LC_ALL="C")
    launcher = str(HERE / "log-diagnostics.sh")
    cfg = ["cmake", "-S", str(HERE), "-B", str(build), "-G", "Unix Makefiles",
           f"-DCMAKE_PREFIX_PATH={args.prefix}", f"-DUPSTREAM_SOURCE_DIR={srcdir}", f"-DUPSTREAM_FILES={';'.join(names)}",
           f"-DTorch_DIR={torch_dir(args.prefix)}", f"-DUPSTREAM_BASELINE_DIR={baseline}", f"-DUPSTREAM_SHADOW_DIR={shadow}",
           f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}", f"-DCMAKE_CXX_LINKER_LAUNCHER={launcher}"]
    build.mkdir()
    if run(cfg, log=build / "configure.log", env=env) != 0:
        print((build / "configure.log").read_text(), file=sys.stderr)
        print("upstream-tests: configuring the test project failed", file=sys.stderr)
        return 2
    # the runner's object is shared by every file: build it once, so a broken runner shows at once
    if run(["cmake", "--build", str(build), "--target", "upstream_main"], log=build / "main.log", env=env) != 0:
        print((build / "main.log").read_text(), file=sys.stderr)
        print("upstream-tests: the test runner (tests/upstream/main.cpp) does not build", file=sys.stderr)
        return 2

    tally: collections.Counter = collections.Counter()
    tally_tests: dict[str, set] = collections.defaultdict(set)
    print(f"building {len(files)} file(s) against {args.prefix}", flush=True)
    os.environ["LC_ALL"] = "C"
    build_rounds(files, args, build, srcdir, tally, tally_tests, sys.stdout)

    t_build = time.time()
    for fs in files:
        if fs.built:
            run_file(fs, args, build, args.out)
    print(f"  ran the tests: {time.time() - t_build:.0f} s", flush=True)
    print()
    return report(files, tally, tally_tests, args.out, expected, time.time() - t0, args.top)


if __name__ == "__main__":
    sys.exit(main())
