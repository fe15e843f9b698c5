"""Failure localisation: cut the input down to the ops the failure points at before any ddmin.

A compile error's location names the op at the root of the failure; a dispatch's dumped source
names the ops fused into it (`Oracle.locate`). The smallest candidate is that op with its
constant inputs and every other input a function argument (for a failure that is a whole
dispatch's, such as its workgroup memory, that op with every op fused into it: alone, the root
would make another dispatch); only while that loses the failure is it widened, with the fused
ops, then ring by ring with producers and consumers. A handful of compiles replaces the
hundreds ddmin needs on a long model; the passes then make the result 1-minimal as usual. When
nothing matches (no locations, ONNX input, several blocks) it costs the one `locate` compile, or
nothing where the original's calibration was that compile (ReductionProblem.calibrate).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from iree.compiler import ir

from oracles import Candidate, Oracle, Verdict
from oracles.mlir import ir as irx
from oracles.mlir.locations import PARSED_BUFFER, FailureSite
from reducer.localize.function_slice import (
    FunctionGraph,
    Localization,
    restrict_function,
)
from reducer.localize.symptom_slice import slice_to_symptoms
from reducer.passes.support import argument_data
from reducer.proposal import Proposal
from reducer.search.editor import EditSession
from reducer.search.problem import ReductionProblem

# Rings of producers and consumers added to the failing ops, tried in this order after the bare ops.
WIDENINGS = (1, 2, 4)
T = TypeVar("T")


def localize(problem: ReductionProblem, source_name: str = "") -> Localization:
    """Locates the failure (one compile, none when calibration located it), stops compiles at its
    phase, tries the cut-down candidates. `source_name` is how the log names the input file."""
    original, log = problem.original, problem.log
    if original.candidate.binary is not None or not problem.oracle.locates:
        return Localization(None)  # ONNX graphs have their own window search; scripts say nothing
    located = problem.located or problem.locate(original.candidate)  # calibration may have located it already
    site = located.site
    result = Localization(site)
    if not located.interesting or site is None:
        log("localisation: the located compile did not show the failure; skipped")
        return result
    if (sliced := slice_to_symptoms(problem, located, result, source_name)) is not None:
        return sliced
    # `end` is the whole compile anyway. The phase is checked on a candidate, not on the original.
    if site.phase not in ("", "end") and problem.oracle.stops_early and problem.stop_early(site.phase, checked=False):
        result.stop_phase = site.phase
        log(f"compiles stop at --compile-to={site.phase}, where the original already fails")
    suffix = original.candidate.suffix
    where = ", ".join(map(str, site.locations[:3])) or "no source location"
    log(f"localisation: failure at {where}" + (f" in {site.dispatch} ({len(site.fused)} fused ops)" if site.dispatch else ""))
    proposals = counted(problem.edit(cut_down_edit, original, site, suffix, problem.oracle.dispatch_wide, fallback=[]), result)
    # One at a time: each is a whole iree-compile run on every core, and the first (the failing
    # op, or its dispatch) usually holds; a second beside it only slowed it. The warm compiler's
    # agreement check, one thread, runs beside it instead (ReductionProblem.offer_compiler).
    result.start = problem.first_interesting(proposals, ahead=1)
    if result.start is not None:
        problem.stop_confirmed()
    elif result.stop_phase is not None and not problem.confirm_stop():
        log(f"the original compiled to --compile-to={result.stop_phase} does not fail the same way: whole compiles again")
        result.stop_phase = None
    if result.start is not None:
        log(f"localisation: ops {original.ops} -> {result.start.ops} in {result.tried} candidates")
    elif result.tried:
        log(f"localisation: none of {result.tried} candidates kept the failure; full reduction")
    return result


@dataclass
class IsolatedDispatch:
    """The result's failing dispatch as a standalone `hal.executable`, and how to compile it alone."""

    source: str
    command: str
    reproduces: bool  # compiled alone, it shows the same failure to the same oracle
    path: str = ""


HAL_EXECUTABLE = "--compile-mode=hal-executable"


