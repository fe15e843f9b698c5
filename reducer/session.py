"""One reduction from input file to written result: load, calibrate, reduce, check, write."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from oracles import Candidate, Oracle, Verdict
from oracles.toolchain import ToolNotFound, find_tool, kill_all
from reducer import ir as irx
from reducer.engine import Reducer
from reducer.evaluate import Evaluator
from reducer.passes.base import Proposal, ReductionPass
from reducer.report import Outcome


class UserError(Exception):
    """A problem with the user's input; `str()` is one actionable line, `exit_code` the status."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Request:
    input_path: Path
    oracle: Oracle
    flags: list[str]
    output_path: Path
    passes: list[ReductionPass]
    jobs: int = 1
    dropped_flags: list[str] = field(default_factory=list)
    log: Callable[[str], None] = lambda _: None


def default_output(input_path: Path) -> Path:
    return input_path.with_name(input_path.stem + ".reduced" + input_path.suffix)


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def load(request: Request, ctx) -> Proposal:
    path = request.input_path
    if not path.is_file():
        raise UserError(f"cannot read {path}: no such file")
    if path.suffix == ".onnx":
        raise UserError(f"{path}: ONNX input is not supported yet; import it first: iree-import-onnx {path} -o model.mlir")
    if request.output_path.resolve() == path.resolve():
        raise UserError(f"-o {request.output_path} is the input file; choose another output path")
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a text MLIR file (bytecode is not supported)") from None
    module = irx.parse(text, ctx, source_name=str(path))  # ParseError carries the location
    return Proposal(Candidate(text, tuple(request.flags)), irx.count_ops(module))


def reduce_file(request: Request) -> Outcome:
    """Runs the whole reduction; on Ctrl-C returns the partial outcome with complete=False."""
    try:
        find_tool("iree-compile")
    except ToolNotFound as err:
        raise UserError(str(err)) from None
    ctx = irx.new_context()
    try:
        original = load(request, ctx)
    except irx.ParseError as err:
        raise UserError(f"cannot parse {err}") from None

    start = time.monotonic()
    evaluator = Evaluator(request.oracle, request.jobs)
    verdict = evaluator.judge(original.candidate)
    if not verdict.interesting:
        name = request.oracle.name
        raise UserError(f"the original is not interesting for {name}: {verdict.detail}", exit_code=2)
    request.oracle.calibrate(verdict)
    request.log(f"original: {original.ops} ops, {original.candidate.size} bytes: {verdict.detail}")

    latest = [original]

    def on_improvement(best: Proposal) -> None:
        latest[0] = best
        write_atomically(request.output_path, best.candidate.text)

    reducer = Reducer(evaluator, request.passes, on_improvement, request.log, ctx)
    best, complete = original, True
    on_improvement(original)
    try:
        best = reducer.run(original).best
        final: Verdict = request.oracle.judge(best.candidate)  # uncached: the written result must still fail
        if not final.interesting:
            raise UserError(f"the reduced result no longer fails on a fresh check (flaky oracle?): {final.detail}", 3)
        verdict = _naming(final, f"input{best.candidate.suffix}", request.output_path.name)
    except KeyboardInterrupt:
        kill_all()
        complete = False
        best = latest[0]
    finally:
        evaluator.shutdown()
    return Outcome(
        oracle=request.oracle.name,
        input_path=str(request.input_path),
        output_path=str(request.output_path),
        original=original,
        best=best,
        verdict=verdict,
        command=request.oracle.reproduce_command(best.candidate, str(request.output_path)),
        stats=evaluator.stats,
        seconds=time.monotonic() - start,
        jobs=request.jobs,
        dropped_flags=request.dropped_flags,
        complete=complete,
    )



def _naming(verdict: Verdict, scratch_name: str, real_name: str) -> Verdict:
    """Points the final messages at the written result instead of the oracle's scratch file."""
    verdict.detail = verdict.detail.replace(scratch_name, real_name)
    verdict.excerpt = verdict.excerpt.replace(scratch_name, real_name)
    return verdict
