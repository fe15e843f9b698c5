"""Drop every node before a cut point; the values crossing it become new inputs that carry them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.support.fx_edit import FxPass, Values

if TYPE_CHECKING:
    import torch

    from reducer.graphs.torch_program import Editable


class FxCutInputs(FxPass):

    def targets(self, ed: Editable) -> list[int]:
        # Cut points, latest first: target 0 keeps the least, so (as the bisection assumes) once
        # one keeps the failure every later one, keeping more, usually does too.
        return list(reversed(range(1, len(ed.ops()))))

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        from reducer.graphs.torch_program import (
            Invalid,
            erase_unread,
            is_selection,
            output_node,
            stand_in_for,
            tensors_of,
        )

        ops = ed.ops()
        before, after = ops[: chosen[0]], set(ops[chosen[0] :])
        dropped = set(before) | {s for n in before for s in n.users if is_selection(s)}
        outputs = [n for n in ed.outputs() if n not in dropped]
        if not outputs:
            raise Invalid("no output is left after the cut")
        output_node(ed.graph).args = (tuple(outputs),)
        computed = values()

        def crosses(user: torch.fx.Node) -> bool:
            return user in after or user.op == "output"

        for node in before:
            if not tensors_of(node) and any(crosses(user) for user in node.users):
                raise Invalid(f"{node.name} is no tensor and cannot become an input")
            stand_in_for(ed, node, crosses, computed)  # a multi-output node is cut at its getitems
        erase_unread(ed, before)
