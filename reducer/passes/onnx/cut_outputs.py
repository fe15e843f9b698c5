"""Make one node's output the graph's only output (a window search by bisection)."""

from __future__ import annotations

import onnx

from reducer.passes.support.onnx_edit import (
    Invalid,
    OnnxPass,
    is_constant,
    prune,
    replace,
    value_info,
)


class OnnxCutOutputs(OnnxPass):

    def targets(self, model: onnx.ModelProto) -> list[tuple[int, str]]:
        # Topological order: an earlier output keeps less of the graph. Constants are skipped.
        return [
            (i, name)
            for i, node in enumerate(model.graph.node)
            if not is_constant(node)
            for name in node.output
            if name
        ]

    def edit(self, model, chosen, types) -> None:
        _, name = chosen[0]
        info = value_info(name, types)
        if info is None:
            raise Invalid(name)
        replace(model.graph.output, [info])
        prune(model.graph)
