"""Drop every node before a cut point; the values crossing it become new inputs that carry them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.support.fx_edit import FxPass, Values

if TYPE_CHECKING:
    from reducer.graphs.torch_program import Editable


class FxCutInputs(FxPass):

    def targets(self, ed: Editable) -> list[int]:
        # Cut points, latest first: target 0 keeps the least, so (as the bisection assumes) once
        # one keeps the failure every later one, keeping more, usually does too.
        return list(reversed(range(1, len(ed.ops()))))

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        from reducer.graphs.torch_program import Invalid, output_node, placeholder_for

        ops = ed.ops()
        before, after = ops[: chosen[0]], set(ops[chosen[0] :])
        dropped = set(before)
        outputs = [n for n in ed.outputs() if n not in dropped]
        if not outputs:
            raise Invalid("no output is left after the cut")
        output_node(ed.graph).args = (tuple(outputs),)
        computed = values()
        for node in before:
            readers = [user for user in node.users if user in after or user.op == "output"]
            if readers and node not in ed.tensor_ops():
                raise Invalid(f"{node.name} is no tensor and cannot become an input")
            if readers:
                stand_in = placeholder_for(ed, node, computed.get(node.name))
                for user in readers:
                    user.replace_input_with(node, stand_in)
        for node in reversed(before):
            if not node.users:
                ed.graph.erase_node(node)
