"""Measures `reduce` on the acceptance cases and prints tables (sizes, shapes, calls, time, CPU).

    python bench/reduce_cases.py [--jobs 1,2] [--only NAME ...] [--check-minimal] [--passes-only]
                                 [--phases] [--repeat N] [--tree DIR] [--before DIR]

Cases are built by the tests' model builders, the README's example and the light models the onnx
package ships (ResNet-50 imported to torch-onnx MLIR: a real model whose gfx942 compile fails in
one dispatch); every number printed is measured in this run. Each reduction runs in a fresh
process with no verdict cache (uncached), once per job count of `--jobs`: the table has a column
per job count (wall seconds, the run in compiles of its original: its seconds over one plain
`iree-compile` of the original, the median of three timed right after it, CPU seconds of the whole process tree,
oracle calls), the ratio of
the last job count's time to the first's, the calls the larger job count made beyond the first
(speculative candidates it judged and discarded) and whether every job count wrote the same bytes.

`--phases` also prints where the time goes, per run: the compile of the original, finding the
phase the original fails in, localisation, the passes and the final check (wall seconds, oracle
calls and CPU seconds each), and how many `iree-import-onnx` processes the run started.
`--repeat N` runs every job count N times, alternating (-j 1, -j 2, -j 1, ...), and reports the
run with the median wall time of each (all the wall times are listed beside it, and every run's
ratio to the compile timed right after it, with their median): on a machine whose speed drifts
by a tenth from run to run, one pair of runs can say -j 2 gains 0.7 or 0.85.
`--tree DIR` measures the code of another checkout (an older commit, for "before" figures);
`--before DIR` measures DIR and then this checkout, each case's rows side by side.

`--culprit` runs the failing-pass step too, as `reduce` does by default (its own part in `--phases`:
what is left of it once the final check and the files are done).

The "1-minimal" column is bench/minimality's check of each result (after the reduction, outside its
time): every op deleted, bypassed and every static dimension halved, each judged uncached by the
case's oracle; `yes`, or the first smaller candidate that still fails. `--no-one-minimal` skips it.
`--check-minimal` also tries every dimension of the result one step smaller with the shape pass's
own edits and counts how many lose the failure (all of them, when the result is locally minimal). `--passes-only` turns off
failure localisation and the warm compiler: the passes alone, for a before/after comparison.
Every result is checked for degenerate tensors (a zero-sized dim, a window past its padded
input); the "degenerate" column lists any. `--results` also writes the tables to
docs/results/reduce_cases.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _code_root(argv: list[str]) -> Path:
    """The checkout whose code runs the reductions: `--tree DIR`, else this one."""
    for i, word in enumerate(argv):
        if word == "--tree" and i + 1 < len(argv):
            return Path(argv[i + 1]).resolve()
        if word.startswith("--tree="):
            return Path(word.split("=", 1)[1]).resolve()
    return ROOT


sys.path.insert(0, str(_code_root(sys.argv)))
sys.path.append(str(ROOT))  # bench/minimality from this checkout, whichever tree's code is measured

import onnx
import results  # bench/ itself: --tree may put an older checkout, without this module, first on the path

from oracles import Oracle, OracleOptions, make_oracle
from oracles.mlir import ir as irx
from oracles.onnx.importer import onnx_oracle
from oracles.toolchain.tools import find_tool
from reducer.formats.registry import format_for
from reducer.progress import ReductionObserver
from reducer.proposal import Proposal
from reducer.search.engine import dimensions_edit, resize_edit
from reducer.search.problem import ReductionProblem
from reducer.session import Request, reduce_file
from reducer.shapes import mlir_shapes
from reducer.shapes.degenerate import candidate_sites
from reducer.shapes.shape_search import shapes_of
from tests.models import linalg_chain, matmul_like_block, torch_chain
from tests.test_reduce_onnx import conv_det_network

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
GFX942 = ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]
SM60 = ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_60"]
EXAMPLE = ROOT / "examples" / "conv_chain.mlir"
README_EXAMPLE = ROOT / "examples" / "qdq_conv_lds_overrun.mlir"  # the README's first command
LIGHT_MODELS = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def text_file(text: Callable[[], str]) -> Callable[[Path], Path]:
    def write(tmp: Path) -> Path:
        path = tmp / "case.mlir"
        path.write_text(text())
        return path

    return write


def det_network(as_mlir: bool) -> Callable[[Path], Path]:
    def write(tmp: Path) -> Path:
        onnx.save(conv_det_network(), tmp / "net.onnx")
        if not as_mlir:
            return tmp / "net.onnx"
        subprocess.run([find_tool("iree-import-onnx"), str(tmp / "net.onnx"), "-o", str(tmp / "net.mlir")], check=True)
        return tmp / "net.mlir"

    return write


def light_model(name: str) -> Callable[[Path], Path]:
    """One of the onnx package's light models (real topologies, constant weights), as it is."""

    def write(tmp: Path) -> Path:
        path = tmp / f"{name}.onnx"
        path.write_bytes((LIGHT_MODELS / f"light_{name}.onnx").read_bytes())
        return path

    return write


