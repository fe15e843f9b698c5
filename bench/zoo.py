"""The zoo (tests/zoo.py: real `transformers` architectures, tiny configs, random weights) through
IREE 3.13 and through `reduce`, as a user of those models meets them.

    python bench/zoo.py [--models llama,gpt2] [--dtypes f32,f16] [--shapes static,dynamic]
                        [--targets llvm-cpu,vmvx,vulkan,gfx942,sm_80] [--time-limit 30m]
                        [--no-reduce] [--no-eager] [--onnx] [--out DIR] [-j 2] [--results]

1. The compile matrix: each model x dtype x shape, exported with `torch.export` and imported as
   `reduce` imports a `.pt2` (reducer/graphs/torch_program.py `normalised`: the original every
   reduction starts from), compiled for each target. A failure's cell names its root cause: the
   fuzzer's key (fuzz/root_cause.py) of the failure before any reduction, which is its normalised
   first error whatever the target, so one bug met on five targets is one cause.
2. Each root cause reduced once per model (its first failing cell: f32 before f16, static before
   dynamic, targets in the order given) with `reduce --oracle=compile-error -j N --no-cache`:
   nodes before -> after, seconds, oracle calls, the failing pass the culprit step names and the
   fuzzer's key with it, whether the written `bug.reduced.py` shows the same error run alone, and
   how `reduce` ended (a result, a one-line refusal, or a traceback: a bug of the tool).
3. Each model on llvm-cpu against PyTorch eager (`reduce --oracle=eager-mismatch`): the models
   that agree, and the wrong answers reduced the same way.
4. With `--onnx`: each model written by `torch.onnx.export`, imported with `iree-import-onnx` and
   compiled for llvm-cpu.

`--time-limit` stops starting new work once it has passed (what is left shows as skipped);
`--results` writes the tables to docs/results/zoo.md (bench/results.py). `--write-matrix FILE`
keeps each cell's outcome (its root-cause key, or 'ok') as JSON; `--expect FILE` compares the
cells run with such a file and exits 1 when a cell that compiled there fails now, or fails with
another root cause (the nightly job's check: tests/data/zoo_matrix.json). Needs the zoo extra
(`pip install -e '.[zoo]'`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import results
from fuzz.execute import classify_compile_failure
from fuzz.pipelines import PIPELINES
from fuzz.root_cause import FailureFacts, root_cause_key
from oracles.signature import error_lines, error_signature, first_error, normalise
from oracles.toolchain.tools import Limits, find_tool, run_tool
from oracles.torch import DEFAULT_IMPORT, IMPORTS

# The targets by the names the matrix shows, each as the fuzzer's pipeline of the same target.
TARGETS = {"llvm-cpu": "cpu", "vmvx": "vmvx", "vulkan": "vulkan", "gfx942": "gfx942", "sm_80": "sm_80"}
IMPORT = "import"  # a cell whose model the FX importer does not take: reduce refuses it in one line
TRACEBACK = "Traceback (most recent call last)"


@dataclass(frozen=True)
class Variant:
    """One exported program: a model in a dtype, static or with its one dynamic dimension."""

    model: str
    dtype: str
    dynamic: bool

    @property
    def name(self) -> str:
        from tests import zoo

        return zoo.file_name(self.model, self.dtype, self.dynamic, "")

    @property
    def shape(self) -> str:
        from tests import zoo

        return f"dynamic {zoo.ARCHITECTURES[self.model].dynamic_name()}" if self.dynamic else "static"


@dataclass(frozen=True)
class Cell:
    """One compile of the matrix: its outcome ('ok', a fuzzer finding kind, IMPORT or 'skipped')."""

    variant: Variant
    target: str
    kind: str
    signature: str = ""
    first: str = ""  # the first error line, as printed
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.kind not in ("ok", "skipped")

    @property
    def key(self) -> str:
        """The fuzzer's root-cause key of the failure as found (unreduced: its normalised error)."""
        if self.kind == IMPORT:
            return f"{IMPORT} | {self.signature}"
        return root_cause_key(FailureFacts(self.kind, self.signature, PIPELINES[TARGETS[self.target]].flags))


