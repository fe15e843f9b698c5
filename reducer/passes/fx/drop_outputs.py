"""Drop outputs and buffer updates of a PyTorch program, and what only they needed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.support.fx_edit import FxPass, Values

if TYPE_CHECKING:
    from reducer.graphs.torch_program import Editable


class FxDropOutputs(FxPass):

    def targets(self, ed: Editable) -> list[tuple[str, int]]:
        return [("output", j) for j in range(len(ed.outputs()))] + [("update", k) for k in range(len(ed.updates()))]

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        from reducer.graphs.torch_program import Invalid, output_node

        gone = set(chosen)
        outputs = [n for j, n in enumerate(ed.outputs()) if ("output", j) not in gone]
        updates = ed.updates()
        if not outputs:
            raise Invalid("a program needs an output")
        for k, update in enumerate(updates):
            if ("update", k) in gone:
                ed.graph.erase_node(update)
        output_node(ed.graph).args = (tuple(outputs),)
