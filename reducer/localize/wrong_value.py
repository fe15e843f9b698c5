"""Wrong-answer localisation: the op that computes a wrong value, before any ddmin.

For `miscompile` both pipelines compile with dispatch tracing and run once on the same inputs
(two runs); the culprit is the first dispatch of the wrong pipeline whose inputs agree with the
reference pipeline's while its outputs do not (oracles/numeric/dispatch_trace.py). The reference
is pipeline A, or B when B is the reference pipeline that `--expected-outputs` brings. The
culprit's source ops, cut out of the program with every other input a function argument fed the
values the reference run captured there, are the first candidate, as `compile-error`
localisation does for an error's op, and are written as a dispatch-level test that runs alone
(oracles/numeric/dispatch_test.py). `reference-mismatch` on torch-onnx IR finds its culprit with
one traced run against the graph the IR lifts to (reducer/localize/wrong_node.py) and is cut the
same way.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from oracles.candidate import Candidate
from oracles.data import reference_pipeline
from oracles.data.arrays import (
    entry_function,
    looks_quantized,
    reduction_length_hint,
)
from oracles.data.binding import same_shape
from oracles.data.carried import INPUT, INTERMEDIATE, pack, program_inputs
from oracles.mlir.locations import FailureSite
from oracles.numeric.dispatch_test import DispatchTest, write_dispatch_test
from oracles.numeric.dispatch_trace import (
    WrongDispatch,
    first_wrong_dispatch,
    trace_run,
)
from oracles.numeric.wrong_answer import NAN_INF, WRONG_KEY, decode, primary
from oracles.toolchain.tools import scratch_dir
from reducer.localize.failure_site import counted, cut_down_edit
from reducer.localize.function_slice import Localization
from reducer.localize.wrong_node import cut_to_nodes, trace_wrong_node, write_node_test
from reducer.proposal import Proposal
from reducer.search.problem import ReductionProblem

ORACLES = ("miscompile", "reference-mismatch")  # the second on ONNX models (reducer/localize/wrong_node.py)


@dataclass
class WrongValue:
    """What the traced runs found: the culprit dispatch, and how many program runs it took."""

    culprit: WrongDispatch
    runs: int
    test: DispatchTest | None = None  # the culprit alone, with its data (written after localisation)
    source_name: str = ""  # the user's file, named in the source locations instead of a scratch copy
    nodes: list[str] = field(default_factory=list)  # ONNX: the culprit's nodes, "output (OpType)", root first

    def report(self, limit: int = 5) -> list[str]:
        """Lines for the log and the summary: dispatch, source ops, differing elements."""
        c = self.culprit
        where = ", ".join(f"{self.source_name or loc.file}:{loc.line}:{loc.col}" for loc in c.fused[:3]) or "no source location"
        lines = [
            f"wrong value first computed by dispatch {c.position + 1} of {c.dispatches}: {c.name}",
            f"  its source node: {self.nodes[0]}" + (f" (with {', '.join(self.nodes[1:4])})" if len(self.nodes) > 1 else "")
            if self.nodes else f"  its source ops: {where}" + (f" (+{len(c.fused) - 3} more)" if len(c.fused) > 3 else ""),
            f"  inputs agree with the reference; outputs: {c.comparison.description}",
        ]
        lines += [f"  {example}" for example in c.comparison.examples[:limit]]
        if self.test is not None and self.test.commands:
            verdict = "reproduces the wrong answer alone" if self.test.reproduces else "does NOT reproduce alone"
            lines.append(f"dispatch-level test in {self.test.directory} {verdict}: {self.test.detail}")
            lines += [f"  (cd {self.test.directory} && {command})" for command in self.test.commands]
        elif self.test is not None:
            lines.append(f"no dispatch-level test: {self.test.detail}")
        return lines


    def record(self) -> dict[str, Any]:
        """The same for `reduce --json`: every figure typed (non-finite errors as strings)."""
        c = self.culprit
        elements = sum(int(np.asarray(e).size) for e in c.expected)
        rows = [m.groups() for m in map(_EXAMPLE.match, c.comparison.examples) if m]
        test = self.test
        return {
            "dispatch": c.name,
            "position": c.position + 1,
            "dispatches": c.dispatches,
            "source_ops": [f"{self.source_name or loc.file}:{loc.line}:{loc.col}" for loc in c.fused],
            "source_nodes": list(self.nodes),
            "differing_elements": round(c.comparison.mismatch_fraction * elements),
            "elements": elements,
            "max_abs": _number(c.comparison.max_abs),
            "max_rel": _number(c.comparison.max_rel),
            "examples": [{"output": int(o), "index": [int(i) for i in index.split(",") if i.strip()], "expected": e, "got": g}
                         for o, index, e, g in rows],
            "program_runs": self.runs,
            "test": None if test is None else {"directory": str(test.directory), "reproduces": test.reproduces,
                                               "detail": test.detail, "commands": list(test.commands)},
        }


# One row of Comparison.examples: `output 0[0, 2]: expected 1.5 got 1.25`.
_EXAMPLE = re.compile(r"output (\d+)\[([^\]]*)\]: expected (\S+) got (\S+)")


def _number(value: float) -> float | str:
    return value if math.isfinite(value) else str(value)


def localize_wrong_value(problem: ReductionProblem, source_name: str = "") -> tuple[Localization, WrongValue | None]:
    """Traces both pipelines once, names the culprit dispatch, tries its ops alone first;
    `source_name` is the user's file, which the report's source locations name."""
    original, log = problem.original, problem.log
    oracle = problem.oracle
    candidate = original.candidate
    if oracle.name not in ORACLES or (candidate.binary is not None and not oracle.judges_onnx):
        return Localization(None), None
    if candidate.binary is not None:
        return _localize_onnx(problem)
    if oracle.judges_onnx:  # torch-onnx IR against the graph it lifts to: one traced run, one reference run
        traced = trace_wrong_node(oracle, candidate, _headline(problem))
        found = traced if isinstance(traced, str) else traced.dispatch
    else:
        found = trace_culprit(oracle, candidate, _headline(problem))
    if isinstance(found, str):
        log(f"localisation: {found}; full reduction")
        return Localization(None), None
    wrong = WrongValue(found, 2, source_name=source_name)
    for line in wrong.report():
        log(f"localisation: {line}")
    if not found.fused:
        return Localization(None), wrong
    site = FailureSite(found.fused[:1], found.fused[1:])
    result = Localization(site)
    cut = problem.edit(cut_down_edit, original, site, candidate.suffix, fallback=[])
    if oracle.judges_onnx:  # IREE's traced tensors are of the lowered types (ui8 as i8): the lifted graph's values
        _start_from(problem, [problem.with_cut_values(p) if p.cuts else _with_captured(p, found) for p in cut], result)
    else:
        _start_from(problem, [_with_captured(p, found) for p in cut], result)
    wrong.runs += result.tried
    if result.start is not None:
        log(f"localisation: ops {original.ops} -> {result.start.ops} in {result.tried} candidates ({wrong.runs} program runs)")
    return result, wrong


def _localize_onnx(problem: ReductionProblem) -> tuple[Localization, WrongValue | None]:
    """An ONNX model against onnx.reference: one traced IREE run and one reference run name the
    culprit dispatch and its nodes; those nodes alone, fed the reference's values, come first."""
    original, log = problem.original, problem.log
    found = trace_wrong_node(problem.oracle, original.candidate, _headline(problem))
    if isinstance(found, str):
        log(f"localisation: {found}; full reduction")
        return Localization(None), None
    model = onnx.load_from_string(original.candidate.binary)
    names = [f"{model.graph.node[i].output[0]} ({model.graph.node[i].op_type})" for i in found.nodes]
    root = next((n for n in names if n.endswith(f"({_root_type(found, model)})")), names[-1])
    wrong = WrongValue(found.dispatch, 2, nodes=[root, *(n for n in names if n != root)])
    for line in wrong.report():
        log(f"localisation: {line}")
    result = Localization(None)
    cut = cut_to_nodes(original.candidate, found)
    _start_from(problem, [cut] if cut is not None else [], result)
    wrong.runs += result.tried
    if result.start is not None:
        log(f"localisation: nodes {original.ops} -> {result.start.ops} in {result.tried} candidates ({wrong.runs} program runs)")
    else:
        log(f"localisation: the culprit's nodes alone are not wrong ({result.tried} candidates); full reduction")
    return result, wrong


