"""Drop every node before a cut point; the tensors crossing it become graph inputs."""

from __future__ import annotations

import onnx

from reducer.passes.support.onnx_edit import (
    Invalid,
    OnnxPass,
    is_constant,
    prune,
    reads,
    replace,
    value_info,
)


class OnnxCutInputs(OnnxPass):

    def targets(self, model: onnx.ModelProto) -> list[int]:
        # Cut points, latest first: target 0 keeps the least, so (as the bisection assumes) once
        # one target keeps the failure every later one, keeping more, usually does too.
        positions = [i for i, node in enumerate(model.graph.node) if not is_constant(node)]
        return list(reversed(positions[1:]))

    def edit(self, model, chosen, types) -> None:
        cut = chosen[0]
        graph = model.graph
        nodes = list(graph.node)
        dropped = [n for n in nodes[:cut] if not is_constant(n)]
        lost = {name for node in dropped for name in node.output if name}
        kept = [n for n in nodes[:cut] if is_constant(n)] + nodes[cut:]
        crossing: list[str] = []
        for node in nodes[cut:]:
            for name in [*node.input, *sorted(reads(node) - set(node.input))]:
                if name in lost and name not in crossing:
                    crossing.append(name)
        outputs = [o for o in graph.output if o.name not in lost]
        if not outputs:
            raise Invalid("no graph output is left after the cut")
        new_inputs = []
        for name in crossing:
            info = value_info(name, types)
            if info is None:
                raise Invalid(name)
            new_inputs.append(info)
        replace(graph.node, kept)
        replace(graph.output, outputs)
        replace(graph.input, [*graph.input, *new_inputs])
        prune(graph)
