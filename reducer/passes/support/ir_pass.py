"""The pass protocol on MLIR: a pass over the parsed module that lists targets and edits a fresh copy
(the search's protocol, reducer/search/protocol.py, for IR)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support import argument_data
from reducer.proposal import Proposal
from reducer.search.protocol import ReductionPass


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