class Clock:
    """The run's time limit: work not started before it passes is skipped."""

    def __init__(self, limit_s: float | None) -> None:
        self.deadline = None if limit_s is None else time.monotonic() + limit_s

    def out(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline


NOTES = ["Compile errors and crashes are grouped by the fuzzer's root-cause key (fuzz/root_cause.py) of the failure "
         "as found; a reduction's key adds the target and the failing pass the culprit step names."]
UNFINISHED = "Written while the run went on: the tables end where it was when this file was written."


class Tables(list):
    """The run's tables. With `--results` the file is written again after each row, so a run
    stopped early (its time limit, a kill) keeps the rows it finished; the last write is whole."""

    def __init__(self, write: bool) -> None:
        super().__init__()
        self.write = write

    def start(self, table: results.Table) -> results.Table:
        self.append(table)
        table.print_head()
        return table

    def add(self, table: results.Table, cells: Sequence[object]) -> None:
        table.add(cells)
        self.save(finished=False)

    def save(self, finished: bool = True) -> None:
        if self.write:
            results.write(__file__, self, NOTES + ([] if finished else [UNFINISHED]))


def seconds_of(text: str) -> float:
    """'90', '90s', '30m', '2h' -> seconds."""
    units = {"s": 1, "m": 60, "h": 3600}
    return float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)


# --- 1. The compile matrix --------------------------------------------------------------------------

def archive_of(variant: Variant, out: Path) -> Path:
    """The variant's `.pt2`, exported once into `out`."""
    from tests import zoo

    archive = out / f"{variant.name}.pt2"
    if not archive.exists():
        zoo.save(variant.model, archive, variant.dtype, variant.dynamic)
    return archive


def prepare(variant: Variant, out: Path, how: str) -> tuple[Path, Path | None, str]:
    """The variant's archive (written once), and the MLIR `reduce` starts from (imported `how`,
    its `--torch-import`), or why it does not import."""
    from oracles.torch.program import ArchiveError
    from reducer.graphs.torch_program import normalised

    archive = archive_of(variant, out)
    try:
        built = normalised(archive.read_bytes(), how)
    except ArchiveError as err:  # NotImportable: what `reduce` refuses in one line
        return archive, None, str(err)
    mlir = out / f"{variant.name}.mlir"
    mlir.write_text(built.text)
    return archive, mlir, ""


def compile_cell(variant: Variant, target: str, mlir: Path, timeout_s: float) -> Cell:
    """One compile of the imported program for one target, its failure classified as the fuzzer does."""
    with tempfile.TemporaryDirectory(prefix="zoo-") as scratch:
        argv = [find_tool("iree-compile"), *PIPELINES[TARGETS[target]].flags, str(mlir), "-o", str(Path(scratch) / "out.vmfb")]
        process = run_tool(argv, Limits(timeout_s=timeout_s))
    if process.returncode == 0 and not process.timed_out:
        return Cell(variant, target, "ok", seconds=process.seconds)
    kind, signature = classify_compile_failure(process)
    first = first_error(process.stderr).replace(f"{mlir.parent}/", "")  # the file by its name: no machine's paths in the tables
    return Cell(variant, target, kind, signature, first, process.seconds)


def matrix(variants: Sequence[Variant], targets: Sequence[str], out: Path, jobs: int, clock: Clock,
           timeout_s: float, how: str) -> tuple[list[Cell], dict[Variant, Path]]:
    """Every cell, and each variant's archive. Variants are exported and imported here, one at a
    time (torch in this process); their compiles run `jobs` at a time beside the next import."""
    archives: dict[Variant, Path] = {}
    futures = []
    with ThreadPoolExecutor(jobs) as pool:
        for variant in variants:
            if clock.out():
                futures += [pool.submit(Cell, variant, target, "skipped") for target in targets]
                continue
            archives[variant], mlir, refused = prepare(variant, out, how)
            for target in targets:
                if mlir is None:
                    futures.append(pool.submit(Cell, variant, target, IMPORT, normalise(refused), refused))
                else:
                    futures.append(pool.submit(compile_cell, variant, target, mlir, timeout_s))
        return [future.result() for future in futures], archives


