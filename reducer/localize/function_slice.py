"""What localisation works with: a function's ops as a graph of who feeds whom, and the edit
that keeps a chosen set of them. Failure localisation (`localize`) and IR-symptom slicing
(`symptom_slice`) both build on it; neither imports the other's search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iree.compiler import ir

from oracles.mlir import ir as irx
from oracles.mlir.locations import FailureSite, SourceLoc, location_leaves
from reducer.passes.support.replacing import is_constant_like
from reducer.proposal import Proposal


@dataclass
class Localization:
    """What localisation found and tried: the site, the candidate that kept the failure, the phase."""

    site: FailureSite | None
    start: Proposal | None = None  # the localised candidate, None when no candidate kept the failure
    tried: int = 0
    stop_phase: str | None = None
    symptoms: list[str] = field(default_factory=list)  # IR-phase oracles: the original's, numbered


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
            ops = irx.straight_line_ops(func)
            if ops is None:
                continue
            graph = cls(number, irx.entry_block(func), ops)
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
