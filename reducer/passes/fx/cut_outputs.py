"""Make one node's value the program's only output, dropping what it does not need (a window
search by bisection, as `onnx-cut-outputs`); buffer updates go with the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.support.fx_edit import FxPass, Values

if TYPE_CHECKING:
    from reducer.graphs.torch_program import Editable


class FxCutOutputs(FxPass):

    def targets(self, ed: Editable) -> list[str]:
        # Graph order: an earlier node keeps less of the program.
        return [node.name for node in ed.tensor_ops()]

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        from reducer.graphs.torch_program import output_node

        kept = next(n for n in ed.tensor_ops() if n.name == chosen[0])
        output_node(ed.graph).args = ((kept,),)
        for update in ed.updates():  # after the output: an in-place update (index_copy_) may be one of its values
            if not update.users:
                ed.graph.erase_node(update)
