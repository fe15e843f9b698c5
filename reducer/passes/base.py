"""What a reduction pass is: a numbered list of opportunities and a way to take a subset of them.

Like llvm-reduce's delta passes, a pass never holds IR between calls: it re-parses the current
best text, enumerates its targets in a deterministic order, and edits only the chosen indices.
The engine decides which indices to try (ddmin chunks or a bisection).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from iree.compiler import ir

from oracles import Candidate
from reducer import ir as irx


@dataclass(frozen=True)
class Proposal:
    """A changed candidate and its op count (the first key of the reducer's size order)."""

    candidate: Candidate
    ops: int

    @property
    def cost(self) -> tuple[int, int]:
        return (self.ops, self.candidate.size + sum(len(f) + 1 for f in self.candidate.flags))


class ReductionPass(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    # "ddmin": any subset of targets may be applied together; "bisect": one target at a time,
    # targets ordered so that, usually, once one works every later one works too.
    search: ClassVar[str] = "ddmin"

    @abstractmethod
    def count(self, current: Proposal, ctx: ir.Context) -> int:
        """How many targets the current best has."""

    @abstractmethod
    def apply(self, current: Proposal, chosen: Sequence[int], ctx: ir.Context) -> Proposal | None:
        """The candidate with the chosen targets reduced, or None if invalid or unchanged."""


class IrPass(ReductionPass):
    """A pass over the parsed module; subclasses list targets and edit a fresh copy."""

    @abstractmethod
    def targets(self, module: ir.Module) -> list[Any]:
        """Opportunities in a deterministic order (the index is their identity)."""

    @abstractmethod
    def edit(self, module: ir.Module, chosen: list[Any]) -> None:
        """Applies the reduction to the chosen targets in place."""

    def count(self, current: Proposal, ctx: ir.Context) -> int:
        with ctx, ir.Location.unknown(ctx):
            return len(self.targets(irx.parse(current.candidate.text, ctx)))

    def apply(self, current: Proposal, chosen: Sequence[int], ctx: ir.Context) -> Proposal | None:
        module = irx.parse(current.candidate.text, ctx)
        with ctx, ir.Location.unknown(ctx):
            targets = self.targets(module)
            self.edit(module, [targets[i] for i in chosen if i < len(targets)])
        if not irx.verifies(module):
            return None
        text = irx.to_text(module)
        if text == current.candidate.text:
            return None
        return Proposal(current.candidate.with_text(text), irx.count_ops(module))
