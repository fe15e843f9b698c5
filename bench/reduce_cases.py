"""Measures `reduce` on the acceptance cases and prints a table (sizes, calls, wall time).

    python bench/reduce_cases.py [--jobs 2] [--only NAME]

Cases are built by tests/models.py; every number printed is measured in this run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from oracles import OracleOptions, make_oracle
from reducer.passes.registry import REDUCTION_PASSES
from reducer.session import Request, reduce_file
from tests.models import torch_chain

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "conv_chain.mlir"

CASES = {
    # name: (program text, oracle, options, flags)
    "lds-conv-in-12-op-chain": (lambda: torch_chain(12, 6, "conv"), "lds-limit", OracleOptions(lds_bytes=16384), []),
    "lds-example-seed004": (lambda: EXAMPLE.read_text(), "lds-limit", OracleOptions(lds_bytes=32768), []),
    "compile-error-in-120-op-chain": (
        lambda: torch_chain(120, 70, "onnx.NoSuchOp"),
        "compile-error",
        OracleOptions(),
        [*CPU, "--iree-opt-const-eval=false"],
    ),
    "compile-error-in-600-op-chain": (
        lambda: torch_chain(600, 420, "onnx.NoSuchOp"),
        "compile-error",
        OracleOptions(),
        CPU,
    ),
}


def run_case(name: str, jobs: int) -> dict:
    build, oracle_name, options, flags = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"{name}.mlir"
        src.write_text(build())
        request = Request(
            input_path=src,
            oracle=make_oracle(oracle_name, options),
            flags=list(flags),
            output_path=Path(tmp) / "out.mlir",
            passes=REDUCTION_PASSES,
            jobs=jobs,
        )
        start = time.monotonic()
        outcome = reduce_file(request)
        seconds = time.monotonic() - start
    return {
        "case": name,
        "oracle": oracle_name,
        "ops": f"{outcome.original.ops} -> {outcome.best.ops}",
        "bytes": f"{outcome.original.candidate.size} -> {outcome.best.candidate.size}",
        "flags": f"{len(outcome.original.candidate.flags)} -> {len(outcome.best.candidate.flags)}",
        "calls": outcome.stats.oracle_calls,
        "hits": outcome.stats.cache_hits,
        "seconds": f"{seconds:.1f}",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", action="append", choices=list(CASES))
    args = parser.parse_args()
    rows = [run_case(name, args.jobs) for name in (args.only or CASES)]
    columns = list(rows[0])
    print(f"reduce, -j {args.jobs}, {os.cpu_count()} cores")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")


if __name__ == "__main__":
    main()