def light_model_linalg(name: str) -> Callable[[Path], Path]:
    """A light model imported at opset 17 and lowered to upstream linalg (`--compile-to=input`)."""

    def write(tmp: Path) -> Path:
        onnx_path = light_model(name)(tmp)
        subprocess.run([find_tool("iree-import-onnx"), str(onnx_path), "--opset-version", "17", "-o", str(tmp / "torch.mlir")], check=True)
        subprocess.run([find_tool("iree-compile"), "--compile-to=input", str(tmp / "torch.mlir"), "-o", str(tmp / f"{name}.mlir")], check=True)
        return tmp / f"{name}.mlir"

    return write


def light_model_torch(name: str) -> Callable[[Path], Path]:
    """A light model imported to torch-onnx MLIR at opset 17 (`iree-import-onnx`): what users paste."""

    def write(tmp: Path) -> Path:
        onnx_path = light_model(name)(tmp)
        subprocess.run([find_tool("iree-import-onnx"), str(onnx_path), "--opset-version", "17", "-o", str(tmp / f"{name}.mlir")], check=True)
        return tmp / f"{name}.mlir"

    return write


def dumped_dispatch(text: Callable[[], str], flags: list[str]) -> Callable[[Path], Path]:
    """The program's one dispatch as the standalone hal.executable the compiler dumps."""

    def write(tmp: Path) -> Path:
        src = text_file(text)(tmp)
        dump = tmp / "sources"
        subprocess.run([find_tool("iree-compile"), *flags, str(src), "-o", str(tmp / "x.vmfb"), f"--iree-hal-dump-executable-sources-to={dump}"], check=True)
        (source,) = dump.glob("*.mlir")
        return source

    return write


CASES: dict[str, tuple[Callable[[Path], Path], str, OracleOptions, list[str], bool]] = {
    # name: (writes the input, oracle, options, flags, shrink shapes too)
    "lds-conv-in-12-op-chain": (text_file(lambda: torch_chain(12, 6, "conv")), "lds-limit", OracleOptions(lds_bytes=16384), [], False),
    "lds-example-seed004": (text_file(EXAMPLE.read_text), "lds-limit", OracleOptions(lds_bytes=32768), [], False),
    "compile-error-in-120-op-chain": (
        text_file(lambda: torch_chain(120, 70, "onnx.NoSuchOp")), "compile-error", OracleOptions(), [*CPU, "--iree-opt-const-eval=false"], False,
    ),
    "compile-error-in-162-op-chain": (text_file(lambda: torch_chain(162, 100, "onnx.NoSuchOp")), "compile-error", OracleOptions(), CPU, False),
    "compile-error-in-600-op-chain": (text_file(lambda: torch_chain(600, 420, "onnx.NoSuchOp")), "compile-error", OracleOptions(), CPU, False),
    # A gfx942 codegen error inside one dispatch of a linalg model (the case): localised by the dispatch.
    "codegen-error-in-162-op-linalg-chain": (text_file(lambda: linalg_chain(162, 100)), "compile-error", OracleOptions(), GFX942, False),
    "codegen-error-in-600-op-linalg-chain": (text_file(lambda: linalg_chain(600, 420)), "compile-error", OracleOptions(), GFX942, False),
    "onnx-det-in-50-node-network": (det_network(as_mlir=False), "compile-error", OracleOptions(), CPU, True),
    "mlir-det-in-imported-50-node-network": (det_network(as_mlir=True), "compile-error", OracleOptions(), CPU, True),
    "lds-conv-with-shapes": (text_file(lambda: torch_chain(12, 6, "conv")), "lds-limit", OracleOptions(lds_bytes=16384), [], True),
    # Shapes below ONNX: upstream linalg (a whole network, seed 004's dispatch) and a dumped hal.executable.
    "cuda-sm60-squeezenet-linalg": (light_model_linalg("squeezenet"), "compile-error", OracleOptions(), SM60, True),
    "cuda-sm60-inception-v1-linalg": (light_model_linalg("inception_v1"), "compile-error", OracleOptions(), SM60, True),
    "lds-seed004-matmul-like-linalg": (text_file(matmul_like_block), "lds-limit", OracleOptions(lds_bytes=32768), [], True),
    "lds-seed004-matmul-like-dispatch": (
        dumped_dispatch(matmul_like_block, GFX942), "lds-limit", OracleOptions(lds_bytes=32768), ["--compile-mode=hal-executable"], True,
    ),
    # Opset 9 MaxPool does not legalize; the shape pass must stop above a window past its input.
    "onnx-inception-v1-maxpool": (light_model("inception_v1"), "compile-error", OracleOptions(), CPU, True),
    # Real models as a user pastes them: imported to torch-onnx MLIR, one dispatch fails on gfx942
    # ("failed to distribute"); every pass runs, shapes too, as `reduce` does by default.
    "gfx942-resnet50-torch-onnx": (light_model_torch("resnet50"), "compile-error", OracleOptions(), GFX942, True),
    # The README's first command: `reduce examples/qdq_conv_lds_overrun.mlir --oracle=lds-limit`.
    "readme-example-qdq-conv-lds": (text_file(README_EXAMPLE.read_text), "lds-limit", OracleOptions(), [], True),
}