def _headline(problem: ReductionProblem) -> str | None:
    """The kind of the original's wrong answer (nan-inf, sign, magnitude, ...)."""
    top = primary(decode(problem.calibration.metrics.get(WRONG_KEY))) if problem.calibration is not None else None
    return top.kind if top is not None else None


def _start_from(problem: ReductionProblem, proposals: list[Proposal], result: Localization) -> None:
    """The first cut that keeps the original's wrong answer; else the first that is wrong its own
    way (the culprit before a Relu that reshaped its error), to which the problem is then pinned;
    never away from a NaN or Inf, which no later op makes out of a finite error."""
    result.start = problem.first_interesting(counted(proposals, result))
    if result.start is not None or not proposals or _headline(problem) == NAN_INF:
        return
    result.tried += 1
    pinned = problem.pin_to_source(proposals[0])
    if pinned is not None:
        result.start = proposals[0]
        problem.log(f"localisation: the culprit alone is wrong its own way, pinned from now on: {pinned.detail}")


def _root_type(found, model) -> str:
    """The op type of the dispatch's root: the node on its first source line."""
    return model.graph.node[found.root].op_type if found.root is not None else ""


def wrong_dispatch_path(output: Path) -> Path:
    """Where the dispatch-level test of the result at `output` goes: `OUTPUT.wrong-dispatch/`."""
    return Path(f"{output}.wrong-dispatch")


