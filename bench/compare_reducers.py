"""Compares `reduce` with C-Vise and Shrink Ray: same cases, same interestingness test, same budget.

    python bench/compare_reducers.py [--budget 300] [--jobs 2] [--only CASE ...] [--tools T,...] [--results]

Text reducers cannot delete an SSA op without also deleting its users, so on IR they stall
where `reduce` (which edits through the MLIR bindings) does not; this measures by how much.

The peers are installed for this benchmark only; they are not project dependencies:

    apt-get install -y cvise                                        # C-Vise
    python -m venv .bench-venv && .bench-venv/bin/pip install shrinkray   # Shrink Ray

(`.bench-venv/` is git-ignored; the PyPI release of Shrink Ray is 0.0.2, which reads the
candidate on stdin.) A tool that is missing is skipped with a one-line note and its install
command.

Method, per case: the original is judged once in-process with the project's oracle and that
verdict calibrates a judge spec; every external tool calls the same generated shell script,
`python -m oracles.judge SPEC FILE`, which appends a line to a per-tool counter file on each
call (so oracle calls are counted the same way for everyone). `reduce` runs with the same
oracle built in (its own summary gives its calls), and again with `--oracle=script` on the
same script. Every tool gets the same `-j`/`--n`/`--parallelism` and the same wall-clock
budget, after which its process group gets SIGINT and, 10 s later, SIGKILL. Results are
measured the same way: the file the tool left, parsed through the MLIR bindings (ops), its
bytes, and a fresh in-process re-judge (still interesting?). `--results` writes the table to
docs/results/compare_reducers.md (bench/results.py), which docs/performance.md includes.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import onnx

from bench import results
from oracles import Candidate, make_oracle
from oracles.judge_spec import load_spec, write_spec
from oracles.mlir import ir as irx
from oracles.toolchain.tools import find_tool
from reducer.cli import build_parser, oracle_options
from tests.models import global_cache_update, linalg_chain, torch_chain
from tests.test_reduce_onnx import conv_det_network

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
GFX942 = ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]
GRACE_S = 10.0  # between SIGINT and SIGKILL at the budget
CASE_NAME = "case.mlir"  # C-Vise runs the test beside a copy of the file under this name


def _torch_chain_162() -> str:
    return torch_chain(122, 81, "onnx.NoSuchOp")  # 162 ops, as the torch model


def _imported_det_network(tmp: Path) -> str:
    onnx.save(conv_det_network(), tmp / "net.onnx")
    subprocess.run([find_tool("iree-import-onnx"), str(tmp / "net.onnx"), "-o", str(tmp / "net.mlir")], check=True)
    return (tmp / "net.mlir").read_text()


@dataclass(frozen=True)
class Case:
    name: str
    source: Callable[[Path], str]  # the program text, given a scratch folder
    oracle_args: tuple[str, ...]  # as on the `reduce` command line
    flags: tuple[str, ...]


CASES = {
    case.name: case
    for case in (
        Case("compile-error-162-op-torch-chain", lambda _: _torch_chain_162(), ("--oracle=compile-error",), tuple(CPU)),
        Case("lds-limit-conv-chain-example", lambda _: (ROOT / "examples" / "conv_chain.mlir").read_text(),
             ("--oracle=lds-limit", "--lds-bytes", "32768"), ()),
        Case("transient-copy-global-update", lambda _: global_cache_update(noise_ops=12), ("--oracle=transient-copy",), tuple(CPU)),
        Case("compile-error-imported-det-network", _imported_det_network, ("--oracle=compile-error",), tuple(CPU)),
        # A codegen error inside one dispatch, as in the model (gfx942 cannot store f6E2M3FN).
        Case("compile-error-in-one-dispatch-linalg", lambda _: linalg_chain(60, 37), ("--oracle=compile-error",), tuple(GFX942)),
    )
}


@dataclass
class Setup:
    """What every tool run of one case shares."""

    case: Case
    tmp: Path
    spec: Path
    original: str
    compile_s: float  # one judge of the original: bounds how long stragglers outlive a kill
    jobs: int
    budget: float
    test_timeout: float


@dataclass
class Run:
    argv: list[str]
    result: Path  # where the tool leaves its best candidate
    counter: Path | None  # the judge script's call log; None: read calls from reduce's summary


def _script(setup: Setup, counter: Path) -> Path:
    """The interestingness test every tool calls; the candidate is $1, ./case.mlir or stdin."""
    path = counter.with_suffix(".sh")
    path.write_text(
        "#!/bin/sh\n"
        f"# {setup.case.name}: exit 0 when the candidate shows the failure (python -m oracles.judge).\n"
        "# The candidate is $1 (reduce --oracle=script), ./case.mlir (C-Vise) or stdin (Shrink Ray).\n"
        f"echo call >> {shlex.quote(str(counter))}\n"
        f'if [ -n "$1" ]; then f=$1; elif [ -f {CASE_NAME} ]; then f={CASE_NAME}; else f=-; fi\n'
        f'PYTHONPATH={shlex.quote(str(ROOT))} exec {shlex.quote(sys.executable)} -m oracles.cli.judge {shlex.quote(str(setup.spec))} "$f"\n'
    )
    path.chmod(0o755)
    return path


def _workdir(setup: Setup, tool: str) -> Path:
    work = setup.tmp / tool
    work.mkdir()
    (work / CASE_NAME).write_text(setup.original)
    return work


def _reduce_builtin(setup: Setup, work: Path) -> Run:
    out = work / "out.mlir"
    argv = [sys.executable, "-m", "reducer", str(work / CASE_NAME), *setup.case.oracle_args, "-j", str(setup.jobs), "-o", str(out), "-q", "--no-culprit"]
    return Run([*argv, "--", *setup.case.flags], out, None)


def _reduce_script(setup: Setup, work: Path) -> Run:
    counter = work / "calls"
    out = work / "out.mlir"
    cmd = f"{_script(setup, counter)} {{}}"
    return Run([sys.executable, "-m", "reducer", str(work / CASE_NAME), "--oracle=script", "--cmd", cmd, "-j", str(setup.jobs), "-o", str(out), "-q", "--no-culprit"], out, counter)


def _cvise(setup: Setup, work: Path) -> Run:
    counter = work / "calls"
    argv = ["cvise", "--n", str(setup.jobs), "--not-c", "--tidy", "--timeout", str(int(setup.test_timeout)), str(_script(setup, counter)), CASE_NAME]
    return Run(argv, work / CASE_NAME, counter)  # C-Vise rewrites the file in place


def _shrinkray_binary() -> str | None:
    beside = ROOT / ".bench-venv" / "bin" / "shrinkray"
    return str(beside) if beside.exists() else shutil.which("shrinkray")


def _shrinkray(setup: Setup, work: Path) -> Run:
    counter = work / "calls"
    out = work / "out.mlir"
    # Shrink Ray 0.0.2 multiplies --timeout by 10 before applying it to a test.
    argv = [_shrinkray_binary() or "shrinkray", "--parallelism", str(setup.jobs), "--timeout", f"{setup.test_timeout / 10:g}", "--target", str(out)]
    return Run([*argv, str(_script(setup, counter)), CASE_NAME], out, counter)


@dataclass(frozen=True)
class Tool:
    key: str
    label: str
    build: Callable[[Setup, Path], Run]
    version: Callable[[], str | None]  # None: not installed
    install: str


def _cvise_version() -> str | None:
    if shutil.which("cvise") is None:
        return None
    out = subprocess.run(["cvise", "--version"], capture_output=True, text=True, check=False).stdout.split()
    return out[1] if len(out) > 1 else "?"


def _shrinkray_version() -> str | None:
    binary = _shrinkray_binary()
    if binary is None:
        return None
    python = Path(binary).with_name("python")
    probe = [str(python), "-c", "import importlib.metadata as m; print(m.version('shrinkray'))"]
    found = subprocess.run(probe, capture_output=True, text=True, check=False) if python.exists() else None
    return found.stdout.strip() if found and found.returncode == 0 else "?"


TOOLS = {
    tool.key: tool
    for tool in (
        Tool("reduce", "reduce (built-in oracle)", _reduce_builtin, lambda: "", ""),
        Tool("reduce-script", "reduce --oracle=script", _reduce_script, lambda: "", ""),
        Tool("cvise", "C-Vise", _cvise, _cvise_version, "apt-get install -y cvise"),
        Tool("shrinkray", "Shrink Ray", _shrinkray, _shrinkray_version,
             "python -m venv .bench-venv && .bench-venv/bin/pip install shrinkray"),
    )
}


def run_with_budget(argv: list[str], cwd: Path, budget: float, log: Path) -> tuple[float, bool, int, str]:
    """Runs argv in its own process group until it exits or the budget ends: (seconds, killed, status, stdout)."""
    # A cache of its own: no tool starts with verdicts kept on disk by an earlier run.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cwd / ".cache")}
    start = time.monotonic()
    with open(log, "wb") as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=budget)
            return time.monotonic() - start, False, proc.returncode, out.decode(errors="replace")
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=GRACE_S)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            out, _ = proc.communicate()
    return time.monotonic() - start, True, proc.returncode, out.decode(errors="replace")


def _signal_group(proc: subprocess.Popen, sig: signal.Signals) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def measure(setup: Setup, text: str) -> tuple[str, str, str]:
    """(ops, bytes, still interesting) of a result file's text, measured the same way for every tool."""
    try:
        ops = str(irx.count_ops(irx.parse(text, irx.new_context())))
    except irx.ParseError:
        ops = "does not parse"
    verdict = load_spec(setup.spec).oracle.judge(Candidate(text, setup.case.flags))
    return ops, str(len(text.encode())), "yes" if verdict.interesting else f"no ({verdict.detail})"