def cell_outcomes(cells: Iterable[Cell]) -> dict[str, str]:
    """'model dtype static|dynamic target' -> 'ok' or the cell's root-cause key (skipped cells left out)."""
    return {f"{c.variant.model} {c.variant.dtype} {'dynamic' if c.variant.dynamic else 'static'} {c.target}":
            ("ok" if not c.failed else c.key) for c in cells if c.kind != "skipped"}


def regressions(now: dict[str, str], expected: dict[str, str]) -> list[str]:
    """The cells that compiled before and fail now, or fail with another root cause; a cell the
    expected matrix lacks (a new model or target) is not one: it is written by --write-matrix."""
    return [f"{cell}: {expected[cell]} -> {outcome}" for cell, outcome in sorted(now.items())
            if cell in expected and outcome != "ok" and outcome != expected[cell]]


def cause_numbers(cells: Iterable[Cell]) -> dict[str, str]:
    """Each root-cause key the matrix met -> its short name in the tables (C1, C2, ...), in order met."""
    numbers: dict[str, str] = {}
    for cell in cells:
        if cell.failed and cell.key not in numbers:
            numbers[cell.key] = f"C{len(numbers) + 1}"
    return numbers


def matrix_table(tables: Tables, cells: Sequence[Cell], targets: Sequence[str], numbers: dict[str, str]) -> None:
    table = tables.start(results.Table(["model", "dtype", "shape", *targets],
                                       title="The compile matrix: each cell 'ok', or the root cause (next table) its compile fails with"))
    rows: dict[Variant, dict[str, str]] = {}
    for cell in cells:
        rows.setdefault(cell.variant, {})[cell.target] = numbers[cell.key] if cell.failed else cell.kind
    for variant, row in rows.items():
        table.add([variant.model, variant.dtype, variant.shape, *(row.get(target, "") for target in targets)])


def causes_table(tables: Tables, cells: Sequence[Cell], numbers: dict[str, str]) -> None:
    table = tables.start(results.Table(["cause", "kind", "first error (one cell's, as printed)", "targets", "models", "cells"],
                                       title="Root causes: the fuzzer's key of each failure before reduction (its normalised first error)"))
    for key, number in numbers.items():
        mine = [cell for cell in cells if cell.failed and cell.key == key]
        targets = sorted({cell.target for cell in mine}, key=list(TARGETS).index)
        models = sorted({cell.variant.model for cell in mine})
        table.add([number, mine[0].kind, _short(mine[0].first, 220), ", ".join(targets), ", ".join(models), len(mine)])
    tables.save(finished=False)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- 2 and 3. Reductions ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Reduced:
    """How one `reduce` ended and what it wrote."""

    ended: str  # 'result', 'refused: <line>', 'not interesting: <detail>', 'TRACEBACK', 'timed out'
    summary: dict
    seconds: float
    script_shows: str = "-"


def run_reduce(archive: Path, oracle: str, flags: Sequence[str], output: Path, jobs: int, timeout_s: float,
               signature: str = "", options: Sequence[str] = ()) -> Reduced:
    """`reduce ARCHIVE --oracle=ORACLE -j JOBS --no-cache --json -o OUTPUT -- FLAGS` as a user runs it."""
    argv = [sys.executable, "-m", "reducer", str(archive), f"--oracle={oracle}", "-o", str(output), "-j", str(jobs),
            "--no-cache", "--json", "-q", *options, "--", *flags]
    start = time.monotonic()
    try:
        done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return Reduced("timed out", {}, time.monotonic() - start)
    seconds = time.monotonic() - start
    if TRACEBACK in done.stderr or TRACEBACK in done.stdout or "{" not in done.stdout:
        tail = [line for line in done.stderr.splitlines() if line.strip()][-1:]
        return Reduced(f"TRACEBACK: {tail[0] if tail else done.returncode}", {}, seconds)
    summary = json.loads(done.stdout[done.stdout.index("{"):])
    if summary.get("status") == "error":
        why = summary.get("error", "")
        return Reduced(f"not interesting: {why.split(': ', 1)[-1]}" if "not interesting" in why else f"refused: {why}",
                       summary, seconds)
    return Reduced("result", summary, seconds, script_shows(summary, signature))


