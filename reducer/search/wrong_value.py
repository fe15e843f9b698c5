"""Wrong-answer localisation: the op that computes a wrong value, before any ddmin.

For `miscompile` both pipelines compile with dispatch tracing and run once on the same inputs
(two runs); the culprit is the first dispatch of pipeline B whose inputs agree with pipeline A's
while its outputs do not (oracles/numeric/dispatch_trace.py). Its source ops, cut out of the
program with every other input a function argument fed the values the reference run captured
there, are the first candidate, as `compile-error` localisation does for an error's op.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from oracles.candidate import Candidate
from oracles.mlir.locations import FailureSite
from oracles.numeric.arrays import (
    entry_function,
    looks_quantized,
    reduction_length_hint,
)
from oracles.numeric.dispatch_trace import (
    WrongDispatch,
    first_wrong_dispatch,
    trace_run,
)
from oracles.numeric.user_data import INPUT, pack, program_inputs
from oracles.toolchain.tools import scratch_dir
from reducer.passes.base import Proposal
from reducer.search.localize import Localization, _counting, _cut_down
from reducer.search.problem import ReductionProblem

ORACLES = ("miscompile",)


@dataclass
class WrongValue:
    """What the traced runs found: the culprit dispatch, and how many program runs it took."""

    culprit: WrongDispatch
    runs: int

    def report(self, limit: int = 5) -> list[str]:
        """Lines for the log and the summary: dispatch, source ops, differing elements."""
        c = self.culprit
        where = ", ".join(map(str, c.fused[:3])) or "no source location"
        lines = [
            f"wrong value first computed by dispatch {c.position + 1} of {c.dispatches}: {c.name}",
            f"  its source ops: {where}" + (f" (+{len(c.fused) - 3} more)" if len(c.fused) > 3 else ""),
            f"  inputs agree with the reference; outputs: {c.comparison.description}",
        ]
        lines += [f"  {example}" for example in c.comparison.examples[:limit]]
        return lines


def localize_wrong_value(problem: ReductionProblem) -> tuple[Localization, WrongValue | None]:
    """Traces both pipelines once, names the culprit dispatch, tries its ops alone first."""
    original, log = problem.original, problem.log
    oracle = problem.oracle
    candidate = original.candidate
    if oracle.name not in ORACLES or candidate.binary is not None:
        return Localization(None), None
    found = trace_culprit(oracle, candidate)
    if isinstance(found, str):
        log(f"localisation: {found}; full reduction")
        return Localization(None), None
    wrong = WrongValue(found, 2)
    for line in wrong.report():
        log(f"localisation: {line}")
    if not found.fused:
        return Localization(None), wrong
    site = FailureSite(found.fused[:1], found.fused[1:])
    result = Localization(site)
    proposals = _counting((_with_captured(p, found) for p in problem.edit(_cut_down, original, site, candidate.suffix, fallback=[])), result)
    result.start = problem.first_interesting(proposals)
    wrong.runs += result.tried
    if result.start is not None:
        log(f"localisation: ops {original.ops} -> {result.start.ops} in {result.tried} candidates ({wrong.runs} program runs)")
    return result, wrong


def trace_culprit(oracle, candidate: Candidate) -> WrongDispatch | str:
    """Both pipelines traced on the oracle's inputs; the first wrong dispatch of pipeline B (the
    oracle compares B's outputs against A's), or why not."""
    try:
        function, args, results = entry_function(candidate.text)
        inputs = program_inputs(candidate.data, args, oracle.options.seed)
    except ValueError as err:
        return f"cannot run the program: {err}"
    traces = []
    with scratch_dir() as tmp:
        for which in ("a", "b"):
            workdir = Path(tmp) / which
            workdir.mkdir()
            flags = oracle.pipeline_flags(which, candidate.flags)
            traced = trace_run(candidate, flags, function, inputs, workdir, oracle.options.limits, results)
            if isinstance(traced, str):
                return f"pipeline {which.upper()}: {traced}"
            traces.append(traced)
    tolerance = {"reduction_length": reduction_length_hint(candidate.text), "quantized": looks_quantized(candidate.text)}
    return first_wrong_dispatch(traces[1], traces[0], **tolerance)


def _with_captured(proposal: Proposal, culprit: WrongDispatch) -> Proposal:
    """The cut-down program fed the culprit's captured inputs: each argument takes the first
    unused captured tensor of its shape and element type (else the oracle's own draw)."""
    try:
        _, args, _ = entry_function(proposal.candidate.text)
    except ValueError:
        return proposal
    unused = list(range(len(culprit.inputs)))
    chosen: dict[str, np.ndarray] = {}
    for i, (shape, dtype) in enumerate(args):
        for j in unused:
            value = culprit.inputs[j]
            if shape is not None and tuple(shape) == value.shape and np.dtype(dtype) == value.dtype:
                chosen[f"{INPUT}arg{i}"] = value
                unused.remove(j)
                break
    if not chosen:
        return proposal
    return Proposal(replace(proposal.candidate, data=pack(chosen)), proposal.ops)
