"""Failure localisation: cut the input down to the ops the failure points at before any ddmin.

A compile error's location names the op at the root of the failure; a dispatch's dumped source
names the ops fused into it (`Oracle.locate`). The smallest candidate is that op with its
constant inputs and every other input a function argument; only while that loses the failure
is it widened, ring by ring, with producers and consumers. A handful of compiles replaces the
hundreds ddmin needs on a long model; the passes then make the result 1-minimal as usual. When
nothing matches (no locations, ONNX input, several blocks) it costs the one `locate` compile, or
nothing where the original's calibration was that compile (ReductionProblem.calibrate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from iree.compiler import ir

from oracles import Candidate, Verdict
from oracles.mlir import ir as irx
from oracles.mlir.locations import FailureSite, SourceLoc, location_leaves
from reducer.passes import argument_data
from reducer.passes.base import Proposal
from reducer.passes.replacing import is_constant_like
from reducer.search.editor import EditSession
from reducer.search.problem import ReductionProblem

# Rings of producers and consumers added to the failing ops, tried in this order after the bare ops.
WIDENINGS = (1, 2, 4)
# What the bindings call a buffer parsed from text: locations in it are the candidate's own.
_PARSED_BUFFER = "-"


@dataclass
class Localization:
    """What localisation found and tried: the site, the candidate that kept the failure, the phase."""

    site: FailureSite | None
    start: Proposal | None = None  # the localised candidate, None when no candidate kept the failure
    tried: int = 0
    stop_phase: str | None = None
    symptoms: list[str] = field(default_factory=list)  # IR-phase oracles: the original's, numbered


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
    from reducer.search.symptom_slice import (
        slice_to_symptoms,  # it builds on this module
    )

    if (sliced := slice_to_symptoms(problem, located, result, source_name)) is not None:
        return sliced
    # `end` is the whole compile anyway. The phase is checked on a candidate, not on the original.
    if site.phase not in ("", "end") and problem.oracle.stops_early and problem.stop_early(site.phase, checked=False):
        result.stop_phase = site.phase
        log(f"compiles stop at --compile-to={site.phase}, where the original already fails")
    suffix = original.candidate.suffix
    where = ", ".join(map(str, site.locations[:3])) or "no source location"
    log(f"localisation: failure at {where}" + (f" in {site.dispatch} ({len(site.fused)} fused ops)" if site.dispatch else ""))
    proposals = _counting(problem.edit(_cut_down, original, site, suffix, fallback=[]), result)
    result.start = problem.first_interesting(proposals)
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


def isolate_dispatch(problem: ReductionProblem, name: str, located: Verdict | None = None) -> IsolatedDispatch | None:
    """The failing dispatch of the best candidate (dumped without debug locations), checked alone
    (two compiles; one when `located`, the best's located compile, ran already)."""
    best = problem.best
    located = located or problem.locate(best.candidate, debuginfo=False)
    if not located.interesting or located.site is None or not located.site.dispatch_source:
        return None
    flags = (*best.candidate.flags, HAL_EXECUTABLE)
    alone = problem.judge_fresh(Candidate(located.site.dispatch_source, flags))
    command = problem.oracle.reproduce_command(Candidate("", flags), name)
    return IsolatedDispatch(located.site.dispatch_source, command, alone.interesting)


def _counting(proposals: Iterable[Proposal], result: Localization) -> Iterator[Proposal]:
    for proposal in proposals:
        result.tried += 1
        yield proposal


def _cut_down(session: EditSession, original: Proposal, site: FailureSite, suffix: str) -> list[Proposal]:
    """`cut_down` as an edit (the problem's editor runs it where a crash is only a verdict)."""
    return list(cut_down(original, site, suffix, session.ctx))


def cut_down(original: Proposal, site: FailureSite, suffix: str, ctx: ir.Context) -> Iterator[Proposal]:
    """Candidates from the failing ops outward, each verified and smaller than the original."""
    own = {f"input{suffix}", _PARSED_BUFFER}
    text = original.candidate.text
    with ctx, ir.Location.unknown(ctx):
        module = irx.parse(text, ctx)  # alive as long as the graph's ops are used
        graph = FunctionGraph.of(module, site.locations, own)
        if graph is None:
            return
        dispatch = graph.root | graph.indices(site.fused, own)
        # The root alone, then with the ops fused into its dispatch, then rings around both.
        shapes = [(graph.root, 0), *((dispatch, ring) for ring in (0, *WIDENINGS))]
        seen: set[frozenset[int]] = set()
        for seed, ring in shapes:
            keep = frozenset(graph.closure(graph.widen(seed, ring)))
            if keep in seen or len(keep) >= graph.size:
                continue
            seen.add(keep)
            constant = frozenset(i for i in keep if graph.constant[i])
            proposal = _restricted(text, graph.function, keep, original, ctx, constant)
            if proposal is not None:
                yield proposal


class FunctionGraph:
    """The top-level ops of the function the failure is in, with who feeds whom."""

    def __init__(self, function: int, entry: ir.Block, ops: list[ir.Operation]) -> None:
        self.function = function
        self.entry = entry
        self.ops = ops  # the entry block's ops, terminator excluded
        self.size = len(ops)
        self.index = {op: i for i, op in enumerate(ops)}
        self.producers: list[set[int]] = [set() for _ in ops]
        self.users: list[set[int]] = [set() for _ in ops]
        self.from_arguments = [False] * len(ops)
        for i, op in enumerate(ops):
            for nested in [op, *irx.walk_ops(op)]:
                for value in nested.operands:
                    owner = value.owner
                    if isinstance(owner, ir.Block):
                        self.from_arguments[i] |= owner == entry
                        continue
                    j = self.index.get(owner.operation)
                    if j is not None and j != i:
                        self.producers[i].add(j)
                        self.users[j].add(i)
        self.root: set[int] = set()
        self.constant = self._constants()

    @classmethod
    def of(cls, module: ir.Module, locations: list[SourceLoc], own: set[str]) -> FunctionGraph | None:
        """The graph of the function holding the first located op, its root set from `locations`."""
        for number, func in enumerate(irx.functions(module)):
            block = irx.entry_block(func)
            if block is None or len(func.regions[0].blocks) != 1:
                continue
            ops = [op.operation for op in block.operations if not irx.is_terminator(op.operation)]
            graph = cls(number, block, ops)
            graph.root = graph.indices(locations, own)
            if graph.root:
                return graph
        return None

    def indices(self, locations: list[SourceLoc], own: set[str]) -> set[int]:
        """Top-level ops that own (or hold a nested op at) any of `locations`."""
        wanted = {location_key(loc, own) for loc in locations}
        found = set()
        for i, op in enumerate(self.ops):
            for nested in [op, *irx.walk_ops(op)]:
                if any(location_key(loc, own) in wanted for loc in location_leaves(str(nested.location))):
                    found.add(i)
                    break
        return found

    def _constants(self) -> list[bool]:
        """Ops computed from constants alone (literals, their lists, tensor.empty): kept, never arguments."""
        constant = [False] * self.size
        for i, op in enumerate(self.ops):  # producers come first in a single block
            constant[i] = not self.from_arguments[i] and (
                is_constant_like(op) or all(constant[j] for j in self.producers[i])
            )
        return constant

    def widen(self, seed: set[int], rings: int) -> set[int]:
        keep = set(seed)
        for _ in range(rings):
            frontier = {j for i in keep for j in self.producers[i] | self.users[i]}
            keep |= frontier
        return keep

    def closure(self, keep: set[int]) -> set[int]:
        """`keep` plus the constant ops it reads, transitively."""
        result, stack = set(keep), list(keep)
        while stack:
            for j in self.producers[stack.pop()]:
                if self.constant[j] and j not in result:
                    result.add(j)
                    stack.append(j)
        return result


def location_key(loc: SourceLoc, own: set[str]) -> tuple[str, int, int]:
    name = Path(loc.file).name
    return ("" if name in own else loc.file, loc.line, loc.col)


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


def restrict_function(func: ir.Operation, keep: frozenset[int], ctx: ir.Context,
                      returns: Callable[[ir.Value], bool] = lambda _: True, ends_only: bool = False,
                      constant: frozenset[int] = frozenset()) -> None:
    """Keeps only the entry block's ops at `keep` (indices, terminator excluded) in `func`: values
    they read from cut ops become new arguments, kept values read by cut ops (those `returns`
    allows; with `ends_only`, only those no kept op reads) become the results, preferring values
    not computed from constants alone (`constant`: the cut program computes nothing there)."""
    block = irx.entry_block(func)
    all_ops = [op.operation for op in block.operations]
    terminator, ops = all_ops[-1], all_ops[:-1]
    # Decide everything before the first edit: an erased op no longer compares or hashes.
    position = {op: i for i, op in enumerate(ops)}

    def kept_user(use) -> bool:
        user = use.owner.operation
        while user is not None and user != func:
            if user in position:
                return position[user] in keep
            user = user.parent
        return False

    cut = [r for i, op in enumerate(ops) if i not in keep for r in op.results if any(kept_user(u) for u in r.uses)]
    def returned(value: ir.Value) -> bool:
        users = [kept_user(use) for use in value.uses]
        return returns(value) and not all(users) and not (ends_only and any(users))

    outputs = [r for i in sorted(keep - constant) for r in ops[i].results if returned(r)] \
        or [r for i in sorted(keep) for r in ops[i].results if returned(r)]
    with ir.Location.unknown(ctx):
        for value in cut:
            value.replace_all_uses_with(block.add_argument(value.type, ir.Location.unknown(ctx)))
        with ir.InsertionPoint(terminator):
            ir.Operation.create(terminator.name, operands=outputs)
        terminator.erase()
        for i in reversed(range(len(ops))):
            if i not in keep:
                ops[i].erase()
        unused = [i for i, arg in enumerate(block.arguments) if not any(True for _ in arg.uses)]
        for i in reversed(unused):
            block.erase_argument(i)
        irx.sync_arguments(func, erased=unused)
        irx.set_function_type(func, [a.type for a in block.arguments], [v.type for v in outputs])
        if "res_attrs" in func.attributes:
            del func.attributes["res_attrs"]