def script_shows(summary: dict, signature: str) -> str:
    """Whether the written repro script, run alone (its own process, isolated from this checkout),
    shows the failure: for a compile error, the same normalised error."""
    script = Path(summary.get("files", {}).get("script") or "")
    if not script.name:
        return "no script"
    try:
        shown = subprocess.run([sys.executable, "-I", script.name], check=False, cwd=script.parent, capture_output=True,
                               text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "NO (timed out)"
    if shown.returncode != 1:
        return f"NO (exit {shown.returncode})"
    if signature.startswith("error:") and signature not in {error_signature(line) for line in error_lines(shown.stderr)}:
        return "another error"
    return "yes"


def reduction_row(label: dict, done: Reduced) -> dict:
    summary = done.summary
    row = dict(label)
    if done.ended != "result":
        return {**row, "nodes": "-", "seconds": f"{done.seconds:.0f}", "calls": "-", "ended": done.ended}
    culprit = summary.get("culprit") or {}
    return {**row, "nodes": f"{summary['original']['size']} -> {summary['reduced']['size']}",
            "seconds": f"{summary['seconds']:.0f}", "calls": summary["oracle_calls"], "ended": "result",
            "failing pass": culprit.get("pass") or "-", "script shows it": done.script_shows}


def first_cells(cells: Sequence[Cell]) -> Iterator[Cell]:
    """One cell per (model, root cause): the first that fails with it (f32, static, first target first)."""
    seen: set[tuple[str, str]] = set()
    for cell in cells:
        if cell.failed and (cell.variant.model, cell.key) not in seen:
            seen.add((cell.variant.model, cell.key))
            yield cell


def reductions(tables: Tables, cells: Sequence[Cell], numbers: dict[str, str], archives: dict[Variant, Path], out: Path,
               jobs: int, clock: Clock, timeout_s: float, how: str) -> None:
    columns = ["model", "cause", "reduced", "nodes", "seconds", "calls", "ended", "failing pass", "root cause (fuzzer's key, reduced)",
               "script shows it"]
    table = tables.start(results.Table(columns, title=f"Each root cause reduced once per model: reduce --oracle=compile-error -j {jobs} "
                                                      "--no-cache (seconds: the whole command, the failing pass included)"))
    for cell in first_cells(cells):
        label = {"model": cell.variant.model, "cause": numbers[cell.key], "reduced": f"{cell.variant.name} {cell.target}"}
        if clock.out():
            tables.add(table, [*label.values(), "-", "-", "-", "skipped (time limit)"])
            continue
        flags = PIPELINES[TARGETS[cell.target]].flags
        output = out / f"{cell.variant.name}.{cell.target}.reduced.pt2"
        done = run_reduce(archives[cell.variant], "compile-error", flags, output, jobs, timeout_s, cell.signature,
                          [f"--torch-import={how}"])
        row = reduction_row(label, done)
        passed = row.get("failing pass", "-")
        key = root_cause_key(FailureFacts(cell.kind, cell.signature, flags, passed)) if passed != "-" else "-"
        tables.add(table, [row[c] for c in ("model", "cause", "reduced", "nodes", "seconds", "calls", "ended")]
                   + [passed, key, row.get("script shows it", "-")])


def eager(tables: Tables, variants: Sequence[Variant], archives: dict[Variant, Path], out: Path, jobs: int, clock: Clock,
          timeout_s: float, how: str) -> None:
    """Each model on llvm-cpu against PyTorch eager, on its example input (token ids inside the
    vocabulary); a wrong answer is reduced there and then."""
    from tests import zoo

    table = tables.start(results.Table(["model", "dtype", "shape", "against eager", "nodes", "seconds", "calls", "script shows it"],
                                       title=f"Each model on llvm-cpu against PyTorch eager: reduce --oracle=eager-mismatch -j {jobs} --no-cache"))
    for variant in variants:
        if variant not in archives or clock.out():
            tables.add(table, [variant.model, variant.dtype, variant.shape, "skipped (time limit)", "-", "-", "-", "-"])
            continue
        output = out / f"{variant.name}.eager.reduced.pt2"
        inputs = zoo.save_inputs(variant.model, out / f"{variant.name}.inputs.npy", variant.dtype)
        done = run_reduce(archives[variant], "eager-mismatch", PIPELINES["cpu"].flags, output, jobs, timeout_s,
                          options=["--inputs", str(inputs), f"--torch-import={how}"])
        if done.ended == "result":
            row = reduction_row({}, done)
            tables.add(table, [variant.model, variant.dtype, variant.shape, f"wrong: {_short(done.summary['failure'], 120)}",
                               row["nodes"], row["seconds"], row["calls"], row["script shows it"]])
        else:
            detail = done.ended.split(": ", 1)[-1]
            agrees = done.ended.startswith("not interesting") and "match" in detail
            said = (f"agrees ({_short(detail, 100)})" if agrees else f"not compared ({_short(detail, 100)})"
                    if done.ended.startswith("not interesting") else done.ended)
            tables.add(table, [variant.model, variant.dtype, variant.shape, said, "-", f"{done.seconds:.0f}", "-", "-"])


# --- 4. ONNX ------------------------------------------------------------------------------------------

def onnx_table(tables: Tables, variants: Sequence[Variant], out: Path, clock: Clock, timeout_s: float) -> None:
    """Each model through torch.onnx.export, iree-import-onnx and a compile for llvm-cpu."""
    from tests import zoo

    table = tables.start(results.Table(["model", "dtype", "shape", "torch.onnx.export", "iree-import-onnx", "llvm-cpu"],
                                       title="The same models as ONNX (torch.onnx.export), imported with iree-import-onnx, compiled for llvm-cpu"))
    for variant in variants:
        steps = ["skipped (time limit)"] if clock.out() else _onnx_steps(zoo, variant, out, timeout_s)
        tables.add(table, [variant.model, variant.dtype, variant.shape, *(steps + ["-"] * 3)[:3]])


def _onnx_steps(zoo, variant: Variant, out: Path, timeout_s: float) -> list[str]:
    model, mlir = out / f"{variant.name}.onnx", out / f"{variant.name}.onnx.mlir"
    try:
        zoo.save_onnx(variant.model, model, variant.dtype, variant.dynamic)
    except Exception as err:  # noqa: BLE001  (the exporter raises anything for a model it cannot take)
        return [f"fails: {_short(f'{type(err).__name__}: {err}', 160)}"]
    imported = run_tool([find_tool("iree-import-onnx"), str(model), "-o", str(mlir)], Limits(timeout_s=timeout_s))
    if imported.returncode != 0:
        return ["ok", f"fails: {_short(first_error(imported.stderr), 160)}"]
    cell = compile_cell(variant, "llvm-cpu", mlir, timeout_s)
    return ["ok", "ok", cell.kind if not cell.failed else f"{cell.kind}: {_short(cell.first, 160)}"]


# --- The command --------------------------------------------------------------------------------------

def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    from tests import zoo

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(zoo.ARCHITECTURES), help="comma-separated (default: all of tests/zoo.py)")
    parser.add_argument("--dtypes", default="f32,f16")
    parser.add_argument("--shapes", default="static,dynamic", help="static, dynamic or both (default both)")
    parser.add_argument("--targets", default=",".join(TARGETS), help=f"comma-separated, of {', '.join(TARGETS)}")
    parser.add_argument("--time-limit", type=seconds_of, help="stop starting new work after this long (90s, 30m, 2h)")
    parser.add_argument("--timeout", type=seconds_of, default=300.0, help="seconds before one compile is killed")
    parser.add_argument("--reduce-timeout", type=seconds_of, default=1800.0, help="seconds before one reduce is killed")
    parser.add_argument("--torch-import", choices=IMPORTS, default=DEFAULT_IMPORT,
                        help="how each .pt2 is brought to the importer, as reduce --torch-import (default %(default)s)")
    parser.add_argument("--no-reduce", action="store_true", help="the matrix only: no compile-error reductions")
    parser.add_argument("--no-matrix", action="store_true", help="no compile matrix (nor its reductions): eager and ONNX only")
    parser.add_argument("--no-eager", action="store_true", help="no eager-mismatch run")
    parser.add_argument("--eager-dtypes", default="f32", help="the dtypes run against eager (static shapes)")
    parser.add_argument("--onnx", action="store_true", help="also the ONNX table (torch.onnx.export is slow: 10-50 s a model)")
    parser.add_argument("--out", type=Path, help="where the archives and results go (default: a temporary directory)")
    parser.add_argument("--write-matrix", type=Path, metavar="FILE", help="write each cell's outcome as JSON")
    parser.add_argument("--expect", type=Path, metavar="FILE",
                        help="exit 1 when a cell that compiled in FILE (a --write-matrix) fails now, or fails another way")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    results.add_option(parser)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.models.split(",")) - set(zoo.ARCHITECTURES)) + sorted(set(args.targets.split(",")) - set(TARGETS))
    unknown += sorted(set(args.dtypes.split(",")) - set(zoo.DTYPES)) + sorted(set(args.shapes.split(",")) - {"static", "dynamic"})
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}")
    return args


