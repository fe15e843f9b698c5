"""What a reduction pass is: a numbered list of opportunities and a way to take a subset of them.

Like llvm-reduce's delta passes, a pass never holds IR between calls: it re-parses the current
best text, enumerates its targets in a deterministic order, and edits only the chosen indices.
The engine decides which indices to try (ddmin chunks or a bisection).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from iree.compiler import ir

from oracles import Candidate, Verdict
from oracles.mlir import ir as irx
from reducer.passes import argument_data


@dataclass(frozen=True)
class Proposal:
    """A changed candidate and its op count (the first key of the reducer's size order)."""

    candidate: Candidate
    ops: int
    # New arguments whose values the parent computes (argument_data.py): filled in before judging.
    cuts: tuple[tuple[int, int, int], ...] = ()

    @property
    def cost(self) -> tuple[int, int]:
        return (self.ops, content_size(self.candidate) + sum(len(f) + 1 for f in self.candidate.flags))


def content_size(candidate: Candidate) -> int:
    """The second key of the size order: text bytes; for a binary input (ONNX) its non-zero bytes.

    Zeroing a weight keeps a serialised model's length, so raw length alone would never count it
    as smaller; every other edit of a binary removes bytes, and with them non-zero ones (field tags).
    """
    if candidate.binary is None:
        return candidate.size
    return len(candidate.binary) - candidate.binary.count(0)


class ReductionPass(ABC):
    """Lists the targets of one kind of edit and applies a chosen subset of them (ddmin, bisect).

    Its name, search and inputs are declared in reducer/passes/registry.py, not here.
    """

    @abstractmethod
    def count(self, current: Proposal, ctx: ir.Context) -> int:
        """How many targets the current best has."""

    @abstractmethod
    def apply(self, current: Proposal, chosen: Sequence[int], ctx: ir.Context) -> Proposal | None:
        """The candidate with the chosen targets reduced, or None if the edit cannot be made or
        changes nothing; raises CandidateRejected (oracles/candidate.py) when a tool (verifier,
        checker, exporter, importer) rejects what it made: the problem counts that edit as failed."""


# Changes a candidate's representation (a serialised ONNX model -> its imported MLIR, or None when
# it does not import): the problem runs it under the oracle's limits and counts it.
Convert = Callable[[bytes], "str | None"]


class ShrinkPass(ABC):
    """Targets are sizes (tensor dimensions), each made as small as the failure allows."""

    # (the best's verdict, a candidate's verdict) -> whether the candidate keeps what the best
    # shows; None: being interesting is enough.
    keeps: ClassVar[Callable[[Verdict, Verdict], bool] | None] = None

    @abstractmethod
    def dimensions(self, current: Proposal, ctx: ir.Context) -> list[tuple[str, int]]:
        """(stable key, current size) of each dimension target."""

    @abstractmethod
    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context, convert: Convert) -> Proposal | None:
        """The candidate with dimension `key` set to `size`, or None if it cannot be made;
        CandidateRejected as `ReductionPass.apply`."""


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
            before = argument_data.snapshot(module) if current.candidate.data else None
            targets = self.targets(module)
            self.edit(module, [targets[i] for i in chosen if i < len(targets)])
            proposal = edited_proposal(current, module)
            if proposal is None or before is None:
                return proposal
            data, cuts = argument_data.follow(before, module, current.candidate.data)
        return Proposal(replace(proposal.candidate, data=data), proposal.ops, cuts)


def edited_proposal(current: Proposal, module: ir.Module) -> Proposal | None:
    """`current` with its text replaced by the edited `module`; None if it did not change, NotVerified
    (a CandidateRejected) if it does not verify."""
    irx.verify(module)
    text = irx.to_text(module)
    if text == current.candidate.text:
        return None
    return Proposal(current.candidate.with_text(text), irx.count_ops(module))
