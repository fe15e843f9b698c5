"""Measures `reduce -j 1` against `-j 2` (or any list) on cases that leave room for parallelism.

    python bench/parallel_speedup.py [--jobs 1,2] [--repeat 2] [--only NAME ...] [--no-warm]

The default cases are a 1-minimality sweep: every one of 16 matmuls is needed (dispatch-count
with threshold 16, at flow and at hal), so nearly every candidate of every pass fails and the
windows of candidates run side by side; `--only` also takes bench/reduce_cases.py's cases.
Runs alternate between job counts so a change in the machine's load hits both alike. Printed
per run: wall time, oracle calls and the reducer process's own CPU seconds (editing IR, reading
verdicts: the GIL-bound serial share; compiles run in other processes); then the median speedup
of each job count over the first and whether every run wrote the same bytes. The load average
and what two CPU-bound processes gain over one (the machine's ceiling for any -j 2 speedup) are
printed before and after: on a shared machine a busy neighbour changes every number. No
verdict cache: every run compiles every candidate. `--results` also writes the table and those
lines to docs/results/parallel_speedup.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reduce_cases import CASES as REDUCE_CASES  # bench/ is the script's own directory
from reduce_cases import text_file

from bench import results
from oracles import OracleOptions, make_oracle
from reducer.formats.registry import format_for
from reducer.session import Request, reduce_file

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]


def matmul_chain(n: int, size: int = 32) -> str:
    """n chained matmuls, each with its own empty + fill init: one dispatch each at flow."""
    t = f"tensor<{size}x{size}xf32>"
    lines, value = [], "%x"
    for i in range(n):
        lines += [
            f"    %e{i} = tensor.empty() : {t}",
            f"    %f{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {t}) -> {t}",
            f"    %m{i} = linalg.matmul ins({value}, %w : {t}, {t}) outs(%f{i} : {t}) -> {t}",
        ]
        value = f"%m{i}"
    body = "\n".join(lines)
    return f"""module {{
  func.func @main(%x: {t}, %w: {t}) -> {t} {{
    %zero = arith.constant 0.0 : f32
{body}
    return {value} : {t}
  }}
}}
"""


SWEEPS = {
    # name: (writes the input, oracle, options, flags, shrink shapes too), as in reduce_cases.py.
    # At flow a warm compile is ~0.1 s and the reducer's own IR work is a visible serial share;
    # at hal the compile includes LLVM codegen, as most real oracles' compiles do.
    f"sweep-16-needed-matmuls-{phase}": (
        text_file(lambda: matmul_chain(16)), "dispatch-count", OracleOptions(phase=phase, threshold=16), CPU, False
    )
    for phase in ("flow", "hal")
}
CASES = {**SWEEPS, **REDUCE_CASES}


SPIN = "import time\nt = time.monotonic()\nx = 0\nfor i in range(20_000_000):\n    x += i\nprint(time.monotonic() - t)"


def two_process_ceiling() -> float:
    """What two CPU-bound processes gain over one on this machine now: 2.0 on two idle cores.

    On a shared machine the neighbours' load caps every speedup; -j 2 cannot beat this number.
    """

    def spin(copies: int) -> float:
        procs = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True) for _ in range(copies)]
        return max(float(p.communicate()[0]) for p in procs)

    one, two = statistics.median(spin(1) for _ in range(3)), statistics.median(spin(2) for _ in range(3))
    return 2 * one / two


def cpu_seconds() -> float:
    """This process's CPU time, all threads: IR edits, verdict parsing, the evaluator (GIL-bound)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(name: str, jobs: int, warm: bool) -> dict:
    write, oracle_name, options, flags, shapes = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        src = write(Path(tmp))
        passes = [p for p in format_for(src).pass_rows() if shapes or p.search != "shrink"]
        out = src.with_name("out" + src.suffix)
        request = Request(
            input_path=src,
            oracle=make_oracle(oracle_name, options),
            flags=list(flags),
            output_path=out,
            passes=passes,
            jobs=jobs,
            warm=warm,
            culprit=False,  # the reduction alone is measured
        )
        own, start = cpu_seconds(), time.monotonic()
        outcome = reduce_file(request)
        seconds, own = time.monotonic() - start, cpu_seconds() - own
        result = out.read_bytes()
    return {
        "jobs": jobs,
        "seconds": seconds,
        "calls": outcome.stats.oracle_calls,
        "own": own,
        "ops": f"{outcome.original.ops} -> {outcome.best.ops}",
        "result": result,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", default="1,2", help="comma-separated job counts; the first is the baseline")
    parser.add_argument("--repeat", type=int, default=2, help="runs per job count, interleaved")
    parser.add_argument("--only", action="append", choices=list(CASES))
    parser.add_argument("--no-warm", action="store_true", help="every compile its own iree-compile process (reduce --no-warm)")
    results.add_option(parser)
    args = parser.parse_args(argv)
    counts = [int(j) for j in args.jobs.split(",")]
    load = os.getloadavg()[0]
    compiles = "iree-compile processes" if args.no_warm else "warm compiler"
    table = results.Table(["case", "-j", "ops", "oracle calls", "wall s", "reducer process CPU s"],
                          title=f"reduce -j {args.jobs}, {compiles}, {os.cpu_count()} cores, load average {load:.1f} at start, "
                                f"{args.repeat} runs each")
    notes: list[str] = []

    def note(line: str) -> None:
        notes.append(line)
        print(line, flush=True)

    note(f"two CPU-bound processes do {two_process_ceiling():.2f}x the work of one on this machine at the start (the ceiling)")
    table.print_head()
    for name in args.only or list(SWEEPS):
        runs: dict[int, list[dict]] = {j: [] for j in counts}
        for _ in range(args.repeat):
            for jobs in counts:
                row = run(name, jobs, warm=not args.no_warm)
                runs[jobs].append(row)
                table.add([name, jobs, row["ops"], row["calls"], f"{row['seconds']:.1f}", f"{row['own']:.1f}"])
        base = statistics.median(r["seconds"] for r in runs[counts[0]])
        for jobs in counts[1:]:
            median = statistics.median(r["seconds"] for r in runs[jobs])
            note(f"{name}: -j {jobs} median {median:.1f} s vs -j {counts[0]} median {base:.1f} s: speedup {base / median:.2f}x")
        same = len({r["result"] for rs in runs.values() for r in rs}) == 1
        note(f"{name}: every run wrote the same result: {'yes' if same else 'NO'}")
    note(f"load average at end {os.getloadavg()[0]:.1f}; two-process ceiling then {two_process_ceiling():.2f}x")
    if args.results:
        results.write(__file__, [table], notes, argv)


if __name__ == "__main__":
    main()
