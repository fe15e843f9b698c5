"""Replace nodes of a PyTorch program with a constant of zeros of their shape (a buffer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.support.fx_edit import FxPass, Values

if TYPE_CHECKING:
    from reducer.graphs.torch_program import Editable


class FxReplaceWithConstant(FxPass):

    def targets(self, ed: Editable) -> list[str]:
        from reducer.graphs.torch_program import static_shape

        return [node.name for node in ed.tensor_ops() if node.users and static_shape(node) is not None]

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        from reducer.graphs.torch_program import constant_for, zeros_like_node

        gone = set(chosen)
        for node in [n for n in ed.tensor_ops() if n.name in gone]:
            node.replace_all_uses_with(constant_for(ed, node, zeros_like_node(node)))
            ed.graph.erase_node(node)
