"""Shrink the static sizes of a PyTorch program's inputs and tensors; size arguments follow."""

from __future__ import annotations

from iree.compiler import ir

from reducer.proposal import Proposal
from reducer.search.protocol import Convert, ShrinkPass


class FxShrinkShapes(ShrinkPass):
    """Targets are sizes: every static dim of one size (of the inputs, parameters, buffers and
    constants) shrinks at once, with the size arguments (a view's, a norm's) that equal it; the
    export re-traces every other shape and refuses a program whose shapes no longer agree. Then
    each input dim whose size others share, alone: the class moves together, and one input's dim
    (a batch of 2 in q, where k and v keep theirs) may still shrink without the rest."""

    def dimensions(self, current: Proposal, ctx: ir.Context) -> list[tuple[str, int]]:
        if current.candidate.binary is None:
            return []
        from reducer.graphs import torch_program

        ed = torch_program.editable_of(current.candidate.binary, current.candidate.data)
        classes = [(f"size {size}", size) for size in sorted(torch_program.sizes(ed), reverse=True)]
        return classes + [(f"input {name} axis {axis}", size) for name, axis, size in torch_program.shared_input_axes(ed)]

    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context, convert: Convert) -> Proposal | None:
        from reducer.graphs import torch_program
        from reducer.passes.support.fx_edit import fx_proposal

        if current.candidate.binary is None or size < 1:
            return None
        ed = torch_program.editable_of(current.candidate.binary, current.candidate.data)
        try:
            if key.startswith("input "):
                name, axis = key.removeprefix("input ").split(" axis ")
                torch_program.resize_input_axis(ed, name, int(axis), size)
            elif size < int(key.removeprefix("size ")):
                torch_program.resize(ed, int(key.removeprefix("size ")), size)
            else:
                return None
            return fx_proposal(current, ed)
        except torch_program.Invalid:
            return None
