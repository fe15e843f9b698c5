"""The judge and the result of a `reduce` command line, for bench scripts that run `reduce` in a
process of their own: the check judges as that command did, without its verdict cache.

The judge is the command's oracle (`reducer.cli.request_for`), wrapped for the input's format and
calibrated to the original's failure, judged once here as the reduction judged it first. The
result carries the data the reduction ran it on: an MLIR result the arrays `reduce` wrote beside
it (`RESULT.data/argI.npy`), an ONNX result the original's by tensor name (the user's inputs, and
what the original computes where a node was cut), a `.pt2` result what the command gives any input
(the user's, or seeded at `--dim`).
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

from bench.minimality.check import Minimality, check, judge_for
from oracles import Candidate
from oracles.data.binding import UserArray, UserData
from oracles.data.case_data import data_dir
from oracles.formats import Format, format_of
from oracles.inputs.attach import attach
from oracles.inputs.readers import read_sources
from reducer.cli import request_for
from reducer.session import Request, load_with_data


def check_command(argv: list[str], result: Path, flags: list[str] | None = None) -> Minimality:
    """Whether `result`, what `reduce ARGV` wrote, is 1-minimal under that command's oracle;
    `flags`: the result's compile flags where the reduction dropped some (its --json summary's)."""
    request = request_for(argv)
    original = load_with_data(request)
    judge = judge_for(request.oracle, original)
    if judge is None:
        return Minimality(None, detail="the original does not fail judged again")
    case = result_case(request, original, result)
    return check(case if flags is None else case.with_flags(tuple(flags)), judge)


def result_case(request: Request, original: Candidate, result: Path) -> Candidate:
    """The result as a candidate, with the data the reduction ran it on."""
    fmt = format_of(result)
    if fmt is Format.ONNX:
        return Candidate(result.name, original.flags, result.suffix, result.read_bytes(), original.data)
    if fmt is Format.MLIR:
        return mlir_with_data(Candidate(result.read_text(), original.flags), result)
    scratch = Path(tempfile.mkdtemp(prefix="one-minimal-")) / f"unused{result.suffix}"  # no output, but not the input
    return load_with_data(dataclasses.replace(request, input_path=result, output_path=scratch))


def mlir_with_data(program: Candidate, path: Path) -> Candidate:
    """An MLIR result with the arrays written beside it (`argI.npy`), if any."""
    written = sorted(data_dir(path).glob("arg*.npy"), key=lambda p: int(p.stem.removeprefix("arg")))
    if not written:
        return program
    arrays = read_sources([str(p) for p in written]).inputs
    return attach(program, UserData(tuple(UserArray(a.value, a.source, f"arg{i}") for i, a in enumerate(arrays))))

