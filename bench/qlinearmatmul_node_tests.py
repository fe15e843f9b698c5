"""The four QLinearMatMul 3-D ONNX node tests, reduced with their own test data.

IREE 3.13 gets `test_qlinearmatmul_3D_{int8,uint8}_{float32,float16}` wrong (a batched
QLinearMatMul ignores the input zero points); without `--inputs` the tool's seeded values are
refused (a non-positive scale). Each is reduced as a user would, `reduce model.onnx
--oracle=reference-mismatch --inputs test_data_set_0` (all passes, no cache), in this process,
and the result is checked: how plainly it is still wrong on its (cut) data (elements wrong of
all), and every dimension of the result one step smaller (`reduce_cases.minimal_dimensions`,
judged as the reduction judged: pinned to the original's wrong answer): how many of them lose
it; all of them when the result is locally minimal. `--results` also writes the table to
docs/results/qlinearmatmul_node_tests.md (bench/results.py).

    python bench/qlinearmatmul_node_tests.py [--jobs 2] [--only NAME ...] [--results]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import results
from bench.reduce_cases import minimal_dimensions
from oracles import OracleOptions, make_oracle
from oracles.inputs.readers import read_sources
from reducer.formats.registry import format_for
from reducer.session import Request, reduce_file
from reducer.shapes.shape_search import shapes_of
from tests.test_user_data import QLINEARMATMUL_3D, _node_test


def run_case(name: str, jobs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        case = _node_test(name, Path(tmp))
        passes = format_for(".onnx").pass_rows()
        request = Request(
            input_path=case / "model.onnx", oracle=make_oracle("reference-mismatch", OracleOptions()), flags=[],
            output_path=Path(tmp) / "r.onnx", passes=passes, jobs=jobs, culprit=False,
            user_data=read_sources([str(case / "test_data_set_0")]),
        )
        start = time.monotonic()
        outcome = reduce_file(request)
        seconds = time.monotonic() - start
        wrong = re.search(r"on (\d+)/(\d+) elements", outcome.verdict.detail)
        minimal = minimal_dimensions(request.oracle, passes, outcome.best, pinned_to=outcome.original)
    return {
        "node test": name,
        "nodes": f"{outcome.original.ops} -> {outcome.best.ops}",
        "shapes": f"{shapes_of(outcome.original.candidate)} -> {shapes_of(outcome.best.candidate)}",
        "wrong elements": f"{wrong.group(1)}/{wrong.group(2)}" if wrong else outcome.verdict.detail,
        "dims minimal": minimal,
        "calls": outcome.stats.oracle_calls,
        "hits": outcome.stats.cache_hits,
        "seconds": f"{seconds:.1f}",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", action="append", choices=QLINEARMATMUL_3D)
    results.add_option(parser)
    args = parser.parse_args(argv)
    title = (f"reduce --oracle=reference-mismatch --inputs test_data_set_0, -j {args.jobs}, {os.cpu_count()} cores, "
             f"load average {os.getloadavg()[0]:.1f} at the start")
    print(title)
    rows = results.stream(run_case(name, args.jobs) for name in args.only or QLINEARMATMUL_3D)
    if args.results:
        results.write(__file__, [results.Table.of_dicts(rows, title)], argv=argv)


if __name__ == "__main__":
    main()