def minimal_dimensions(oracle: Oracle, passes, best, pinned_to: Proposal | None = None) -> str:
    """'k/n': how many of the n dimension targets (size groups too) lose the failure one step smaller.

    The failure is the result's own, or `pinned_to`'s: a wrong answer is pinned to the original's
    (its kind, and at least --wrong-share of its wrong fraction and error), as the reduction was."""
    judged = onnx_oracle(oracle) if best.candidate.binary is not None else oracle  # ONNX candidates are imported first
    problem = ReductionProblem(pinned_to or best, judged)
    lost = total = 0
    try:
        problem.calibrate()
        for shrink in (p for p in passes if p.search == "shrink"):
            for key, value in problem.edit(dimensions_edit, shrink.impl, best, fallback=[]):
                if value <= 1:
                    continue
                total += 1
                smaller = problem.edit(resize_edit, shrink.impl, best, key, value - 1, fallback=None)
                lost += smaller is None or not problem.judge(smaller.candidate).interesting
    finally:
        problem.shutdown()
    return f"{lost}/{total}"


def largest_tensor(proposal: Proposal) -> str:
    """Elements of the largest builtin tensor of an MLIR candidate ("-" for ONNX and torch IR)."""
    if proposal.candidate.binary is not None:
        return "-"
    ctx = irx.new_context()
    return str(mlir_shapes.largest_tensor(irx.parse(proposal.candidate.text, ctx)) or "-")  # torch tensors are not counted


def degenerate(best: Proposal) -> str:
    sites = candidate_sites(best.candidate, irx.new_context())
    return "; ".join(sorted(sites)) if sites else "none"


