"""Drop node attributes the op schema does not require."""

from __future__ import annotations

import onnx

from reducer.passes.support.onnx_edit import OnnxPass, is_constant, replace, required_attributes


class OnnxDropAttributes(OnnxPass):

    def targets(self, model: onnx.ModelProto) -> list[tuple[int, str]]:
        found = []
        for i, node in enumerate(model.graph.node):
            if is_constant(node):
                continue
            required = required_attributes(model, node)
            found.extend((i, attr.name) for attr in node.attribute if attr.name not in required)
        return found

    def edit(self, model, chosen, types) -> None:
        by_node: dict[int, set[str]] = {}
        for i, name in chosen:
            by_node.setdefault(i, set()).add(name)
        for i, names in by_node.items():
            node = model.graph.node[i]
            replace(node.attribute, [a for a in node.attribute if a.name not in names])
