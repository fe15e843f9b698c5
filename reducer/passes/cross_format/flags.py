"""Keep only the compile flags the failure needs."""

from __future__ import annotations

from collections.abc import Sequence

from iree.compiler import ir

from reducer.proposal import Proposal
from reducer.search.protocol import ReductionPass


class ReduceFlags(ReductionPass):

    def count(self, current: Proposal, ctx: ir.Context) -> int:
        return len(current.candidate.flags)

    def apply(self, current: Proposal, chosen: Sequence[int], ctx: ir.Context) -> Proposal | None:
        drop = set(chosen)
        flags = tuple(f for i, f in enumerate(current.candidate.flags) if i not in drop)
        if flags == current.candidate.flags:
            return None
        return Proposal(current.candidate.with_flags(flags), current.ops)
