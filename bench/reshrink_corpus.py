"""Re-reduces the corpus's linalg-level entries with the linalg shape pass and prints their sizes.

    python bench/reshrink_corpus.py [--jobs 2] [--only NAME ...] [--update] [--results]

For every MLIR entry the pass can shrink (linalg / tensor IR: torch entries shrink through ONNX
already), runs `reduce` with the entry's oracle, options and flags, and prints the largest
tensor and the elements of all function arguments and constants before and after. `--update`
writes a result back only when it still reproduces as the entry says (`corpus/test_corpus.py`'s
check, pinned to the stored signature). `--results` also writes the table to
docs/results/reshrink_corpus.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from iree.compiler import ir

from bench import results
from oracles import OracleOptions, make_oracle
from oracles.mlir import ir as irx
from reducer.corpus_entries import check_entry, entry_problem, load_entries
from reducer.formats.registry import format_for
from reducer.session import Request, reduce_file
from reducer.shapes import mlir_shapes
from reducer.shapes.tensor_types import elements, static_shape
from reducer.user_error import UserError

ENTRIES = ROOT / "corpus" / "entries"


def sizes(text: str) -> tuple[int, int, str]:
    """(largest tensor, elements of arguments and constants, shape summary) of MLIR text."""
    ctx = irx.new_context()
    module = irx.parse(text, ctx)
    with ctx, ir.Location.unknown(ctx):
        inputs = 0
        for op in irx.walk_ops(module.operation):
            values = [a for r in op.regions for b in r.blocks for a in b.arguments] if op.name in irx.FUNCTION_OPS else []
            if op.name == "arith.constant":
                values = list(op.results)
            for value in values:
                shape = static_shape(value.type)
                if shape and all(d >= 0 for d in shape):
                    inputs += elements(shape)
        return mlir_shapes.largest_tensor(module), inputs, mlir_shapes.shape_summary(module)


def shrinkable(text: str) -> bool:
    ctx = irx.new_context()
    module = irx.parse(text, ctx)
    with ctx, ir.Location.unknown(ctx):
        return bool(mlir_shapes.targets(module))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", action="append")
    parser.add_argument("--update", action="store_true", help="write results that still reproduce back to their entries")
    parser.add_argument("--budget", type=float, default=600.0, help="seconds per entry")
    results.add_option(parser)
    args = parser.parse_args(argv)
    table = results.Table(["entry", "oracle", "largest tensor", "argument + constant elements", "shapes", "calls", "seconds",
                           "still reproduces"], title=f"-j {args.jobs}, {os.cpu_count()} cores, --budget {args.budget:g} s per entry, "
                                                      f"load average {os.getloadavg()[0]:.1f} at the start")
    table.print_head()
    for entry in load_entries(ENTRIES):
        if args.only and entry.name not in args.only or not entry.input_file.endswith(".mlir"):
            continue
        text = entry.input_path.read_text()
        if not shrinkable(text):
            continue
        oracle = make_oracle(entry.oracle, OracleOptions(**entry.options))
        with tempfile.TemporaryDirectory() as tmp:
            request = Request(
                input_path=entry.input_path, oracle=oracle, flags=list(entry.flags), output_path=Path(tmp) / "out.mlir",
                passes=format_for(".mlir").pass_rows(), jobs=args.jobs, time_budget_s=args.budget,
            )
            start = time.monotonic()
            try:
                outcome = reduce_file(request)
            except UserError as err:  # e.g. a timing oracle whose final re-check lands the other side
                table.add([entry.name, entry.oracle, "-", "-", "-", "-", f"{time.monotonic() - start:.1f}", f"reduction failed: {err}"])
                continue
            seconds = time.monotonic() - start
            result = outcome.best.candidate.text
            reproduces = "-"
            if result != text:  # checked as the corpus test checks the entry, from a copy
                (Path(tmp) / entry.input_file).write_text(result)
                problem = entry_problem(entry, check_entry(dataclasses.replace(entry, directory=Path(tmp))))
                reproduces = "yes" if problem is None else f"no: {problem}"
                if problem is None and args.update:
                    entry.input_path.write_text(result)
        (big0, in0, shapes0), (big1, in1, shapes1) = sizes(text), sizes(result)
        table.add([entry.name, entry.oracle, f"{big0} -> {big1}", f"{in0} -> {in1}", f"{shapes0} -> {shapes1}",
                   outcome.stats.oracle_calls, f"{seconds:.1f}", reproduces])
    if args.results:
        results.write(__file__, [table], argv=argv)


if __name__ == "__main__":
    main()
