"""Shrink the static sizes of a PyTorch program's inputs and tensors; size arguments follow."""

from __future__ import annotations

from iree.compiler import ir

from reducer.proposal import Proposal
from reducer.search.protocol import Convert, ShrinkPass


class FxShrinkShapes(ShrinkPass):
    """Targets are sizes: every static dim of one size (of the inputs, parameters, buffers and
    constants) shrinks at once, with the size arguments (a view's, a norm's) that equal it; the
    export re-traces every other shape and refuses a program whose shapes no longer agree."""

    def dimensions(self, current: Proposal, ctx: ir.Context) -> list[tuple[str, int]]:
        if current.candidate.binary is None:
            return []
        from reducer.graphs import torch_program

        found = torch_program.sizes(torch_program.editable_of(current.candidate.binary, current.candidate.data))
        return [(f"size {size}", size) for size in sorted(found, reverse=True)]

    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context, convert: Convert) -> Proposal | None:
        from reducer.graphs import torch_program
        from reducer.passes.support.fx_edit import fx_proposal

        old = int(key.removeprefix("size "))
        if current.candidate.binary is None or not 1 <= size < old:
            return None
        ed = torch_program.editable_of(current.candidate.binary, current.candidate.data)
        try:
            torch_program.resize(ed, old, size)
            return fx_proposal(current, ed)
        except torch_program.Invalid:
            return None
