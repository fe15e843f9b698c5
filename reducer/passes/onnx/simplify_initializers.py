"""Initializers and Constant values become zeros of the same shape and type."""

from __future__ import annotations

import onnx

from reducer.passes.support.onnx_edit import (
    OnnxPass,
    constant_value,
    is_constant,
    is_zero,
    zeros_like,
)


class OnnxSimplifyInitializers(OnnxPass):

    def targets(self, model: onnx.ModelProto) -> list[tuple[str, str]]:
        found = [("initializer", t.name) for t in model.graph.initializer if not is_zero(t)]
        for node in model.graph.node:
            value = constant_value(node) if is_constant(node) else None
            if value is not None and not is_zero(value.t):
                found.append(("constant", node.output[0]))
        return found

    def edit(self, model, chosen, types) -> None:
        graph = model.graph
        initializers = {name for kind, name in chosen if kind == "initializer"}
        constants = {name for kind, name in chosen if kind == "constant"}
        for tensor in graph.initializer:
            if tensor.name in initializers:
                tensor.CopyFrom(zeros_like(tensor))
        for node in graph.node:
            if is_constant(node) and node.output and node.output[0] in constants:
                value = constant_value(node)
                value.t.CopyFrom(zeros_like(value.t))
