"""Remove nodes of a PyTorch program; each value still read becomes a new input that carries it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.support.fx_edit import FxPass, Values

if TYPE_CHECKING:
    from reducer.graphs.torch_program import Editable


class FxRemoveNodes(FxPass):

    def targets(self, ed: Editable) -> list[str]:
        return [node.name for node in ed.tensor_ops()]

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        from reducer.graphs.torch_program import placeholder_for

        gone = set(chosen)
        computed = values()
        for node in [n for n in ed.tensor_ops() if n.name in gone]:
            if node.users:
                node.replace_all_uses_with(placeholder_for(ed, node, computed.get(node.name)))
            ed.graph.erase_node(node)