def variants_of(args: argparse.Namespace) -> list[Variant]:
    shapes = [shape == "dynamic" for shape in ("static", "dynamic") if shape in args.shapes.split(",")]
    return [Variant(model, dtype, dynamic) for model in args.models.split(",") for dtype in args.dtypes.split(",")
            for dynamic in shapes]


def run(args: argparse.Namespace, out: Path) -> list[str]:
    """The run; what regressed against `--expect` (checked as soon as the matrix is in)."""
    from tests import zoo

    if zoo.missing():
        raise SystemExit(f"zoo: {zoo.missing()}")
    clock, variants, targets = Clock(args.time_limit), variants_of(args), args.targets.split(",")
    tables = Tables(args.results)
    if args.no_matrix:
        cells, archives = [], {v: archive_of(v, out) for v in variants}
    else:
        cells, archives = matrix(variants, targets, out, args.jobs, clock, args.timeout, args.torch_import)
        numbers = cause_numbers(cells)
        matrix_table(tables, cells, targets, numbers)
        causes_table(tables, cells, numbers)
    outcomes = cell_outcomes(cells)
    if args.write_matrix:
        args.write_matrix.write_text(json.dumps(outcomes, indent=1, sort_keys=True) + "\n")
    regressed = regressions(outcomes, json.loads(args.expect.read_text())) if args.expect else []
    for line in regressed:
        print(f"REGRESSED {line}", flush=True)
    if not args.no_reduce and not args.no_matrix:
        reductions(tables, cells, numbers, archives, out, args.jobs, clock, args.reduce_timeout, args.torch_import)
    if not args.no_eager:
        chosen = [v for v in variants if not v.dynamic and v.dtype in args.eager_dtypes.split(",")]
        eager(tables, chosen, archives, out, args.jobs, clock, args.reduce_timeout, args.torch_import)
    if args.onnx:
        onnx_table(tables, variants, out, clock, args.timeout)
    tables.save()
    return regressed


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    with tempfile.TemporaryDirectory(prefix="zoo-") as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        regressed = run(args, out)
    if regressed:
        print(f"zoo: {len(regressed)} cell(s) of {args.expect} fail now (REGRESSED lines above)", file=sys.stderr)
    return 1 if regressed else 0


if __name__ == "__main__":
    sys.exit(main())