def tree_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and every process under it so far: the ones
    reaped (getrusage) and the ones still running (/proc: compile and edit workers, tools)."""
    own = sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for field in ("ru_utime", "ru_stime"))
    parents: dict[int, list[tuple[int, int]]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        ticks = sum(int(x) for x in fields[11:15])  # utime, stime and the children it reaped
        parents.setdefault(int(fields[1]), []).append((int(entry.name), ticks))
    total, stack = 0, [os.getpid()]
    while stack:
        for pid, ticks in parents.get(stack.pop(), []):
            total += ticks
            stack.append(pid)
    return own + total / os.sysconf("SC_CLK_TCK")


# Where the time of a reduction goes: each part ends where the next one's marker is seen.
PARTS = ("original compile", "phase finding", "localisation", "passes", "final check", "failing pass")
_STARTS = {  # marker (a phase the reduction announces, or the start of a log line) -> the part it starts
    "phase:localising the failure": "phase finding",
    "log:localisation:": "localisation",
    "phase:warming the compiler": "passes",
    "phase:starting the passes": "passes",
    "phase:final check of the result": "final check",
    "phase:the failing pass": "failing pass",  # with --culprit: what is left of it once the files are written
}


class PhaseClock(ReductionObserver):
    """Notes wall time, CPU time and oracle calls where each part of a reduction starts."""

    def __init__(self) -> None:
        self.stats = None
        self.marks: list[tuple[str, float, float, int]] = [("original compile", time.monotonic(), tree_cpu_seconds(), 0)]

    def started(self, stats, unit: str) -> None:
        self.stats = stats

    def phase(self, name: str) -> None:
        self._mark(f"phase:{name}")

    def log(self, line: str) -> None:
        self._mark(f"log:{line}")

    def _mark(self, marker: str) -> None:
        part = next((p for m, p in _STARTS.items() if marker.startswith(m)), None)
        seen = [m[0] for m in self.marks]
        if part is None or part in seen or PARTS.index(part) < PARTS.index(seen[-1]):
            return
        calls = self.stats.oracle_calls if self.stats is not None else 0
        self.marks.append((part, time.monotonic(), tree_cpu_seconds(), calls))

    def parts(self, calls: int) -> dict[str, dict[str, float]]:
        """{part: {"seconds", "cpu", "calls"}}; a part the run never entered is all zeros."""
        ends = [*self.marks[1:], ("end", time.monotonic(), tree_cpu_seconds(), calls)]
        found = {part: {"seconds": end[1] - t, "cpu": end[2] - cpu, "calls": end[3] - n}
                 for (part, t, cpu, n), end in zip(self.marks, ends, strict=True)}
        return {part: found.get(part, {"seconds": 0.0, "cpu": 0.0, "calls": 0}) for part in PARTS}


# Loaded by every Python process of a measured run (the reducer, its workers, the importer): notes
# each `iree-import-onnx` start, a Python start-up, wherever in the process tree it happens.
_COUNTING_SITE = """import os, subprocess
_count, _init = os.environ.get("BENCH_IMPORT_STARTS"), subprocess.Popen.__init__
def _counting_init(self, args, *rest, **options):
    words = args if isinstance(args, (list, tuple)) else [args]
    if _count and any("iree-import-onnx" in str(word) for word in words):
        with open(_count, "a") as starts:
            starts.write("1\\n")
    _init(self, args, *rest, **options)
