"""Measures `reduce -j 1` against `-j 2` (or any list) on cases that leave room for parallelism.

    python bench/parallel_speedup.py [--jobs 1,2] [--repeat 2] [--only NAME ...]

The default case is a 1-minimality sweep: every one of 12 matmuls is needed (the dispatch-count
oracle, calibrated to the original's 12 dispatches), so nearly every candidate of every pass
fails and the windows of candidates run side by side. Runs alternate between job counts so a
change in the machine's load hits both alike. Printed per run: wall time, oracle calls, the CPU
seconds the compiles used (children's user+sys), the reducer's own CPU seconds (parsing and
editing IR, serial) and the CPU used per second of wall time; then the speedup of each job
count over the first and whether every run wrote the same bytes.
No verdict cache: every run compiles every candidate.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reduce_cases import CASES as REDUCE_CASES  # bench/ is the script's own directory
from reduce_cases import text_file

from oracles import OracleOptions, make_oracle
from reducer.passes.registry import passes_for
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


CASES = {
    # name: (writes the input, oracle, options, flags, shrink shapes too), as in reduce_cases.py
    "sweep-12-needed-matmuls": (text_file(lambda: matmul_chain(12)), "dispatch-count", OracleOptions(phase="flow", threshold=12), CPU, False),
    **REDUCE_CASES,
}


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def run(name: str, jobs: int) -> dict:
    write, oracle_name, options, flags, shapes = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        src = write(Path(tmp))
        passes = [p for p in passes_for(src.suffix) if shapes or p.search != "shrink"]
        out = src.with_name("out" + src.suffix)
        request = Request(
            input_path=src, oracle=make_oracle(oracle_name, options), flags=list(flags), output_path=out, passes=passes, jobs=jobs
        )
        cpu, own, start = cpu_seconds(resource.RUSAGE_CHILDREN), cpu_seconds(resource.RUSAGE_SELF), time.monotonic()
        outcome = reduce_file(request)
        seconds = time.monotonic() - start
        cpu, own = cpu_seconds(resource.RUSAGE_CHILDREN) - cpu, cpu_seconds(resource.RUSAGE_SELF) - own
        result = out.read_bytes()
    return {
        "jobs": jobs,
        "seconds": seconds,
        "calls": outcome.stats.oracle_calls,
        "cpu": cpu,
        "own": own,
        "ops": f"{outcome.original.ops} -> {outcome.best.ops}",
        "result": result,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", default="1,2", help="comma-separated job counts; the first is the baseline")
    parser.add_argument("--repeat", type=int, default=2, help="runs per job count, interleaved")
    parser.add_argument("--only", action="append", choices=list(CASES))
    args = parser.parse_args()
    counts = [int(j) for j in args.jobs.split(",")]
    load = os.getloadavg()[0]
    print(f"reduce -j {args.jobs}, {os.cpu_count()} cores, load average {load:.1f} at start, {args.repeat} runs each")
    print("| case | -j | ops | oracle calls | wall s | compile CPU s | reducer CPU s | CPU/wall |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.only or ["sweep-12-needed-matmuls"]:
        runs: dict[int, list[dict]] = {j: [] for j in counts}
        for _ in range(args.repeat):
            for jobs in counts:
                row = run(name, jobs)
                runs[jobs].append(row)
                print(
                    f"| {name} | {jobs} | {row['ops']} | {row['calls']} | {row['seconds']:.1f} | {row['cpu']:.1f} | "
                    f"{row['own']:.1f} | {(row['cpu'] + row['own']) / row['seconds']:.2f} |",
                    flush=True,
                )
        base = statistics.median(r["seconds"] for r in runs[counts[0]])
        for jobs in counts[1:]:
            median = statistics.median(r["seconds"] for r in runs[jobs])
            print(f"{name}: -j {jobs} median {median:.1f} s vs -j {counts[0]} median {base:.1f} s: speedup {base / median:.2f}x")
        same = len({r["result"] for rs in runs.values() for r in rs}) == 1
        print(f"{name}: every run wrote the same result: {'yes' if same else 'NO'}")
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