def dispatch_path(output: Path) -> Path:
    """`bug.reduced.mlir` -> `bug.reduced.dispatch.mlir`."""
    return output.with_name(f"{output.stem}.dispatch.mlir")


def isolate_dispatch(problem: ReductionProblem, best: Proposal, path: str, located: Verdict | None = None,
                     oracle: Oracle | None = None) -> IsolatedDispatch | None:
    """The failing dispatch of `best` (dumped without debug locations), checked alone (two
    compiles; one when `located`, its located compile, ran already), by `oracle` (default: the
    problem's as configured now); its command compiles it at `path`."""
    located = located or problem.locate(best.candidate, debuginfo=False, oracle=oracle)
    if not located.interesting or located.site is None or not located.site.dispatch_source:
        return None
    flags = (*best.candidate.flags, HAL_EXECUTABLE)
    alone = problem.judge_fresh(Candidate(located.site.dispatch_source, flags), oracle)
    command = (oracle or problem.oracle).reproduce_command(Candidate("", flags), path)
    return IsolatedDispatch(located.site.dispatch_source, command, alone.interesting)


def counted(proposals: Iterable[Proposal], result: Localization) -> Iterator[Proposal]:
    """`proposals`, each counted in `result.tried` as the search draws it."""
    for proposal in proposals:
        result.tried += 1
        yield proposal


def cut_down_edit(session: EditSession, original: Proposal, site: FailureSite, suffix: str,
                  dispatch_wide: bool = False) -> list[Proposal]:
    """`cut_down` as an edit (the problem's editor runs it where a crash is only a verdict)."""
    return list(cut_down(original, site, suffix, session.ctx, dispatch_wide))


def seeds(root: T, dispatch: T, dispatch_wide: bool) -> list[tuple[T, int]]:
    """The ops to keep and the rings of producers and consumers around them, in the order they
    are tried: the root alone (not for a `dispatch_wide` failure), the root with the ops fused into
    its dispatch, then rings around both (`WIDENINGS`)."""
    alone = [] if dispatch_wide else [(root, 0)]
    return [*alone, *((dispatch, ring) for ring in (0, *WIDENINGS))]


def cut_down(original: Proposal, site: FailureSite, suffix: str, ctx: ir.Context,
             dispatch_wide: bool = False) -> Iterator[Proposal]:
    """Candidates from the failing ops outward (`seeds`), each verified and smaller than the original."""
    own = {f"input{suffix}", PARSED_BUFFER}
    text = original.candidate.text
    with ctx, ir.Location.unknown(ctx):
        module = irx.parse(text, ctx)  # alive as long as the graph's ops are used
        graph = FunctionGraph.of(module, site.locations, own)
        if graph is None:
            return
        dispatch = graph.root | graph.indices(site.fused, own)
        seen: set[frozenset[int]] = set()
        for seed, ring in seeds(graph.root, dispatch, dispatch_wide):
            keep = frozenset(graph.closure(graph.widen(seed, ring)))
            if keep in seen or len(keep) >= graph.size:
                continue
            seen.add(keep)
            constant = frozenset(i for i in keep if graph.constant[i])
            proposal = _restricted(text, graph.function, keep, original, ctx, constant)
            if proposal is not None:
                yield proposal


def _restricted(text: str, function: int, keep: frozenset[int], original: Proposal, ctx: ir.Context,
                constant: frozenset[int] = frozenset()) -> Proposal | None:
    """The module with only the kept ops in the function: other inputs become arguments,
    kept values read elsewhere become results."""
    module = irx.parse(text, ctx)
    before = argument_data.snapshot(module) if original.candidate.data else None  # the user's data follows
    restrict_function(irx.functions(module)[function], keep, ctx, constant=constant)
    if not irx.verifies(module):
        return None
    candidate, cuts = original.candidate.with_text(irx.to_text(module)), ()
    if before is not None:
        data, cuts = argument_data.follow(before, module, candidate.data)
        candidate = replace(candidate, data=data)
    proposal = Proposal(candidate, irx.count_ops(module), cuts)
    return proposal if proposal.cost < original.cost else None