subprocess.Popen.__init__ = _counting_init
"""


def import_starts() -> int:
    """`iree-import-onnx` starts so far in this measured run (0 outside one)."""
    path = Path(os.environ.get("BENCH_IMPORT_STARTS", "/nonexistent"))
    return len(path.read_text().splitlines()) if path.is_file() else 0


def one_minimal(oracle: Oracle, outcome, shapes: bool) -> str:
    """bench/minimality's answer on the result, judged as the original was (its calibration). A case
    reduced without its shape passes is checked without halvings: its shapes are kept on purpose."""
    from bench.minimality.check import check, judge_for, single_edits

    judge = judge_for(oracle, outcome.original.candidate)
    if judge is None:
        return "error: the original does not fail again"
    result = outcome.best.candidate
    edits = None if shapes else (edit for edit in single_edits(result) if edit.kind != "halving")
    return check(result, judge, edits).cell() + ("" if shapes else " (shapes kept: no halvings)")


def run_case(name: str, jobs: int, check_minimal: bool, passes_only: bool = False, check_one_minimal: bool = True,
             culprit: bool = False) -> dict:
    """One reduction of case `name` in this process: the table's figures and the parts' times."""
    write, oracle_name, options, flags, shapes = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        src = write(Path(tmp))
        starts_before = import_starts()  # writing the case may import a model
        passes = [p for p in format_for(src).pass_rows() if shapes or p.search != "shrink"]
        oracle = make_oracle(oracle_name, options)
        clock = PhaseClock()
        request = Request(
            input_path=src, oracle=oracle, flags=list(flags), output_path=src.with_name("out" + src.suffix), passes=passes, jobs=jobs,
            localize=not passes_only, warm=not passes_only, culprit=culprit,  # by default the reduction alone is measured
            log=clock.log, observer=clock,
        )
        start, cpu = time.monotonic(), tree_cpu_seconds()
        clock.marks[0] = ("original compile", start, cpu, 0)
        outcome = reduce_file(request)
        seconds = time.monotonic() - start
        parts = clock.parts(outcome.stats.oracle_calls)
        cpu = tree_cpu_seconds() - cpu
        compile_s = plain_compile_seconds(oracle, src, flags)
        minimal = minimal_dimensions(request.oracle, passes, outcome.best) if check_minimal and shapes else "-"
        one = one_minimal(request.oracle, outcome, shapes) if check_one_minimal else "-"
        largest = f"{largest_tensor(outcome.original)} -> {largest_tensor(outcome.best)}"
        best = outcome.best.candidate
        written = best.binary if best.binary is not None else best.text.encode()
    return {
        "case": name,
        "oracle": oracle_name,
        "ops/nodes": f"{outcome.original.ops} -> {outcome.best.ops}",
        "bytes": f"{outcome.original.candidate.size} -> {outcome.best.candidate.size}",
        "flags": f"{len(outcome.original.candidate.flags)} -> {len(outcome.best.candidate.flags)}",
        "shapes": f"{shapes_of(outcome.original.candidate)} -> {shapes_of(best)}" if shapes else "-",
        "largest tensor": largest,
        "dims minimal": minimal,
        "degenerate": degenerate(outcome.best),
        "calls": outcome.stats.oracle_calls,
        "hits": outcome.stats.cache_hits,
        "1-minimal": one,
        "seconds": seconds,
        "cpu": cpu,
        "imports": outcome.stats.conversions,
        "import starts": import_starts() - starts_before,
        "parts": parts,
        "compile s": compile_s,
        "compiles": seconds / compile_s,  # the whole run in compiles of the original
        "digest": hashlib.sha256(written).hexdigest()[:12],
    }


def plain_compile_seconds(oracle: Oracle, src: Path, flags: list[str], times: int = 3) -> float:
    """Wall seconds of one `iree-compile` of the original as the oracle compiles it, no dumps, right
    after the reduction (the same load): what a run is counted in (its "x compile" column). The
    median of `times`: one compile of a 2 s program varied from 1.6 to 2.1 s between runs here,
    a fifth of the ratio it divides."""
    if src.suffix == ".onnx":  # what the oracle compiles: the imported model (the import not counted)
        mlir = src.with_name(src.stem + ".imported.mlir")
        subprocess.run([find_tool("iree-import-onnx"), str(src), "-o", str(mlir)], check=False, capture_output=True)
        src = mlir
    argv = [find_tool("iree-compile"), *oracle.compile_flags(tuple(flags)), str(src), "-o", os.devnull]
    seconds = []
    for _ in range(times):
        start = time.monotonic()
        subprocess.run(argv, check=False, capture_output=True)
        seconds.append(time.monotonic() - start)
    return statistics.median(seconds)


def run_in_child(name: str, jobs: int, args: argparse.Namespace, tree: Path) -> dict:
    """`run_case` in a fresh process running `tree`'s code: nothing cached, CPU counted per run."""
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        count_file = Path(tmp) / "import-starts"
        (Path(tmp) / "sitecustomize.py").write_text(_COUNTING_SITE)
        env = {**os.environ, "BENCH_IMPORT_STARTS": str(count_file), "PYTHONPATH": os.pathsep.join([tmp, str(tree)])}
        words = [__file__, "--child", name, "--jobs", str(jobs), "--tree", str(tree)]
        words += ["--check-minimal"] * args.check_minimal + ["--passes-only"] * args.passes_only
        words += ["--no-one-minimal"] * args.no_one_minimal + ["--culprit"] * args.culprit
        # The child imports this file as a module, as `reduce` imports its commands: a spawned
        # worker runs its parent's main script again, and this one's imports are not the command's.
        child = f"import sys; sys.argv = {words!r}; sys.path.insert(0, {str(Path(__file__).parent)!r}); import reduce_cases; reduce_cases.main()"
        done = subprocess.run([sys.executable, "-c", child], check=False, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{name} -j {jobs} ({tree}) failed:\n{done.stderr[-4000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


SIZE_COLUMNS = ("ops/nodes", "bytes", "flags", "shapes", "largest tensor", "dims minimal", "degenerate")


def median_run(runs: list[dict]) -> dict:
    """The run with the median wall time, whole (its own CPU and calls): one run on a machine
    whose speed drifts does not decide a figure."""
    return sorted(runs, key=lambda run: run["seconds"])[len(runs) // 2]


def case_row(name: str, label: str, runs: dict[int, dict], every: dict[int, list[dict]]) -> dict[str, str]:
    """One table row: the sizes of the first run, then seconds, CPU and calls per job count
    (`runs`: the reported run of each; `every`: all of them, for the repeats' wall times)."""
    first, last = runs[min(runs)], runs[max(runs)]
    row = {"case": name, "code": label, "oracle": first["oracle"], **{c: str(first[c]) for c in SIZE_COLUMNS}}
    for jobs, run in runs.items():
        row[f"s -j {jobs}"] = f"{run['seconds']:.1f}"
        row[f"x compile -j {jobs}"] = f"{run['compiles']:.1f} ({run['compile s']:.1f} s)"
        if len(every[jobs]) > 1:
            row[f"every s -j {jobs}"] = ", ".join(f"{done['seconds']:.1f}" for done in every[jobs])
            # Each run over the compile measured right after it: the machine's speed drifts
            # between runs (one compile of the README example took 1.6 to 2.4 s in one hour).
            ratios = [done["compiles"] for done in every[jobs]]
            row[f"every x compile -j {jobs}"] = ", ".join(f"{ratio:.1f}" for ratio in ratios)
            row[f"median x compile -j {jobs}"] = f"{statistics.median(ratios):.1f}"
        row[f"cpu s -j {jobs}"] = f"{run['cpu']:.1f}"
        row[f"calls -j {jobs}"] = f"{run['calls']} ({run['hits']} hits)"
    row["1-minimal"] = first["1-minimal"]  # of the first job count's result (the others write the same bytes)
    if len(runs) > 1:
        row[f"-j {max(runs)} / -j {min(runs)}"] = f"{last['seconds'] / first['seconds']:.2f}"
        row[f"extra calls -j {max(runs)}"] = str(last["calls"] - first["calls"])
        row["same bytes"] = "yes" if len({done["digest"] for runs_of_one in every.values() for done in runs_of_one}) == 1 else "NO"
    return row


def part_row(name: str, label: str, jobs: int, run: dict) -> dict[str, str]:
    row = {"case": name, "code": label, "-j": str(jobs)}
    for part, spent in run["parts"].items():
        row[part] = f"{spent['seconds']:.1f} s, {spent['calls']} calls, {spent['cpu']:.1f} cpu s"
    row["total"] = f"{run['seconds']:.1f} s, {run['calls']} calls, {run['cpu']:.1f} cpu s"
    row["import starts"] = str(run["import starts"])
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", default=str(os.cpu_count() or 1), help="job counts, comma-separated (e.g. 1,2)")
    parser.add_argument("--only", action="append", choices=list(CASES))
    parser.add_argument("--check-minimal", action="store_true")
    parser.add_argument("--no-one-minimal", action="store_true", help="skip the 1-minimality check of the results")
    parser.add_argument("--passes-only", action="store_true", help="no localisation, no warm compiler")
    parser.add_argument("--phases", action="store_true", help="also print where each run's time goes")
    parser.add_argument("--culprit", action="store_true", help="the failing-pass step too (as `reduce` runs it by default)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per job count (the median one is reported)")
    parser.add_argument("--tree", type=Path, help="measure the code of this checkout (default: this one)")
    parser.add_argument("--before", type=Path, help="measure this checkout's code first, then this one's")
    parser.add_argument("--child", choices=list(CASES), help=argparse.SUPPRESS)  # one run, JSON on stdout
    results.add_option(parser)
    args = parser.parse_args(argv)
    job_counts = [int(j) for j in args.jobs.split(",")]
    if args.child:
        row = run_case(args.child, job_counts[0], args.check_minimal, args.passes_only, not args.no_one_minimal, args.culprit)
        print(json.dumps(row))
        return
    trees = [t.resolve() for t in (args.before, args.tree or ROOT) if t is not None]
    mode = "passes only (no localisation, no warm compiler)" if args.passes_only else "localisation + warm compiler"
    title = f"reduce, -j {args.jobs}, {os.cpu_count()} cores, {mode}, uncached, load average {os.getloadavg()[0]:.1f} at the start"
    print(title)
    rows, parts = [], []
    for name in args.only or CASES:
        for tree in trees:
            label = results.commit(tree)
            every: dict[int, list[dict]] = {jobs: [] for jobs in job_counts}
            for _ in range(max(1, args.repeat)):
                for jobs in job_counts:
                    every[jobs].append(run_in_child(name, jobs, args, tree))
            runs = {jobs: median_run(done) for jobs, done in every.items()}
            rows.append(case_row(name, label, runs, every))
            parts += [part_row(name, label, jobs, run) for jobs, run in runs.items()]
            if len(rows) == 1:
                print("\n".join(results.head_lines(list(rows[0]))))
            print(results.row_line([rows[-1].get(c, "") for c in rows[0]]), flush=True)
    tables = [results.Table.of_dicts(rows, title)]
    if args.phases:
        where = f"where the time goes (wall s, oracle calls, CPU s of the process tree); load average {os.getloadavg()[0]:.1f}"
        print(f"\n{where}")
        tables.append(results.Table.of_dicts(results.stream(parts), where))
    if args.results:
        results.write(__file__, tables, argv=argv)


if __name__ == "__main__":
    main()