def _calls(run: Run, stdout: str) -> str:
    if run.counter is not None:
        return str(len(run.counter.read_text().splitlines())) if run.counter.exists() else "0"
    found = re.search(r"oracle calls\s+(\d+)", stdout)
    return found.group(1) if found else "?"


def prepare(case: Case, tmp: Path, jobs: int, budget: float) -> Setup:
    original = case.source(tmp)
    args = build_parser().parse_args([CASE_NAME, *case.oracle_args])
    options = oracle_options(args)
    oracle = make_oracle(args.oracle, options)
    verdict = oracle.judge(Candidate(original, case.flags))
    if not verdict.interesting:
        raise SystemExit(f"compare_reducers: case {case.name}: the original is not interesting: {verdict.detail}")
    spec = tmp / "judge.json"
    write_spec(spec, args.oracle, options, list(case.flags), verdict)
    return Setup(case, tmp, spec, original, verdict.seconds, jobs, budget, options.limits.timeout_s + 30)


def run_tool(setup: Setup, tool: Tool) -> list[str]:
    run = tool.build(setup, _workdir(setup, tool.key))
    seconds, killed, returncode, stdout = run_with_budget(run.argv, run.result.parent, setup.budget, setup.tmp / f"{tool.key}.log")
    time.sleep(2 * setup.compile_s + 1)  # a killed tool's last compiles finish before the next tool starts
    written = run.result.exists()  # Shrink Ray writes only an improvement: else its best is the input
    ops, size, interesting = measure(setup, run.result.read_text(errors="replace") if written else setup.original)
    ops += "" if written else " (nothing written)"
    wall = f"{seconds:.1f}" + (" (budget)" if killed else f" (exit {returncode})" if returncode not in (0, None) else "")
    version = tool.version()
    label = f"{tool.label} {version}" if version else tool.label
    return ["", label, wall, _calls(run, stdout), ops, size, interesting]


