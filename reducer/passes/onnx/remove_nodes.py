"""Remove nodes; their outputs become graph inputs."""

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


class OnnxRemoveNodes(OnnxPass):

    def targets(self, model: onnx.ModelProto) -> list[int]:
        return [i for i, node in enumerate(model.graph.node) if not is_constant(node)]

    def edit(self, model, chosen, types) -> None:
        graph = model.graph
        gone = set(chosen)
        remaining = [n for i, n in enumerate(graph.node) if i not in gone]
        still_read = {o.name for o in graph.output}
        for node in remaining:
            still_read |= reads(node)
        declared = {i.name for i in graph.input}
        new_inputs = []
        for i in sorted(gone):
            for name in graph.node[i].output:
                if name and name in still_read and name not in declared:
                    info = value_info(name, types)
                    if info is None:
                        raise Invalid(name)
                    new_inputs.append(info)
                    declared.add(name)
        replace(graph.node, remaining)
        replace(graph.input, [*graph.input, *new_inputs])
        prune(graph)