def write_test(oracle, wrong: WrongValue, start: Proposal, directory: Path) -> DispatchTest:
    """The localised program (the culprit's ops, fed captured values) as a test that runs alone."""
    candidate = start.candidate
    if candidate.binary is not None or oracle.judges_onnx:
        wrong.test = write_node_test(oracle, start, directory)
        return wrong.test
    wrong.test = write_program_test(oracle, candidate, directory)
    return wrong.test


def write_program_test(oracle, candidate: Candidate, directory: Path) -> DispatchTest:
    """A `miscompile` program (MLIR) as a test that runs alone: the wrong pipeline's module on its
    device against the right pipeline's outputs. The localised culprit is one such program; a
    reduced ONNX case's imported program is another (its localisation runs on no MLIR)."""
    try:
        _, args, _ = entry_function(candidate.text, dynamic=True)
        inputs = program_inputs(candidate.data, args, oracle.options.seed)
    except ValueError as err:
        return DispatchTest(directory, detail=f"cannot run the program: {err}")
    right, wrong_side = _sides(oracle)
    return write_dispatch_test(
        candidate, inputs, oracle.pipeline_flags(wrong_side, candidate.flags), directory, oracle.options.limits,
        right_flags=oracle.pipeline_flags(right, candidate.flags), reduction_length=reduction_length_hint(candidate.text),
        quantized=looks_quantized(candidate.text), wrong_device=oracle.pipeline_device(wrong_side, candidate.flags),
        right_device=oracle.pipeline_device(right, candidate.flags),
    )


def _sides(oracle) -> tuple[str, str]:
    """(the pipeline that computes right, the one that computes wrong): A is the reference unless
    B is the reference pipeline that --expected-outputs brings."""
    if tuple(oracle.options.pipeline_b) == reference_pipeline.FLAGS:
        return "b", "a"
    return "a", "b"


def trace_culprit(oracle, candidate: Candidate, kind: str | None = None) -> WrongDispatch | str:
    """Both pipelines traced on the oracle's inputs; the first wrong dispatch of the wrong
    pipeline (wrong the `kind` way, the original's headline, where two are), or why not."""
    try:
        function, args, results = entry_function(candidate.text, dynamic=True)
        inputs = program_inputs(candidate.data, args, oracle.options.seed)
    except ValueError as err:
        return f"cannot run the program: {err}"
    traces = []
    right, wrong = _sides(oracle)
    with scratch_dir() as tmp:
        for which in (wrong, right):
            workdir = Path(tmp) / which
            workdir.mkdir()
            flags = oracle.pipeline_flags(which, candidate.flags)
            traced = trace_run(candidate, flags, function, inputs, workdir, oracle.options.limits, results,
                               device=oracle.pipeline_device(which, candidate.flags))
            if isinstance(traced, str):
                return f"pipeline {which.upper()}: {traced}"
            traces.append(traced)
    tolerance = {"reduction_length": reduction_length_hint(candidate.text), "quantized": looks_quantized(candidate.text)}
    return first_wrong_dispatch(traces[0], traces[1], kind, **tolerance)


def _with_captured(proposal: Proposal, culprit: WrongDispatch) -> Proposal:
    """The cut-down program fed the culprit's captured inputs: each argument the cut made (one
    without the user's value) takes the first unused captured tensor of its shape and element
    type (else the oracle's own draw); an argument the user's data already gives keeps it."""
    try:
        _, args, _ = entry_function(proposal.candidate.text, dynamic=True)
    except ValueError:
        return proposal
    given = {name.partition("|")[0] for name, _ in proposal.candidate.data}
    unused = list(range(len(culprit.inputs)))
    chosen: dict[str, np.ndarray] = {}
    for i, (shape, dtype) in enumerate(args):
        if f"{INPUT}arg{i}" in given or f"{INTERMEDIATE}arg{i}" in given:
            continue
        for j in unused:
            value = culprit.inputs[j]
            if shape is not None and same_shape(value.shape, shape) and np.dtype(dtype) == value.dtype:
                chosen[f"{INTERMEDIATE}arg{i}"] = value
                unused.remove(j)
                break
    if not chosen:
        return proposal
    return Proposal(replace(proposal.candidate, data=proposal.candidate.data + pack(chosen)), proposal.ops)