def compare(cases: list[Case], tools: list[Tool], jobs: int, budget: float, keep: Path | None) -> list[list[str]]:
    rows = []
    for case in cases:
        with tempfile.TemporaryDirectory(prefix="compare-reducers-") as tmp:
            folder = Path(tmp) if keep is None else keep / case.name
            folder.mkdir(parents=True, exist_ok=keep is None)
            setup = prepare(case, folder, jobs, budget)
            ops, size, _ = measure(setup, setup.original)
            rows.append([case.name, "original", "-", "-", ops, size, "yes"])
            for tool in tools:
                print(f"compare_reducers: {case.name}: {tool.label} ...", file=sys.stderr, flush=True)
                rows.append(run_tool(setup, tool))
    return rows


COLUMNS = ["case", "tool", "wall s", "oracle calls", "final ops", "final bytes", "still interesting"]


def notes(missing: list[Tool], jobs: int, budget: float) -> list[str]:
    """What the table's rows mean, and the peers that were not installed."""
    found = [
        f"Budget {budget:g} s per tool and case, {jobs} jobs each (`-j` / `--n` / `--parallelism`).",
        (
            "`reduce (built-in oracle)` runs with the case's oracle built in (and its own speed-ups, such as "
            "stopping compiles at the failing phase) and counts its own calls; "
            "every other row calls the same generated script (`python -m oracles.judge`: the same oracle, calibrated "
            "to the original's verdict, plus about 0.3 s of Python start-up per call) that counts its invocations."
        ),
        (
            "`(budget)`: stopped at the budget (SIGINT to the process group, SIGKILL 10 s later); the row shows the "
            "best file it had written. Ops are counted on the result parsed through the MLIR bindings; "
            "`still interesting` re-judges it."
        ),
    ]
    return found + [f"{tool.label} was not installed: `{tool.install}`." for tool in missing]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=300.0, help="seconds per tool and case (default 300)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel candidates for every tool (default 2)")
    parser.add_argument("--only", action="append", choices=list(CASES), help="run only this case (repeatable)")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated subset of {','.join(TOOLS)}")
    parser.add_argument("--keep", type=Path, help="work in this new folder and keep it (scripts, tool logs, results)")
    results.add_option(parser)
    args = parser.parse_args(argv)
    unknown = [t for t in args.tools.split(",") if t not in TOOLS]
    if unknown:
        raise SystemExit(f"compare_reducers: unknown tool {unknown[0]!r}; valid: {','.join(TOOLS)}")
    chosen = [TOOLS[t] for t in args.tools.split(",")]
    missing = [tool for tool in chosen if tool.version() is None]
    for tool in missing:
        print(f"compare_reducers: {tool.label} not found, skipped; install it with: {tool.install}", file=sys.stderr)
    present = [tool for tool in chosen if tool not in missing]
    if args.keep is not None and args.keep.exists():
        raise SystemExit(f"compare_reducers: --keep {args.keep} exists; name a new folder")
    rows = compare([CASES[name] for name in args.only or CASES], present, args.jobs, args.budget, args.keep)
    table, explained = results.Table(COLUMNS, rows), notes(missing, args.jobs, args.budget)
    print(table.markdown() + "\n" + "\n".join(f"- {note}" for note in explained))
    if args.results:
        results.write(__file__, [table], explained, argv)


if __name__ == "__main__":
    main()
