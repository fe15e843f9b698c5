"""Remove nodes of a PyTorch program; each value still read becomes a new input that carries it
(a multi-output node's at its getitems, one input per tensor read)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.support.fx_edit import FxPass, Values

if TYPE_CHECKING:
    from reducer.graphs.torch_program import Editable


class FxRemoveNodes(FxPass):

    def targets(self, ed: Editable) -> list[str]:
        return [node.name for node in ed.cuttable_ops()]

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        from reducer.graphs.torch_program import erase_unread, stand_in_for

        gone = set(chosen)
        computed = values()
        for node in [n for n in ed.cuttable_ops() if n.name in gone]:
            stand_in_for(ed, node, lambda _: True, computed)
            erase_unread(ed, [node])
